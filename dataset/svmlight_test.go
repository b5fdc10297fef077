package dataset

import (
	"bufio"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

func TestReadSVMLight(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		opt        SVMLightOptions
		wantX      [][]float64
		wantY      [][]float64
		wantLabels []string
		wantQ      []int
		wantQNames []string
	}{
		{
			name:       "basic",
			in:         "1 1:0.5 3:2\n-1 2:1\n0.25\n",
			wantX:      [][]float64{{0.5, 0, 2}, {0, 1, 0}, {0, 0, 0}},
			wantY:      [][]float64{{1}, {-1}, {0.25}},
			wantLabels: []string{"label"},
		},
		{
			name:       "CRLF line endings",
			in:         "1 1:1\r\n2 2:2\r\n",
			wantX:      [][]float64{{1, 0}, {0, 2}},
			wantY:      [][]float64{{1}, {2}},
			wantLabels: []string{"label"},
		},
		{
			name:       "no final newline",
			in:         "1 1:1\n2 2:2",
			wantX:      [][]float64{{1, 0}, {0, 2}},
			wantY:      [][]float64{{1}, {2}},
			wantLabels: []string{"label"},
		},
		{
			name:       "comments and blank lines",
			in:         "# header comment\n\n1 1:1 # trailing comment 9:9\n   \n\t# indented comment\n2 2:2#glued comment\n\n",
			wantX:      [][]float64{{1, 0}, {0, 2}},
			wantY:      [][]float64{{1}, {2}},
			wantLabels: []string{"label"},
		},
		{
			name:       "tabs and repeated spaces",
			in:         "1\t1:1  \t 2:-3e2\n",
			wantX:      [][]float64{{1, -300}},
			wantY:      [][]float64{{1}},
			wantLabels: []string{"label"},
		},
		{
			name:       "byte order mark",
			in:         "\ufeff3 1:1\n",
			wantX:      [][]float64{{1}},
			wantY:      [][]float64{{3}},
			wantLabels: []string{"label"},
		},
		{
			name:       "qids mapped in order of first appearance",
			in:         "1 qid:b 1:1\n2 qid:a 1:2\n3 qid:b 1:3\n4 qid:c\n",
			wantX:      [][]float64{{1}, {2}, {3}, {0}},
			wantY:      [][]float64{{1}, {2}, {3}, {4}},
			wantLabels: []string{"label"},
			wantQ:      []int{0, 1, 0, 2},
			wantQNames: []string{"b", "a", "c"},
		},
		{
			name:       "multi-output labels",
			in:         "1.5,2,3 1:1\n-1,0,+4 2:1\n",
			wantX:      [][]float64{{1, 0}, {0, 1}},
			wantY:      [][]float64{{1.5, 2, 3}, {-1, 0, 4}},
			wantLabels: []string{"label1", "label2", "label3"},
		},
		{
			name:       "width pads columns",
			in:         "1 1:1\n2 2:2\n",
			opt:        SVMLightOptions{Width: 4},
			wantX:      [][]float64{{1, 0, 0, 0}, {0, 2, 0, 0}},
			wantY:      [][]float64{{1}, {2}},
			wantLabels: []string{"label"},
		},
		{
			name:       "dense",
			in:         "1 1:1 3:3\n2 2:2\n",
			opt:        SVMLightOptions{Dense: true},
			wantX:      [][]float64{{1, 0, 3}, {0, 2, 0}},
			wantY:      [][]float64{{1}, {2}},
			wantLabels: []string{"label"},
		},
		{
			name:       "dense with width",
			in:         "1 1:1\n",
			opt:        SVMLightOptions{Dense: true, Width: 3},
			wantX:      [][]float64{{1, 0, 0}},
			wantY:      [][]float64{{1}},
			wantLabels: []string{"label"},
		},
		{
			name:       "label only rows",
			in:         "1\n2\n",
			wantX:      [][]float64{{}, {}},
			wantY:      [][]float64{{1}, {2}},
			wantLabels: []string{"label"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ReadSVMLight(strings.NewReader(tt.in), "t.svm", tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.opt.Dense {
				if _, ok := d.X.(*mat.Dense); !ok {
					t.Errorf("X is %T, want *mat.Dense", d.X)
				}
			} else {
				csr, ok := d.X.(*matrix.CSR)
				if !ok {
					t.Fatalf("X is %T, want *matrix.CSR", d.X)
				}
				r, c := csr.Dims()
				if _, err := matrix.NewCSR(r, c, csr.Indptr, csr.Indices, csr.Values); err != nil {
					t.Errorf("CSR invariants: %v", err)
				}
			}
			if got := denseOf(d.X); !equalRows(got, tt.wantX) {
				t.Errorf("X = %v, want %v", got, tt.wantX)
			}
			if got := denseOf(d.Y); !equalRows(got, tt.wantY) {
				t.Errorf("Y = %v, want %v", got, tt.wantY)
			}
			if d.Rows() != len(tt.wantY) {
				t.Errorf("Rows() = %d, want %d", d.Rows(), len(tt.wantY))
			}
			if !slices.Equal(d.LabelNames, tt.wantLabels) {
				t.Errorf("LabelNames = %q, want %q", d.LabelNames, tt.wantLabels)
			}
			if d.FeatureNames != nil {
				t.Errorf("FeatureNames = %q, want nil", d.FeatureNames)
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

func TestReadSVMLightErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  SVMLightOptions
		want errCase
	}{
		{"label not a number", "1 1:1\nabc 1:1\n", SVMLightOptions{}, errCase{ErrSyntax, 2, 1, "abc"}},
		{"feature value not a number", "1 1:1\n\n1 2:1 4:abc\n", SVMLightOptions{}, errCase{ErrSyntax, 3, 3, "4:abc"}},
		{"empty feature value", "1 1:\n", SVMLightOptions{}, errCase{ErrSyntax, 1, 2, "1:"}},
		{"label NaN", "NaN 1:1\n", SVMLightOptions{}, errCase{ErrNonFinite, 1, 1, "NaN"}},
		{"label +Inf", "1\n+Inf 1:1\n", SVMLightOptions{}, errCase{ErrNonFinite, 2, 1, "+Inf"}},
		{"feature NaN", "1 1:nan\n", SVMLightOptions{}, errCase{ErrNonFinite, 1, 2, "1:nan"}},
		{"feature +Inf", "1 1:1 2:+Inf\n", SVMLightOptions{}, errCase{ErrNonFinite, 1, 3, "2:+Inf"}},
		{"feature -Inf", "1 1:-Inf\n", SVMLightOptions{}, errCase{ErrNonFinite, 1, 2, "1:-Inf"}},
		{"feature overflow", "1 1:1e400\n", SVMLightOptions{}, errCase{ErrNonFinite, 1, 2, "1:1e400"}},
		{"index zero", "1 0:1\n", SVMLightOptions{}, errCase{ErrIndex, 1, 2, "0:1"}},
		{"negative index", "1 1:1 -2:1\n", SVMLightOptions{}, errCase{ErrIndex, 1, 3, "-2:1"}},
		{"index not increasing", "1 1:1 3:1 2:1\n", SVMLightOptions{}, errCase{ErrIndex, 1, 4, "2:1"}},
		{"duplicate index", "1 1:1\n1 2:1 2:5\n", SVMLightOptions{}, errCase{ErrIndex, 2, 3, "2:5"}},
		{"index above width", "1 1:1 5:1\n", SVMLightOptions{Width: 4}, errCase{ErrIndex, 1, 3, "5:1"}},
		{"index too large", "1 99999999999999999999999:1\n", SVMLightOptions{}, errCase{ErrIndex, 1, 2, "99999999999999999999999:1"}},
		{"index not an integer", "1 1.5:1\n", SVMLightOptions{}, errCase{ErrSyntax, 1, 2, "1.5:1"}},
		{"missing index", "1 :1\n", SVMLightOptions{}, errCase{ErrSyntax, 1, 2, ":1"}},
		{"missing colon", "1 1:1 2\n", SVMLightOptions{}, errCase{ErrSyntax, 1, 3, "2"}},
		{"missing label", "1:1 2:2\n", SVMLightOptions{}, errCase{ErrSyntax, 1, 1, "1:1"}},
		{"misplaced qid", "1 1:1 qid:3\n", SVMLightOptions{}, errCase{ErrSyntax, 1, 3, "qid:3"}},
		{"qid missing on later row", "1 qid:1 1:1\n2 1:1\n", SVMLightOptions{}, errCase{ErrQid, 2, 0, ""}},
		{"qid only on later row", "1 1:1\n2 qid:1 1:1\n", SVMLightOptions{}, errCase{ErrQid, 2, 2, "qid:1"}},
		{"empty qid", "1 qid: 1:1\n", SVMLightOptions{}, errCase{ErrQid, 1, 2, "qid:"}},
		{"label count differs", "1,2 1:1\n1 1:1\n", SVMLightOptions{}, errCase{ErrRagged, 2, 1, "1"}},
		{"multi-label not a number", "1,2 1:1\n1,x 1:1\n", SVMLightOptions{}, errCase{ErrSyntax, 2, 1, "1,x"}},
		{"multi-label empty part", "1,,2 1:1\n", SVMLightOptions{}, errCase{ErrSyntax, 1, 1, "1,,2"}},
		{"empty file", "", SVMLightOptions{}, errCase{ErrEmpty, 0, 0, ""}},
		{"only comments and blanks", "# nothing\n\n  \n", SVMLightOptions{}, errCase{ErrEmpty, 0, 0, ""}},
		{"dense without features", "1\n2\n", SVMLightOptions{Dense: true}, errCase{ErrEmpty, 0, 0, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadSVMLight(strings.NewReader(tt.in), "train.svm", tt.opt)
			checkErr(t, err, "train.svm", tt.want)
		})
	}
}

func TestReadSVMLightMessage(t *testing.T) {
	_, err := ReadSVMLight(strings.NewReader("1 1:1\n1 2:1 4:abc\n"), "train.svm", SVMLightOptions{})
	const want = `train.svm:2: column 3 (token "4:abc"): not a number: dataset: syntax error`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestReadSVMLightLongLine(t *testing.T) {
	// A line far longer than bufio's default buffer, read in tiny pieces.
	const n = 100000
	var b strings.Builder
	b.WriteString("7")
	for j := 1; j <= n; j++ {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(j))
		b.WriteString(":1")
	}
	b.WriteString("\n8 3:2\n")
	d, err := ReadSVMLight(iotest.HalfReader(strings.NewReader(b.String())), "long.svm", SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	csr := d.X.(*matrix.CSR)
	if r, c := csr.Dims(); r != 2 || c != n || csr.NNZ() != n+1 {
		t.Errorf("got %d×%d with %d non-zeros, want 2×%d with %d", r, c, csr.NNZ(), n, n+1)
	}
	if csr.At(1, 2) != 2 || d.Y.At(0, 0) != 7 {
		t.Error("wrong values")
	}
}

func TestReadSVMLightReadError(t *testing.T) {
	boom := errors.New("boom")
	r := bufio.NewReader(iotestErrAfter("1 1:1\n2 2:2\n", boom))
	_, err := ReadSVMLight(r, "x.svm", SVMLightOptions{})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v does not wrap the read error", err)
	}
	if !strings.HasPrefix(err.Error(), "x.svm:3: ") {
		t.Errorf("error %q does not name the file and line", err)
	}
}

func TestReadSVMLightInvalidOptions(t *testing.T) {
	if _, err := ReadSVMLight(strings.NewReader("1 1:1\n"), "x", SVMLightOptions{Width: -1}); !errors.Is(err, ErrOptions) {
		t.Errorf("negative width: got %v, want ErrOptions", err)
	}
	if _, err := ReadSVMLight(nil, "x", SVMLightOptions{}); !errors.Is(err, ErrOptions) {
		t.Errorf("nil reader: got %v, want ErrOptions", err)
	}
}
