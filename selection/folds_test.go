package selection

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
)

// foldData is a small classification problem for the fold kinds: m rows
// of d N(0,1) features, a class 0, 1 or 2 per row (mostly the tercile of
// feature 0, a fifth of them at random; class 2 the rarest), the class as
// one label column and as one-vs-all ±1 columns, and a group per row
// (8 ids at random: groups of uneven sizes, some of them equal).
type foldData struct {
	x             *mat.Dense
	class         []int
	label, onevsa *mat.Dense
	groups        []int
}

func newFoldData(seed uint64, m, d int) foldData {
	rng := rand.New(rand.NewPCG(seed, 24))
	fd := foldData{x: mat.NewDense(m, d, nil), class: make([]int, m), label: mat.NewDense(m, 1, nil),
		onevsa: mat.NewDense(m, 3, nil), groups: make([]int, m)}
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			fd.x.Set(i, j, rng.NormFloat64())
		}
		c := 0
		switch v := fd.x.At(i, 0); {
		case v > 0.8:
			c = 2
		case v > -0.3:
			c = 1
		}
		if rng.IntN(5) == 0 {
			c = rng.IntN(3)
		}
		fd.class[i] = c
		fd.label.Set(i, 0, float64(c))
		for k := 0; k < 3; k++ {
			fd.onevsa.Set(i, k, -1)
		}
		fd.onevsa.Set(i, c, 1)
		fd.groups[i] = 100 + rng.IntN(8) // uneven sizes, some equal
	}
	return fd
}

// TestNewSchemeFoldKinds checks the folds NewScheme draws for the fold
// kinds of scikit-learn: stratified k-fold keeps every class within one row
// of its share in every fold (the classes of one label column, or of one-
// vs-all ±1 columns), group k-fold never splits a group and keeps the folds
// within the largest group's size of each other, repeated k-fold is R
// distinct partitions (every row held out R times); all are partitions of
// kind Folds named by the spec, the same seed gives the same folds and
// another seed other folds.
func TestNewSchemeFoldKinds(t *testing.T) {
	const m = 60
	fd := newFoldData(1, m, 2)
	count := func(c int) int {
		n := 0
		for _, v := range fd.class {
			if v == c {
				n++
			}
		}
		return n
	}
	for c := 0; c < 3; c++ {
		if count(c) < 10 {
			t.Fatalf("class %d has %d rows: the data do not test stratification", c, count(c))
		}
	}
	for _, tc := range []struct {
		spec string
		o    SchemeOptions
	}{
		{"stratified-kfold:2", SchemeOptions{Rows: m, Labels: fd.label}},
		{"stratified-kfold:5", SchemeOptions{Rows: m, Labels: fd.label}},
		{"stratified-kfold:10", SchemeOptions{Rows: m, Labels: fd.label}},
		{"stratified-kfold:5", SchemeOptions{Rows: m, Labels: fd.onevsa}},
		{"group-kfold:2", SchemeOptions{Rows: m, Groups: fd.groups}},
		{"group-kfold:4", SchemeOptions{Rows: m, Groups: fd.groups}},
		{"group-kfold:8", SchemeOptions{Rows: m, Groups: fd.groups}},
		{"repeated-kfold:5x3", SchemeOptions{Rows: m}},
		{"repeated-kfold:2x4", SchemeOptions{Rows: m}},
		{"repeated-kfold:60x2", SchemeOptions{Rows: m}},
		{"repeated-kfold:4x1", SchemeOptions{Rows: m}},
	} {
		_, cols := 0, 0
		if tc.o.Labels != nil {
			_, cols = tc.o.Labels.Dims()
		}
		t.Run(fmt.Sprintf("%s/%d columns", tc.spec, cols), func(t *testing.T) {
			name, k, reps, _ := parseSpec(tc.spec)
			reps = max(reps, 1)
			draw := func(seed uint64) Scheme {
				o := tc.o
				o.Seed = seed
				sc, err := NewScheme(tc.spec, o)
				if err != nil {
					t.Fatal(err)
				}
				return sc
			}
			sc := draw(7)
			if sc.Kind != Folds || sc.Name != tc.spec || len(sc.Folds) != k*reps || max(sc.Repeats, 1) != reps {
				t.Fatalf("kind %q, name %q, %d folds, %d repeats; want folds, %q, %d folds, %d repeats", sc.Kind, sc.Name, len(sc.Folds), sc.Repeats, tc.spec, k*reps, reps)
			}
			if err := checkScheme(sc, fd.label, mustMeasure(t, "mse")); err != nil {
				t.Fatal(err)
			}
			runs := sc.Repetitions()
			if len(runs) != reps {
				t.Fatalf("%d repetitions, want %d", len(runs), reps)
			}
			held := make([]int, m) // times each row is held out
			for r, folds := range runs {
				if len(folds) != k || !cv.Covered(folds, m) {
					t.Fatalf("repetition %d: %d folds %v, not a partition into %d", r, len(folds), folds, k)
				}
				for _, f := range folds {
					for _, i := range f {
						held[i]++
					}
				}
				for q := 0; q < r; q++ {
					if reflect.DeepEqual(folds, runs[q]) {
						t.Errorf("repetitions %d and %d are the same", q, r)
					}
				}
			}
			for i, n := range held {
				if n != reps {
					t.Fatalf("row %d held out %d times, want %d", i, n, reps)
				}
			}
			lo, hi := m, 0
			for _, f := range runs[0] {
				lo, hi = min(lo, len(f)), max(hi, len(f))
			}
			switch name {
			case "stratified-kfold":
				for c := 0; c < 3; c++ {
					share := float64(count(c)) / float64(k)
					for f, fold := range sc.Folds {
						n := 0
						for _, i := range fold {
							if fd.class[i] == c {
								n++
							}
						}
						if !(math.Abs(float64(n)-share) < 1) {
							t.Errorf("fold %d: %d rows of class %d, its share is %.2f", f, n, c, share)
						}
					}
				}
				if hi-lo > 1 {
					t.Errorf("fold sizes from %d to %d", lo, hi)
				}
			case "group-kfold":
				size := map[int]int{}
				for _, g := range fd.groups {
					size[g]++
				}
				largest := 0
				for _, n := range size {
					largest = max(largest, n)
				}
				for f, fold := range sc.Folds {
					for _, i := range fold {
						for h, other := range sc.Folds {
							for _, j := range other {
								if h != f && fd.groups[i] == fd.groups[j] {
									t.Fatalf("group %d split over folds %d and %d", fd.groups[i], f, h)
								}
							}
						}
					}
				}
				if hi-lo > largest {
					t.Errorf("fold sizes from %d to %d, more apart than the largest group (%d rows)", lo, hi, largest)
				}
			default:
				if hi-lo > 1 {
					t.Errorf("fold sizes from %d to %d", lo, hi)
				}
			}
			if again := draw(7); !reflect.DeepEqual(again.Folds, sc.Folds) {
				t.Error("the same seed drew other folds")
			}
			if name == "group-kfold" && k == 8 {
				return // one group per fold: no other partition
			}
			if other := draw(8); reflect.DeepEqual(other.Folds, sc.Folds) {
				t.Error("seeds 7 and 8 drew the same folds")
			}
		})
	}
}

// TestNewSchemeFoldKindErrors checks every refusal of the fold kinds: each
// wraps ErrScheme and names the spec (the CLI's --cv value), and says what
// to do.
func TestNewSchemeFoldKindErrors(t *testing.T) {
	const m = 30
	fd := newFoldData(2, m, 2)
	col := func(v ...float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }
	continuous := mat.NewDense(m, 1, nil)
	many := mat.NewDense(m*2, 1, nil) // 60 integer values
	for i := 0; i < m; i++ {
		continuous.Set(i, 0, fd.x.At(i, 0))
	}
	for i := 0; i < 2*m; i++ {
		many.Set(i, 0, float64(i))
	}
	fifty := mat.NewDense(100, 1, nil) // exactly 50 classes of 2 rows: accepted
	for i := 0; i < 100; i++ {
		fifty.Set(i, 0, float64(i/2))
	}
	if _, err := NewScheme("stratified-kfold:2", SchemeOptions{Rows: 100, Labels: fifty}); err != nil {
		t.Errorf("50 classes of 2 rows: %v", err)
	}
	twoPlus := mat.DenseCopyOf(fd.onevsa)
	twoPlus.Set(4, 0, 1)
	twoPlus.Set(4, 1, 1)
	noPlus := mat.DenseCopyOf(fd.onevsa)
	noPlus.SetRow(6, []float64{-1, -1, -1})
	zeroOne := mat.DenseCopyOf(fd.onevsa)
	zeroOne.Set(2, 0, 0)
	regression := mat.NewDense(m, 2, nil)
	ids := map[int]bool{}
	for _, g := range fd.groups {
		ids[g] = true
	}
	tooMany := fmt.Sprintf("group-kfold:%d", len(ids)+1)
	for _, tc := range []struct {
		spec string
		o    SchemeOptions
		want []string // in the message besides the spec
	}{
		{"stratified-kfold:1", SchemeOptions{Rows: m, Labels: fd.label}, []string{"K must be"}},
		{"stratified-kfold:x", SchemeOptions{Rows: m, Labels: fd.label}, []string{"K must be"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m}, []string{"no labels", "kfold:3"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m, Labels: continuous}, []string{"not an integer", "kfold:3"}},
		{"stratified-kfold:3", SchemeOptions{Rows: 2 * m, Labels: many}, []string{"more than 50 distinct values", "kfold:3"}},
		{"stratified-kfold:3", SchemeOptions{Rows: 3, Labels: col(1, math.NaN(), 1)}, []string{"row 2", "NaN"}},
		{"stratified-kfold:3", SchemeOptions{Rows: 3, Labels: col(1, math.Inf(1), 1)}, []string{"row 2", "+Inf"}},
		{"stratified-kfold:3", SchemeOptions{Rows: 7, Labels: col(1, 1, 1, 1, 2, 2, 1)}, []string{"class 2 has 2 rows", "stratified-kfold:2", "kfold:3"}},
		{"stratified-kfold:2", SchemeOptions{Rows: 5, Labels: col(1, 1, 7, 1, 1)}, []string{"class 7 has 1 row", "kfold:2"}},
		{"stratified-kfold:6", SchemeOptions{Rows: 5, Labels: col(1, 1, 2, 2, 1)}, []string{"fewer than the 6 folds"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m, Labels: twoPlus}, []string{"row 5, column 2", "one +1 per row"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m, Labels: noPlus}, []string{"row 7 has no +1"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m, Labels: zeroOne}, []string{"row 3, column 1 is 0"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m, Labels: regression}, []string{"one-vs-all"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m + 1, Labels: fd.label}, []string{"30 labels for 31 rows"}},
		{"group-kfold:3", SchemeOptions{Rows: m}, []string{"--qid", "group ids"}},
		{tooMany, SchemeOptions{Rows: m, Groups: fd.groups}, []string{fmt.Sprintf("at least %d groups", len(ids)+1), fmt.Sprintf("for %d groups", len(ids))}},
		{"group-kfold:2", SchemeOptions{Rows: m, Groups: fd.groups[:5]}, []string{"5 group ids for 30 rows"}},
		{"group-kfold:1", SchemeOptions{Rows: m, Groups: fd.groups}, []string{"K must be"}},
		{"repeated-kfold:5", SchemeOptions{Rows: m}, []string{"repeated-kfold:KxR"}},
		{"repeated-kfold:5x0", SchemeOptions{Rows: m}, []string{"R, the number of repetitions"}},
		{"repeated-kfold:1x3", SchemeOptions{Rows: m}, []string{"K must be"}},
		{"repeated-kfold:31x2", SchemeOptions{Rows: m}, []string{"31 folds of 30 rows"}},
		{"repeated-kfold:5x3", SchemeOptions{Rows: m, Design: 1, Basis: []int{0, 1}}, []string{"basis design 1 is a k-fold design"}},
		{"stratified-kfold:3", SchemeOptions{Rows: m, Labels: fd.label, Design: 2, Basis: []int{0, 1}}, []string{"basis design 2"}},
		{"lgo", SchemeOptions{Rows: m}, []string{"--qid"}},
		{"lqo", SchemeOptions{Rows: m}, []string{"--qid"}},
	} {
		t.Run(tc.spec+"/"+tc.want[0], func(t *testing.T) {
			sc, err := NewScheme(tc.spec, tc.o)
			if !errors.Is(err, ErrScheme) {
				t.Fatalf("NewScheme(%q) = %v, %v: want ErrScheme", tc.spec, sc.Folds, err)
			}
			for _, w := range append([]string{tc.spec}, tc.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q: %v: want %q in the message", tc.spec, err, w)
				}
			}
		})
	}
}

// The fold kinds are hold-outs like k-fold: Check asks the learner for
// learn.CanHoldOut (learn.CanHoldOutBasis when held-out basis vectors are
// removed) and Needs says so.
func TestFoldKindsNeeds(t *testing.T) {
	fd := newFoldData(3, 20, 2)
	mse := mustMeasure(t, "mse")
	for _, spec := range []string{"stratified-kfold:3", "group-kfold:3", "repeated-kfold:3x2"} {
		sc, err := NewScheme(spec, SchemeOptions{Rows: 20, Labels: fd.label, Groups: fd.groups})
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Needs(); !slices.Equal(got, []learn.Capability{learn.CanHoldOut}) {
			t.Errorf("%s: Needs %v", spec, got)
		}
		sc.Basis = learn.Remove
		if got := sc.Needs(); !slices.Equal(got, []learn.Capability{learn.CanHoldOutBasis}) {
			t.Errorf("%s, basis removed: Needs %v", spec, got)
		}
		if err := Check(holdOnly, Plan{Scheme: spec, Measure: mse}); err != nil {
			t.Errorf("%s, a learner with hold-outs: %v", spec, err)
		}
		if err := Check(looOnly, Plan{Scheme: spec, Measure: mse}); !errors.Is(err, learn.ErrCapability) {
			t.Errorf("%s, a learner without hold-outs: %v, want ErrCapability", spec, err)
		}
		if err := Check(pairsOne, Plan{Scheme: spec, Measure: mse}); !errors.Is(err, ErrScheme) {
			t.Errorf("%s, a learner of pairs: %v, want ErrScheme", spec, err)
		}
	}
}

// plainRun is the scheme of one repetition of a repeated scheme, as a
// plain scheme of folds.
func plainRun(sc Scheme, r int) Scheme {
	one := sc
	one.Folds, one.Repeats, one.Name = sc.Repetitions()[r], 0, fmt.Sprintf("%s#%d", sc.Name, r)
	return one
}

// A repeated k-fold's value at every λ is the mean, over its repetitions,
// of the value Select gives each repetition as a plain scheme of folds (the
// same computation: equal to the bit); its tie flag holds when every
// repetition's does; its best point, predictions and tie tolerances are
// those of that curve and of the first repetition. For every learner with
// hold-outs — rls (dual, its one-pass path and per λ; sparse, basis kept and
// removed) and the rankers (global per λ; query and preference graph
// through their paths, the twin in lockstep) — ordinal and not, pooled and
// fold-mean.
func TestRepeatedIsMeanOfRepetitions(t *testing.T) {
	const m = 24
	fd := newFoldData(4, m, 3)
	y := mat.NewDense(m, 2, nil)
	q := make([]int, m)
	for i := 0; i < m; i++ {
		y.Set(i, 0, float64(fd.class[i]))
		y.Set(i, 1, fd.x.At(i, 1)+0.3*fd.x.At(i, 2))
		q[i] = i % 4
	}
	y1 := y.Slice(0, m, 0, 1).(*mat.Dense)
	g := kernel.Gaussian{Gamma: 0.3}
	dual, err := rls.Fit(fd.x, y, learn.Options{Kernel: g})
	if err != nil {
		t.Fatal(err)
	}
	sparse, err := rls.Fit(fd.x, y, learn.Options{Kernel: g, Form: learn.Sparse, Basis: []int{0, 3, 7, 11, 15, 19}})
	if err != nil {
		t.Fatal(err)
	}
	global, err := rank.FitGlobal(fd.x, y1, learn.Options{Kernel: g})
	if err != nil {
		t.Fatal(err)
	}
	query, err := rank.FitQuery(fd.x, y1, q, learn.Options{Kernel: g})
	if err != nil {
		t.Fatal(err)
	}
	var edges []rank.Edge
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			if a, b := y.At(i, 0), y.At(j, 0); a > b && (i+j)%3 == 0 {
				edges = append(edges, rank.Edge{I: i, J: j, Magnitude: a - b, Weight: 1})
			}
		}
	}
	pref, err := rank.FitPreference(fd.x, edges, rank.Magnitude, learn.Options{Kernel: g})
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{1e-3, 0.1, 1, 10, 1e3}
	for _, c := range []struct {
		name   string
		l      learn.Learner
		opt    Options
		policy learn.Policy
		path   bool
	}{
		{"rls dual", dual, Options{}, "", true},
		{"rls dual per λ", perLambda{dual}, Options{}, "", false},
		{"rls sparse, basis kept", sparse, Options{}, learn.Keep, true},
		{"rls sparse, basis removed", sparse, Options{}, learn.Remove, false},
		{"globalrank", global, Options{}, "", false},
		{"queryrank", query, Options{Queries: q}, "", true},
		{"prefrank", pref, Options{Labels: y1}, "", true},
	} {
		if _, ok := c.l.(FoldPathValidator); (ok && c.policy != learn.Remove) != c.path {
			t.Fatalf("%s: cross-validated along the path %v, want %v", c.name, !c.path, c.path)
		}
		for _, spec := range []string{"repeated-kfold:4x3", "repeated-kfold:3x2"} {
			for _, fm := range []bool{false, true} {
				sc, err := NewScheme(spec, SchemeOptions{Rows: m, Seed: 5, Policy: c.policy, FoldMean: fm})
				if err != nil {
					t.Fatal(err)
				}
				for _, mn := range []string{"mse", "cindex"} {
					meas := mustMeasure(t, mn)
					t.Run(fmt.Sprintf("%s/%s/%s", c.name, sc.Name, mn), func(t *testing.T) {
						got, err := Select(c.l, grid, sc, meas, c.opt)
						if err != nil {
							t.Fatal(err)
						}
						var runs []*Result
						for r := range sc.Repeats {
							res, err := Select(c.l, grid, plainRun(sc, r), meas, c.opt)
							if err != nil {
								t.Fatal(err)
							}
							runs = append(runs, res)
						}
						best := -1
						for n, p := range got.Curve {
							sum, tied := 0.0, true
							for _, res := range runs {
								sum += res.Curve[n].Value
								tied = tied && res.Curve[n].Indistinguishable
							}
							want := sum / float64(len(runs))
							if p.Lambda != grid[n] || p.Value != want || p.Indistinguishable != tied {
								t.Errorf("λ=%g: %+v, want the mean %v of the repetitions, tied %v", grid[n], p, want, tied)
							}
							if best < 0 || meas.Better(want, got.Curve[best].Value) || want == got.Curve[best].Value {
								best = n
							}
						}
						if got.BestIndex != best || got.Best != got.Curve[best] {
							t.Errorf("best %d %+v, want %d", got.BestIndex, got.Best, best)
						}
						first, err := Select(c.l, []float64{grid[best]}, plainRun(sc, 0), meas, c.opt)
						if err != nil {
							t.Fatal(err)
						}
						// the same predictions up to rounding: the pass over the whole grid and the
						// one over one λ batch their products differently (bit for bit in the pure-Go
						// and the run-time OpenBLAS builds, not with the cgo OpenBLAS one); another
						// repetition's differ by the folds, at O(1)
						scale := max(mat.Norm(first.Predictions, math.Inf(1)), 1)
						if !mat.EqualApprox(got.Predictions, first.Predictions, 1e-12*scale) || !sameNoise(got.Tolerance, first.Tolerance) {
							t.Errorf("predictions (tolerance %v) are not the first repetition's at the best λ (tolerance %v)", got.Tolerance, first.Tolerance)
						}
					})
				}
			}
		}
	}
}

// Result.FoldValues scores the first repetition's folds, whose predictions
// the Result holds, and gives NaN for the folds of the later ones.
func TestFoldValuesRepeated(t *testing.T) {
	const m = 24
	fd := newFoldData(5, m, 2)
	l, err := rls.Fit(fd.x, fd.label, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := NewScheme("repeated-kfold:4x3", SchemeOptions{Rows: m, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	mse := mustMeasure(t, "mse")
	res, err := Select(l, []float64{0.1, 1}, sc, mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := res.FoldValues(fd.label, sc.Folds, mse, nil)
	first := res.FoldValues(fd.label, sc.Repetitions()[0], mse, nil)
	if len(all) != 12 || len(first) != 4 {
		t.Fatalf("%d and %d values", len(all), len(first))
	}
	for k, v := range all {
		if k < 4 && (v != first[k] || math.IsNaN(v)) || k >= 4 && !math.IsNaN(v) {
			t.Errorf("fold %d: %v (first repetition's: %v)", k, v, first)
		}
	}
}

// A permutation test over a repeated k-fold scores every labelling by the
// mean over the repetitions: the real labels' value is the search's.
func TestPermutationRepeated(t *testing.T) {
	const m = 30
	fd := newFoldData(6, m, 2)
	d, err := learn.Lookup("rls")
	if err != nil {
		t.Skip("rls is not registered in this test binary")
	}
	sc, err := NewScheme("repeated-kfold:3x4", SchemeOptions{Rows: m, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Search(Problem{Learner: d, Input: &learn.Input{X: fd.x, Y: fd.label}},
		Settings{Kernels: []kernel.Spec{{Name: "gaussian", Gamma: 0.4}}, Lambdas: []float64{0.01, 1, 100},
			Measure: mustMeasure(t, "mse"), Scheme: sc, Permutations: 9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// the permutation test scores per λ, the search along the path: equal to rounding
	if res.Permutation == nil || math.Abs(res.Permutation.Real-res.Value) > 1e-12*math.Abs(res.Value) {
		t.Errorf("permutation test's real value %+v, the search's %v", res.Permutation, res.Value)
	}
}

// checkScheme refuses a repeated scheme whose folds do not split into its
// repetitions, or a repetition that is not a set of folds, naming it.
func TestCheckSchemeRepeated(t *testing.T) {
	y := mat.NewDense(6, 1, nil)
	mse := mustMeasure(t, "mse")
	for _, tc := range []struct {
		sc   Scheme
		want string
	}{
		{Scheme{Kind: Folds, Name: "r", Repeats: 2, Folds: [][]int{{0, 1}, {2, 3}, {4, 5}}}, "do not split into 2 repetitions"},
		{Scheme{Kind: Folds, Name: "r", Repeats: 2, Folds: [][]int{{0, 1, 2}, {3, 4, 5}, {0, 1}, {1, 5}}}, "repetition 2"},
	} {
		if err := checkScheme(tc.sc, y, mse); !errors.Is(err, ErrScheme) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.sc.Folds, err, tc.want)
		}
	}
	ok := Scheme{Kind: Folds, Name: "r", Repeats: 2, Folds: [][]int{{0, 1, 2}, {3, 4, 5}, {0, 5}, {1, 2, 3, 4}}}
	if err := checkScheme(ok, y, mse); err != nil {
		t.Errorf("two partitions: %v", err)
	}
}

// constantFolds is a solution whose hold-out predicts 7 for every row of
// the folds listed in same, and the row's index otherwise.
type constantFolds struct{ same [][]int }

func (constantFolds) Predictor() *model.Predictor { return nil }

func (c constantFolds) HoldOut(rows []int) (*mat.Dense, error) {
	p := mat.NewDense(len(rows), 1, nil)
	for n, i := range rows {
		p.Set(n, 0, float64(i))
		for _, f := range c.same {
			if slices.Equal(f, rows) {
				p.Set(n, 0, 7)
			}
		}
	}
	return p, nil
}

// repeatFake is a learner whose every solution is constantFolds,
// cross-validated per λ (hidden) or along the grid (a FoldPathValidator).
type repeatFake struct {
	constantFolds
	y *mat.Dense
}

func (repeatFake) Name() learn.Name                     { return "constant" }
func (c repeatFake) Labels() *mat.Dense                 { return c.y }
func (c repeatFake) At(float64) (learn.Solution, error) { return c.constantFolds, nil }
func (c repeatFake) HoldOutPath(folds [][]int, grid []float64, visit func(int, *mat.Dense) error) error {
	p := nanDense(c.y.RawMatrix().Rows, 1)
	for n := range grid {
		for _, f := range folds {
			h, _ := c.HoldOut(f)
			for a, i := range f {
				p.Set(i, 0, h.At(a, 0))
			}
		}
		if err := visit(n, p); err != nil {
			return err
		}
	}
	return nil
}

// A repeated scheme's predictions are indistinguishable when every
// repetition's are: a first repetition that tells its rows apart and a
// second that does not are, together, distinguishable, and so the other
// way round; the value is the mean of the two MSEs and the predictions
// are the first repetition's — per λ and along the grid.
func TestRepeatedIndistinguishable(t *testing.T) {
	y := mat.NewDense(6, 1, []float64{0, 1, 2, 3, 4, 5})
	first, second := [][]int{{0, 2, 4}, {1, 3, 5}}, [][]int{{0, 1, 2}, {3, 4, 5}}
	sc := Scheme{Kind: Folds, Name: "r", Repeats: 2, Folds: append(slices.Clone(first), second...)}
	mse := mustMeasure(t, "mse")
	for _, tc := range []struct {
		same [][]int
		want bool
	}{{second, false}, {first, false}, {sc.Folds, true}, {nil, false}} {
		mseOf := func(folds [][]int) float64 { // the repetition's MSE from its definition
			s := 0.0
			for _, f := range folds {
				p, _ := constantFolds{tc.same}.HoldOut(f)
				for n, i := range f {
					s += (p.At(n, 0) - y.At(i, 0)) * (p.At(n, 0) - y.At(i, 0))
				}
			}
			return s / 6
		}
		want := (mseOf(first) + mseOf(second)) / 2
		firstPred, _ := constantFolds{tc.same}.HoldOut(first[0])
		l := repeatFake{constantFolds{tc.same}, y}
		for _, route := range []struct {
			name string
			l    learn.Learner
		}{{"per λ", perLambda{l}}, {"path", l}} {
			res, err := Select(route.l, []float64{1, 2}, sc, mse, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Curve {
				if p.Indistinguishable != tc.want || math.Abs(p.Value-want) > 1e-12 {
					t.Errorf("%s, constant on %v: %+v; want value %v, indistinguishable %v", route.name, tc.same, p, want, tc.want)
				}
			}
			if res.Predictions.At(0, 0) != firstPred.At(0, 0) {
				t.Errorf("%s, constant on %v: predictions are not the first repetition's", route.name, tc.same)
			}
		}
	}
}

// sameNoise reports whether two tie tolerances measure the same rounding
// noise: both absent, or per output both zero or within a factor 4 (two
// computations of the same predictions round differently).
func sameNoise(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for c := range a {
		if (a[c] == 0) != (b[c] == 0) || a[c] > 4*b[c] || b[c] > 4*a[c] {
			return false
		}
	}
	return true
}
