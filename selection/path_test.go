package selection

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rank"
)

// perLambda hides a learner's FoldPathValidator (and its twin's): Select
// then re-solves and holds out fold by fold at every λ.
type perLambda struct{ learn.Learner }

func (p perLambda) Perturbed(s float64) (learn.Learner, error) {
	tw, err := p.Learner.(learn.Perturber).Perturbed(s)
	if err != nil {
		return nil, err
	}
	return perLambda{tw}, nil
}

// Select through a learner's HoldOutPath (one pass over the grid, the twin in
// lockstep) gives what Select's per-λ route gives: the same curve, tie flags
// and best point, and the same predictions at the best λ. Both routes compute
// the same hold-outs with different rounding, so predictions agree to the
// forward-error bound of the rank oracle tests, relative
// C·ε·m·(1 + κ), κ = ‖L‖‖K‖/λ, C = 100 (‖K‖ ≤ m for the gaussian kernel,
// ‖L‖ ≤ twice the largest weighted degree); an MSE value, a smooth function of
// them, agrees to that relative bound too; an ordinal value is a count of
// ordered pairs, equal as long as no prediction gap lies within the bound of
// the tie tolerance (none does on these well-posed data). The tie tolerances
// are both measured, > 0 and of the same size (within 100×: two
// computations' rounding). Query and preference rankers, leave-query-out,
// 4-fold, leave-one-out and the fold-mean convention, ordinal and
// non-ordinal measures, one and two outputs, folds that leave rows out.
func TestSelectPathEqualsPerLambda(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 3))
	const m = 24
	x := mat.NewDense(m, 3, nil)
	y := mat.NewDense(m, 2, nil)
	q := make([]int, m)
	for i := 0; i < m; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, math.Round(2*math.Sin(x.At(i, 0))+rng.NormFloat64()))
		y.Set(i, 1, x.At(i, 1)+0.3*rng.NormFloat64())
		q[i] = i % 4
	}
	var edges []rank.Edge
	for len(edges) < 3*m {
		i, j := rng.IntN(m), rng.IntN(m)
		if i != j && y.At(i, 0) > y.At(j, 0) {
			edges = append(edges, rank.Edge{I: i, J: j, Magnitude: y.At(i, 0) - y.At(j, 0)})
		}
	}
	opt := learn.Options{Kernel: kernel.Gaussian{Gamma: 0.3}}
	query, err := rank.FitQuery(x, y, q, opt)
	if err != nil {
		t.Fatal(err)
	}
	query1, err := rank.FitQuery(x, y.Slice(0, m, 0, 1).(*mat.Dense), q, opt)
	if err != nil {
		t.Fatal(err)
	}
	pref, err := rank.FitPreference(x, edges, rank.Magnitude, opt)
	if err != nil {
		t.Fatal(err)
	}
	lqo, _ := cv.LeaveGroupOut(q)
	kfold, _ := cv.KFold(m, 4, 5)
	partial := [][]int{kfold[0], kfold[1], kfold[2][1:]} // rows of kfold[3] and kfold[2][0] in no fold
	schemes := []Scheme{
		{Kind: Folds, Name: "partial", Folds: partial},
		{Kind: Folds, Name: "lqo", Folds: lqo},
		{Kind: Folds, Name: "kfold", Folds: kfold},
		{Kind: Folds, Name: "kfold mean", Folds: kfold, FoldMean: true},
		{Kind: LOO, Name: "loo"},
	}
	grid := []float64{1e-6, 1e-3, 0.1, 1, 10, 1e2, 1e4}
	degree := make([]float64, m) // the preference graph's weighted degrees (weights 1)
	for _, e := range edges {
		degree[e.I]++
		degree[e.J]++
	}
	prefL := 0.0
	for _, d := range degree {
		prefL = math.Max(prefL, 2*d)
	}
	for _, c := range []struct {
		name  string
		l     learn.Learner
		opt   Options
		lnorm float64 // a bound on ‖L‖₂
	}{
		{"query", query, Options{Queries: q}, m / 4},
		{"query, one output", query1, Options{Queries: q}, m / 4},
		{"preference", pref, Options{Labels: y.Slice(0, m, 0, 1).(*mat.Dense), Queries: q}, prefL},
	} {
		bound := func(lambda float64) float64 { return 100 * 0x1p-52 * m * (1 + c.lnorm*m/lambda) }
		if _, ok := c.l.(FoldPathValidator); !ok {
			t.Fatalf("%s: not a FoldPathValidator", c.name)
		}
		for _, sc := range schemes {
			for _, mn := range []string{"cindex", "disagreement", "mse"} {
				meas := mustMeasure(t, mn)
				t.Run(fmt.Sprintf("%s/%s/%s", c.name, sc.Name, mn), func(t *testing.T) {
					got, err := Select(c.l, grid, sc, meas, c.opt)
					if err != nil {
						t.Fatal(err)
					}
					want, err := Select(perLambda{c.l}, grid, sc, meas, c.opt)
					if err != nil {
						t.Fatal(err)
					}
					if len(got.Curve) != len(want.Curve) || got.BestIndex != want.BestIndex {
						t.Fatalf("curve of %d points, best %d; per λ %d points, best %d", len(got.Curve), got.BestIndex, len(want.Curve), want.BestIndex)
					}
					for n, p := range got.Curve {
						w := want.Curve[n]
						tol := 0.0 // ordinal: a count
						if !meas.Ordinal {
							tol = bound(w.Lambda) * math.Max(1, math.Abs(w.Value))
						}
						if p.Lambda != w.Lambda || !(math.Abs(p.Value-w.Value) <= tol) || p.Indistinguishable != w.Indistinguishable {
							t.Errorf("λ=%g: %+v, per λ %+v (tolerance %.2g)", w.Lambda, p, w, tol)
						}
					}
					if e, tol := relErrNaN(got.Predictions, want.Predictions), bound(want.Best.Lambda); !(e <= tol) {
						t.Errorf("predictions at the best λ %g: rel. error %.2e > %.2e", want.Best.Lambda, e, tol)
					}
					if (got.Tolerance == nil) != (want.Tolerance == nil) || len(got.Tolerance) != len(want.Tolerance) {
						t.Fatalf("tolerances %v, per λ %v", got.Tolerance, want.Tolerance)
					}
					for k, tol := range got.Tolerance {
						if r := tol / want.Tolerance[k]; !(tol > 0 && r >= 0.01 && r <= 100) {
							t.Errorf("output %d: tolerance %.3g, per λ %.3g", k, tol, want.Tolerance[k])
						}
					}
				})
			}
		}
	}
}

// relErrNaN is ‖got − want‖/‖want‖ over the entries where want is not NaN,
// +Inf when got and want disagree on which entries are NaN.
func relErrNaN(got, want *mat.Dense) float64 {
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		return math.Inf(1)
	}
	var num, den float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			g, w := got.At(i, j), want.At(i, j)
			if math.IsNaN(w) != math.IsNaN(g) {
				return math.Inf(1)
			}
			if math.IsNaN(w) {
				continue
			}
			num += (g - w) * (g - w)
			den += w * w
		}
	}
	return math.Sqrt(num / math.Max(den, 1e-300))
}

// A scoring error at some λ (an undefined measure: AUC on folds of one
// class, scored per fold) is Select's error on either route, word for word.
func TestSelectPathErrorsAsPerLambda(t *testing.T) {
	rng := rand.New(rand.NewPCG(52, 3))
	const m = 12
	x := mat.NewDense(m, 2, nil)
	y := mat.NewDense(m, 1, nil)
	q := make([]int, m)
	for i := 0; i < m; i++ {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		y.Set(i, 0, float64(i%3))
		q[i] = i / 3
	}
	l, err := rank.FitQuery(x, y, q, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	// every fold holds rows of one label: AUC is undefined on each
	folds := [][]int{{0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}}
	sc := Scheme{Kind: Folds, Name: "byLabel", Folds: folds, FoldMean: true}
	auc := mustMeasure(t, "auc")
	_, errPath := Select(l, []float64{1, 2}, sc, auc, Options{})
	_, errPer := Select(perLambda{l}, []float64{1, 2}, sc, auc, Options{})
	if errPath == nil || errPer == nil || errPath.Error() != errPer.Error() {
		t.Errorf("errors differ:\n path  %v\n per λ %v", errPath, errPer)
	}
}

// reusing hands Select's visit one buffer for every λ, and scribbles on it
// once visit returns, as FoldPathValidator allows: Select must keep what it
// needs (the best λ's predictions) by copying.
type reusing struct{ learn.Learner }

func (r reusing) Perturbed(s float64) (learn.Learner, error) {
	tw, err := r.Learner.(learn.Perturber).Perturbed(s)
	if err != nil {
		return nil, err
	}
	return reusing{tw}, nil
}

func (r reusing) HoldOutPath(folds [][]int, grid []float64, visit func(n int, p *mat.Dense) error) error {
	var buf *mat.Dense
	return r.Learner.(FoldPathValidator).HoldOutPath(folds, grid, func(n int, p *mat.Dense) error {
		if buf == nil {
			buf = mat.DenseCopyOf(p)
		}
		buf.Copy(p)
		err := visit(n, buf)
		rows, cols := buf.Dims()
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				buf.Set(i, j, -1e300)
			}
		}
		return err
	})
}

func TestSelectPathCopiesReusedPredictions(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 3))
	const m = 12
	x := mat.NewDense(m, 2, nil)
	y := mat.NewDense(m, 1, nil)
	q := make([]int, m)
	for i := 0; i < m; i++ {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		y.Set(i, 0, math.Round(x.At(i, 0)+0.5*rng.NormFloat64()))
		q[i] = i % 3
	}
	l, err := rank.FitQuery(x, y, q, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	lqo, _ := cv.LeaveGroupOut(q)
	sc := Scheme{Kind: Folds, Name: "lqo", Folds: lqo}
	grid := []float64{1e-3, 1, 1e3}
	want, err := Select(l, grid, sc, mustMeasure(t, "mse"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Select(reusing{l}, grid, sc, mustMeasure(t, "mse"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got.Predictions, want.Predictions) {
		t.Errorf("predictions at the best λ changed after the pass: %v, want %v", mat.Formatted(got.Predictions.T()), mat.Formatted(want.Predictions.T()))
	}
}

// The one-pass route serves folds and leave-one-out that keep the basis, for
// a learner with the capability and, when there is a twin, a twin with it
// too; never leave-pair-out, nor a basis policy that removes or skips basis
// rows (HoldOutPath holds out rows only).
func TestPathValidatorsScope(t *testing.T) {
	rng := rand.New(rand.NewPCG(54, 3))
	x := mat.NewDense(9, 2, nil)
	y := mat.NewDense(9, 1, nil)
	q := make([]int, 9)
	for i := range q {
		x.Set(i, 0, rng.NormFloat64())
		y.Set(i, 0, float64(i%3))
		q[i] = i % 3
	}
	l, err := rank.FitQuery(x, y, q, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	tw, _ := l.Perturbed(TwinScale)
	folds := [][]int{{0, 1}, {2, 3}}
	for _, c := range []struct {
		name   string
		l, tw  learn.Learner
		sc     Scheme
		useful bool
	}{
		{"folds", l, tw, Scheme{Kind: Folds, Folds: folds}, true},
		{"folds, basis kept", l, nil, Scheme{Kind: Folds, Folds: folds, Basis: learn.Keep}, true},
		{"loo", l, nil, Scheme{Kind: LOO}, true},
		{"lpo", l, tw, Scheme{Kind: LPO}, false},
		{"folds, basis removed", l, nil, Scheme{Kind: Folds, Folds: folds, Basis: learn.Remove}, false},
		{"loo, basis skipped", l, nil, Scheme{Kind: LOO, Basis: learn.Skip}, false},
		{"no capability", perLambda{l}, nil, Scheme{Kind: Folds, Folds: folds}, false},
		{"twin without it", l, perLambda{tw}, Scheme{Kind: Folds, Folds: folds}, false},
	} {
		if _, _, ok := pathValidators(c.l, c.tw, c.sc); ok != c.useful {
			t.Errorf("%s: one pass %v, want %v", c.name, ok, c.useful)
		}
	}
}
