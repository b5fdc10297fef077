package interval_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rls"
)

// level is a coverage 1 − α = Num/Den, so that the oracle's ranks are
// integer arithmetic: ⌈(1−α)(n+1)⌉ = ⌈Num·(n+1)/Den⌉.
type level struct{ Num, Den int }

func (l level) float() float64 { return float64(l.Num) / float64(l.Den) }

// bruteInterval is Barber et al.'s interval (2021, eq. (6) and sect. 4)
// from the hold-out predictions mu[k] of each fold's model at the test
// point and the residuals R_i of each training row under the model of its
// fold, by sorting: the ⌊α(n+1)⌋-th smallest of μ − R and the
// ⌈(1−α)(n+1)⌉-th smallest of μ + R, ±Inf when the latter rank exceeds n.
func bruteInterval(mu []float64, fold []int, res []float64, l level) (lo, hi float64) {
	n := len(fold)
	kHi := (l.Num*(n+1) + l.Den - 1) / l.Den
	kLo := (n + 1) - kHi // = ⌊α(n+1)⌋
	if kHi > n {
		return math.Inf(-1), math.Inf(1)
	}
	a, b := make([]float64, n), make([]float64, n)
	for i := range fold {
		a[i] = mu[fold[i]] - res[i]
		b[i] = mu[fold[i]] + res[i]
	}
	sort.Float64s(a)
	sort.Float64s(b)
	return a[kLo-1], b[kHi-1]
}

// oracleCase is one learner configuration, retrained from scratch by
// internal/oracle (a direct solve on the reduced rows, entry-by-entry
// kernel values, sharing no code with the factor and the shortcuts).
type oracleCase struct {
	name   string
	kern   kernel.Kernel
	form   learn.Form
	basis  []int
	primal bool
}

// TestIntervalsEqualRetraining: the jackknife+ and CV+ intervals of rls —
// dual (gaussian, and the linear kernel whose predictor is a weight
// vector), linear (primal) and sparse forms, two outputs — equal the
// intervals computed by retraining every leave-one-out / fold model from
// scratch (internal/oracle.Ridge on the kept rows) and sorting, at several
// λ and coverage levels, to 1e-8 relative to the labels' scale. Also: the
// coverage 0.99 with n = 30 (⌈0.99·31⌉ = 31 > n) gives (−∞, +∞) as the
// paper defines, the predictions are the model's own, the jackknife+ of a
// gaussian kernel expansion over every row (dual) is refused
// (ErrKernelJackknife) — the sparse model's, over 11 basis points, is
// checked like the others — and a model
// saved and loaded gives the same intervals bit for bit. Each interval is
// built three ways, all held to the oracle: New (hold-outs solved),
// NewFromCV given the CV predictions at λ (no hold-out solve: rls's
// HoldOutModelsGiven accepts them), and NewFromCV given those of λ·1.5
// (which HoldOutModelsGiven refuses, ErrHoldOutMismatch, and New replaces).
func TestIntervalsEqualRetraining(t *testing.T) {
	const m, mt, d, nOut = 30, 7, 3, 2
	rng := rand.New(rand.NewPCG(22, 1))
	xAll, yAll := oracle.Data(rng, m+mt, d, nOut, false, 0, oracle.Smooth)
	x := mat.DenseCopyOf(xAll.Slice(0, m, 0, d))
	y := mat.DenseCopyOf(yAll.Slice(0, m, 0, nOut))
	xt := mat.DenseCopyOf(xAll.Slice(m, m+mt, 0, d))
	test := make([]int, mt)
	for i := range test {
		test[i] = m + i
	}
	// 5 folds of uneven sizes, rows shuffled
	perm := rng.Perm(m)
	cuts := []int{0, 4, 10, 15, 23, m}
	var folds [][]int
	for k := 0; k+1 < len(cuts); k++ {
		folds = append(folds, slices.Clone(perm[cuts[k]:cuts[k+1]]))
	}
	scale := mat.Norm(y, math.Inf(1))
	cases := []oracleCase{
		{name: "dual gaussian", kern: kernel.Gaussian{Gamma: 0.3}, form: learn.Dual},
		{name: "dual linear kernel", kern: kernel.Linear{Bias: 1}, form: learn.Dual},
		{name: "linear", kern: kernel.Linear{Bias: 1}, form: learn.Linear, primal: true},
		{name: "sparse gaussian", kern: kernel.Gaussian{Gamma: 0.3}, form: learn.Sparse, basis: []int{0, 3, 5, 8, 11, 14, 17, 20, 22, 26, 29}},
	}
	levels := []level{{9, 10}, {3, 4}, {1, 2}, {99, 100}}
	worst := 0.0
	for _, c := range cases {
		r, err := rls.Fit(x, y, rls.Options{Kernel: c.kern, Form: c.form, Basis: c.basis})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sk := c.kern.Spec()
		prob := oracle.Problem{X: xAll, Y: yAll, K: oracle.Kernel{Name: sk.Name, Gamma: sk.Gamma, Bias: sk.Bias}, Primal: c.primal, Basis: c.basis}
		for _, lambda := range []float64{0.01, 1, 30} {
			sol, err := r.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			for _, variant := range []string{"New", "NewFromCV", "NewFromCV of another λ"} {
				for _, method := range []string{model.JackknifePlus, model.CVPlus} {
					p := sol.Predictor()
					var fs [][]int
					if method == model.CVPlus {
						fs = folds
					}
					var iv *model.Interval
					var err error
					if variant == "New" {
						iv, err = interval.New(p, sol, y, method, fs)
					} else {
						cvSol := sol
						if variant == "NewFromCV of another λ" { // must fall back to New
							cvSol, _ = r.Solve(lambda * 1.5)
						}
						cv := cvPredictions(t, cvSol, fs, m, nOut)
						// the fast path is taken exactly for the solution's own predictions
						all := fs
						if all == nil {
							for i := 0; i < m; i++ {
								all = append(all, []int{i})
							}
						}
						_, gerr := sol.HoldOutModelsGiven(all, cv)
						if (gerr == nil) != (cvSol == sol) || gerr != nil && !errors.Is(gerr, rls.ErrHoldOutMismatch) {
							t.Errorf("%s λ=%g %s %s: HoldOutModelsGiven: %v", c.name, lambda, method, variant, gerr)
						}
						iv, err = interval.NewFromCV(p, sol, y, method, fs, cv)
					}
					if method == model.JackknifePlus && !p.IsLinear() && c.basis == nil {
						if !errors.Is(err, interval.ErrKernelJackknife) {
							t.Errorf("%s: jackknife+ of a kernel expansion: err %v, want ErrKernelJackknife", c.name, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("%s λ=%g %s: %v", c.name, lambda, method, err)
					}
					p.Interval = iv
					// the oracle: every hold-out model retrained from scratch
					bf := fs
					if bf == nil {
						bf = make([][]int, m)
						for i := range bf {
							bf[i] = []int{i}
						}
					}
					fold := make([]int, m)
					res := make([][]float64, nOut)
					for c := range res {
						res[c] = make([]float64, m)
					}
					mu := make([][][]float64, mt) // [test row][output][fold]
					for i := range mu {
						mu[i] = make([][]float64, nOut)
						for c := range mu[i] {
							mu[i][c] = make([]float64, len(bf))
						}
					}
					for k, s := range bf {
						keep := make([]int, 0, m)
						for i := 0; i < m; i++ {
							if !slices.Contains(s, i) {
								keep = append(keep, i)
							}
						}
						out := oracle.Ridge(prob, keep, append(slices.Clone(s), test...), lambda)
						for a, i := range s {
							fold[i] = k
							for c := 0; c < nOut; c++ {
								res[c][i] = math.Abs(y.At(i, c) - out.At(a, c))
							}
						}
						for j := range test {
							for c := 0; c < nOut; c++ {
								mu[j][c][k] = out.At(len(s)+j, c)
							}
						}
					}
					full := oracle.Ridge(prob, oracle.AllRows(m), test, lambda)
					for _, l := range levels {
						pred, lo, hi, err := p.PredictInterval(xt, l.float())
						if err != nil {
							t.Fatal(err)
						}
						if e := oracle.RelErr(pred, full); e > 1e-8 {
							t.Errorf("%s λ=%g: predictions differ from the full model's by %.2g", c.name, lambda, e)
						}
						for j := 0; j < mt; j++ {
							for o := 0; o < nOut; o++ {
								wl, wh := bruteInterval(mu[j][o], fold, res[o], l)
								for _, pair := range [][2]float64{{lo.At(j, o), wl}, {hi.At(j, o), wh}} {
									got, want := pair[0], pair[1]
									if math.IsInf(want, 0) {
										if got != want {
											t.Errorf("%s λ=%g %s %d/%d row %d output %d: got %v, want %v", c.name, lambda, method, l.Num, l.Den, j, o, got, want)
										}
										continue
									}
									e := math.Abs(got-want) / scale
									worst = max(worst, e)
									if !(e <= 1e-8) {
										t.Errorf("%s λ=%g %s %d/%d row %d output %d: got %v, want %v (rel %.2g)", c.name, lambda, method, l.Num, l.Den, j, o, got, want, e)
									}
								}
							}
						}
					}
					// saved and loaded: the same intervals
					var buf bytes.Buffer
					if err := p.Save(&buf); err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(buf.String(), `"version":5`) {
						t.Errorf("%s: a model with an interval is not version 5", c.name)
					}
					q, err := model.Load(&buf)
					if err != nil {
						t.Fatalf("%s: load: %v", c.name, err)
					}
					_, lo1, hi1, _ := p.PredictInterval(xt, 0.9)
					_, lo2, hi2, err := q.PredictInterval(xt, 0.9)
					if err != nil || !mat.Equal(lo1, lo2) || !mat.Equal(hi1, hi2) {
						t.Errorf("%s: the loaded model's intervals differ (err %v)", c.name, err)
					}
				}
			}
		}
	}
	t.Logf("largest difference from retraining: %.2g of max|y|", worst)
}

// cvPredictions are the hold-out predictions of every row — LOO (folds
// nil) or each fold's — as a cross-validation computes them.
func cvPredictions(t *testing.T, sol *rls.Solution, folds [][]int, m, nOut int) *mat.Dense {
	t.Helper()
	if folds == nil {
		p, err := sol.LeaveOneOut()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := mat.NewDense(m, nOut, nil)
	for _, s := range folds {
		p, err := sol.HoldOut(s)
		if err != nil {
			t.Fatal(err)
		}
		for a, i := range s {
			out.SetRow(i, p.RawRowView(a))
		}
	}
	return out
}

// TestRanks: Barber et al.'s ranks ⌈(1−α)(n+1)⌉ and ⌊α(n+1)⌋ by integer
// arithmetic for every n ≤ 300 and coverage k/20, k/100 — including the
// products float64 rounds up past an integer (0.9·40) — and hi = n + 1
// (the infinite interval) exactly when α < 1/(n+1).
func TestRanks(t *testing.T) {
	for n := 1; n <= 300; n++ {
		for _, den := range []int{20, 100} {
			for num := 1; num < den; num++ {
				lo, hi := model.Ranks(float64(num)/float64(den), n)
				wantHi := (num*(n+1) + den - 1) / den
				wantLo := ((den - num) * (n + 1)) / den
				if hi != wantHi || lo != wantLo {
					t.Fatalf("n=%d coverage %d/%d: ranks (%d, %d), want (%d, %d)", n, num, den, lo, hi, wantLo, wantHi)
				}
				if (hi > n) != ((den-num)*(n+1) < den) {
					t.Fatalf("n=%d coverage %d/%d: hi %d", n, num, den, hi)
				}
			}
		}
	}
}

// TestRefusals: labels given as hold-out predictions of an intercept
// model (HoldOutModelsGiven's check refuses them), folds that do not
// partition the rows, one fold, an unknown method, and coverage levels
// outside (0, 1) are refused with errors that say so.
func TestRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := oracle.Data(rng, 12, 2, 1, false, 0, oracle.Smooth)
	r, err := rls.Fit(x, y, rls.Options{Kernel: kernel.Linear{Bias: 1}, Form: learn.Linear})
	if err != nil {
		t.Fatal(err)
	}
	sol, _ := r.Solve(1)
	p := sol.Predictor()
	for _, c := range []struct {
		method string
		folds  [][]int
		want   string
	}{
		{model.CVPlus, [][]int{{0, 1, 2, 3, 4, 5}, {5, 6, 7, 8, 9, 10, 11}}, "in folds 1 and 2"},
		{model.CVPlus, [][]int{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}}, "row 11 is in no fold"},
		{model.CVPlus, [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, "at least 2 folds"},
		{model.CVPlus, [][]int{{0, 1, 2, 3, 4, 5}, {}, {6, 7, 8, 9, 10, 11}}, "fold 2 is empty"},
		{model.JackknifePlus, [][]int{{0}}, "give no folds"},
		{"jackknife", nil, `method "jackknife"`},
	} {
		if _, err := interval.New(p, sol, y, c.method, c.folds); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: err %v, want %q", c.method, c.folds, err, c.want)
		}
	}
	iv, err := interval.New(p, sol, y, model.JackknifePlus, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Interval = iv
	for _, cov := range []float64{0, 1, -0.5, 1.5, math.NaN()} {
		if _, _, _, err := p.PredictInterval(x, cov); err == nil || !strings.Contains(err.Error(), "(0, 1)") {
			t.Errorf("coverage %v: err %v", cov, err)
		}
	}
	if _, _, _, err := sol.Predictor().PredictInterval(x, 0.9); !errors.Is(err, model.ErrNoInterval) {
		t.Errorf("a model without an interval: err %v", err)
	}
	ri, err := rls.Fit(x, y, rls.Options{Kernel: kernel.Linear{Bias: 1}, Form: learn.Linear, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	si, _ := ri.Solve(1)
	if _, err := si.HoldOutModelsGiven([][]int{{0}, {1}}, y); !errors.Is(err, rls.ErrHoldOutMismatch) {
		t.Errorf("intercept: HoldOutModelsGiven of the labels as predictions: err %v", err)
	}
	_ = fmt.Sprint
}
