package dataset

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"
)

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		opt        CSVOptions
		wantX      [][]float64
		wantY      [][]float64 // nil: Y must be nil
		wantFeat   []string
		wantQ      []int
		wantQNames []string
	}{
		{
			name:     "single label",
			in:       "a,y,b\n1,10,2\n3,20,4\n",
			opt:      CSVOptions{Labels: []string{"y"}},
			wantX:    [][]float64{{1, 2}, {3, 4}},
			wantY:    [][]float64{{10}, {20}},
			wantFeat: []string{"a", "b"},
		},
		{
			name:     "multi-label in option order",
			in:       "y1,a,y2\n1,2,3\n4,5,6\n",
			opt:      CSVOptions{Labels: []string{"y2", "y1"}},
			wantX:    [][]float64{{2}, {5}},
			wantY:    [][]float64{{3, 1}, {6, 4}},
			wantFeat: []string{"a"},
		},
		{
			name:     "no labels",
			in:       "a,b\n1,2\n",
			wantX:    [][]float64{{1, 2}},
			wantFeat: []string{"a", "b"},
		},
		{
			name:     "CRLF line endings",
			in:       "a,y\r\n1,2\r\n3,4\r\n",
			opt:      CSVOptions{Labels: []string{"y"}},
			wantX:    [][]float64{{1}, {3}},
			wantY:    [][]float64{{2}, {4}},
			wantFeat: []string{"a"},
		},
		{
			name:     "blank lines, spaces, quotes, no final newline",
			in:       "\"a\", y ,\"b,c\"\n\n 1 , 2 ,\"3\"\n\n4,5,6",
			opt:      CSVOptions{Labels: []string{"y"}},
			wantX:    [][]float64{{1, 3}, {4, 6}},
			wantY:    [][]float64{{2}, {5}},
			wantFeat: []string{"a", "b,c"},
		},
		{
			name:       "qid column",
			in:         "q,a,y\nx,1,2\nz,3,4\nx,5,6\n",
			opt:        CSVOptions{Labels: []string{"y"}, Qid: "q"},
			wantX:      [][]float64{{1}, {3}, {5}},
			wantY:      [][]float64{{2}, {4}, {6}},
			wantFeat:   []string{"a"},
			wantQ:      []int{0, 1, 0},
			wantQNames: []string{"x", "z"},
		},
		{
			name:     "semicolon delimiter",
			in:       "a;y\n1.5;-2e3\n",
			opt:      CSVOptions{Labels: []string{"y"}, Comma: ';'},
			wantX:    [][]float64{{1.5}},
			wantY:    [][]float64{{-2000}},
			wantFeat: []string{"a"},
		},
		{
			name:     "byte order mark",
			in:       "\ufeffy,a\n1,2\n",
			opt:      CSVOptions{Labels: []string{"y"}},
			wantX:    [][]float64{{2}},
			wantY:    [][]float64{{1}},
			wantFeat: []string{"a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(tt.in), "t.csv", tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := d.X.(*mat.Dense); !ok {
				t.Errorf("X is %T, want *mat.Dense", d.X)
			}
			if got := denseOf(d.X); !equalRows(got, tt.wantX) {
				t.Errorf("X = %v, want %v", got, tt.wantX)
			}
			if tt.wantY == nil {
				if d.Y != nil || d.LabelNames != nil {
					t.Errorf("Y = %v, LabelNames = %q, want nil", d.Y, d.LabelNames)
				}
			} else {
				if d.Y == nil {
					t.Fatal("Y is nil")
				}
				if got := denseOf(d.Y); !equalRows(got, tt.wantY) {
					t.Errorf("Y = %v, want %v", got, tt.wantY)
				}
				if !slices.Equal(d.LabelNames, tt.opt.Labels) {
					t.Errorf("LabelNames = %q, want %q", d.LabelNames, tt.opt.Labels)
				}
			}
			if d.Rows() != len(tt.wantX) {
				t.Errorf("Rows() = %d, want %d", d.Rows(), len(tt.wantX))
			}
			if !slices.Equal(d.FeatureNames, tt.wantFeat) {
				t.Errorf("FeatureNames = %q, want %q", d.FeatureNames, tt.wantFeat)
			}
			if !slices.Equal(d.Queries, tt.wantQ) || (d.Queries == nil) != (tt.wantQ == nil) {
				t.Errorf("Queries = %v, want %v", d.Queries, tt.wantQ)
			}
			if !slices.Equal(d.QueryNames, tt.wantQNames) {
				t.Errorf("QueryNames = %q, want %q", d.QueryNames, tt.wantQNames)
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	y := CSVOptions{Labels: []string{"y"}}
	tests := []struct {
		name string
		in   string
		opt  CSVOptions
		want errCase
	}{
		{"feature not a number", "a,y\n1,2\nabc,3\n", y, errCase{ErrSyntax, 3, 1, "abc"}},
		{"label not a number", "a,y\n1,2\n\n3,x4\n", y, errCase{ErrSyntax, 4, 2, "x4"}},
		{"empty value", "a,y\n1,\n", y, errCase{ErrSyntax, 2, 2, ""}},
		{"feature NaN", "a,y\nNaN,1\n", y, errCase{ErrNonFinite, 2, 1, "NaN"}},
		{"label NaN", "a,y\n1,nan\n", y, errCase{ErrNonFinite, 2, 2, "nan"}},
		{"feature +Inf", "a,b,y\n1,+Inf,2\n", y, errCase{ErrNonFinite, 2, 2, "+Inf"}},
		{"feature -Inf", "a,y\n-Inf,2\n", y, errCase{ErrNonFinite, 2, 1, "-Inf"}},
		{"label +Inf", "a,y\n1,Inf\n", y, errCase{ErrNonFinite, 2, 2, "Inf"}},
		{"too many fields", "a,y\n1,2\n3,4,5\n", y, errCase{ErrRagged, 3, 3, "5"}},
		{"too few fields", "a,b,y\n1,2,3\n4,5\n", y, errCase{ErrRagged, 3, 0, ""}},
		{"unknown label column", "a,y\n1,2\n", CSVOptions{Labels: []string{"z"}}, errCase{ErrUnknownColumn, 1, 0, ""}},
		{"unknown qid column", "a,y\n1,2\n", CSVOptions{Labels: []string{"y"}, Qid: "q"}, errCase{ErrUnknownColumn, 1, 0, ""}},
		{"ambiguous label column", "y,a,y\n1,2,3\n", y, errCase{ErrUnknownColumn, 1, 0, ""}},
		{"empty qid", "q,a,y\nx,1,2\n ,3,4\n", CSVOptions{Labels: []string{"y"}, Qid: "q"}, errCase{ErrQid, 3, 1, " "}},
		{"empty file", "", y, errCase{ErrEmpty, 0, 0, ""}},
		{"header only", "a,y\n", y, errCase{ErrEmpty, 1, 0, ""}},
		{"header after blank lines only", "\n\na,y\n\n", y, errCase{ErrEmpty, 3, 0, ""}},
		{"no feature columns", "y\n1\n", y, errCase{ErrEmpty, 1, 0, ""}},
		{"bare quote", "a,y\n1,2\n3\"x,4\n", y, errCase{ErrSyntax, 3, 0, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tt.in), "train.csv", tt.opt)
			checkErr(t, err, "train.csv", tt.want)
		})
	}
}

func TestReadCSVMessage(t *testing.T) {
	_, err := ReadCSV(strings.NewReader("a,b,y\n1,2,3\n4,zz,6\n"), "train.csv", CSVOptions{Labels: []string{"y"}})
	const want = `train.csv:3: column 2 (token "zz"): not a number: dataset: syntax error`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	_, err = ReadCSV(strings.NewReader("a,b\n1,2\n"), "train.csv", CSVOptions{Labels: []string{"y"}})
	const want2 = `train.csv:1: label column "y" not in the header (columns: "a", "b"): dataset: unknown column`
	if err == nil || err.Error() != want2 {
		t.Errorf("error = %v, want %s", err, want2)
	}
}

func TestReadCSVLongLine(t *testing.T) {
	const n = 50000
	var h, r strings.Builder
	h.WriteString("y")
	r.WriteString("1")
	for j := 0; j < n; j++ {
		h.WriteString(",f" + strconv.Itoa(j)) // distinct names: duplicates are refused
		r.WriteString(",0.125")
	}
	in := h.String() + "\n" + r.String() + "\n"
	d, err := ReadCSV(iotest.HalfReader(strings.NewReader(in)), "wide.csv", CSVOptions{Labels: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	if rr, c := d.X.Dims(); rr != 1 || c != n || d.X.At(0, n-1) != 0.125 {
		t.Errorf("got %d×%d, want 1×%d", rr, c, n)
	}
}

func TestReadCSVInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  CSVOptions
	}{
		{"quote delimiter", CSVOptions{Comma: '"'}},
		{"newline delimiter", CSVOptions{Comma: '\n'}},
		{"invalid rune", CSVOptions{Comma: -5}},
		{"label twice", CSVOptions{Labels: []string{"y", "y"}}},
		{"qid is label", CSVOptions{Labels: []string{"y"}, Qid: "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader("a,y\n1,2\n"), "x.csv", tt.opt)
			if !errors.Is(err, ErrOptions) {
				t.Errorf("got %v, want ErrOptions", err)
			}
		})
	}
	if _, err := ReadCSV(nil, "x.csv", CSVOptions{}); !errors.Is(err, ErrOptions) {
		t.Errorf("nil reader: got %v, want ErrOptions", err)
	}
}

func TestReadCSVReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ReadCSV(iotestErrAfter("a,y\n1,2\n", boom), "x.csv", CSVOptions{Labels: []string{"y"}})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v does not wrap the read error", err)
	}
	if !strings.HasPrefix(err.Error(), "x.csv:") {
		t.Errorf("error %q does not name the file", err)
	}
}
