package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/matrix"
)

// fastDecimal must be parseValue's general path bit for bit wherever it
// answers: strconv.ParseFloat is the oracle.
func checkFastDecimal(t *testing.T, s string) {
	t.Helper()
	v, ok := fastDecimal(s)
	if !ok {
		return
	}
	if !isDecimal(s) {
		t.Fatalf("fastDecimal(%q) = %v, but it is not a decimal", s, v)
	}
	want, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("fastDecimal(%q) = %v, ParseFloat: %v", s, v, err)
	}
	if math.Float64bits(v) != math.Float64bits(want) {
		t.Fatalf("fastDecimal(%q) = %v (%#x), ParseFloat %v (%#x)", s, v, math.Float64bits(v), want, math.Float64bits(want))
	}
}

func TestFastDecimal(t *testing.T) {
	taken := []string{"0", "-0", "+0", "1", "-1", "0.5", ".5", "5.", "-.5", "1e5", "1E-5", "1.5e+3",
		"123456789012345", "9007199254740991", "0.1", "0.3", "2.2250738585072014e-8", "4.9e-10",
		"1e22", "1e-22", "0.000123", "00012.5000", "6.02e23", "3.141592653589793"}
	for _, s := range taken {
		checkFastDecimal(t, s)
		if _, ok := fastDecimal(s); !ok && s != "6.02e23" && s != "2.2250738585072014e-8" && s != "3.141592653589793" {
			t.Errorf("fastDecimal(%q) left to the slow path", s)
		}
	}
	// the general path's cases: syntax it must judge, values it must round
	left := []string{"", "+", "-", ".", "e5", "1e", "1e+", "1_0", "0x1p-3", "Inf", "NaN", "1.5.2", "1e5x", " 1",
		"9007199254740993", "1e23", "1e-23", "123456789012345678901", "1e400", "1e-400", "0.1e-22"}
	for _, s := range left {
		if v, ok := fastDecimal(s); ok {
			t.Errorf("fastDecimal(%q) = %v: want the general path", s, v)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var s string
		switch rng.IntN(4) {
		case 0:
			s = strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), 'g', 1+rng.IntN(17), 64)
		case 1:
			s = strconv.FormatFloat(rng.Float64(), 'f', rng.IntN(20), 64)
		case 2:
			s = strconv.FormatInt(rng.Int64N(1<<62)-(1<<61), 10)
		default:
			s = strconv.FormatFloat(rng.ExpFloat64(), 'e', rng.IntN(18), 64)
		}
		checkFastDecimal(t, s)
	}
}

func FuzzFastDecimal(f *testing.F) {
	for _, s := range []string{"1.5", "-0.000123e4", "9007199254740991", "1e22", ".5e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFastDecimal(t, s) })
}

// The svmlight parser reads lines in place (lineReader.nextBytes): query
// names must be copied out before the buffer is reused. 20,000 rows (well
// past the 64 KiB buffer) in 2,000 queries named by strings.
func TestSVMLightQueryNamesSurviveBufferReuse(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "%d qid:query-%05d 1:%d.5 7:-%d\n", i%3, i/10, i, i%11)
	}
	d, err := ReadSVMLight(strings.NewReader(b.String()), "q.svm", SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.QueryNames) != 2000 {
		t.Fatalf("%d query names, want 2000", len(d.QueryNames))
	}
	for q, name := range d.QueryNames {
		if want := fmt.Sprintf("query-%05d", q); name != want {
			t.Fatalf("query %d named %q, want %q", q, name, want)
		}
	}
	x := d.X.(*matrix.CSR)
	for i := range 20000 {
		if d.Queries[i] != i/10 || d.Y.At(i, 0) != float64(i%3) || x.At(i, 0) != float64(i)+0.5 || x.At(i, 6) != -float64(i%11) {
			t.Fatalf("row %d read wrong", i)
		}
	}
}

// scanDecimal parses a field in place: wherever it answers, the number it
// read is fastDecimal's (and strconv's) value of exactly the bytes it
// consumed, whatever follows them.
func FuzzScanDecimal(f *testing.F) {
	for _, s := range []string{"1.5 2", "-0.000123e4,x", "9007199254740991:", "1e22#", ".5e-3\t", "1e5x", "1.e", "+.5e+1 "} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		if len(s) == 0 {
			return
		}
		i = (i%len(s) + len(s)) % len(s)
		v, end, ok := scanDecimal([]byte(s), i)
		if !ok {
			return
		}
		if end <= i || end > len(s) {
			t.Fatalf("scanDecimal(%q, %d) ends at %d", s, i, end)
		}
		w, wok := fastDecimal(s[i:end])
		if !wok || math.Float64bits(v) != math.Float64bits(w) {
			t.Fatalf("scanDecimal(%q, %d) = %v up to %d; fastDecimal(%q) = %v, %v", s, i, v, end, s[i:end], w, wok)
		}
		checkFastDecimal(t, s[i:end])
	})
}
