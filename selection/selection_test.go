package selection

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rls"
)

func problem(t *testing.T, m int, binary bool) (*rls.RLS, *mat.Dense) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(m), 7))
	x := mat.NewDense(m, 3, nil)
	y := mat.NewDense(m, 2, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		for c := 0; c < 2; c++ {
			v := math.Sin(x.At(i, c)) + 0.3*rng.NormFloat64()
			if binary {
				v = math.Copysign(1, v)
			}
			y.Set(i, c, v)
		}
	}
	r, err := rls.Fit(x, y, rls.Options{Kernel: kernel.Gaussian{Gamma: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	return r, y
}

func mustMeasureB(name string) (measure.Measure, error) { return measure.ByName(name) }

func mustMeasure(t *testing.T, name string) measure.Measure {
	t.Helper()
	m, err := measure.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Each curve point is the measure of the learner's own CV predictions at that λ,
// and the best point is the best of the curve. Select answers every λ in one
// pass (rls.HoldOutPath: U·W and (U∘U)·G for the whole grid), whose rounding
// differs from the per-λ LeaveOneOut's by a few ulps — how many depends on the
// BLAS (the cgo OpenBLAS build differs in the last bit here); rls's property
// tests bound that difference. This problem is well conditioned at every grid
// point (m = 30, λ ≥ 1e-3, κ(K+λI) ≤ 3·10⁴), so 1e-12 relative is 10³ above
// the rounding and far below any real error.
func TestSelectLOO(t *testing.T) {
	r, y := problem(t, 30, false)
	grid := []float64{1e-3, 1e-1, 1, 10, 1e3}
	mse := mustMeasure(t, "mse")
	res, err := Select(r, grid, Scheme{Kind: LOO, Name: "loo"}, mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12
	close := func(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b)) }
	best, bestAt := math.Inf(1), -1
	for n, p := range res.Curve {
		s, _ := r.Solve(grid[n])
		loo, _ := s.LeaveOneOut()
		want, _ := mse.Score(y, loo, nil)
		if p.Lambda != grid[n] || !close(p.Value, want) {
			t.Errorf("point %d = %+v, want {%g %g}", n, p, grid[n], want)
		}
		if p.Value < best {
			best, bestAt = p.Value, n
		}
	}
	if res.Best.Value != best || res.BestIndex != bestAt || res.Curve[res.BestIndex] != res.Best {
		t.Errorf("best %+v (index %d), want value %g (index %d)", res.Best, res.BestIndex, best, bestAt)
	}
	s, _ := r.Solve(res.Best.Lambda)
	loo, _ := s.LeaveOneOut()
	if !mat.EqualApprox(res.Predictions, loo, tol) {
		t.Error("predictions are not the LOO predictions at the best λ")
	}
}

// Ties go to the larger λ.
func TestSelectTiesPreferLargerLambda(t *testing.T) {
	_, y := problem(t, 12, false)
	// every λ scores the same: the predictions do not depend on it
	res, err := Select(constantLearner{y}, []float64{1, 4, 2}, Scheme{Kind: LOO, Name: "loo"}, mustMeasure(t, "mse"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Lambda != 4 {
		t.Errorf("best λ = %g, want 4", res.Best.Lambda)
	}
}

// constantLearner predicts 0 whatever λ.
type constantLearner struct{ y *mat.Dense }

func (c constantLearner) Name() learn.Name                   { return "constant" }
func (c constantLearner) Labels() *mat.Dense                 { return c.y }
func (c constantLearner) At(float64) (learn.Solution, error) { return constant(c), nil }

type constant struct{ y *mat.Dense }

func (c constant) Predictor() *model.Predictor { return nil }

func (c constant) LeaveOneOut() (*mat.Dense, error) {
	m, t := c.y.Dims()
	return mat.NewDense(m, t, nil), nil
}

// Folds that leave rows out: those rows get NaN predictions and are not scored.
func TestSelectFolds(t *testing.T) {
	r, y := problem(t, 20, false)
	folds := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10}}
	mse := mustMeasure(t, "mse")
	res, err := Select(r, []float64{0.5}, Scheme{Kind: Folds, Name: "folds", Folds: folds}, mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Solve(0.5)
	ys := mat.NewDense(11, 2, nil)
	ps := mat.NewDense(11, 2, nil)
	for _, f := range folds {
		p, _ := s.HoldOut(f)
		for n, i := range f {
			ys.SetRow(i, y.RawRowView(i))
			ps.SetRow(i, p.RawRowView(n))
			if !reflect.DeepEqual(res.Predictions.RawRowView(i), p.RawRowView(n)) {
				t.Errorf("row %d: prediction %v, want %v", i, res.Predictions.RawRowView(i), p.RawRowView(n))
			}
		}
	}
	for i := 11; i < 20; i++ {
		if !math.IsNaN(res.Predictions.At(i, 0)) {
			t.Errorf("row %d in no fold has prediction %v", i, res.Predictions.At(i, 0))
		}
	}
	want, _ := mse.Score(ys, ps, nil)
	if math.Abs(res.Best.Value-want) > 1e-15 {
		t.Errorf("value %g, want %g", res.Best.Value, want)
	}
}

// LPO-AUC: each positive–negative pair scored by the model retrained without it
// (through HoldOut, the general shortcut), ties ½, mean over the two outputs.
func TestSelectLPO(t *testing.T) {
	r, y := problem(t, 16, true)
	auc := mustMeasure(t, "auc")
	res, err := Select(r, []float64{0.1, 1}, Scheme{Kind: LPO, Name: "lpo"}, auc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for n, p := range res.Curve {
		s, _ := r.Solve(p.Lambda)
		total := 0.0
		for c := 0; c < 2; c++ {
			good, count := 0.0, 0
			for i := 0; i < 16; i++ {
				for j := 0; j < 16; j++ {
					if y.At(i, c) > 0 && y.At(j, c) <= 0 {
						h, _ := s.HoldOut([]int{i, j})
						count++
						switch d := h.At(0, c) - h.At(1, c); {
						case d > 0:
							good++
						case d == 0:
							good += 0.5
						}
					}
				}
			}
			total += good / float64(count)
		}
		if math.Abs(p.Value-total/2) > 1e-12 {
			t.Errorf("point %d: LPO-AUC %g, want %g", n, p.Value, total/2)
		}
	}
	// The pair predictions kept are those at the best λ: every
	// positive–negative pair of each output once, its two predictions those
	// of HoldOut (a different route: the general hold-out solve, not the 2×2
	// closed form), to 1e-12 of the ±1 labels' scale (both exact shortcuts
	// on a kernel matrix with κ(K + λI) ≤ 1 + 16/0.1, rounding ~κ·ε).
	s, _ := r.Solve(res.Best.Lambda)
	seen := map[PairPrediction]bool{}
	for _, pp := range res.PairPredictions {
		i, j, c := pp.I, pp.J, pp.Output
		if c < 0 || c > 1 || !(y.At(i, c) > 0 && y.At(j, c) <= 0) {
			t.Fatalf("pair prediction %+v: not a positive–negative pair of output %d", pp, c)
		}
		key := PairPrediction{Output: c, Pair: learn.Pair{I: i, J: j}}
		if seen[key] {
			t.Fatalf("pair %+v twice", key)
		}
		seen[key] = true
		h, _ := s.HoldOut([]int{i, j})
		if math.Abs(pp.PI-h.At(0, c)) > 1e-12 || math.Abs(pp.PJ-h.At(1, c)) > 1e-12 {
			t.Errorf("pair %+v: hold-out gives %v, %v", pp, h.At(0, c), h.At(1, c))
		}
	}
	want := 0
	for c := 0; c < 2; c++ {
		pos := 0
		for i := 0; i < 16; i++ {
			if y.At(i, c) > 0 {
				pos++
			}
		}
		want += pos * (16 - pos)
	}
	if len(res.PairPredictions) != want {
		t.Errorf("%d pair predictions, want %d (every positive–negative pair of both outputs)", len(res.PairPredictions), want)
	}
}

func TestSelectErrors(t *testing.T) {
	r, _ := problem(t, 10, true)
	mse, auc := mustMeasure(t, "mse"), mustMeasure(t, "auc")
	cases := []struct {
		name string
		grid []float64
		sc   Scheme
		meas measure.Measure
		want error
	}{
		{"empty grid", nil, Scheme{Kind: LOO}, mse, ErrGrid},
		{"lpo with mse", []float64{1}, Scheme{Kind: LPO}, mse, ErrScheme},
		{"no folds", []float64{1}, Scheme{Kind: Folds}, mse, ErrScheme},
		{"fold out of range", []float64{1}, Scheme{Kind: Folds, Folds: [][]int{{0, 10}}}, mse, ErrScheme},
		{"row in two folds", []float64{1}, Scheme{Kind: Folds, Folds: [][]int{{0, 1}, {1, 2}}}, mse, ErrScheme},
		{"unknown kind", []float64{1}, Scheme{Kind: "bootstrap"}, mse, ErrScheme},
		{"bad lambda", []float64{1, -1}, Scheme{Kind: LOO}, mse, learn.ErrLambda},
	}
	for _, c := range cases {
		if _, err := Select(r, c.grid, c.sc, c.meas, Options{}); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := Select(r, []float64{1}, Scheme{Kind: LOO}, mse, Options{Labels: r.Labels()}); !errors.Is(err, ErrScheme) {
		t.Errorf("labels given twice: err = %v, want ErrScheme", err)
	}
	if _, err := Select(r, []float64{1, 2}, Scheme{Kind: None}, mse, Options{}); !errors.Is(err, ErrScheme) {
		t.Errorf("no CV with a grid: err = %v, want ErrScheme", err)
	}
	// a capability the scheme needs is checked before any cross-validation
	if _, err := Select(constantLearner{r.Labels()}, []float64{1}, Scheme{Kind: Folds, Folds: [][]int{{0}}}, mse, Options{}); !errors.Is(err, learn.ErrCapability) {
		t.Errorf("hold-out without the capability: err = %v, want learn.ErrCapability", err)
	}
	one := mat.NewDense(10, 1, nil)
	for i := 0; i < 10; i++ {
		one.Set(i, 0, 1)
	}
	r1, _ := rls.Fit(mat.NewDense(10, 1, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), one, rls.Options{Kernel: kernel.Gaussian{Gamma: 1}})
	if _, err := Select(r1, []float64{1}, Scheme{Kind: LPO}, auc, Options{}); !errors.Is(err, measure.ErrUndefined) {
		t.Errorf("LPO with one class: err = %v, want measure.ErrUndefined", err)
	}
}

func TestParseGrid(t *testing.T) {
	cases := []struct {
		spec string
		want []float64
		err  bool
	}{
		{"1", []float64{1}, false},
		{"0.1, 1,10", []float64{0.1, 1, 10}, false},
		{"2^-2..2^1", []float64{0.25, 0.5, 1, 2}, false},
		{"2^3", []float64{8}, false},
		{"1e-6,1e4", []float64{1e-6, 1e4}, false},
		{"", nil, true},
		{"a", nil, true},
		{"1,,2", nil, true},
		{"0", nil, true},
		{"-1", nil, true},
		{"NaN", nil, true},
		{"Inf", nil, true},
		{"2^3..2^1", nil, true},
		{"2^a..2^3", nil, true},
		{"3..5", nil, true},
		{"10^-3..10^2", []float64{0.001, 0.01, 0.1, 1, 10, 100}, false},
		{"10^-1, 2^-1, 10^2", []float64{0.1, 0.5, 100}, false},
		{"10^-330", nil, true},
		{"2^0..10^2", nil, true},      // two bases
		{"10^3..10^1", nil, true},     // descending
		{"10^0..10^20000", nil, true}, // exponent out of range
		{"1e-3..1e3", nil, true},      // a range of plain numbers needs :N
		{"2^-5:2^5", nil, true},       // ':' without '..'
		{"1..100:3", []float64{1, 10, 100}, false},
		{"2^-2..2^1:4", []float64{0.25, 0.5, 1, 2}, false},
		{"1e-3..1e-3:2", []float64{1e-3, 1e-3}, false},
		{"1..10:1", nil, true},
		{"1..10:x", nil, true},
		{"0..10:5", nil, true},
		{"-1..10:5", nil, true},
		{"10..1:5", nil, true},
		{"1..10:20000", nil, true},
		{"1..Inf:3", nil, true},
	}
	for _, c := range cases {
		got, err := ParseGrid(c.spec, true)
		if (err != nil) != c.err || (!c.err && !closeGrid(got, c.want, strings.Contains(c.spec, ":"))) {
			t.Errorf("ParseGrid(%q) = %v, %v", c.spec, got, err)
		}
		if err != nil && !errors.Is(err, ErrGrid) {
			t.Errorf("ParseGrid(%q): err %v does not wrap ErrGrid", c.spec, err)
		}
	}
	for _, spec := range []string{"2^-5:2^5", "1e-3..1e3", "10^a..10^3"} { // the error shows the range forms
		if _, err := ParseGrid(spec, true); err == nil || !strings.Contains(err.Error(), "2^a..2^b") || !strings.Contains(err.Error(), "a..b:N") {
			t.Errorf("ParseGrid(%q): %v, want an error showing the range forms", spec, err)
		}
	}
	// log-spaced points: the end points exact, the ratio of neighbours
	// constant, each point a·(b/a)^(i/(N−1)) to a few ulp
	g, err := ParseGrid("1e-3..1e3:13", true)
	if err != nil || len(g) != 13 || g[0] != 1e-3 || g[12] != 1e3 {
		t.Fatalf("1e-3..1e3:13 = %v, %v", g, err)
	}
	for i, v := range g {
		want := 1e-3 * math.Pow(1e6, float64(i)/12)
		if math.Abs(v-want) > 8*math.Abs(want)*0x1p-52 {
			t.Errorf("point %d: %v, want %v", i, v, want)
		}
	}
	if g := DefaultGrid(); len(g) != 31 || g[0] != math.Ldexp(1, -15) || g[30] != 32768 {
		t.Errorf("default grid %v", g)
	}
	if g, err := ParseGrid("-1,0,1", false); err != nil || len(g) != 3 {
		t.Errorf("coef0-style grid: %v %v", g, err)
	}
}

// Retraining per fold gives the same curve as the exact hold-out shortcut.
func TestSelectRetrainEqualsShortcut(t *testing.T) {
	_, y := problem(t, 24, false)
	rng := rand.New(rand.NewPCG(3, 3))
	x := mat.NewDense(24, 3, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	k := kernel.Gaussian{Gamma: 0.3}
	full, _ := rls.Fit(x, y, rls.Options{Kernel: k})
	folds := [][]int{{0, 3, 5, 7, 11, 13}, {1, 2, 4, 6}, {8, 9, 10, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}}
	grid := []float64{0.01, 1, 100}
	mse := mustMeasure(t, "mse")
	want, err := Select(full, grid, Scheme{Kind: Folds, Name: "folds", Folds: folds}, mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	retrain := func(train, test []int) (func(float64) (*mat.Dense, error), error) {
		m, err := rls.Fit(kernel.Rows(x, train), kernel.Rows(y, train).(*mat.Dense), rls.Options{Kernel: k})
		if err != nil {
			return nil, err
		}
		xt := kernel.Rows(x, test)
		return func(l float64) (*mat.Dense, error) {
			s, err := m.Solve(l)
			if err != nil {
				return nil, err
			}
			return s.Predictor().Predict(xt)
		}, nil
	}
	got, err := SelectRetrain(retrain, y, grid, folds, "retrain", mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for n := range grid {
		if d := math.Abs(got.Curve[n].Value - want.Curve[n].Value); d > 1e-9*want.Curve[n].Value {
			t.Errorf("λ=%g: retrain %g, shortcut %g", grid[n], got.Curve[n].Value, want.Curve[n].Value)
		}
	}
	if _, err := SelectRetrain(retrain, y, grid, [][]int{{0, 0}}, "bad", mse, Options{}); !errors.Is(err, ErrScheme) {
		t.Errorf("bad folds: err = %v", err)
	}
}

func TestOnEdge(t *testing.T) {
	g := func(v float64) kernel.Spec { return kernel.Spec{Name: "gaussian", Gamma: v} }
	specs := []kernel.Spec{g(0.5), g(1), g(2)}
	cases := []struct {
		best   kernel.Spec
		lambda float64
		want   []Edge
	}{
		{g(1), 1, nil},
		{g(0.5), 1, []Edge{{"gamma", "low"}}},
		{g(2), 10, []Edge{{"lambda", "high"}, {"gamma", "high"}}},
		{g(1), 0.1, []Edge{{"lambda", "low"}}},
	}
	// the one edge rule reads any grid order: 10 is the high end of 10, 0.1, 1
	if e, ok := GridEdge("lambda", []float64{10, 0.1, 1}, 10); !ok || e.Side != "high" {
		t.Errorf("unsorted grid: %v %v", e, ok)
	}
	if _, ok := GridEdge("lambda", []float64{10, 0.1, 1}, 1); ok {
		t.Error("unsorted grid: 1 is inside 0.1..10")
	}
	for _, c := range cases {
		got := onEdge(Settings{Lambdas: []float64{10, 0.1, 1}, Kernels: specs}, &SearchResult{Kernel: c.best, Lambda: c.lambda})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("γ=%g λ=%g: %v, want %v", c.best.Gamma, c.lambda, got, c.want)
		}
	}
	if got := onEdge(Settings{Lambdas: []float64{1}, Kernels: specs[:1]}, &SearchResult{Kernel: g(0.5), Lambda: 1}); got != nil {
		t.Errorf("single values: %v", got)
	}
}

// FoldMean is the mean of the folds' own scores (RLScore's convention). The
// folds have unequal sizes: with equal ones the mean of the folds' MSEs is
// the pooled MSE, and the test could not tell the two apart.
func TestFoldMean(t *testing.T) {
	r, y := problem(t, 24, false)
	folds := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7, 8, 9, 10, 11}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}}
	for _, name := range []string{"mse", "cindex"} {
		meas := mustMeasure(t, name)
		res, err := Select(r, []float64{0.5}, Scheme{Kind: Folds, Folds: folds, FoldMean: true}, meas, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := r.Solve(0.5)
		want := 0.0
		for _, f := range folds {
			p, _ := s.HoldOut(f)
			v, err := meas.Score(kernel.Rows(y, f).(*mat.Dense), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			want += v / float64(len(folds))
		}
		if math.Abs(res.Best.Value-want) > 1e-12 {
			t.Errorf("%s: fold mean %v, want %v", name, res.Best.Value, want)
		}
		pooled, err := Select(r, []float64{0.5}, Scheme{Kind: Folds, Folds: folds}, meas, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(pooled.Best.Value-want) < 1e-3*math.Abs(want) {
			t.Errorf("%s: the pooled value %v is the folds' mean %v: the folds do not tell them apart", name, pooled.Best.Value, want)
		}
	}
	if _, err := NewScheme("loo", SchemeOptions{Rows: 24, FoldMean: true}); !errors.Is(err, ErrScheme) {
		t.Errorf("fold mean with loo: %v", err)
	}
}

// A CV value that overflows (labels near 1e160: their squared errors are
// +Inf) is an error naming the measure and the way out, not a +Inf that
// fails later in the JSON encoder.
func TestOverflowingValueIsAnError(t *testing.T) {
	y := mat.NewDense(3, 1, []float64{1e160, -2e160, 3e160})
	p := mat.NewDense(3, 1, []float64{0, 0, 0})
	_, _, err := ScoreWithin(mustMeasure(t, "mse"), y, p, nil, nil)
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "rescale the labels") {
		t.Errorf("err = %v, want ErrNonFinite with advice", err)
	}
	if v, _, err := ScoreWithin(mustMeasure(t, "cindex"), y, mat.NewDense(3, 1, []float64{1, 2, 3}), nil, nil); err != nil || math.Abs(v-2.0/3) > 1e-15 {
		t.Errorf("cindex of large labels: %v, %v", v, err)
	}
}

// closeGrid reports whether two grids agree: exactly, or with logSpaced
// the end points exactly and the interior points to 4 ulp (exp∘log rounds).
func closeGrid(got, want []float64, logSpaced bool) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] && (!logSpaced || i == 0 || i == len(got)-1 || math.Abs(got[i]-want[i]) > 4*math.Abs(want[i])*0x1p-52) {
			return false
		}
	}
	return true
}
