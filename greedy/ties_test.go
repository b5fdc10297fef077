package greedy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

// constantData is m rows of an informative column 0, a constant column 1
// (3: its mean is exact, so standardizing makes it all zeros) and `noise`
// columns of noise, with a label that follows column 0.
func constantData(seed uint64, m, noise int) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x, y := mat.NewDense(m, 2+noise, nil), mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		v := rng.NormFloat64()
		x.Set(i, 0, v)
		x.Set(i, 1, 3)
		for j := 0; j < noise; j++ {
			x.Set(i, 2+j, rng.NormFloat64())
		}
		y.Set(i, 0, v+0.3*rng.NormFloat64())
	}
	return x, y
}

// TestConstantColumnNotKept is the reproducer of the tie bug: standardized,
// a constant column is all zeros and changes no model, yet its criterion
// came out ~2 ulp better than the model without it and it was kept (17 of
// these 40 seeds with leave-one-out). It must stay out of the chosen model,
// its step must be marked NoGain, and with noise columns to choose from it
// is added only when nothing else is left.
func TestConstantColumnNotKept(t *testing.T) {
	kf, err := cv.KFold(30, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, folds := range [][][]int{nil, kf} {
		for _, mem := range []Memory{Cache, Lean} {
			for seed := uint64(0); seed < 40; seed++ {
				x, y := constantData(seed, 30, 0)
				res, err := Select(x, y, Options{Lambdas: []float64{1}, Bias: 1, K: 2, Standardize: true, Folds: folds, Memory: mem})
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("folds %v memory %d seed %d", folds != nil, mem, seed)
				st := res.Paths[0].Steps
				if res.K != 1 || !slices.Equal(res.Selected, []int{0}) {
					t.Errorf("%s: chose k = %d %v (values %.17g, %.17g): the constant column kept", name, res.K, res.Selected, st[0].Value, st[1].Value)
				}
				if st[1].Feature != 1 || !st[1].NoGain || st[0].NoGain {
					t.Errorf("%s: steps %+v: want the constant column second, NoGain", name, st)
				}
				if d := math.Abs(st[1].Value - st[0].Value); d > st[0].Tolerance+st[1].Tolerance || st[1].Tolerance > 1e-12*st[1].Value {
					t.Errorf("%s: |Δ| %g, tolerances %g %g", name, d, st[0].Tolerance, st[1].Tolerance)
				}
			}
			// with noise columns and a λ grid: the zero column comes last on every path
			x, y := constantData(7, 30, 6)
			res, err := Select(x, y, Options{Lambdas: []float64{1e-3, 1, 1e3}, Bias: 1, K: 8, Standardize: true, Folds: folds, Memory: mem})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Paths {
				if last := p.Steps[len(p.Steps)-1]; last.Feature != 1 || !last.NoGain {
					t.Errorf("folds %v memory %d λ %g: path %v: want the zero column last, NoGain", folds != nil, mem, p.Lambda, p.Selected(-1))
				}
			}
			if slices.Contains(res.Selected, 1) {
				t.Errorf("folds %v memory %d: selected %v keeps the constant column", folds != nil, mem, res.Selected)
			}
		}
	}
}

// TestChoiceRule: the choice takes the fewest features, then the largest λ,
// among the steps that tie the best value and are not NoGain.
func TestChoiceRule(t *testing.T) {
	mse, auc := mustMeasure(t, "mse"), mustMeasure(t, "auc")
	st := func(v, tol float64, noGain bool) Step { return Step{Value: v, Tolerance: tol, NoGain: noGain} }
	cases := []struct {
		name    string
		meas    measure.Measure
		paths   []Path
		best, k int
	}{
		{"strictly best", mse, []Path{{1, []Step{st(3, 0, false), st(2, 0, false), st(1, 0, false)}}}, 0, 3},
		{"a tie goes to fewer features", mse, []Path{{1, []Step{st(3, 0, false), st(1+1e-9, 1e-9, false), st(1, 1e-9, false)}}}, 0, 2},
		{"beyond the tolerances", mse, []Path{{1, []Step{st(3, 0, false), st(1+3e-9, 1e-9, false), st(1, 1e-9, false)}}}, 0, 3},
		{"then the larger λ", mse, []Path{{1, []Step{st(2, 0, false)}}, {10, []Step{st(2, 0, false)}}, {5, []Step{st(2, 0, false)}}}, 1, 1},
		{"fewer features before the larger λ", mse, []Path{{10, []Step{st(3, 0, false), st(1, 0.1, false)}}, {1, []Step{st(1.1, 0.1, false)}}}, 1, 1},
		{"NoGain is never chosen", mse, []Path{{1, []Step{st(1, 0, false), st(0.5, 1, true)}}, {2, []Step{st(0.9, 0, false)}}}, 1, 1},
		{"NoGain does not set the best", mse, []Path{{1, []Step{st(0.75, 0, false), st(0.6, 0, false)}}, {2, []Step{st(0.9, 0, false), st(0.5, 0.3, true)}}}, 0, 2},
		{"higher is better", auc, []Path{{1, []Step{st(0.6, 0, false), st(0.9, 0, false), st(0.7, 0, false)}}}, 0, 2},
		{"NaN never wins", mse, []Path{{1, []Step{st(math.NaN(), 0, false), st(5, 0, false)}}}, 0, 2},
	}
	for _, c := range cases {
		best, k, ok := choice(c.paths, c.meas)
		if !ok || best != c.best || k != c.k {
			t.Errorf("%s: chose path %d k %d (ok %v), want path %d k %d", c.name, best, k, ok, c.best, c.k)
		}
	}
	if _, _, ok := choice([]Path{{1, []Step{st(math.NaN(), 0, false)}}}, mse); ok {
		t.Error("no value: ok")
	}
}

// TestValueTolerance: for mse the bound is 2·tol·mean|e| + tol² plus the
// rounding of the sums; an ordinal value gets the rounding alone.
func TestValueTolerance(t *testing.T) {
	y := mat.NewDense(4, 1, []float64{1, -1, 2, 0})
	p := mat.NewDense(4, 1, []float64{0.5, -1.5, 2, 1})
	mse := mustMeasure(t, "mse")
	v, _ := mse.Score(y, p, nil)
	tol := 1e-6
	want := 2*tol*(0.5+0.5+0+1)/4 + tol*tol
	round := 6 * eps * v
	if got := valueTolerance(mse, y, p, nil, []float64{tol}, v); math.Abs(got-want-round) > 1e-8*want { // |v' − v| loses digits
		t.Errorf("mse: %g, want %g", got, want+round)
	}
	auc := mustMeasure(t, "auc")
	if got := valueTolerance(auc, y, p, nil, []float64{tol}, 0.75); got != 6*eps*0.75 {
		t.Errorf("auc: %g", got)
	}
}

// retrainWithin scores retraining's CV predictions of the features sel at
// λ with ties below 1e-9·(1 + 1/λ) — above retraining's own rounding, which
// grows like 1/λ, and far below the real differences of the degenerate
// problems (as package selection's degenerate test) — and reports whether
// they are all ties. The ties are the oracle's (scoreTied, oracle.Snap), at
// a tolerance derived here, not the package's: neither its twin tolerance
// nor selection.ScoreWithin enters.
func (b bruteProblem) retrainWithin(sel []int, lambda float64) (float64, bool, error) {
	pred, rows := b.cvPredictions(sel, lambda)
	_, t := b.y.Dims()
	ys := mat.NewDense(len(rows), t, nil)
	for n, i := range rows {
		ys.SetRow(n, b.y.RawRowView(i))
	}
	tol := make([]float64, t)
	for c := range tol {
		tol[c] = 1e-9 * (1 + 1/lambda)
	}
	return scoreTied(b.meas, ys, pred, nil, tol)
}

// TestDegenerateKernels (the acceptance): pure-noise ±1 labels that
// sum to 0. One-hot features with m = d and no bias make the kernel of the
// selected features a part of I, finally I: every CV prediction is 0, so
// auc and cindex score the tie value ½ at every step, Indistinguishable,
// over λ from 1e-6 to 1e4, leave-one-out and k-fold. Identical rows (every
// feature 1, no bias) make it k·11ᵀ: a k-fold model predicts the same for
// every row, and with folds whose labels sum to 0 every prediction is 0
// again. Greedy's arithmetic gives these zeros exactly (each quantity is
// computed alike for y = 1 and y = −1), so they hold with or without a tie
// tolerance. Two cases are no ties, and must give retraining's values:
// leave-one-out with 11ᵀ, where each row's model predicts
// k(Σy − y_j)/(k(m−1) + λ) against its held-out label (auc 0); and one-hot
// features with the bias (I + 11ᵀ on the selected rows) over the zero-sum
// folds, where the predictions tie in groups — all of them at the steps
// whose selected rows sum to 0 in every fold. That case carries rounding
// noise (~1e-16 where retraining ties), and fails without the tolerance.
func TestDegenerateKernels(t *testing.T) {
	const m = 12
	y := mat.NewDense(m, 1, []float64{1, -1, -1, 1, 1, -1, 1, -1, -1, 1, -1, 1})
	eye, ones := mat.NewDense(m, m, nil), mat.NewDense(m, 4, nil)
	for i := 0; i < m; i++ {
		eye.Set(i, i, 1)
		for j := 0; j < 4; j++ {
			ones.Set(i, j, 1)
		}
	}
	folds := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}} // each sums to 0
	for _, f := range folds {
		s := 0.0
		for _, i := range f {
			s += y.At(i, 0)
		}
		if s != 0 {
			t.Fatalf("fold %v sums to %g", f, s)
		}
	}
	kf, err := cv.KFold(m, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{1e-6, 1e-3, 1, 1e2, 1e4}
	for _, c := range []struct {
		name  string
		x     *mat.Dense
		bias  float64
		folds [][]int
		tie   bool // the acceptance: ½ and Indistinguishable at every step
	}{
		{"K=I loo", eye, 0, nil, true}, {"K=I kfold", eye, 0, kf, true}, {"K=I zero-sum folds", eye, 0, folds, true},
		{"K=11ᵀ zero-sum folds", ones, 0, folds, true}, {"K=11ᵀ loo", ones, 0, nil, false},
		{"K=I+11ᵀ zero-sum folds", eye, 1, folds, false},
	} {
		_, d := c.x.Dims()
		for _, measName := range []string{"auc", "cindex"} {
			for _, mem := range []Memory{Cache, Lean} {
				meas := mustMeasure(t, measName)
				res, err := Select(c.x, y, Options{Lambdas: grid, K: d, Bias: c.bias, Measure: meas, Folds: c.folds, Memory: mem})
				if err != nil {
					t.Fatalf("%s %s: %v", c.name, measName, err)
				}
				bp := bruteProblem{x: c.x, y: y, bias: c.bias, meas: meas, folds: c.folds}
				flagged := 0
				for _, p := range res.Paths {
					for n, s := range p.Steps {
						name := fmt.Sprintf("%s %s memory %d λ %g step %d", c.name, measName, mem, p.Lambda, n+1)
						if c.tie && (s.Value != 0.5 || !s.Indistinguishable) {
							t.Errorf("%s: %+v, want the tie value 0.5, indistinguishable", name, s)
						}
						want, flag, err := bp.retrainWithin(p.Selected(n+1), p.Lambda)
						if err != nil {
							t.Fatal(err)
						}
						if math.Abs(s.Value-want) > 1e-12 || s.Indistinguishable != flag {
							t.Errorf("%s: %+v, retraining %v (indistinguishable %v)", name, s, want, flag)
						}
						if s.Indistinguishable {
							flagged++
						}
					}
				}
				if c.name == "K=I+11ᵀ zero-sum folds" && flagged == 0 {
					t.Errorf("%s %s: no step indistinguishable", c.name, measName)
				}
				if c.tie && (res.K != 1 || res.Lambda != 1e4) {
					t.Errorf("%s %s: chose λ %g k %d, want the tie's k = 1 at the largest λ", c.name, measName, res.Lambda, res.K)
				}
			}
		}
	}
}

// TestOrdinalSmallLambdaRetraining holds auc and cindex paths on wider data
// than TestBruteForce (48 rows, 16 features, 6 steps) to retraining at every
// λ of oracle.Lambdas — at λ = 1e-6 predictions of the shortcut differ by
// far more than ε yet far less than their real spread: a tie tolerance that
// grows like 1/λ, as an a-priori bound ε·n·κ·(|y| + |p|) does, snaps
// distinct predictions there and scores values retraining does not give.
func TestOrdinalSmallLambdaRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	const m, d, k = 48, 16, 6
	kf, err := cv.KFold(m, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer reportWorst(t, tightTol)()
	for _, c := range []struct {
		meas  string
		label oracle.Label
	}{{"auc", binaryLabel}, {"cindex", oracle.Graded}} {
		x, y := oracle.Data(rng, m, d, 1, false, 0, c.label)
		for _, folds := range [][][]int{nil, kf} {
			t.Run(fmt.Sprintf("%s_folds%v", c.meas, folds != nil), func(t *testing.T) {
				checkBrute(t, x, bruteProblem{x: x, y: y, bias: 1, meas: mustMeasure(t, c.meas), folds: folds}, k, Cache, tightTol)
			})
		}
	}
}

// TestEngineTypes: Curve has one selection.Point per (λ, k) in path order,
// BestPoint is the chosen one, and OnEdge reports the λ edge by
// selection.GridEdge and a choice at the last k as features/high.
func TestEngineTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const m, d = 40, 10
	x, y := mat.NewDense(m, d, nil), mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		s := 0.0
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
			if j < 4 {
				s += float64(j+1) * x.At(i, j)
			}
		}
		y.Set(i, 0, s+1e-3*rng.NormFloat64()) // four features and little noise: the criterion improves to k = K = 4 at the smallest λ
	}
	grid := []float64{1e3, 1e-4, 1} // any order
	res, err := Select(x, y, Options{Lambdas: grid, Bias: 1, K: 4})
	if err != nil {
		t.Fatal(err)
	}
	curve := res.Curve()
	if len(curve) != 3*4 {
		t.Fatalf("%d points, want 12", len(curve))
	}
	n := 0
	for _, p := range res.Paths {
		for k, s := range p.Steps {
			want := selection.Point{Lambda: p.Lambda, Features: k + 1, Value: s.Value, Indistinguishable: s.Indistinguishable}
			if curve[n] != want {
				t.Errorf("point %d: %+v, want %+v", n, curve[n], want)
			}
			n++
		}
	}
	bp := res.BestPoint()
	if bp.Lambda != res.Lambda || bp.Features != res.K || bp.Value != res.Value || bp.Lambda != 1e-4 || bp.Features != 4 {
		t.Errorf("best point %+v, result λ %g k %d value %g (want λ 1e-4, k 4)", bp, res.Lambda, res.K, res.Value)
	}
	edges := res.OnEdge(grid)
	if !slices.Equal(edges, []selection.Edge{{Parameter: "lambda", Side: "low"}, {Parameter: "features", Side: "high"}}) {
		t.Errorf("edges %v", edges)
	}
	if e := res.OnEdge([]float64{1e-4}); !slices.Equal(e, []selection.Edge{{Parameter: "features", Side: "high"}}) {
		t.Errorf("one λ: edges %v", e)
	}
	// an interior choice: a noise label is best fitted by few features at a middle λ
	inner := &Result{Paths: []Path{{Lambda: 1, Steps: []Step{{Value: 2}, {Value: 1}, {Value: 3}}}}, Best: 0, K: 2, Lambda: 1, Value: 1}
	if e := inner.OnEdge([]float64{0.1, 1, 10}); len(e) != 0 {
		t.Errorf("interior choice: edges %v", e)
	}
	one := &Result{Paths: []Path{{Lambda: 1, Steps: []Step{{Value: 2}}}}, Best: 0, K: 1, Lambda: 1, Value: 2}
	if e := one.OnEdge([]float64{0.1, 1, 10}); len(e) != 0 {
		t.Errorf("K = 1: edges %v", e)
	}
	if e := one.OnEdge([]float64{1, 10}); !slices.Equal(e, []selection.Edge{{Parameter: "lambda", Side: "low"}}) {
		t.Errorf("K = 1 at the low λ: edges %v", e)
	}
}

// TestTwinNoise: on ordinary data the tolerances the twin gives are
// positive (it does differ from the model) and far below the values, at
// every λ from 1e-6 to 1e4, leave-one-out and folds leaving rows out.
func TestTwinNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	x, y := oracle.Data(rng, 30, 8, 2, false, 0, oracle.Smooth)
	for _, folds := range [][][]int{nil, {{0, 1, 2}, {3, 4, 5, 6}, {7, 8}, {9, 10, 11, 12, 13}}} {
		for _, lambda := range []float64{1e-6, 1, 1e4} {
			res, err := Select(x, y, Options{Lambdas: []float64{lambda}, Bias: 1, K: 5, Folds: folds})
			if err != nil {
				t.Fatal(err)
			}
			for n, s := range res.Paths[0].Steps {
				if !(s.Tolerance > 0) || s.Tolerance > 1e-6*s.Value {
					t.Errorf("folds %v λ %g step %d: tolerance %g of value %g", folds != nil, lambda, n+1, s.Tolerance, s.Value)
				}
			}
		}
	}
}

// TestToleranceCoversError: Step.Tolerance bounds the value's actual error,
// measured against retraining (QR least squares on a well-posed problem: 24
// rows, at most 5 features), also where the shortcut loses digits — columns
// that differ by 1e-4 at λ = 1e-6, whose small pivots c = λ + vᵀA·v amplify
// the rounding of the shared images (about 1e-11 of the value here, which a
// twin that only scales the labels, without moving the pivots, does not
// see) — and is not absurdly large.
func TestToleranceCoversError(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	const m, d = 24, 8
	kf, err := cv.KFold(m, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, spread := range []float64{1, 1e-4} {
		x, y := mat.NewDense(m, d, nil), mat.NewDense(m, 1, nil)
		for i := 0; i < m; i++ {
			base := rng.NormFloat64()
			for j := 0; j < d; j++ {
				x.Set(i, j, base+spread*rng.NormFloat64())
			}
			y.Set(i, 0, base+0.5*rng.NormFloat64())
		}
		for _, folds := range [][][]int{nil, kf} {
			for _, mem := range []Memory{Cache, Lean} {
				res, err := Select(x, y, Options{Lambdas: []float64{1e-6, 1, 1e4}, Bias: 1, K: 5, Folds: folds, Memory: mem})
				if err != nil {
					t.Fatal(err)
				}
				bp := bruteProblem{x: x, y: y, bias: 1, meas: mustMeasure(t, "mse"), folds: folds}
				for _, p := range res.Paths {
					for n, s := range p.Steps {
						want := bp.criterion(p.Selected(n+1), p.Lambda)
						if math.Abs(s.Value-want) > s.Tolerance || s.Tolerance > 1e-5*s.Value {
							t.Errorf("spread %g folds %v memory %d λ %g step %d: value %.17g, retraining %.17g: |Δ| %.2g, tolerance %.2g",
								spread, folds != nil, mem, p.Lambda, n+1, s.Value, want, math.Abs(s.Value-want), s.Tolerance)
						}
					}
				}
			}
		}
	}
}
