package dataset

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/matrix"
)

// checkFuzzResult asserts the reader contract: either a usable result or a
// *ParseError (or ErrOptions error), never both or neither.
func checkFuzzResult(t *testing.T, d *Data, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) && !errors.Is(err, ErrOptions) {
			t.Fatalf("error %q (%T) is not a *ParseError", err, err)
		}
		if d != nil {
			t.Fatal("data returned with an error")
		}
		return
	}
	r, c := d.X.Dims()
	if r == 0 || d.Rows() != r {
		t.Fatalf("X is %d×%d, Rows() = %d", r, c, d.Rows())
	}
	if csr, ok := d.X.(*matrix.CSR); ok {
		if _, err := matrix.NewCSR(r, c, csr.Indptr, csr.Indices, csr.Values); err != nil {
			t.Fatal(err)
		}
	}
	if d.Y != nil {
		if yr, _ := d.Y.Dims(); yr != r {
			t.Fatalf("Y has %d rows, X %d", yr, r)
		}
	}
	if d.Queries != nil && len(d.Queries) != r {
		t.Fatalf("%d queries for %d rows", len(d.Queries), r)
	}
}

func FuzzReadSVMLight(f *testing.F) {
	for _, s := range []string{
		"1 1:1 3:2\n-1 2:0.5\n",
		"1 qid:a 1:1\n2 qid:b 2:2 # c\r\n",
		"1,2 1:1\n3,4\n",
		"1 0:1\n", "1 2:1 1:1\n", "# x\n\n", "1:1\n", "1 qid:\n",
	} {
		f.Add(s, 0, false)
	}
	f.Fuzz(func(t *testing.T, in string, width int, dense bool) {
		width %= 1000
		d, err := ReadSVMLight(strings.NewReader(in), "f.svm", SVMLightOptions{Width: width, Dense: dense})
		checkFuzzResult(t, d, err)
	})
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,y\n1,2\n", "q,a,y\nx,1,2\n", "y\n1\n", "a,y\n1,2,3\n", "\"a\",y\n\"1\n\",2\n", "",
	} {
		f.Add(s, "y", "q")
	}
	f.Fuzz(func(t *testing.T, in, label, qid string) {
		var labels []string
		if label != "" {
			labels = strings.Split(label, "|")
		}
		d, err := ReadCSV(strings.NewReader(in), "f.csv", CSVOptions{Labels: labels, Qid: qid})
		checkFuzzResult(t, d, err)
	})
}

func FuzzReadFolds(f *testing.F) {
	for _, s := range []string{"0 1\n2\n", "0 0\n", "-1\n", "x\n", ""} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, m int) {
		m %= 1 << 16
		for _, read := range []func() (int, error){
			func() (int, error) { f, err := ReadFolds(strings.NewReader(in), "f", m); return len(f), err },
			func() (int, error) { i, err := ReadIndices(strings.NewReader(in), "f", m); return len(i), err },
		} {
			n, err := read()
			if err == nil && n == 0 {
				t.Fatal("no error and no result")
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) && !errors.Is(err, ErrOptions) {
					t.Fatalf("error %q is not a *ParseError", err)
				}
				if pe != nil && pe.Line > 0 && !strings.HasPrefix(err.Error(), "f:"+strconv.Itoa(pe.Line)+": ") {
					t.Fatalf("error %q does not show line %d", err, pe.Line)
				}
			}
		}
	})
}
