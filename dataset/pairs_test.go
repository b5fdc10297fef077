package dataset

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestReadPairs(t *testing.T) {
	opt := PairsOptions{Rows: 3, Cols: 4}
	for _, tc := range []struct {
		name    string
		in      string
		opt     PairsOptions
		want    *Pairs
		wantErr error
		msg     string // substring of the error message
	}{
		{name: "any order, comments, blank lines", in: "# drug target affinity\n2 3 1.5\n\n0 0 -2 # first\n1\t2\t7e-1\n", opt: opt,
			want: &Pairs{Rows: []int{2, 0, 1}, Cols: []int{3, 0, 2}, Labels: []float64{1.5, -2, 0.7}, Lines: []int{2, 4, 5}}},
		{name: "unlabelled", in: "0 1\n2 3\n", opt: PairsOptions{Rows: 3, Cols: 4, Unlabelled: true},
			want: &Pairs{Rows: []int{0, 2}, Cols: []int{1, 3}, Lines: []int{1, 2}}},
		{name: "labelled accepted for prediction", in: "0 1 5\n", opt: PairsOptions{Rows: 3, Cols: 4, Unlabelled: true},
			want: &Pairs{Rows: []int{0}, Cols: []int{1}, Labels: []float64{5}, Lines: []int{1}}},
		{name: "duplicate names both lines", in: "0 1 1\n2 2 1\n0 1 3\n", opt: opt, wantErr: ErrDuplicate, msg: "f:3: column 1 (token \"0\"): pair (0, 1) already on line 1"},
		{name: "row out of range", in: "0 1 1\n3 1 1\n", opt: opt, wantErr: ErrOutOfRange, msg: "f:2: column 1"},
		{name: "col out of range", in: "0 4 1\n", opt: opt, wantErr: ErrOutOfRange, msg: "f:1: column 2"},
		{name: "negative index", in: "-1 0 1\n", opt: opt, wantErr: ErrOutOfRange, msg: "f:1: column 1"},
		{name: "index not an integer", in: "0 1.0 1\n", opt: opt, wantErr: ErrSyntax, msg: "f:1: column 2"},
		{name: "label not numeric", in: "0 1 1\n1 1 high\n", opt: opt, wantErr: ErrSyntax, msg: "f:2: column 3 (token \"high\")"},
		{name: "label NaN", in: "0 1 nan\n", opt: opt, wantErr: ErrNonFinite, msg: "f:1: column 3"},
		{name: "label infinite", in: "0 1 -Inf\n", opt: opt, wantErr: ErrNonFinite},
		{name: "missing label", in: "0 1\n", opt: opt, wantErr: ErrRagged, msg: "f:1: column 2"},
		{name: "one field", in: "0\n", opt: opt, wantErr: ErrRagged},
		{name: "extra field", in: "0 1 1 9\n", opt: opt, wantErr: ErrRagged, msg: "f:1: column 4"},
		{name: "mixed labelled and not", in: "0 1 1\n1 1\n", opt: PairsOptions{Rows: 3, Cols: 4, Unlabelled: true}, wantErr: ErrRagged, msg: "line 1 has one"},
		{name: "empty", in: "# nothing\n\n", opt: opt, wantErr: ErrEmpty},
		{name: "negative counts", in: "0 0 1\n", opt: PairsOptions{Rows: -1, Cols: 2}, wantErr: ErrOptions},
	} {
		got, err := ReadPairs(strings.NewReader(tc.in), "f", tc.opt)
		if tc.wantErr != nil {
			var pe *ParseError
			if !errors.Is(err, tc.wantErr) || (tc.msg != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), tc.msg))) {
				t.Errorf("%s: error %v, want %v containing %q", tc.name, err, tc.wantErr, tc.msg)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got.Rows, tc.want.Rows) || !slices.Equal(got.Cols, tc.want.Cols) || !slices.Equal(got.Labels, tc.want.Labels) ||
			!slices.Equal(got.Lines, tc.want.Lines) || (got.Labels == nil) != (tc.want.Labels == nil) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func FuzzReadPairs(f *testing.F) {
	for _, s := range []string{"0 1 1\n2 3 -1.5\n", "0 0\n", "1 1 1\n1 1 2\n", "x y z\n", "# c\n\n3 3 3 3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadPairs(strings.NewReader(in), "fuzz", PairsOptions{Rows: 4, Cols: 5, Unlabelled: true})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		seen := map[[2]int]bool{}
		for i := range p.Rows {
			k := [2]int{p.Rows[i], p.Cols[i]}
			if p.Rows[i] < 0 || p.Rows[i] >= 4 || p.Cols[i] < 0 || p.Cols[i] >= 5 || seen[k] {
				t.Fatalf("pair %v accepted", k)
			}
			seen[k] = true
		}
		if p.Labels != nil && len(p.Labels) != p.Len() {
			t.Fatalf("%d labels for %d pairs", len(p.Labels), p.Len())
		}
	})
}
