package stream

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rls"
)

// intervalTol is the agreement asked of the streamed CV+ with the
// in-memory CV+ (interval.New on rls's factorization) and with a direct
// solve per fold: 1e-8 relative, the interval package's tolerance; both
// sides are exact solves of the same systems, so the differences are
// rounding (≤ 4e-15 measured on these cases).
const intervalTol = 1e-8

// TestStreamCVPlusEqualsInMemory: fit --stream --interval cv+ (kfold:5,
// read from 3 shards in chunks of 23 rows by 2 workers) records the same
// interval as the in-memory CV+ of rls with the stream's folds (Fold) at
// the λ the stream chose: every fold's residuals (as a multiset) to 1e-8
// of max|y|, and on 40 fresh points the prediction, lower and upper bounds
// at coverage 0.8 and 0.9 to 1e-8 relative — for the linear kernel with a
// bias feature (2 outputs, svmlight), with an unpenalized intercept (CSV),
// a gaussian kernel over a random basis of 15 rows, and standardized
// features (in memory: the stream's scaler applied to the rows first). For the first,
// each fold model also equals the ridge solve (Z_TᵀZ_T + λI)⁻¹Z_TᵀY_T on
// its training rows (gonum's Cholesky), on the fresh points. The same for
// the jackknife+ (loo: every row's model, against interval.New's
// jackknife+; the residuals compared as one multiset, the models' order
// being the stream's).
func TestStreamCVPlusEqualsInMemory(t *testing.T) {
	grid := []float64{0.01, 0.3, 3, 30}
	for n, c := range []struct {
		name      string
		spec      kernel.Spec
		basis     int
		intercept bool
		csv       bool
		t         int
		std       bool
	}{
		{"linear/bias", kernel.Spec{Name: "linear", Bias: 1}, 0, false, false, 2, false},
		{"linear/intercept/csv", kernel.Spec{Name: "linear"}, 0, true, true, 1, false},
		{"gaussian/basis", kernel.Spec{Name: "gaussian", Gamma: 0.1}, 15, false, true, 1, false},
		{"linear/standardized", kernel.Spec{Name: "linear", Bias: 1}, 0, false, true, 1, true},
	} {
		for _, method := range []string{model.CVPlus, model.JackknifePlus} {
			t.Run(c.name+"/"+method, func(t *testing.T) {
				x, y, q := synth(uint64(40+n), 180, 4, c.t, false, false, 0, 0)
				dir := t.TempDir()
				whole, shards := writeShards(t, dir, x, y, q, c.csv, 3)
				format := "svmlight"
				var csvOpt dataset.CSVOptions
				if c.csv {
					format = "csv"
					for k := 0; k < c.t; k++ {
						csvOpt.Labels = append(csvOpt.Labels, "y"+strconv.Itoa(k))
					}
					csvOpt.Qid = "qid"
				}
				mse, _ := measure.ByName("mse")
				cvs := "kfold:5"
				if method == model.JackknifePlus {
					cvs = "loo"
				}
				opt := Options{Learner: learn.RLS, Kernel: c.spec, BasisN: c.basis, CV: cvs, Seed: 9, Lambdas: grid,
					Measure: mse, Intercept: c.intercept, Interval: method, Standardize: c.std}
				got, err := Run(context.Background(), opt, Source{Files: shards, Format: format, CSV: csvOpt}, RunOptions{Workers: 2, ChunkRows: 23})
				if err != nil {
					t.Fatal(err)
				}
				if k := got.Passes[len(got.Passes)-1].Kind; k != IntervalPass {
					t.Fatalf("last pass %v, want the interval pass", k)
				}
				giv := got.Predictor.Interval
				if giv == nil {
					t.Fatal("no interval in the streamed model")
				}
				d, err := dataset.ReadFile(whole, format, csvOpt, dataset.SVMLightOptions{})
				if err != nil {
					t.Fatal(err)
				}
				m := d.Rows()
				byFold := make([][]int, 5)
				for i, r := range Rows(d) {
					f := Fold(r, opt.Seed, 5)
					byFold[f] = append(byFold[f], i)
				}
				var folds [][]int
				for _, f := range byFold {
					if len(f) > 0 {
						folds = append(folds, f)
					}
				}
				kern, err := kernel.New(c.spec)
				if err != nil {
					t.Fatal(err)
				}
				lo := learn.Options{Kernel: kern, Basis: got.Basis, Intercept: c.intercept}
				if got.Basis == nil {
					lo.Form = learn.Linear
				}
				xm := d.X // in memory: the stream's scaler applied first
				if c.std {
					if got.Predictor.Scaler == nil {
						t.Fatal("standardized stream model without a scaler")
					}
					if xm, err = got.Predictor.Scaler.Transform(d.X); err != nil {
						t.Fatal(err)
					}
				}
				r, err := rls.Fit(xm, d.Y, lo)
				if err != nil {
					t.Fatal(err)
				}
				lambda := got.Best.Lambda
				sol, err := r.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				want := sol.Predictor()
				if method == model.JackknifePlus {
					folds = nil
				}
				wiv, err := interval.New(want, sol, d.Y, method, folds)
				if err != nil {
					t.Fatal(err)
				}
				want.Interval = wiv
				if giv.Models() != wiv.Models() || len(giv.Fold) != m {
					t.Fatalf("%d models over %d rows, want %d over %d", giv.Models(), len(giv.Fold), wiv.Models(), m)
				}
				ymax := mat.Norm(d.Y, math.Inf(1))
				sets := len(folds)
				if method == model.JackknifePlus {
					sets = 1 // a model per row, in another order: all residuals at once
				}
				for k := range sets {
					if method == model.JackknifePlus {
						k = -1
					}
					for o := 0; o < c.t; o++ {
						a, b := foldResiduals(giv, k, o), foldResiduals(wiv, k, o)
						if len(a) != len(b) {
							t.Fatalf("fold %d: %d residuals, want %d", k, len(a), len(b))
						}
						for i := range a {
							if e := math.Abs(a[i] - b[i]); !(e <= intervalTol*ymax) {
								t.Errorf("fold %d output %d: residual %d is %.15g, in memory %.15g", k, o, i, a[i], b[i])
								break
							}
						}
					}
				}
				rng := rand.New(rand.NewPCG(uint64(n), 5))
				_, w := d.X.Dims()
				xt := mat.NewDense(40, w, nil)
				for i := range xt.RawMatrix().Data {
					xt.RawMatrix().Data[i] = rng.NormFloat64() * 1.5
				}
				worst := 0.0
				defer func() { t.Logf("largest relative difference of the bounds from the in-memory CV+: %.2g", worst) }()
				for _, cov := range []float64{0.8, 0.9} {
					gp, gl, gh, err := got.Predictor.PredictInterval(xt, cov)
					if err != nil {
						t.Fatal(err)
					}
					xw := mat.Matrix(xt)
					if c.std {
						if xw, err = got.Predictor.Scaler.Transform(xt); err != nil {
							t.Fatal(err)
						}
					}
					wp, wl, wh, err := want.PredictInterval(xw, cov)
					if err != nil {
						t.Fatal(err)
					}
					for name, pair := range map[string][2]*mat.Dense{"prediction": {gp, wp}, "lower": {gl, wl}, "upper": {gh, wh}} {
						e := relDiff(pair[0], pair[1])
						worst = math.Max(worst, e)
						if !(e <= intervalTol) {
							t.Errorf("coverage %g: %s differs from the in-memory CV+ by %.2e relative", cov, name, e)
						}
					}
				}
				if c.spec.Name == "linear" && !c.intercept && !c.std && method == model.CVPlus {
					checkFoldsByRidge(t, got.Predictor, c.spec.Bias, d, folds, lambda, xt)
				}
			})
		}
	}
}

// foldResiduals returns fold k's residuals of output o, sorted (k = −1:
// every row's).
func foldResiduals(iv *model.Interval, k, o int) []float64 {
	var out []float64
	for i, f := range iv.Fold {
		if f == k || k < 0 {
			out = append(out, iv.Residuals.At(i, o))
		}
	}
	slices.Sort(out)
	return out
}

// checkFoldsByRidge compares each fold model of p's interval with the
// ridge solve on its training rows: features z = [x, √bias], (Z_TᵀZ_T +
// λI)w = Z_TᵀY_T by gonum's Cholesky, predictions on xt.
func checkFoldsByRidge(t *testing.T, p *model.Predictor, bias float64, d *dataset.Data, folds [][]int, lambda float64, xt *mat.Dense) {
	t.Helper()
	x := mat.DenseCopyOf(d.X)
	m, w := x.Dims()
	_, nt := d.Y.Dims()
	sb := math.Sqrt(bias)
	zt := mat.NewDense(len(xt.RawMatrix().Data)/w, w+1, nil)
	for i := 0; i < zt.RawMatrix().Rows; i++ {
		copy(zt.RawRowView(i), xt.RawRowView(i))
		zt.Set(i, w, sb)
	}
	for k, s := range folds {
		out := make([]bool, m)
		for _, i := range s {
			out[i] = true
		}
		var z, y []float64
		n := 0
		for i := 0; i < m; i++ {
			if !out[i] {
				z = append(append(z, x.RawRowView(i)...), sb)
				y = append(y, d.Y.RawRowView(i)...)
				n++
			}
		}
		zm, ym := mat.NewDense(n, w+1, z), mat.NewDense(n, nt, y)
		var a mat.SymDense
		a.SymOuterK(1, zm.T())
		for j := 0; j <= w; j++ {
			a.SetSym(j, j, a.At(j, j)+lambda)
		}
		var ch mat.Cholesky
		if !ch.Factorize(&a) {
			t.Fatal("ridge system not positive definite")
		}
		var rhs, wk, want mat.Dense
		rhs.Mul(zm.T(), ym)
		if err := ch.SolveTo(&wk, &rhs); err != nil {
			t.Fatal(err)
		}
		want.Mul(zt, &wk)
		q := *p
		q.Interval = nil
		q.W, q.B = p.Interval.W[k], p.Interval.B[k]
		got, err := q.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		if e := relDiff(got, &want); !(e <= intervalTol) {
			t.Errorf("fold %d: the fold model's predictions differ from the ridge solve by %.2e relative", k, e)
		}
	}
}

// The refusals: the jackknife+, another interval name, a CV other than
// kfold:K and a ranker are refused at NewPlan, naming what to give
// (ErrOptions); a model whose residuals would pass interval.MaxNumbers is
// refused after the statistics pass, before the interval pass (ErrData).
func TestStreamIntervalRefusals(t *testing.T) {
	mse, _ := measure.ByName("mse")
	base := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:5", Lambdas: []float64{1}, Measure: mse}
	for _, c := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"jackknife+/kfold", func(o *Options) { o.Interval = model.JackknifePlus }, `reads the leave-one-out models of loo, not cross-validation "kfold:5"`},
		{"unknown", func(o *Options) { o.Interval = "conformal" }, `interval "conformal"`},
		{"loo", func(o *Options) { o.Interval = model.CVPlus; o.CV = "loo" }, `not cross-validation "loo"`},
		{"lgo", func(o *Options) { o.Interval = model.CVPlus; o.CV = "lgo" }, `not cross-validation "lgo"`},
		{"ranker", func(o *Options) { o.Interval = model.CVPlus; o.Learner = learn.GlobalRank; o.Loss = learn.AllPairs }, "for the squared loss"},
	} {
		o := base
		c.mod(&o)
		_, err := NewPlan(o)
		if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrOptions saying %q", c.name, err, c.want)
		}
	}
	o := base
	o.Interval = model.CVPlus
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	p.k, p.p, p.t, p.rows = 5, 10, 1, interval.MaxNumbers/2+1
	if err := p.checkIntervalSize(); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("too many rows: err %v", err)
	}
	p.rows = 1000
	if err := p.checkIntervalSize(); err != nil {
		t.Errorf("1000 rows: %v", err)
	}
}
