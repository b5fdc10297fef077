package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"gonum.org/v1/gonum/mat"
)

// The column table of these tests, as pandas' df.to_csv() writes it: the
// index unnamed in column 1, three features, a text column and the label.
//
//	,px_1,px_2,city,px_3,y
//
// In Parquet the index is "__index_level_0__" (what pandas' to_parquet
// writes for an index it keeps); in an .npz archive X holds the numeric
// columns index, px_1, px_2, px_3 (1…4) and y is an array of its own.
var colHeader = []string{"", "px_1", "px_2", "city", "px_3", "y"}

// colValue is the value of row i in column j of the table (numeric columns).
func colValue(i, j int) float64 {
	switch j {
	case 0:
		return float64(i)
	case 5:
		return float64(3*i%7) - 2.5
	}
	return float64(i*10+j) + 0.25*float64(j)
}

var colCities = []string{"Oulu", "Turku", "Espoo"}

func colCSV(m int) string {
	var b strings.Builder
	b.WriteString(strings.Join(colHeader, ",") + "\n")
	for i := 0; i < m; i++ {
		fmt.Fprintf(&b, "%g,%g,%g,%s,%g,%g\n", colValue(i, 0), colValue(i, 1), colValue(i, 2), colCities[i%3], colValue(i, 4), colValue(i, 5))
	}
	return b.String()
}

type colRow struct {
	Index int64   `parquet:"__index_level_0__"`
	P1    float64 `parquet:"px_1"`
	P2    float64 `parquet:"px_2"`
	City  string  `parquet:"city"`
	P3    float64 `parquet:"px_3"`
	Y     float64 `parquet:"y"`
}

func colParquet(t *testing.T, m int) []byte {
	t.Helper()
	var rows []colRow
	for i := 0; i < m; i++ {
		rows = append(rows, colRow{int64(i), colValue(i, 1), colValue(i, 2), colCities[i%3], colValue(i, 4), colValue(i, 5)})
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[colRow](&b)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// npzCols are the table columns X of the .npz archive holds.
var npzCols = []int{0, 1, 2, 4}

func colNpz(t *testing.T, m int) []byte {
	var x, y []float64
	for i := 0; i < m; i++ {
		for _, j := range npzCols {
			x = append(x, colValue(i, j))
		}
		y = append(y, colValue(i, 5))
	}
	return npzBytes(t, 0, map[string][]byte{
		"X": npyBytes("<f8", false, []int{m, len(npzCols)}, x),
		"y": npyBytes("<f8", false, []int{m}, y),
	})
}

// wantCols checks that d holds exactly the table columns cols as features,
// in that order, named (or not, for NumPy) and recorded in FeatureColumns
// as rec (nil: not recorded), with the label y.
func wantCols(t *testing.T, d *Data, m int, cols []int, named bool, rec []int) {
	t.Helper()
	r, c := d.X.Dims()
	if r != m || c != len(cols) {
		t.Fatalf("X is %d×%d, want %d×%d", r, c, m, len(cols))
	}
	for i := 0; i < m; i++ {
		for k, j := range cols {
			if got, want := d.X.At(i, k), colValue(i, j); got != want {
				t.Fatalf("X[%d,%d] = %v, want %v (column %q)", i, k, got, want, colHeader[j])
			}
		}
		if d.Y == nil || d.Y.At(i, 0) != colValue(i, 5) {
			t.Fatalf("label of row %d: Y %v", i, d.Y)
		}
	}
	var names []string
	if named {
		for _, j := range cols {
			names = append(names, colHeader[j])
		}
	}
	if !slices.Equal(d.FeatureNames, names) {
		t.Errorf("FeatureNames %q, want %q", d.FeatureNames, names)
	}
	if !slices.Equal(d.FeatureColumns, rec) {
		t.Errorf("FeatureColumns %v, want %v", d.FeatureColumns, rec)
	}
}

func list(s ...string) []string { return s }

// TestColumnsSelect: every form of selector, alone and together, in CSV
// (plain: the parallel block reader; gzip: the sequential one; chunks:
// ReadChunks; the general path without the fast one) and Parquet, against
// the columns picked by hand.
func TestColumnsSelect(t *testing.T) {
	withBlocks(t, 97, 3) // many small blocks: the parallel reader's ignored fields too
	const m = 40
	y := []string{"y"}
	tests := []struct {
		name string
		c    Columns
		cols []int // table columns, in X's order
	}{
		{"ignore the index and the text by number", Columns{Ignore: list("1", "4")}, []int{1, 2, 4}},
		{"ignore by number and name", Columns{Ignore: list("1", "city")}, []int{1, 2, 4}},
		{"ignore with spaces", Columns{Ignore: list(" 1 ", " city")}, []int{1, 2, 4}},
		{"ignore a feature too", Columns{Ignore: list("1", "city", "px_2")}, []int{1, 4}},
		{"features by glob", Columns{Features: list("px_*")}, []int{1, 2, 4}},
		{"features by class glob", Columns{Features: list("px_[12]")}, []int{1, 2}},
		{"features by names, file order kept", Columns{Features: list("px_3", "px_1")}, []int{1, 4}},
		{"features by range and number", Columns{Features: list("2-3", "5")}, []int{1, 2, 4}},
		{"range over the text, ignored", Columns{Features: list("2-5"), Ignore: list("city")}, []int{1, 2, 4}},
		{"glob over the label skips it", Columns{Features: list("*"), Ignore: list("1", "4")}, []int{1, 2, 4}},
		{"range over the label skips it", Columns{Features: list("5-6")}, []int{4}},
		{"features minus ignored", Columns{Features: list("px_*"), Ignore: list("px_2")}, []int{1, 4}},
		{"names: a model's order", Columns{Names: list("px_3", "px_1")}, []int{4, 1}},
		{"names and agreeing flags", Columns{Names: list("px_3", "px_1"), Ignore: list("1", "city", "px_2")}, []int{4, 1}},
		{"names and agreeing features", Columns{Names: list("px_2", "px_1", "px_3"), Features: list("px_*")}, []int{2, 1, 4}},
	}
	csv := colCSV(m)
	pq := colParquet(t, m)
	for _, tt := range tests {
		opt := CSVOptions{Labels: y, Columns: tt.c}
		t.Run(tt.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(csv), "t.csv", opt)
			if err != nil {
				t.Fatal(err)
			}
			wantCols(t, d, m, tt.cols, true, tt.cols)
			if d, err = ReadCSV(bytes.NewReader(gz([]byte(csv))), "t.csv.gz", opt); err != nil {
				t.Fatal(err)
			}
			wantCols(t, d, m, tt.cols, true, tt.cols)
			if d, err = generalOnly(func() (*Data, error) { return ReadCSV(strings.NewReader(csv), "t.csv", opt) }); err != nil {
				t.Fatal(err)
			}
			wantCols(t, d, m, tt.cols, true, tt.cols)
			var parts []*Data
			err = ReadChunks(strings.NewReader(csv), "t.csv", "csv", opt, SVMLightOptions{}, 7, func(d *Data, _ int) error {
				parts = append(parts, d)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			joined := &Data{X: mat.NewDense(m, len(tt.cols), nil), Y: mat.NewDense(m, 1, nil), FeatureNames: parts[0].FeatureNames, FeatureColumns: parts[0].FeatureColumns}
			at := 0
			for _, p := range parts {
				r, _ := p.X.Dims()
				joined.X.(*mat.Dense).Slice(at, at+r, 0, len(tt.cols)).(*mat.Dense).Copy(p.X)
				joined.Y.Slice(at, at+r, 0, 1).(*mat.Dense).Copy(p.Y)
				at += r
			}
			wantCols(t, joined, m, tt.cols, true, tt.cols)

			// Parquet: the same columns, the index named as pandas names it
			if d, err = ReadParquet(bytes.NewReader(pq), int64(len(pq)), "t.parquet", opt); err != nil {
				t.Fatal(err)
			}
			wantCols(t, d, m, tt.cols, true, tt.cols)
		})
	}
}

// TestColumnsNpz: .npz arrays take numbers and ranges (columns of X), and a
// model's Positions; names are refused.
func TestColumnsNpz(t *testing.T) {
	const m = 9
	b := colNpz(t, m)
	tests := []struct {
		name string
		c    Columns
		cols []int // columns of X
	}{
		{"ignore the index", Columns{Ignore: list("1")}, []int{1, 2, 3}},
		{"features by range", Columns{Features: list("2-4")}, []int{1, 2, 3}},
		{"features minus ignored", Columns{Features: list("2-4"), Ignore: list("3")}, []int{1, 3}},
		{"positions", Columns{Positions: []int{1, 3}}, []int{1, 3}},
		{"positions and agreeing flags", Columns{Positions: []int{1, 3}, Ignore: list("1", "3")}, []int{1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ReadNpz(bytes.NewReader(b), int64(len(b)), "t.npz", CSVOptions{Columns: tt.c})
			if err != nil {
				t.Fatal(err)
			}
			var table []int
			for _, j := range tt.cols {
				table = append(table, npzCols[j])
			}
			wantCols(t, d, m, table, false, tt.cols)

			// the same selection on a data set read from .npy files
			full, err := ReadNpz(bytes.NewReader(b), int64(len(b)), "t.npz", CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := SelectArrayColumns(full, "X.npy", tt.c); err != nil {
				t.Fatal(err)
			}
			wantCols(t, full, m, table, false, tt.cols)
		})
	}
}

// TestColumnsErrors: every refusal, its sentinel and the words of its
// message, in CSV (and the same selection in Parquet and .npz where it
// applies).
func TestColumnsErrors(t *testing.T) {
	const m = 4
	csv := colCSV(m)
	y := []string{"y"}
	ok := list("1", "city") // what makes the table readable
	tests := []struct {
		name     string
		in       string // CSV; "" for the table
		labels   []string
		qid      string
		c        Columns
		sentinel error
		want     string
	}{
		{"pandas index", "", y, "", Columns{Ignore: list("city")}, ErrUnknownColumn,
			"t.csv:1: column 1 has no name: pandas writes its index there — write with index=False, or drop it with --ignore 1: dataset: unknown column"},
		{"pandas index kept by --features", "", y, "", Columns{Features: list("1-3")}, ErrUnknownColumn, "column 1 has no name: pandas writes its index there"},
		{"another unnamed column", "a,,b,y\n1,2,3,4\n", y, "", Columns{}, ErrUnknownColumn,
			"t.csv:1: column 2 has no name: name it in the header, or drop it with --ignore 2: dataset: unknown column"},
		{"duplicate names", "a,b,a,y\n1,2,3,4\n", y, "", Columns{}, ErrUnknownColumn,
			`t.csv:1: columns 1 and 3 are both named "a": rename one, or drop one with --ignore 3: dataset: unknown column`},
		{"duplicates, one ignored", "a,b,a,a,y\n1,2,3,4,5\n", y, "", Columns{Ignore: list("3")}, ErrUnknownColumn, `columns 1 and 4 are both named "a"`},
		{"duplicate label", "y,a,y\n1,2,3\n", y, "", Columns{}, ErrUnknownColumn, `label column "y" appears more than once in the header (columns 1 and 3)`},
		{"name not found", "", y, "", Columns{Features: list("px_9"), Ignore: ok}, ErrUnknownColumn,
			`t.csv:1: --features "px_9": no column named it in the header (did you mean "px_1" (column 2)? columns: column 1 (no name), "px_1", "px_2", "city", "px_3", "y"): dataset: unknown column`},
		{"glob matches nothing", "", y, "", Columns{Features: list("qx_*"), Ignore: ok}, ErrUnknownColumn,
			`--features "qx_*": no column matches it in the header (columns: column 1 (no name), "px_1"`},
		{"ignore name not found", "", y, "", Columns{Ignore: list("1", "town")}, ErrUnknownColumn, `--ignore "town": no column named it in the header (columns:`},
		{"number out of range", "", y, "", Columns{Features: list("7")}, ErrUnknownColumn,
			`--features 7: out of range: the header has 6 columns (columns: column 1 (no name), "px_1", "px_2", "city", "px_3", "y")`},
		{"range out of range", "", y, "", Columns{Ignore: list("1", "4-9")}, ErrUnknownColumn, "--ignore 4-9: out of range: the header has 6 columns"},
		{"number named like a column", "a,2019,y\n1,2,3\n", y, "", Columns{Features: list("2019")}, ErrUnknownColumn,
			`--features 2019: out of range: the header has 3 columns (column 2 is named "2019": select it by name with the glob "\\2019")`},
		{"column 0", "", y, "", Columns{Ignore: list("0")}, ErrOptions, "--ignore 0: columns are numbered from 1"},
		{"reversed range", "", y, "", Columns{Features: list("5-2")}, ErrOptions, "--features 5-2: a range runs from the lower column to the higher (2-5)"},
		{"empty item", "", y, "", Columns{Features: list("px_1", "")}, ErrOptions, "--features: an empty column"},
		{"malformed glob", "", y, "", Columns{Features: list("px_[")}, ErrOptions, `--features "px_[": a malformed glob`},
		{"label named as a feature", "", y, "", Columns{Features: list("px_1", "y"), Ignore: ok}, ErrOptions,
			`--features y: column 6 ("y") is a --label column, never a feature`},
		{"label numbered as a feature", "", y, "", Columns{Features: list("6")}, ErrOptions, `--features 6: column 6 ("y") is a --label column`},
		{"qid named as a feature", "", y, "city", Columns{Features: list("city", "px_1"), Ignore: list("1")}, ErrOptions, `column 4 ("city") is the --qid column`},
		{"label ignored", "", y, "", Columns{Ignore: list("1", "city", "y")}, ErrUnknownColumn, `label column "y" (column 6) is dropped by --ignore`},
		{"misspelt label", "", list("yy"), "", Columns{Ignore: ok}, ErrUnknownColumn,
			`label column "yy" not in the header (did you mean "y" (column 6)? columns:`},
		{"misspelt qid", "", y, "ctiy", Columns{Ignore: list("1")}, ErrUnknownColumn, `qid column "ctiy" not in the header (did you mean "city" (column 4)?`},
		{"far from every name", "", list("target"), "", Columns{Ignore: ok}, ErrUnknownColumn,
			`label column "target" not in the header (columns: column 1 (no name), "px_1", "px_2", "city", "px_3", "y")`},
		{"every feature ignored", "", y, "", Columns{Features: list("px_*"), Ignore: list("px_?")}, ErrEmpty, "no feature columns"},
		{"model column missing", "", y, "", Columns{Names: list("px_1", "px_4")}, ErrUnknownColumn,
			`feature column "px_4" of the model not in the header (did you mean "px_1" (column 2)?`},
		{"model column ignored", "", y, "", Columns{Names: list("px_1"), Ignore: list("px_1")}, ErrUnknownColumn,
			`feature column "px_1" of the model (column 2) is dropped by --ignore`},
		{"model column is the label", "", y, "", Columns{Names: list("y")}, ErrUnknownColumn, `feature column "y" of the model is a --label column here (column 6)`},
		{"model column twice", "a,b,a,y\n1,2,3,4\n", y, "", Columns{Names: list("a")}, ErrUnknownColumn,
			`feature column "a" of the model appears more than once in the header (columns 1 and 3)`},
		{"flags disagree with the model", "", y, "", Columns{Names: list("px_1", "px_3"), Features: list("px_*")}, ErrUnknownColumn,
			`--features/--ignore select "px_1", "px_2", "px_3", the model was trained on "px_1", "px_3"`},
		{"positions in a named table", "", y, "", Columns{Positions: []int{1}}, ErrUnknownColumn, "the feature columns are numbered (2 of an unnamed array)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			if in == "" {
				in = csv
			}
			_, err := ReadCSV(strings.NewReader(in), "t.csv", CSVOptions{Labels: tt.labels, Qid: tt.qid, Columns: tt.c})
			if !errors.Is(err, tt.sentinel) || !strings.Contains(fmt.Sprint(err), tt.want) {
				t.Fatalf("error %v\nwant %v and %q", err, tt.sentinel, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != 1 {
				t.Errorf("error %v: not a *ParseError at the header line", err)
			}
		})
	}
}

// TestColumnsErrorsBinary: the refusals of Parquet and .npz.
func TestColumnsErrorsBinary(t *testing.T) {
	pq := colParquet(t, 3)
	npz := colNpz(t, 3)
	y := []string{"y"}
	tests := []struct {
		name     string
		npz      bool
		c        Columns
		sentinel error
		want     string
	}{
		{"pandas index in Parquet", false, Columns{Ignore: list("city")}, ErrUnknownColumn,
			`t.parquet: column 1 "__index_level_0__" is a pandas index — write with index=False, or drop it with --ignore 1`},
		{"text column in Parquet", false, Columns{Ignore: list("1")}, ErrSyntax, `column "city" (4) is not numeric (BYTE_ARRAY): give it as --qid, or drop it with --ignore 4`},
		{"misspelt in Parquet", false, Columns{Features: list("px1")}, ErrUnknownColumn,
			`--features "px1": no column named it in the file (did you mean "px_1" (column 2)? columns: "__index_level_0__", "px_1"`},
		{"out of range in Parquet", false, Columns{Features: list("2-7")}, ErrUnknownColumn, "--features 2-7: out of range: the file has 6 columns"},
		{"names in npz", true, Columns{Features: list("px_*")}, ErrUnknownColumn,
			`t.npz[X]: --features "px_*": the columns of the array X have no names: select them by number or range (1-4)`},
		{"out of range in npz", true, Columns{Ignore: list("5")}, ErrUnknownColumn, "--ignore 5: out of range: the array X has 4 columns (columns 1-4)"},
		{"a model's names in npz", true, Columns{Names: list("px_1")}, ErrUnknownColumn, "the feature columns are named (px_1), but the columns of the array X have no names"},
		{"a model's positions out of range", true, Columns{Positions: []int{1, 4}}, ErrUnknownColumn, "feature columns 2,5: the array X has 4 columns"},
		{"flags disagree with a model's positions", true, Columns{Positions: []int{1, 3}, Ignore: list("1")}, ErrUnknownColumn,
			"--features/--ignore select columns 2-4, the model was trained on columns 2,4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.npz {
				_, err = ReadNpz(bytes.NewReader(npz), int64(len(npz)), "t.npz", CSVOptions{Columns: tt.c})
			} else {
				_, err = ReadParquet(bytes.NewReader(pq), int64(len(pq)), "t.parquet", CSVOptions{Labels: y, Columns: tt.c})
			}
			if !errors.Is(err, tt.sentinel) || !strings.Contains(fmt.Sprint(err), tt.want) {
				t.Fatalf("error %v\nwant %v and %q", err, tt.sentinel, tt.want)
			}
		})
	}
}

// TestColumnsIgnoredNotRead: an ignored CSV column is not parsed (text, or
// anything), but still counts as a field of its row.
func TestColumnsIgnoredNotRead(t *testing.T) {
	in := ",a,note,y\n0,1,\"free, text\",2\n1,3,NaN,4\n2,5,,6\n"
	d, err := ReadCSV(strings.NewReader(in), "t.csv", CSVOptions{Labels: []string{"y"}, Columns: Columns{Ignore: list("1", "note")}})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(d.X, mat.NewDense(3, 1, []float64{1, 3, 5})) || !slices.Equal(d.FeatureNames, []string{"a"}) {
		t.Errorf("X %v names %q", mat.Formatted(d.X), d.FeatureNames)
	}
	_, err = ReadCSV(strings.NewReader(in+"3,7,x\n"), "t.csv", CSVOptions{Labels: []string{"y"}, Columns: Columns{Ignore: list("1", "note")}})
	if !errors.Is(err, ErrRagged) {
		t.Errorf("a short row with an ignored column: %v, want ErrRagged", err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"label", "label", 0}, {"lable", "label", 1}, {"labl", "label", 1}, {"y", "a", 1}, {"qid", "ctiy", 3}, {"ca", "abc", 3}, {"ctiy", "city", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}} {
		if d := editDistance(c.a, c.b); d != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
		if d := editDistance(c.b, c.a); d != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.b, c.a, d, c.d)
		}
	}
}

func TestKeepColumns(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	for _, c := range []struct {
		cols []int
		want []float64
	}{
		{[]int{0, 1, 2, 3}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{[]int{1, 3}, []float64{2, 4, 6, 8, 10, 12}},
		{[]int{3, 0}, []float64{4, 1, 8, 5, 12, 9}},
		{[]int{2}, []float64{3, 7, 11}},
	} {
		got := keepColumns(mat.DenseCopyOf(x), c.cols)
		if !mat.Equal(got, mat.NewDense(3, len(c.cols), c.want)) {
			t.Errorf("%v: %v", c.cols, mat.Formatted(got))
		}
	}
}

// TestSniffFormat: standard input's format by its first bytes; CSV is not
// taken for svmlight.
func TestSniffFormat(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"csv header", "a,b,y\n1,2,3\n", "csv"},
		{"pandas csv", ",a,b,y\n0,1,2,3\n", "csv"},
		{"semicolons", "a;b;y\n1;2;3\n", "csv"},
		{"tabs", "a\tb\ty\n1\t2\t3\n", "csv"},
		{"csv after blank lines and a BOM", "\ufeff\n\na,y\n1,2\n", "csv"},
		{"csv rows only", "1,2,3\n", "csv"},
		{"svmlight", "1 1:2 3:4\n", "svmlight"},
		{"svmlight with qid", "1 qid:3 1:2\n", "svmlight"},
		{"svmlight, multi-label", "1,2 1:0.5\n", "svmlight"},
		{"svmlight comment with commas", "# a, b, c\n1 1:2\n", "svmlight"},
		{"svmlight without features", "1\n2\n", "svmlight"},
		{"a header with index:value", "a 1:2,b\n", "svmlight"},
		{"empty", "", "svmlight"},
		{"npy", "\x93NUMPY\x01\x00rest", "npy"},
		{"npz", "PK\x03\x04rest", "npz"},
		{"parquet", "PAR1rest", "parquet"},
		{"gzip csv", string(gz([]byte("a,b,y\n1,2,3\n"))), "csv"},
		{"gzip svmlight", string(gz([]byte("1 1:2\n"))), "svmlight"},
		{"truncated gzip", string(gz([]byte("a,b,y\n1,2,3\n"))[:12]), "svmlight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r := SniffFormat(strings.NewReader(tt.in))
			if got != tt.want {
				t.Errorf("format %q, want %q", got, tt.want)
			}
			var b bytes.Buffer
			if _, err := b.ReadFrom(r); err != nil || b.String() != tt.in {
				t.Errorf("the reader returned %q (%v), want the whole input", b.String(), err)
			}
		})
	}
	// a long first line is judged on its start
	long := strings.Repeat("abc,", 40000) + "y\n1\n"
	if got, _ := SniffFormat(strings.NewReader(long)); got != "csv" {
		t.Errorf("long header: %q", got)
	}
}

// TestColumnsDuplicatesDropped: duplicate names are read when all but one
// of them are ignored (by number), or all of them (by name).
func TestColumnsDuplicatesDropped(t *testing.T) {
	in := "a,b,a,y\n1,2,3,4\n5,6,7,8\n"
	for _, c := range []struct {
		ignore []string
		names  []string
		x      []float64
	}{
		{list("3"), list("a", "b"), []float64{1, 2, 5, 6}},
		{list("1"), list("b", "a"), []float64{2, 3, 6, 7}},
		{list("a"), list("b"), []float64{2, 6}},
	} {
		d, err := ReadCSV(strings.NewReader(in), "t.csv", CSVOptions{Labels: []string{"y"}, Columns: Columns{Ignore: c.ignore}})
		if err != nil {
			t.Fatalf("--ignore %v: %v", c.ignore, err)
		}
		if !mat.Equal(d.X, mat.NewDense(2, len(c.names), c.x)) || !slices.Equal(d.FeatureNames, c.names) {
			t.Errorf("--ignore %v: X %v names %q", c.ignore, mat.Formatted(d.X), d.FeatureNames)
		}
	}
}

// TestColumnsDigitNames: digits are column numbers; a column named by digits
// (pandas names a bare array's columns 0, 1, …) is chosen by an escaping glob.
func TestColumnsDigitNames(t *testing.T) {
	in := ",0,1,y\n0,5,6,7\n1,8,9,10\n"
	for _, c := range []struct {
		features []string
		names    []string
		x        []float64
	}{
		{list(`\1`), list("1"), []float64{6, 9}},
		{list(`[0]`, `\1`), list("0", "1"), []float64{5, 6, 8, 9}},
		{list("2"), list("0"), []float64{5, 8}}, // column 2 is the one named 0
	} {
		d, err := ReadCSV(strings.NewReader(in), "t.csv", CSVOptions{Labels: []string{"y"}, Columns: Columns{Features: c.features}})
		if err != nil {
			t.Fatalf("--features %v: %v", c.features, err)
		}
		if !mat.Equal(d.X, mat.NewDense(2, len(c.names), c.x)) || !slices.Equal(d.FeatureNames, c.names) {
			t.Errorf("--features %v: X %v names %q", c.features, mat.Formatted(d.X), d.FeatureNames)
		}
	}
}
