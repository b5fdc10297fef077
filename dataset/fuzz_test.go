package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/parquet-go/parquet-go"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// The fuzz targets check the reader contract on any input — a usable result or
// a *ParseError, never a panic — and that the rules do not depend on how the
// input is cut: the whole-file read equals ReadChunks with small chunks, and a
// reader fed one byte at a time reads the same. Seed corpora are in
// testdata/fuzz/<FuzzName>; run one target with
//
//	go test -run '^$' -fuzz '^FuzzReadSVMLight$' -fuzztime 10s ./dataset

// checkFuzzResult asserts the reader contract: either a usable result or a
// *ParseError (or ErrOptions error), never both or neither.
func checkFuzzResult(t *testing.T, d *Data, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) && !errors.Is(err, ErrOptions) {
			t.Fatalf("error %q (%T) is not a *ParseError", err, err)
		}
		if pe != nil && pe.Line > 0 && !strings.Contains(err.Error(), ":"+strconv.Itoa(pe.Line)+": ") {
			t.Fatalf("error %q does not show line %d", err, pe.Line)
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
		if !allFinite(csr.Values) {
			t.Fatal("non-finite value read")
		}
	} else if !allFinite(d.X.(*mat.Dense).RawMatrix().Data) {
		t.Fatal("non-finite value read")
	}
	if d.Y != nil {
		if yr, _ := d.Y.Dims(); yr != r {
			t.Fatalf("Y has %d rows, X %d", yr, r)
		}
		if !allFinite(d.Y.RawMatrix().Data) {
			t.Fatal("non-finite label read")
		}
	}
	if d.Queries != nil && len(d.Queries) != r {
		t.Fatalf("%d queries for %d rows", len(d.Queries), r)
	}
	for _, q := range d.Queries {
		if q < 0 || q >= len(d.QueryNames) {
			t.Fatalf("query code %d of %d names", q, len(d.QueryNames))
		}
	}
}

// gzipString returns s gzip-compressed.
func gzipString(s string) []byte {
	var b strings.Builder
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return []byte(b.String())
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// fuzzRow is one row's stored entries, to compare data sets bit for bit.
type fuzzRow struct {
	idx []int
	val []uint64
	y   []uint64
	q   string
}

func rowsOf(d *Data) []fuzzRow {
	out := make([]fuzzRow, d.Rows())
	for i := range out {
		switch x := d.X.(type) {
		case *matrix.CSR:
			idx, val := x.Row(i)
			for k, v := range val {
				out[i].idx = append(out[i].idx, idx[k])
				out[i].val = append(out[i].val, math.Float64bits(v))
			}
		case *mat.Dense:
			for j, v := range x.RawRowView(i) {
				out[i].idx = append(out[i].idx, j)
				out[i].val = append(out[i].val, math.Float64bits(v))
			}
		}
		if d.Y != nil {
			for _, v := range d.Y.RawRowView(i) {
				out[i].y = append(out[i].y, math.Float64bits(v))
			}
		}
		if d.Queries != nil {
			out[i].q = d.QueryNames[d.Queries[i]]
		}
	}
	return out
}

// checkChunks asserts that ReadChunks with small chunks gives the rows (or
// the error) of the whole-file read.
func checkChunks(t *testing.T, in, format string, csv CSVOptions, svm SVMLightOptions, whole *Data, wholeErr error) {
	t.Helper()
	for _, size := range []int{1, 2, 3, 5} {
		var rows []fuzzRow
		var last *Data
		err := ReadChunks(strings.NewReader(in), "f", format, csv, svm, size, func(d *Data, offset int) error {
			if offset != len(rows) {
				t.Fatalf("chunk at offset %d after %d rows", offset, len(rows))
			}
			if n := d.Rows(); n < 1 || n > size {
				t.Fatalf("chunk of %d rows, size %d", n, size)
			}
			checkFuzzResult(t, d, nil)
			if whole != nil && (!reflect.DeepEqual(d.LabelNames, whole.LabelNames) || !reflect.DeepEqual(d.FeatureNames, whole.FeatureNames)) {
				t.Fatalf("chunk names %v %v, whole %v %v", d.LabelNames, d.FeatureNames, whole.LabelNames, whole.FeatureNames)
			}
			rows = append(rows, rowsOf(d)...)
			last = d
			return nil
		})
		if wholeErr != nil {
			if err == nil || err.Error() != wholeErr.Error() {
				t.Fatalf("chunks of %d: error %v, whole file %v", size, err, wholeErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("chunks of %d: %v; the whole file reads", size, err)
		}
		if want := rowsOf(whole); !reflect.DeepEqual(rows, want) {
			t.Fatalf("chunks of %d: rows\n%v\nwhole file\n%v", size, rows, want)
		}
		if !reflect.DeepEqual(last.QueryNames, whole.QueryNames) {
			t.Fatalf("last chunk's query names %v, whole %v", last.QueryNames, whole.QueryNames)
		}
		if _, c := last.X.Dims(); func() bool { _, wc := whole.X.Dims(); return c != wc }() {
			t.Fatalf("last chunk's width %d differs from the whole file's", c)
		}
	}
}

// checkOneByte asserts that a reader fed one byte at a time reads the same.
func checkOneByte(t *testing.T, whole *Data, wholeErr error, d *Data, err error) {
	t.Helper()
	if (err == nil) != (wholeErr == nil) || (err != nil && err.Error() != wholeErr.Error()) {
		t.Fatalf("one byte at a time: %v, whole: %v", err, wholeErr)
	}
	if err == nil && !reflect.DeepEqual(rowsOf(d), rowsOf(whole)) {
		t.Fatal("one byte at a time reads other rows")
	}
}

func FuzzReadSVMLight(f *testing.F) {
	for _, s := range []string{
		"1 1:1 3:2\n-1 2:0.5\n",
		"1 qid:a 1:1\n2 qid:b 2:2 # c\r\n",
		"1,2 1:1\n3,4\n",
		"1 0:1\n", "1 2:1 1:1\n", "# x\n\n", "1:1\n", "1 qid:\n",
		"\ufeff1 1:1\n", "1 1:1_0\n", "1 1:0x1p-3\n", "1 5000000000:1\n", "1\n1,2\n",
	} {
		f.Add(s, 0, false)
	}
	f.Add("1 1:1\n2 3:4\n", 3, true)
	// width 1000..1999 reads 0-based, 2000..2999 decides (AutoBase)
	for _, s := range []string{"1 0:1 2:3\n2 1:1\n", "1 1:1\n2 0:2\n", "1 3:1\n2 0:2\n", "1 -1:1\n", "# Column indices are zero-based\n1 qid:1 0:0.5 4:1e-3\n"} {
		f.Add(s, 1000, false)
		f.Add(s, 2000, false)
		f.Add(s, 2003, true)
	}
	f.Add(string(gzipString("1 0:1\n2 1:2\n")), 2000, false)
	f.Add(string(gzipString("1 1:1\n2 1:2\n")[:20]), 0, false)
	f.Add("age,sex,y\n1,2,3\n", 0, false)
	f.Add("age;sex;y\n1;2;3\n", 0, false)
	f.Fuzz(func(t *testing.T, in string, width int, dense bool) {
		base := IndexBase((width%3000 + 3000) % 3000 / 1000)
		width %= 1000
		opt := SVMLightOptions{Width: width, Dense: dense, Base: base}
		d, err := ReadSVMLight(strings.NewReader(in), "f", opt)
		checkFuzzResult(t, d, err)
		d1, err1 := ReadSVMLight(iotest.OneByteReader(strings.NewReader(in)), "f", opt)
		checkOneByte(t, d, err, d1, err1)
		if errors.Is(err, ErrOptions) || (dense && width <= 0) {
			return // dense chunks need a width
		}
		if base == AutoBase {
			if err != nil {
				return // chunks decide on their first chunk
			}
			opt.Base = OneBased
			if d.ZeroBased {
				opt.Base = ZeroBased
			}
		}
		var pe *ParseError
		if dense && errors.Is(err, ErrIndex) && errors.As(err, &pe) && pe.Line == 0 {
			return // the dense size bound applies per chunk
		}
		checkChunks(t, in, "svmlight", CSVOptions{}, opt, d, err)
	})
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,y\n1,2\n", "q,a,y\nx,1,2\n", "y\n1\n", "a,y\n1,2,3\n", "\"a\",y\n\"1\n\",2\n", "",
		"\ufeff\"a\",\"y\"\n1,2\n", "a,y\n1_0,2\n", "a,y\n0x1p-3,2\n", "a,y\n1,2\n   \n", "a,y\n\n1,2\n\n",
		"a;y;q\n1;2;x\n", "a\ty\tq\n1\t2\tx\n", "\"a;b\",y\n1,2\n", "a;b,y;q\n1;2,3;4\n", "1 1:0.5 2:3\n2 1:1\n",
		string(gzipString("a;y\n1;2\n")), string(gzipString("a,y\n1,2\n3,4\n")[:25]),
	} {
		f.Add(s, "y", "q", false)
	}
	f.Add("a,b,target\n1,2,3\n", "", "", true)
	f.Fuzz(func(t *testing.T, in, label, qid string, fromHeader bool) {
		var labels []string
		if label != "" {
			labels = strings.Split(label, "|")
		}
		opt := CSVOptions{Labels: labels, Qid: qid}
		if fromHeader {
			opt.LabelsFromHeader = func(h []string) []string { return h[len(h)-1:] }
		}
		d, err := ReadCSV(strings.NewReader(in), "f", opt)
		checkFuzzResult(t, d, err)
		d1, err1 := ReadCSV(iotest.OneByteReader(strings.NewReader(in)), "f", opt)
		checkOneByte(t, d, err, d1, err1)
		if errors.Is(err, ErrOptions) {
			return
		}
		checkChunks(t, in, "csv", opt, SVMLightOptions{}, d, err)
	})
}

// checkIndexError asserts the error contract of the index readers.
func checkIndexError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) && !errors.Is(err, ErrOptions) {
		t.Fatalf("error %q is not a *ParseError", err)
	}
	if pe != nil && pe.Line > 0 && !strings.HasPrefix(err.Error(), "f:"+strconv.Itoa(pe.Line)+": ") {
		t.Fatalf("error %q does not show line %d", err, pe.Line)
	}
}

func sameErr(a, b error) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
}

func FuzzReadFolds(f *testing.F) {
	for _, s := range []string{"0 1\n2\n", "0 0\n", "-1\n", "x\n", "", "0 # c\n\n1 2\n", "1_0\n", "0x1\n", "+1\n",
		string(gzipString("0 1\n2\n")), string(gzipString("0 1\n2\n")[:15]), "\x1f\x8b\x08"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, m int) {
		m %= 1 << 16
		folds, err := ReadFolds(strings.NewReader(in), "f", m)
		folds1, err1 := ReadFolds(iotest.OneByteReader(strings.NewReader(in)), "f", m)
		if !sameErr(err, err1) || !reflect.DeepEqual(folds, folds1) {
			t.Fatalf("one byte at a time: %v %v, whole %v %v", folds1, err1, folds, err)
		}
		if err != nil {
			checkIndexError(t, err)
			return
		}
		seen := map[int]bool{}
		for _, fold := range folds {
			if len(fold) == 0 {
				t.Fatal("empty fold")
			}
			for _, i := range fold {
				if i < 0 || i >= m || seen[i] {
					t.Fatalf("index %d out of range or repeated", i)
				}
				seen[i] = true
			}
		}
		if len(folds) == 0 {
			t.Fatal("no error and no folds")
		}
	})
}

func FuzzReadIndices(f *testing.F) {
	for _, s := range []string{"0 1\n2\n", "0 0\n", "-1\n", "x\n", "", "3\n", "1_0\n", "0x1\n",
		string(gzipString("0 1\n2\n")), string(gzipString("2\n0 1\n")[:18])} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, m int) {
		m %= 1 << 16
		idx, err := ReadIndices(strings.NewReader(in), "f", m)
		idx1, err1 := ReadIndices(iotest.OneByteReader(strings.NewReader(in)), "f", m)
		if !sameErr(err, err1) || !slices.Equal(idx, idx1) {
			t.Fatalf("one byte at a time: %v %v, whole %v %v", idx1, err1, idx, err)
		}
		if err != nil {
			checkIndexError(t, err)
			return
		}
		if len(idx) == 0 {
			t.Fatal("no error and no indices")
		}
		seen := map[int]bool{}
		for _, i := range idx {
			if i < 0 || i >= m || seen[i] {
				t.Fatalf("index %d out of range or repeated", i)
			}
			seen[i] = true
		}
	})
}

func FuzzReadPreferences(f *testing.F) {
	for _, s := range []string{"0 1\n", "0 1 2.5\n1 2 0 3\n", "0 0\n", "0 1 -1\n", "0 1 1 0\n", "0 1 1 1 1\n", "0\n", "", "0 1 1_0\n", "0 1 0x1p-3\n", "0 1 inf\n",
		string(gzipString("0 1 2.5\n1 2\n")), string(gzipString("0 1 2.5\n1 2\n")[:20])} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, m int) {
		m %= 1 << 16
		prefs, err := ReadPreferences(strings.NewReader(in), "f", m)
		prefs1, err1 := ReadPreferences(iotest.OneByteReader(strings.NewReader(in)), "f", m)
		if !sameErr(err, err1) || !reflect.DeepEqual(prefs, prefs1) {
			t.Fatalf("one byte at a time: %v %v, whole %v %v", prefs1, err1, prefs, err)
		}
		if err != nil {
			checkIndexError(t, err)
			return
		}
		if len(prefs) == 0 {
			t.Fatal("no error and no preferences")
		}
		for _, p := range prefs {
			if p.I < 0 || p.I >= m || p.J < 0 || p.J >= m || p.I == p.J ||
				!(p.Magnitude >= 0) || math.IsInf(p.Magnitude, 0) || !(p.Weight > 0) || math.IsInf(p.Weight, 0) {
				t.Fatalf("bad preference %+v", p)
			}
		}
	})
}

func FuzzReadNpy(f *testing.F) {
	f.Add(npyBytes("<f8", false, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}))
	f.Add(npyBytes("<f4", true, []int{3, 1}, []float32{1, 2, 3}))
	f.Add(npyBytes("|u1", false, []int{3}, []uint8{1, 2, 3}))
	f.Add(npyBytes(">i8", false, []int{2}, []int64{-1, 7}))
	f.Add(npyBytes("|b1", false, []int{2, 2}, []bool{true, false, false, true}))
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f{}"))
	f.Add(gzipString(string(npyBytes("<f8", false, []int{2}, []float64{1, 2}))))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, size := range []int64{int64(len(in)), -1} {
			x, err := ReadNpy(bytes.NewReader(in), "f", size)
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %q (%T) is not a *ParseError", err, err)
				}
				if x != nil {
					t.Fatal("data returned with an error")
				}
				continue
			}
			r, c := x.Dims()
			if int64(r*c) > 8*int64(len(in)) {
				t.Fatalf("%d×%d values from %d bytes", r, c, len(in))
			}
			if r > 0 && !allFinite(x.RawMatrix().Data) {
				t.Fatal("non-finite value read")
			}
		}
	})
}

func FuzzReadParquet(f *testing.F) {
	type row struct {
		Y float64  `parquet:"y"`
		Q string   `parquet:"q"`
		A int32    `parquet:"a"`
		B *float32 `parquet:"b,optional"`
	}
	one := float32(1)
	for _, rows := range [][]row{{{1, "a", 2, &one}, {2, "b", 3, nil}}, {{1, "a", 2, &one}, {2, "a", -3, &one}, {0, "c", 1, &one}}} {
		var b bytes.Buffer
		w := parquet.NewGenericWriter[row](&b)
		w.Write(rows)
		w.Close()
		f.Add(b.Bytes())
	}
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadParquet(bytes.NewReader(in), int64(len(in)), "f", CSVOptions{Labels: []string{"y"}, Qid: "q"})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) && !errors.Is(err, ErrOptions) {
				t.Fatalf("error %q (%T) is not a *ParseError", err, err)
			}
			return
		}
		checkFuzzResult(t, d, nil)
	})
}
