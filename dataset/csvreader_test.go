package dataset

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// csvRecords is what a CSV reader made of an input: the records, each
// field's line, and the error that ended it (nil at the end of the input).
type csvRecords struct {
	fields [][]string
	lines  [][]int
	err    string // "line:column:error" of a syntax error, or a read error
}

// oracleCSV reads in with encoding/csv, configured as the package's reader
// was before it had its own: the delimiter, any number of fields.
func oracleCSV(in string, comma rune) csvRecords {
	cr := csv.NewReader(strings.NewReader(in))
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	var out csvRecords
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				out.err = fmt.Sprintf("%d:%d:%v", pe.Line, pe.Column, pe.Err)
			} else {
				out.err = err.Error()
			}
			return out
		}
		lines := make([]int, len(rec))
		for j := range rec {
			lines[j], _ = cr.FieldPos(j)
		}
		out.fields = append(out.fields, rec)
		out.lines = append(out.lines, lines)
	}
}

// ownCSV reads in with csvReader: from a stream (through src) or, with src
// nil, as a block of text.
func ownCSV(in string, comma rune, src io.Reader) csvRecords {
	r := newCSVReader(comma, limits{})
	if src != nil {
		r.src = bufio.NewReaderSize(src, 16) // small: lines longer than the buffer are common
	} else {
		r.text = []byte(in)
	}
	var out csvRecords
	for {
		err := r.read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			var se *csvSyntaxError
			if errors.As(err, &se) {
				out.err = fmt.Sprintf("%d:%d:%v", se.line, se.col, se.err)
			} else {
				out.err = err.Error()
			}
			return out
		}
		n := r.fields()
		rec, lines := make([]string, n), make([]int, n)
		for j := range rec {
			rec[j], lines[j] = string(r.field(j)), r.fieldLine(j)
		}
		out.fields = append(out.fields, rec)
		out.lines = append(out.lines, lines)
	}
}

func checkCSVReader(t *testing.T, in string, comma rune) {
	t.Helper()
	want := oracleCSV(in, comma)
	for _, src := range []io.Reader{nil, strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
		if got := ownCSV(in, comma, src); !reflect.DeepEqual(got, want) {
			t.Fatalf("input %q (delimiter %q, stream %v):\n got %q %v %q\nwant %q %v %q", in, comma, src != nil,
				got.fields, got.lines, got.err, want.fields, want.lines, want.err)
		}
	}
}

// randomCSV writes text made of the pieces CSV quoting is about.
func randomCSV(rng *rand.Rand, comma rune, n int) string {
	c := string(comma)
	pieces := []string{"a", "1.5", "-2e3", " ", c, c, c, "\n", "\n", "\r\n", "\r", "\"", "\"\"", "\"" + c, c + "\"",
		"\"x\"", "\"a" + c + "b\"", "\"l1\nl2\"", "\"l1\r\nl2\"", "\"\"\"\"", "\ufeff", "\u00e9", "\t", "x\"y", "\"\"x"}
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func TestCSVReaderMatchesEncodingCSV(t *testing.T) {
	for _, in := range []string{
		"", "\n", "\r\n", "\r", "a", "a\r", "a\r\r\n", "a,b\n", "a,b", "a,\"b\"\n", "\"a\nb\",c\n", "\"a\r\nb\",c",
		"\"a\"\"b\",c\n", "\"a\"b,c\n", "a\"b,c\n", "\"abc", "\"abc\n", "\"abc\r", "a,\"\"\n", "\"\",\"\"\n", ",,\n", "\n\na\n\n",
		"\"a\"\r\n", "\"a\" ,b\n", "a,\"b\nc\"d\n", "x\n\"y\n", "\"\"\"", "\"\n\"\n", "a,b\n\"\n",
	} {
		for _, comma := range []rune{',', ';', '\t', '€'} {
			checkCSVReader(t, strings.ReplaceAll(in, ",", string(comma)), comma)
		}
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		comma := []rune{',', ';', '\t', '€', ' '}[rng.IntN(5)]
		checkCSVReader(t, randomCSV(rng, comma, rng.IntN(30)), comma)
	}
}

// FuzzCSVReader holds csvReader to encoding/csv on any input: the same
// records and field lines, or the same error at the same line and byte.
func FuzzCSVReader(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "\"a\nb\",\"c\"\"d\"\r\n", "a\"b\n", "\"a\"b\n", "\"open\n", "x,y\r", "\n\n,\n"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, in string, delim int) {
		comma := []rune{',', ';', '\t', '€'}[(delim%4+4)%4]
		checkCSVReader(t, in, comma)
	})
}

// seqCSV is the oracle of the CSV block reader: the sequential reader, its
// general path only.
func seqCSV(in string, opt CSVOptions) (*Data, error) {
	return generalOnly(func() (*Data, error) {
		p, err := newCSVParser(strings.NewReader(in), "f", opt)
		if err != nil {
			return nil, err
		}
		return readWhole(p)
	})
}

// randomCSVData writes a CSV data set with a header y,q,f1..fd: numbers
// mostly as the fast path takes them, with quoted fields (some holding
// line breaks), spaces, empty lines and, at rate bad, errors of every kind.
func randomCSVData(rng *rand.Rand, rows, d int, bad float64, comma string) string {
	var b strings.Builder
	b.WriteString("y" + comma + "q")
	for j := 1; j <= d; j++ {
		fmt.Fprintf(&b, "%sf%d", comma, j)
	}
	b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
	num := func() string {
		switch rng.IntN(8) {
		case 0:
			return strconv.Itoa(rng.IntN(100))
		case 1:
			return strconv.FormatFloat(rng.NormFloat64(), 'g', 17, 64)
		case 2:
			return " " + strconv.FormatFloat(rng.NormFloat64(), 'g', 5, 64) + " "
		case 3:
			return "\"" + strconv.FormatFloat(rng.NormFloat64(), 'g', 5, 64) + "\""
		default:
			return strconv.FormatFloat(rng.NormFloat64(), 'g', 1+rng.IntN(12), 64)
		}
	}
	odd := []string{"x", "nan", "", "1_0", "\"1\n\"", "1\"", "\"1\"x", "\"open", "1e400", "\" 2 \"", "Inf", "0x10"}
	for range rows {
		if rng.Float64() < bad/2 {
			b.WriteString([]string{"\n", "\r\n", " \n"}[rng.IntN(3)])
		}
		b.WriteString(num())
		q := fmt.Sprintf("q%d", rng.IntN(6))
		switch rng.IntN(10) {
		case 0:
			q = "\"q" + comma + "\nz\""
		case 1:
			q = " " + q
		}
		b.WriteString(comma + q)
		n := d
		if rng.Float64() < bad/4 {
			n += rng.IntN(3) - 1
		}
		for range n {
			b.WriteString(comma)
			if rng.Float64() < bad {
				b.WriteString(odd[rng.IntN(len(odd))])
			} else {
				b.WriteString(num())
			}
		}
		b.WriteString([]string{"\n", "\n", "\r\n"}[rng.IntN(3)])
	}
	if rng.IntN(3) == 0 {
		return strings.TrimSuffix(b.String(), "\n")
	}
	return b.String()
}

func TestCSVBlocksMatchSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 2000; trial++ {
		bad := []float64{0, 0, 0.002, 0.02, 0.2}[rng.IntN(5)]
		comma := []string{",", ";", "\t", "€"}[rng.IntN(4)]
		in := randomCSVData(rng, 1+rng.IntN(60), 1+rng.IntN(4), bad, comma)
		opt := CSVOptions{Labels: []string{"y"}}
		switch rng.IntN(3) {
		case 0:
			opt.Qid = "q"
		case 1:
			opt.Labels = []string{"f1", "y"}
			opt.Qid = "q"
		}
		want, wantErr := seqCSV(in, opt)
		size, workers := 1+rng.IntN(300), 1+rng.IntN(4)
		withBlocks(t, size, workers)
		what := fmt.Sprintf("trial %d (blocks of %d, %d workers, %+v)\n%q", trial, size, workers, opt, in)
		d, err := ReadCSV(strings.NewReader(in), "f", opt)
		sameRead(t, what, d, err, want, wantErr)
		d, err = ReadCSV(iotest.HalfReader(strings.NewReader(in)), "f", opt)
		sameRead(t, what+" (half reader)", d, err, want, wantErr)
		p, _ := newCSVParser(strings.NewReader(in), "f", opt)
		if p != nil {
			d, err = readWhole(p)
			sameRead(t, what+" (sequential, fast path)", d, err, want, wantErr)
		}
	}
}

// A large CSV file on several workers, and errors far into it: the rows, the
// query codes and the error lines of the sequential reader.
func TestCSVBlocksLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	in := randomCSVData(rng, 20000, 5, 0, ",")
	opt := CSVOptions{Labels: []string{"y"}, Qid: "q"}
	want, wantErr := seqCSV(in, opt)
	if wantErr != nil {
		t.Fatal(wantErr)
	}
	lines := strings.SplitAfter(in, "\n")
	late := strings.Join(lines[:15000], "") + "1,q,2,3,x,5,6\n" + strings.Join(lines[15000:], "")
	openQuote := strings.Join(lines[:9000], "") + "1,\"q,2,3,4,5,6\n" + strings.Join(lines[9000:], "")
	for _, workers := range []int{1, 2, 4} {
		withBlocks(t, 4096, workers)
		before := handOvers.Load()
		d, err := ReadCSV(strings.NewReader(in), "f", opt)
		sameRead(t, fmt.Sprintf("%d workers", workers), d, err, want, wantErr)
		if n := handOvers.Load() - before; n != 0 {
			t.Fatalf("%d workers: well-formed input (quoted line breaks included) handed over to the sequential reader %d times", workers, n)
		}
		for name, bad := range map[string]string{"late error": late, "quote opened late": openQuote} {
			w, werr := seqCSV(bad, opt)
			d, err := ReadCSV(strings.NewReader(bad), "f", opt)
			sameRead(t, name, d, err, w, werr)
			if err == nil {
				t.Fatalf("%s: no error", name)
			}
		}
	}
}

func FuzzCSVBlocks(f *testing.F) {
	f.Add("y,q,a\n1,x,2\n3,\"y\nz\",4\n5,x,6\n", 7, 2)
	f.Add("y;a\n1;2\n\n3;\"4\"\n", 3, 3)
	f.Add("y,a\n1,2\n3,4\"\n5,6\n", 5, 2)
	f.Fuzz(func(t *testing.T, in string, size, workers int) {
		withBlocks(t, 1+(size%512+512)%512, 1+(workers%4+4)%4)
		for _, opt := range []CSVOptions{{Labels: []string{"y"}}, {Labels: []string{"y"}, Qid: "q"}} {
			want, wantErr := seqCSV(in, opt)
			d, err := ReadCSV(strings.NewReader(in), "f", opt)
			sameRead(t, "blocks", d, err, want, wantErr)
		}
	})
}
