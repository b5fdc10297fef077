package greedy

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
)

func mustMeasure(t testing.TB, name string) measure.Measure {
	t.Helper()
	m, err := measure.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// toCSR returns X as CSR (explicit zeros dropped).
func toCSR(x *mat.Dense) *matrix.CSR {
	m, d := x.Dims()
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if v := x.At(i, j); v != 0 {
				idx, val = append(idx, j), append(val, v)
			}
		}
		indptr = append(indptr, len(idx))
	}
	c, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		panic(err)
	}
	return c
}

// sameResult compares two selections: the same paths and best point, values
// and final predictions to tol relative.
func sameResult(t *testing.T, name string, a, b *Result, x mat.Matrix, tol float64) {
	t.Helper()
	for l := range a.Paths {
		pa, pb := a.Paths[l], b.Paths[l]
		if !slices.Equal(pa.Selected(-1), pb.Selected(-1)) {
			t.Errorf("%s: λ = %g: selected %v and %v", name, pa.Lambda, pa.Selected(-1), pb.Selected(-1))
			continue
		}
		for n := range pa.Steps {
			if r := relDiff(pa.Steps[n].Value, pb.Steps[n].Value); r > tol {
				t.Errorf("%s: λ = %g, step %d: values %g and %g", name, pa.Lambda, n+1, pa.Steps[n].Value, pb.Steps[n].Value)
			}
		}
	}
	if a.Best != b.Best || a.K != b.K || !slices.Equal(a.Selected, b.Selected) {
		t.Errorf("%s: best (path %d, k %d, %v) and (path %d, k %d, %v)", name, a.Best, a.K, a.Selected, b.Best, b.K, b.Selected)
		return
	}
	pa, err := a.Predictor.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Predictor.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	if r := oracle.RelErr(pa, pb); r > tol {
		t.Errorf("%s: final predictions differ by %.2g", name, r)
	}
}

// TestDenseSparseCachedLean: the same data dense and CSR, cached and lean,
// give the same selection — on a problem wide enough for several blocks of
// candidates per worker, with several λ at once; one λ of it is also held to
// brute force.
func TestDenseSparseCachedLean(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	const m, d, k = 40, 150, 5
	x, y := oracle.Data(rng, m, d, 3, true, 0.7, oracle.Smooth)
	kf, err := cv.KFold(m, 5, 4)
	if err != nil {
		t.Fatal(err)
	}
	lambdas := []float64{1e-3, 1, 30}
	for _, folds := range [][][]int{nil, kf} {
		var ref *Result
		for _, sparse := range []bool{false, true} {
			for _, mem := range []Memory{Cache, Lean} {
				var xm mat.Matrix = x
				if sparse {
					xm = toCSR(x)
				}
				res, err := Select(xm, y, Options{Lambdas: lambdas, Bias: 1, K: k, Folds: folds, Memory: mem})
				if err != nil {
					t.Fatal(err)
				}
				if ref == nil {
					ref = res
					continue
				}
				sameResult(t, fmt.Sprintf("folds %v sparse %v memory %d", folds != nil, sparse, mem), ref, res, x, 1e-10)
			}
		}
		bp := bruteProblem{x: x, y: y, bias: 1, meas: mustMeasure(t, "mse"), folds: folds}
		sel, _ := bp.greedy(k, lambdas[1])
		if got := ref.Paths[1].Selected(-1); !slices.Equal(got, sel) {
			t.Errorf("folds %v: selected %v, brute force %v", folds != nil, got, sel)
		}
	}
}

// TestGridEqualsSingle: the paths of a λ grid equal separate runs per λ.
func TestGridEqualsSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x, y := oracle.Data(rng, 30, 20, 1, false, 0, oracle.Smooth)
	grid := []float64{1e-2, 1, 100}
	for _, mem := range []Memory{Cache, Lean} {
		all, err := Select(x, y, Options{Lambdas: grid, Bias: 1, K: 6, Memory: mem})
		if err != nil {
			t.Fatal(err)
		}
		for l, lambda := range grid {
			one, err := Select(x, y, Options{Lambdas: []float64{lambda}, Bias: 1, K: 6, Memory: mem})
			if err != nil {
				t.Fatal(err)
			}
			a, b := all.Paths[l], one.Paths[0]
			if !slices.Equal(a.Selected(-1), b.Selected(-1)) {
				t.Errorf("λ = %g: grid %v, alone %v", lambda, a.Selected(-1), b.Selected(-1))
			}
			for n := range a.Steps {
				if r := relDiff(a.Steps[n].Value, b.Steps[n].Value); r > 1e-12 {
					t.Errorf("λ = %g step %d: %g vs %g", lambda, n+1, a.Steps[n].Value, b.Steps[n].Value)
				}
			}
		}
	}
}

// TestBadInput: every invalid request is an error wrapping its sentinel.
func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := oracle.Data(rng, 12, 5, 1, false, 0, oracle.Smooth)
	ones := mat.NewDense(12, 1, nil)
	for i := 0; i < 12; i++ {
		ones.Set(i, 0, 1)
	}
	ok := Options{Lambdas: []float64{1}, Bias: 1, K: 2}
	with := func(f func(o *Options)) Options { o := ok; f(&o); return o }
	cases := []struct {
		name string
		x    mat.Matrix
		y    *mat.Dense
		opt  Options
		want error
	}{
		{"select 0", x, y, with(func(o *Options) { o.K = 0 }), ErrSelect},
		{"select negative", x, y, with(func(o *Options) { o.K = -3 }), ErrSelect},
		{"select more than d", x, y, with(func(o *Options) { o.K = 6 }), ErrSelect},
		{"no lambda", x, y, with(func(o *Options) { o.Lambdas = nil }), learn.ErrLambda},
		{"lambda 0", x, y, with(func(o *Options) { o.Lambdas = []float64{1, 0} }), learn.ErrLambda},
		{"lambda NaN", x, y, with(func(o *Options) { o.Lambdas = []float64{math.NaN()} }), learn.ErrLambda},
		{"rows differ", x, mat.NewDense(11, 1, nil), ok, learn.ErrShape},
		{"no labels", x, nil, ok, learn.ErrShape},
		{"no data", nil, y, ok, learn.ErrShape},
		{"one row", mat.NewDense(1, 5, nil), mat.NewDense(1, 1, nil), ok, learn.ErrShape},
		{"auc, one class", x, ones, with(func(o *Options) { o.Measure = mustMeasure(t, "auc") }), ErrCriterion},
		{"cindex, constant labels", x, ones, with(func(o *Options) { o.Measure = mustMeasure(t, "cindex") }), ErrCriterion},
		{"multiclass, one output", x, y, with(func(o *Options) { o.Measure = mustMeasure(t, "multiclass-accuracy") }), ErrCriterion},
		{"disagreement without queries", x, y, with(func(o *Options) { o.Measure = mustMeasure(t, "disagreement") }), measure.ErrNoQueries},
		{"overlapping folds", x, y, with(func(o *Options) { o.Folds = [][]int{{0, 1}, {1, 2}} }), cv.ErrFolds},
		{"fold out of range", x, y, with(func(o *Options) { o.Folds = [][]int{{0, 12}} }), cv.ErrFolds},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Select(c.x, c.y, c.opt)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
	if _, err := Select(x, y, with(func(o *Options) { o.Bias = -1 })); err == nil {
		t.Error("negative bias: no error")
	}
	huge := mat.DenseCopyOf(x)
	huge.Set(3, 2, 1e300)
	if _, err := Select(huge, y, ok); !errors.Is(err, ErrNonFinite) {
		t.Errorf("a feature of 1e300: error %v, want ErrNonFinite", err)
	}
}

// TestOuter: the outer estimate equals selecting on each training part by
// hand and scoring the pooled held-out predictions; the inner folds are the
// given ones restricted to the training rows.
func TestOuter(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	xd, y := oracle.Data(rng, 36, 10, 2, true, 0.4, oracle.Smooth)
	x := toCSR(xd)
	outer, err := cv.KFold(36, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := cv.KFold(36, 6, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, folds := range [][][]int{nil, inner} {
		opt := Options{Lambdas: []float64{0.1, 10}, Bias: 1, K: 4, Folds: folds, Standardize: true}
		res, err := Outer(x, y, opt, outer)
		if err != nil {
			t.Fatal(err)
		}
		pred := mat.NewDense(36, 2, nil)
		for n, test := range outer {
			train := cv.Complement(test, 36)
			o := opt
			o.Folds = restrict(folds, train, 36)
			if folds != nil {
				total := 0
				for _, f := range o.Folds {
					total += len(f)
				}
				if total != len(train) {
					t.Fatalf("restricted folds cover %d of %d training rows", total, len(train))
				}
			}
			r, err := Select(kernel.Rows(x, train), kernel.Rows(y, train).(*mat.Dense), o)
			if err != nil {
				t.Fatal(err)
			}
			if f := res.Folds[n]; f.Lambda != r.Lambda || f.K != r.K || !slices.Equal(f.Selected, r.Selected) || f.Inner != r.Value {
				t.Errorf("fold %d: %+v, by hand λ %g k %d %v %g", n, f, r.Lambda, r.K, r.Selected, r.Value)
			}
			p, err := r.Predictor.Predict(kernel.Rows(x, test))
			if err != nil {
				t.Fatal(err)
			}
			for k, i := range test {
				pred.SetRow(i, p.RawRowView(k))
			}
		}
		want, _ := mustMeasure(t, "mse").Score(y, pred, nil)
		if relDiff(res.Value, want) > 1e-12 {
			t.Errorf("outer value %g, by hand %g", res.Value, want)
		}
		if res.Value <= res.Folds[0].Inner/10 {
			t.Errorf("outer %g far below inner %g", res.Value, res.Folds[0].Inner)
		}
	}
	if _, err := Outer(x, y, Options{Lambdas: []float64{1}, K: 2}, [][]int{{0, 1}, {1}}); !errors.Is(err, cv.ErrFolds) {
		t.Errorf("overlapping outer folds: %v", err)
	}
}

// TestStandardize: standardizing inside Select equals selecting on data
// standardized beforehand, and the predictor takes the raw full-width data.
func TestStandardize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, y := oracle.Data(rng, 25, 8, 1, false, 0, oracle.Smooth)
	for j := 0; j < 8; j++ { // very different scales
		for i := 0; i < 25; i++ {
			x.Set(i, j, x.At(i, j)*math.Pow(10, float64(j-4))+float64(j))
		}
	}
	opt := Options{Lambdas: []float64{1}, Bias: 1, K: 3}
	o := opt
	o.Standardize = true
	a, err := Select(x, y, o)
	if err != nil {
		t.Fatal(err)
	}
	sc := model.FitScaler(x)
	xs, err := sc.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Select(xs, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Selected, b.Selected) || relDiff(a.Value, b.Value) > 1e-12 {
		t.Fatalf("standardized inside %v %g, outside %v %g", a.Selected, a.Value, b.Selected, b.Value)
	}
	pa, err := a.Predictor.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Predictor.Predict(xs)
	if err != nil {
		t.Fatal(err)
	}
	if r := oracle.RelErr(pa, pb); r > 1e-12 {
		t.Errorf("predictions differ by %g", r)
	}
	if a.Predictor.Width != 8 || len(a.Predictor.WIndex) != len(a.Selected) || a.Predictor.Learner != string(Name) {
		t.Errorf("predictor width %d, index %v, learner %q", a.Predictor.Width, a.Predictor.WIndex, a.Predictor.Learner)
	}
}

// TestIndistinguishable: with no bias and all-zero features every model
// predicts 0: the curve flags it, and auc scores the ties ½.
func TestIndistinguishable(t *testing.T) {
	x := mat.NewDense(10, 3, nil)
	y := mat.NewDense(10, 1, []float64{1, -1, 1, -1, 1, 1, -1, -1, 1, -1})
	res, err := Select(x, y, Options{Lambdas: []float64{1}, K: 2, Measure: mustMeasure(t, "auc")})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Paths[0].Steps {
		if !s.Indistinguishable || s.Value != 0.5 {
			t.Errorf("step %+v: want indistinguishable, auc 0.5", s)
		}
	}
	if got := res.Paths[0].Selected(-1); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("ties: selected %v, want the lower indices [0 1]", got)
	}
	x.Set(0, 2, 1)
	x.Set(1, 2, -2)
	res, err = Select(x, y, Options{Lambdas: []float64{1}, K: 1, Bias: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Paths[0].Steps[0]; s.Indistinguishable || s.Feature != 2 {
		t.Errorf("informative feature: step %+v", s)
	}
}

// TestProgress: one report per selected feature.
func TestProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	x, y := oracle.Data(rng, 15, 6, 1, false, 0, oracle.Smooth)
	var got []int
	_, err := Select(x, y, Options{Lambdas: []float64{1, 2}, Bias: 1, K: 4,
		Progress: func(e progress.Event) {
			if e.Total != 4 {
				t.Errorf("total %d", e.Total)
			}
			got = append(got, int(e.Done))
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("progress %v", got)
	}
}
