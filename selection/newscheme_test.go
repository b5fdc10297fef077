package selection

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// TestParseSpec checks every documented spec, K at its least (2) and the
// refusals: K below 2 or not an integer, K on a word that takes none, and
// unknown words, all wrapping ErrScheme.
func TestParseSpec(t *testing.T) {
	for _, spec := range []string{"none", "loo", "lpo", "lgo", "lqo", "folds", "pairs", "rows", "cols", "both", "vertices"} {
		if name, k, err := ParseSpec(spec); name != spec || k != 0 || err != nil {
			t.Errorf("ParseSpec(%q) = %q, %d, %v", spec, name, k, err)
		}
	}
	for _, word := range []string{"kfold", "stratified-kfold", "group-kfold", "rows", "cols", "both", "vertices"} {
		for _, k := range []int{2, 3, 10} {
			spec := fmt.Sprintf("%s:%d", word, k)
			if name, got, err := ParseSpec(spec); name != word || got != k || err != nil {
				t.Errorf("ParseSpec(%q) = %q, %d, %v", spec, name, got, err)
			}
		}
	}
	for _, spec := range []string{"kfold:1", "kfold:0", "kfold:-3", "kfold:x", "kfold:", "rows:1", "both:x", "vertices:1",
		"kfold", "pairs:3", "loo:3", "lgo:2", "bootstrap", "", "kfold:2:3",
		"stratified-kfold:1", "stratified-kfold", "group-kfold:0", "group-kfold:x", "repeated-kfold:5", "repeated-kfold:5x0",
		"repeated-kfold:1x3", "repeated-kfold:5x", "repeated-kfold:x3", "repeated-kfold:5x3x2", "repeated-kfold:5X3", "repeated-kfold:5x1001",
		"repeated-kfold", "stratified-kfold:5x3"} {
		if name, k, err := ParseSpec(spec); !errors.Is(err, ErrScheme) {
			t.Errorf("ParseSpec(%q) = %q, %d, %v: want ErrScheme", spec, name, k, err)
		}
	}
	if _, _, err := ParseSpec("kfold:1"); !errors.Is(err, errNoK) {
		t.Errorf("kfold:1: %v, want the K rule", err)
	}
	for _, tc := range []struct {
		spec    string
		k, reps int
	}{{"repeated-kfold:2x1", 2, 1}, {"repeated-kfold:5x3", 5, 3}, {"repeated-kfold:10x1000", 10, 1000}} {
		if name, k, reps, err := parseSpec(tc.spec); name != "repeated-kfold" || k != tc.k || reps != tc.reps || err != nil {
			t.Errorf("parseSpec(%q) = %q, %d, %d, %v", tc.spec, name, k, reps, err)
		}
	}
	for spec, rule := range map[string]error{"stratified-kfold:1": errNoK, "group-kfold:1": errNoK, "repeated-kfold:1x3": errNoK, "repeated-kfold:5x0": errNoR, "repeated-kfold:5x-2": errNoR} {
		if _, _, err := ParseSpec(spec); !errors.Is(err, rule) || !strings.Contains(err.Error(), spec) {
			t.Errorf("%s: %v, want the rule %q and the spec named", spec, err, rule)
		}
	}
	if _, _, err := ParseSpec("repeated-kfold:5"); err == nil || !strings.Contains(err.Error(), "repeated-kfold:KxR") {
		t.Errorf("repeated-kfold:5: %v, want the KxR form shown", err)
	}
}

// TestNewSchemeRows checks the schemes NewScheme builds for learners on
// rows: the kind, the name in reports, the folds (those of the cv design
// the spec and options name, drawn with the seed) and every refusal.
func TestNewSchemeRows(t *testing.T) {
	const m = 8
	basis := []int{1, 4, 6}
	kf := func(k int) [][]int { f, _ := cv.KFold(m, k, 9); return f }
	bf, _ := cv.BasisFolds(m, basis, 3, 9)
	ex, _ := cv.FoldsExcluding(m, basis, 3, 9)
	given := [][]int{{0, 3}, {5}}
	groups := []int{0, 0, 1, 1, 2, 2, 2, 3}
	for _, tc := range []struct {
		spec  string
		o     SchemeOptions
		kind  Kind
		name  string
		folds [][]int
	}{
		{"none", SchemeOptions{Rows: m}, None, "none", nil},
		{"loo", SchemeOptions{Rows: m}, LOO, "loo", nil},
		{"lpo", SchemeOptions{Rows: m}, LPO, "lpo", nil},
		{"kfold:3", SchemeOptions{Rows: m, Seed: 9}, Folds, "kfold:3", kf(3)},
		{"kfold:2", SchemeOptions{Rows: m, Seed: 9}, Folds, "kfold:2", kf(2)},
		{"kfold:8", SchemeOptions{Rows: m, Seed: 9}, Folds, "kfold:8", kf(8)},
		{"kfold:3", SchemeOptions{Rows: m, Seed: 9, Design: 1, Basis: basis}, Folds, "kfold:3,basis-design:1", bf},
		{"kfold:3", SchemeOptions{Rows: m, Seed: 9, Design: 2, Basis: basis}, Folds, "kfold:3,basis-design:2", ex},
		{"kfold:3", SchemeOptions{Rows: m, Seed: 9, Design: 3, Basis: basis}, Folds, "kfold:3,basis-design:3", kf(3)},
		{"kfold:3", SchemeOptions{Rows: m, Seed: 9, FoldMean: true}, Folds, "kfold:3,fold-score:mean", kf(3)},
		{"lgo", SchemeOptions{Rows: m, Groups: groups}, Folds, "lgo", [][]int{{0, 1}, {2, 3}, {4, 5, 6}, {7}}},
		{"lqo", SchemeOptions{Rows: m, Groups: groups}, Folds, "lqo", [][]int{{0, 1}, {2, 3}, {4, 5, 6}, {7}}},
		{"lqo", SchemeOptions{Rows: 4, Groups: []int{5, 5, 7, 7}}, Folds, "lqo", [][]int{{0, 1}, {2, 3}}},
		{"lgo", SchemeOptions{Rows: 3, Groups: []int{5, 6, 7}}, Folds, "lgo", [][]int{{0}, {1}, {2}}},
		{"folds", SchemeOptions{Rows: m, Folds: given, FoldsName: "f.txt"}, Folds, "folds:f.txt", given},
		{"folds", SchemeOptions{Rows: m, Folds: given, FoldsName: "f.txt", FoldMean: true}, Folds, "folds:f.txt,fold-score:mean", given},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := NewScheme(tc.spec, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Kind != tc.kind || sc.Name != tc.name || !reflect.DeepEqual(sc.Folds, tc.folds) {
				t.Errorf("got kind %q, name %q, folds %v; want %q, %q, %v", sc.Kind, sc.Name, sc.Folds, tc.kind, tc.name, tc.folds)
			}
			if sc.FoldMean != tc.o.FoldMean {
				t.Errorf("FoldMean %v", sc.FoldMean)
			}
		})
	}
	for _, tc := range []struct {
		name string
		spec string
		o    SchemeOptions
		also error
	}{
		{"bad spec", "kfold:1", SchemeOptions{Rows: m}, nil},
		{"unknown spec", "bootstrap", SchemeOptions{Rows: m}, nil},
		{"basis design on loo", "loo", SchemeOptions{Rows: m, Design: 1, Basis: basis}, nil},
		{"basis design on folds", "folds", SchemeOptions{Rows: m, Design: 2, Basis: basis, Folds: given}, nil},
		{"basis design 4", "kfold:3", SchemeOptions{Rows: m, Design: 4, Basis: basis}, nil},
		{"bad basis", "kfold:3", SchemeOptions{Rows: m, Design: 1, Basis: []int{1, 1}}, cv.ErrFolds},
		{"basis leaves too few rows", "kfold:3", SchemeOptions{Rows: m, Design: 2, Basis: []int{0, 1, 2, 3, 4, 5}}, cv.ErrFolds},
		{"k above m", "kfold:9", SchemeOptions{Rows: m}, nil},
		{"lgo without groups", "lgo", SchemeOptions{Rows: m}, nil},
		{"lqo without groups", "lqo", SchemeOptions{Rows: m}, nil},
		{"one group", "lgo", SchemeOptions{Rows: 3, Groups: []int{4, 4, 4}}, cv.ErrFolds},
		{"lqo: one query of two rows", "lqo", SchemeOptions{Rows: 4, Groups: []int{0, 0, 1, 2}}, nil},
		{"lqo: no query of two rows", "lqo", SchemeOptions{Rows: 3, Groups: []int{0, 1, 2}}, nil},
		{"bad folds", "folds", SchemeOptions{Rows: m, Folds: [][]int{{0, 8}}}, cv.ErrFolds},
		{"no folds", "folds", SchemeOptions{Rows: m}, cv.ErrFolds},
		{"fold mean on loo", "loo", SchemeOptions{Rows: m, FoldMean: true}, nil},
		{"fold mean on lpo", "lpo", SchemeOptions{Rows: m, FoldMean: true}, nil},
		{"lpo within groups without labels", "lpo", SchemeOptions{Rows: m, Groups: groups, PairsWithinGroups: true}, nil},
		{"lpo within groups, two label columns", "lpo", SchemeOptions{Rows: m, Groups: groups, PairsWithinGroups: true, Labels: mat.NewDense(m, 2, nil)}, nil},
		{"lpo within groups, groups of other rows", "lpo", SchemeOptions{Rows: m, Groups: groups[:5], PairsWithinGroups: true, Labels: mat.NewDense(m, 1, nil)}, measure.ErrShape},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewScheme(tc.spec, tc.o)
			if !errors.Is(err, ErrScheme) {
				t.Fatalf("NewScheme(%q): %v, want ErrScheme", tc.spec, err)
			}
			if tc.also != nil && !errors.Is(err, tc.also) {
				t.Errorf("NewScheme(%q): %v, want it to wrap %v too", tc.spec, err, tc.also)
			}
		})
	}
}

// TestNewSchemePairsWithinGroups checks leave-pair-out within groups
// against the definition: every pair i < j of one group with different
// labels, and plain lpo leaving the pairs to the measure (nil).
func TestNewSchemePairsWithinGroups(t *testing.T) {
	y := []float64{1, 0, 2, 2, 1, 0, 3}
	groups := []int{7, 7, 8, 7, 8, 8, 9}
	sc, err := NewScheme("lpo", SchemeOptions{Rows: len(y), Groups: groups, PairsWithinGroups: true, Labels: mat.NewDense(len(y), 1, y)})
	if err != nil {
		t.Fatal(err)
	}
	var want []learn.Pair
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if groups[i] == groups[j] && y[i] != y[j] {
				want = append(want, learn.Pair{I: i, J: j})
			}
		}
	}
	if !slices.Equal(sc.Pairs, want) || sc.Kind != LPO {
		t.Errorf("pairs %v, want %v", sc.Pairs, want)
	}
	if sc, err := NewScheme("lpo", SchemeOptions{Rows: len(y), Groups: groups}); err != nil || sc.Pairs != nil {
		t.Errorf("plain lpo: pairs %v, %v", sc.Pairs, err)
	}
}

// TestNewSchemeObjects checks the object designs of a learner of pairs:
// which side each setting folds, K folds drawn by KFold (rows with the
// seed, columns with seed+1), one object per fold without K (nil folds),
// folds given by the caller, and every refusal.
func TestNewSchemeObjects(t *testing.T) {
	const n, q = 6, 5
	rowK := func(k int) [][]int { f, _ := cv.KFold(n, k, 4); return f }
	colK := func(k int) [][]int { f, _ := cv.KFold(q, k, 5); return f }
	rf, cf := [][]int{{0, 2}, {1}, {5}}, [][]int{{4}, {0, 1}}
	o := SchemeOptions{RowObjects: n, ColObjects: q, Seed: 4}
	with := func(f func(*SchemeOptions)) SchemeOptions { c := o; f(&c); return c }
	for _, tc := range []struct {
		spec       string
		o          SchemeOptions
		name       string
		rows, cols [][]int
	}{
		{"pairs", o, "pairs", nil, nil},
		{"rows", o, "rows", nil, nil},
		{"cols", o, "cols", nil, nil},
		{"both", o, "both", nil, nil},
		{"vertices", o, "vertices", nil, nil},
		{"rows:3", o, "rows:3", rowK(3), nil},
		{"rows:6", o, "rows:6", rowK(6), nil},
		{"rows:2", o, "rows:2", rowK(2), nil},
		{"cols:2", o, "cols:2", nil, colK(2)},
		{"cols:5", o, "cols:5", nil, colK(5)},
		{"both:2", o, "both:2", rowK(2), colK(2)},
		{"both:5", o, "both:5", rowK(5), colK(5)},
		{"vertices:3", o, "vertices:3", rowK(3), nil},
		{"rows", with(func(c *SchemeOptions) { c.Folds, c.FoldsName = rf, "r.txt" }), "rows,folds:r.txt", rf, nil},
		{"vertices", with(func(c *SchemeOptions) { c.Folds, c.FoldsName = rf, "r.txt" }), "vertices,folds:r.txt", rf, nil},
		{"cols", with(func(c *SchemeOptions) { c.ColFolds = cf }), "cols", nil, cf},
		{"both", with(func(c *SchemeOptions) { c.Folds, c.ColFolds, c.FoldsName = rf, cf, "r.txt" }), "both,folds:r.txt", rf, cf},
		{"both", with(func(c *SchemeOptions) { c.ColFolds = cf }), "both", nil, cf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := NewScheme(tc.spec, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			word, _, _ := strings.Cut(tc.spec, ":")
			if sc.Kind != Objects || sc.Name != tc.name || sc.Design.Setting != word {
				t.Errorf("kind %q, name %q, setting %q", sc.Kind, sc.Name, sc.Design.Setting)
			}
			if !reflect.DeepEqual(sc.Design.RowFolds, tc.rows) || !reflect.DeepEqual(sc.Design.ColFolds, tc.cols) {
				t.Errorf("row folds %v, column folds %v; want %v, %v", sc.Design.RowFolds, sc.Design.ColFolds, tc.rows, tc.cols)
			}
		})
	}
	for _, tc := range []struct {
		name string
		spec string
		o    SchemeOptions
	}{
		{"basis design", "rows:2", with(func(c *SchemeOptions) { c.Design = 1 })},
		{"fold mean", "rows:2", with(func(c *SchemeOptions) { c.FoldMean = true })},
		{"fold mean without K", "both", with(func(c *SchemeOptions) { c.FoldMean = true })},
		{"pairs with row folds", "pairs", with(func(c *SchemeOptions) { c.Folds = rf })},
		{"pairs with column folds", "pairs", with(func(c *SchemeOptions) { c.ColFolds = cf })},
		{"cols with row folds", "cols", with(func(c *SchemeOptions) { c.Folds = rf })},
		{"rows with column folds", "rows", with(func(c *SchemeOptions) { c.ColFolds = cf })},
		{"vertices with column folds", "vertices", with(func(c *SchemeOptions) { c.ColFolds = cf })},
		{"K and row folds", "rows:2", with(func(c *SchemeOptions) { c.Folds = rf })},
		{"K and column folds", "both:2", with(func(c *SchemeOptions) { c.ColFolds = cf })},
		{"more row folds than objects", "rows:7", o},
		{"more column folds than objects", "both:6", o},
		{"cols: more folds than objects", "cols:6", o},
		{"empty row fold", "rows", with(func(c *SchemeOptions) { c.Folds = [][]int{{0}, {}} })},
		{"row object out of range", "rows", with(func(c *SchemeOptions) { c.Folds = [][]int{{0, n}} })},
		{"negative row object", "both", with(func(c *SchemeOptions) { c.Folds = [][]int{{-1}} })},
		{"row object twice", "vertices", with(func(c *SchemeOptions) { c.Folds = [][]int{{0, 1}, {1}} })},
		{"column object out of range", "cols", with(func(c *SchemeOptions) { c.ColFolds = [][]int{{q}} })},
		{"column object twice", "both", with(func(c *SchemeOptions) { c.ColFolds = [][]int{{2, 2}} })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if sc, err := NewScheme(tc.spec, tc.o); !errors.Is(err, ErrScheme) {
				t.Fatalf("NewScheme(%q): %+v, %v; want ErrScheme", tc.spec, sc, err)
			}
		})
	}
}
