package dataset

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/matrix"
)

// readAllChunks reads in through ReadChunks and returns the error and the
// chunks' rows as one data set (X as dense rows of the whole-file width).
func chunkRows(t *testing.T, in, format string, csv CSVOptions, svm SVMLightOptions, rows int) ([][]float64, [][]float64, []int, error) {
	t.Helper()
	var x, y [][]float64
	var q []int
	err := ReadChunks(strings.NewReader(in), "f", format, csv, svm, rows, func(d *Data, offset int) error {
		if offset != len(x) {
			return fmt.Errorf("offset %d after %d rows", offset, len(x))
		}
		x = append(x, denseOf(d.X)...)
		if d.Y != nil {
			y = append(y, denseOf(d.Y)...)
		}
		q = append(q, d.Queries...)
		return nil
	})
	return x, y, q, err
}

// Regression (reliability issue D): fit refused a CSV with a byte order mark
// and a quoted header ("bare \" in non-quoted field") while streaming predict
// took it. The mark is skipped before the CSV reader sees the header.
func TestCSVByteOrderMarkQuotedHeader(t *testing.T) {
	for _, in := range []string{
		"\ufeff\"a\",\"y\"\n1,2\n3,4\n",
		"\ufeffa,y\n1,2\n3,4\n",
		"\ufeff\"a\",y\r\n1,2\r\n3,4\r\n",
	} {
		d, err := ReadCSV(strings.NewReader(in), "bom.csv", CSVOptions{Labels: []string{"y"}})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !reflect.DeepEqual(d.FeatureNames, []string{"a"}) || d.Y.At(1, 0) != 4 || d.X.At(0, 0) != 1 {
			t.Errorf("%q: features %q, Y %v", in, d.FeatureNames, denseOf(d.Y))
		}
		x, y, _, err := chunkRows(t, in, "csv", CSVOptions{Labels: []string{"y"}}, SVMLightOptions{}, 1)
		if err != nil || !equalRows(x, denseOf(d.X)) || !equalRows(y, denseOf(d.Y)) {
			t.Errorf("%q: chunks %v %v %v", in, x, y, err)
		}
	}
	// A mark anywhere else is data, and not a number.
	_, err := ReadCSV(strings.NewReader("a,y\n\ufeff1,2\n"), "bom.csv", CSVOptions{Labels: []string{"y"}})
	checkErr(t, err, "bom.csv", errCase{ErrSyntax, 2, 1, "\ufeff1"})
}

// Regression (reliability issue D): predict peeked 4096 bytes for the header
// and missed the label of a wide CSV ("401 vs 400 feature columns").
// LabelsFromHeader sees the header the reader parses, whatever its length.
func TestLabelsFromHeaderWideCSV(t *testing.T) {
	const n = 400
	var b strings.Builder
	for j := 0; j < n; j++ {
		fmt.Fprintf(&b, "\"feature number %d\",", j)
	}
	b.WriteString("target\n")
	for i := 0; i < 3; i++ {
		b.WriteString(strings.Repeat("0.5,", n))
		fmt.Fprintf(&b, "%d\n", i)
	}
	if b.Len() < 8192 {
		t.Fatal("header too short for the regression")
	}
	calls := 0
	opt := CSVOptions{LabelsFromHeader: func(h []string) []string {
		calls++
		if len(h) != n+1 || h[0] != "feature number 0" {
			t.Errorf("header of %d names, first %q", len(h), h[0])
		}
		return []string{h[len(h)-1]}
	}}
	d, err := ReadCSV(strings.NewReader(b.String()), "wide.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, c := d.X.Dims(); c != n || d.Y.At(2, 0) != 2 || !reflect.DeepEqual(d.LabelNames, []string{"target"}) {
		t.Errorf("%d features, labels %v", c, d.LabelNames)
	}
	chunks := 0
	if err := ReadChunks(strings.NewReader(b.String()), "wide.csv", "csv", opt, SVMLightOptions{}, 1, func(d *Data, _ int) error {
		chunks++
		if _, c := d.X.Dims(); c != n || d.Y == nil {
			return fmt.Errorf("chunk of %d features", c)
		}
		return nil
	}); err != nil || chunks != 3 || calls != 2 {
		t.Errorf("chunks: %v, %d chunks, %d calls (want one per read)", err, chunks, calls)
	}
	// Labels given explicitly win; none chosen means no Y.
	opt.Labels = []string{"feature number 3"}
	if d, err := ReadCSV(strings.NewReader(b.String()), "wide.csv", opt); err != nil || d.LabelNames[0] != "feature number 3" {
		t.Errorf("explicit labels: %v", err)
	}
	none := CSVOptions{LabelsFromHeader: func([]string) []string { return nil }}
	if d, err := ReadCSV(strings.NewReader(b.String()), "wide.csv", none); err != nil || d.Y != nil {
		t.Errorf("no labels chosen: %v", err)
	}
}

// Regression (reliability issue D): at exactly row 4096 — a chunk boundary of
// streaming predict — ragged svmlight labels, a qid on later rows only, or a
// CSV line of spaces were accepted although fit refused them. One parser reads
// the whole input whatever the chunking, so the errors are the same.
func TestChunkBoundaryKeepsTheRules(t *testing.T) {
	const rows = 4096
	var svm, svmQid, csvText, csvOne strings.Builder
	csvText.WriteString("a,y\n")
	csvOne.WriteString("a\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&svm, "%d 1:%d\n", i, i)
		fmt.Fprintf(&svmQid, "%d 1:%d\n", i, i)
		fmt.Fprintf(&csvText, "%d,%d\n", i, i)
		fmt.Fprintf(&csvOne, "%d\n", i)
	}
	cases := []struct {
		name, format, text string
		csv                CSVOptions
		want               errCase
	}{
		{"svmlight ragged labels", "svmlight", svm.String() + "1,2 1:1\n", CSVOptions{}, errCase{ErrRagged, rows + 1, 1, "1,2"}},
		{"svmlight qid on a later row", "svmlight", svmQid.String() + "1 qid:3 1:1\n", CSVOptions{}, errCase{ErrQid, rows + 1, 2, "qid:3"}},
		{"csv line of spaces", "csv", csvText.String() + "   \n", CSVOptions{Labels: []string{"y"}}, errCase{ErrRagged, rows + 2, 0, ""}},
		{"csv line of spaces, one column", "csv", csvOne.String() + "  \t \n", CSVOptions{}, errCase{ErrSyntax, rows + 2, 1, "  \t "}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.format == "csv" {
				_, err = ReadCSV(strings.NewReader(c.text), "f", c.csv)
			} else {
				_, err = ReadSVMLight(strings.NewReader(c.text), "f", SVMLightOptions{Width: 1})
			}
			checkErr(t, err, "f", c.want)
			for _, size := range []int{1, 7, rows, rows + 1} {
				_, _, _, cerr := chunkRows(t, c.text, c.format, c.csv, SVMLightOptions{Width: 1}, size)
				if cerr == nil || cerr.Error() != err.Error() {
					t.Errorf("chunks of %d: %v, want %v", size, cerr, err)
				}
			}
		})
	}
}

// Chunks number queries over the whole input, as the whole-file read does.
func TestChunkQueriesAreGlobal(t *testing.T) {
	in := "1 qid:a 1:1\n2 qid:b 1:2\n3 qid:a 1:3\n4 qid:c 1:4\n"
	whole, err := ReadSVMLight(strings.NewReader(in), "f", SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	_, _, q, err := chunkRows(t, in, "svmlight", CSVOptions{}, SVMLightOptions{}, 1)
	if err != nil || !reflect.DeepEqual(q, whole.Queries) {
		t.Errorf("chunk queries %v (%v), want %v", q, err, whole.Queries)
	}
	ReadChunks(strings.NewReader(in), "f", "svmlight", CSVOptions{}, SVMLightOptions{}, 3, func(d *Data, _ int) error {
		names = d.QueryNames
		return nil
	})
	if !reflect.DeepEqual(names, whole.QueryNames) {
		t.Errorf("last chunk's query names %v, want %v", names, whole.QueryNames)
	}
	if err := ReadChunks(strings.NewReader(in), "f", "svmlight", CSVOptions{}, SVMLightOptions{Dense: true}, 2, func(*Data, int) error { return nil }); !errors.Is(err, ErrOptions) {
		t.Errorf("dense chunks without a width: %v", err)
	}
}

// Regression (reliability issue D): strconv.ParseFloat takes "1_0" and
// "0x1p-3"; data files take decimal numbers only, and every reader reports the
// token with its file, line and column.
func TestStrictNumbers(t *testing.T) {
	bad := []struct {
		tok      string
		sentinel error
	}{
		{"1_0", ErrSyntax}, {"0x1p-3", ErrSyntax}, {"0x10", ErrSyntax}, {"1__0", ErrSyntax}, {"_1", ErrSyntax},
		{"1e", ErrSyntax}, {"1e+", ErrSyntax}, {".", ErrSyntax}, {"+", ErrSyntax}, {"1.2.3", ErrSyntax}, {"--1", ErrSyntax},
		{"0b101", ErrSyntax}, {"0o7", ErrSyntax}, {"1 000", ErrSyntax}, {"١", ErrSyntax}, {"e5", ErrSyntax},
		{"Infinity", ErrNonFinite}, {"-inf", ErrNonFinite}, {"+NaN", ErrNonFinite}, {"1e309", ErrNonFinite},
	}
	for _, b := range bad {
		t.Run(b.tok, func(t *testing.T) {
			if strings.Contains(b.tok, " ") {
				_, err := ReadCSV(strings.NewReader("a,y\n1,2\n3,"+b.tok+"\n"), "d.csv", CSVOptions{Labels: []string{"y"}})
				checkErr(t, err, "d.csv", errCase{b.sentinel, 3, 2, b.tok})
				return
			}
			_, err := ReadSVMLight(strings.NewReader("1 1:1\n2 1:0.5 3:"+b.tok+"\n"), "d.svm", SVMLightOptions{})
			checkErr(t, err, "d.svm", errCase{b.sentinel, 2, 3, "3:" + b.tok})
			_, err = ReadSVMLight(strings.NewReader(b.tok+" 1:1\n"), "d.svm", SVMLightOptions{})
			checkErr(t, err, "d.svm", errCase{b.sentinel, 1, 1, b.tok})
			_, err = ReadCSV(strings.NewReader("a,y\n1,2\n3,"+b.tok+"\n"), "d.csv", CSVOptions{Labels: []string{"y"}})
			checkErr(t, err, "d.csv", errCase{b.sentinel, 3, 2, b.tok})
			_, err = ReadPreferences(strings.NewReader("0 1\n1 0 "+b.tok+"\n"), "p.txt", 2)
			checkErr(t, err, "p.txt", errCase{b.sentinel, 2, 3, b.tok})
		})
	}
	good := map[string]float64{"1.": 1, ".5": 0.5, "-0": 0, "+3": 3, "1E5": 1e5, "00012": 12, "-2.5e-3": -2.5e-3, "1e-400": 0, "4.9e-324": 5e-324}
	for tok, want := range good {
		d, err := ReadSVMLight(strings.NewReader("1 1:"+tok+"\n"), "d.svm", SVMLightOptions{})
		if err != nil || d.X.At(0, 0) != want {
			t.Errorf("%q: %v, %v; want %v", tok, err, d, want)
		}
	}
	// Feature indices: decimal digits only.
	for _, tok := range []string{"1_0:1", "0x1:1", "1e1:1", " +:1"} {
		_, err := ReadSVMLight(strings.NewReader("1 "+tok+"\n"), "d.svm", SVMLightOptions{})
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("index %q: %v", tok, err)
		}
	}
}

// Regression (reliability issue B): a dense read of a tiny file with a huge
// index allocated m×index floats; now it is refused before allocating.
func TestDenseSVMLightBounded(t *testing.T) {
	for _, c := range []struct {
		in  string
		opt SVMLightOptions
	}{
		{"1 1:1\n2 5000000000:1\n", SVMLightOptions{Dense: true}},
		{"1 1:1\n", SVMLightOptions{Dense: true, Width: 1 << 40}},
		{"1 1:1\n", SVMLightOptions{Dense: true, Width: 1<<20 + 1}},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadSVMLight(strings.NewReader(c.in), "big.svm", c.opt)
		runtime.ReadMemStats(&after)
		checkErr(t, err, "big.svm", errCase{ErrIndex, 0, 0, ""})
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%q: allocated %d bytes", c.in, got)
		}
	}
	// Within the bounds: 2 rows of 1000 with 3 values is fine (2000 ≤ 2^20).
	d, err := ReadSVMLight(strings.NewReader("1 1:1 1000:2\n2 3:1\n"), "ok.svm", SVMLightOptions{Dense: true})
	if err != nil || d.X.At(0, 999) != 2 {
		t.Fatalf("%v", err)
	}
	// Sparse, the huge index is only a number.
	d, err = ReadSVMLight(strings.NewReader("1 1:1\n2 5000000000:1\n"), "big.svm", SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, c := d.X.Dims(); c != 5000000000 || d.X.(*matrix.CSR).NNZ() != 2 {
		t.Errorf("width %d", c)
	}
}
