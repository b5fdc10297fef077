package rls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// weightedRidgeScript reads {x, y, w, alphas, folds, intercept} as JSON on
// stdin and prints scikit-learn's
//   - kfold: Ridge(alpha, fit_intercept).fit(X, y, sample_weight=w) refit
//     on the other folds (their weights), predicting each fold, m×L;
//   - brute: the same refit without each row, m×L (leave-one-out);
//   - cv: RidgeCV(alphas, fit_intercept, store_cv_values).fit(..., w)'s
//     stored values, m×L: its leave-one-out shortcut on the scaled problem,
//     whose squared errors are w_i (y_i − f^{−i}(x_i))²;
//   - fitted: Ridge on all rows, predicting them, m×L.
const weightedRidgeScript = `
import inspect, json, sys
import numpy as np
from sklearn.linear_model import Ridge, RidgeCV
d = json.load(sys.stdin)
X, y, w, alphas, fi = np.array(d["x"]), np.array(d["y"]), np.array(d["w"]), np.array(d["alphas"]), d["intercept"]
m = len(y)
kfold, brute, fitted = np.zeros((m, len(alphas))), np.zeros((m, len(alphas))), np.zeros((m, len(alphas)))
for l, a in enumerate(alphas):
    for f in d["folds"]:
        test = np.zeros(m, bool)
        test[f] = True
        kfold[test, l] = Ridge(alpha=a, fit_intercept=fi).fit(X[~test], y[~test], sample_weight=w[~test]).predict(X[test])
    for i in range(m):
        keep = np.arange(m) != i
        brute[i, l] = Ridge(alpha=a, fit_intercept=fi).fit(X[keep], y[keep], sample_weight=w[keep]).predict(X[i:i + 1])[0]
    fitted[:, l] = Ridge(alpha=a, fit_intercept=fi).fit(X, y, sample_weight=w).predict(X)
kw = "store_cv_results" if "store_cv_results" in inspect.signature(RidgeCV).parameters else "store_cv_values"
r = RidgeCV(alphas=alphas, fit_intercept=fi, **{kw: True}).fit(X, y, sample_weight=w)
cv = r.cv_results_ if hasattr(r, "cv_results_") else r.cv_values_
print(json.dumps({"kfold": kfold.tolist(), "brute": brute.tolist(), "cv": np.asarray(cv).reshape(m, -1).tolist(), "fitted": fitted.tolist()}))
`

// The linear kernel (bias 0) with sample weights is scikit-learn's
// Ridge(alpha = λ, sample_weight = w), with fit_intercept=False and with
// fit_intercept=True (rlskit's intercept: the weighted intercept), in the
// linear and dual forms, on a tall (60×5) and a wide (20×30) random data
// set with weights log-uniform in [1/5, 5], at λ = 1e-3 … 1e3:
//   - 5-fold hold-out predictions (HoldOutPath) equal Ridge refit per fold
//     with the other folds' weights, to 1e-8 relative;
//   - leave-one-out equals Ridge refit without each row, to 1e-8;
//   - RidgeCV's stored values with sample_weight are w_i(y_i − LOO_i)²:
//     its GCV works on the √w-scaled problem, so its mean squared error —
//     the score it selects α by — is the weighted sum Σ w_i e_i² / m (not
//     divided by Σ w), where rlskit scores the unweighted errors;
//   - the fitted values equal Ridge's.
//
// 1e-8 is the acceptance bound of issue 24; measured errors are logged.
func TestWeightsEqualRidge(t *testing.T) {
	py := sklearnPython(t)
	rng := rand.New(rand.NewPCG(24, 7))
	alphas := []float64{1e-3, 1e-1, 1, 10, 1e3}
	for _, sh := range [][2]int{{60, 5}, {20, 30}} {
		m, d := sh[0], sh[1]
		x, y := oracle.Data(rng, m, d, 1, false, 0, oracle.Smooth)
		w := drawWeights(rng, m)
		perm := rng.Perm(m)
		var folds [][]int
		for f := 0; f < 5; f++ {
			var fold []int
			for i := f; i < m; i += 5 {
				fold = append(fold, perm[i])
			}
			folds = append(folds, fold)
		}
		for _, icpt := range []bool{false, true} {
			kfold, brute, cvv, fitted := sklearnWeighted(t, py, x, y.RawMatrix().Data, w, alphas, folds, icpt)
			for _, form := range []learn.Form{learn.Linear, learn.Dual} {
				if form == learn.Linear && d+1 >= m {
					continue
				}
				name := fmt.Sprintf("%dx%d/intercept=%v/%s", m, d, icpt, map[learn.Form]string{learn.Linear: "linear", learn.Dual: "dual"}[form])
				r, err := Fit(x, y, Options{Kernel: kernel.Linear{}, Form: form, Intercept: icpt, Weights: w})
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				cmp := func(what string, l int, got, want *mat.Dense) {
					e := relErr(got, want)
					worst = max(worst, e)
					if e > 1e-8 {
						t.Errorf("%s α=%g %s: rel. error %.2e", name, alphas[l], what, e)
					}
				}
				err = r.HoldOutPath(folds, alphas, func(l int, p *mat.Dense) error {
					cmp("5-fold", l, mat.DenseCopyOf(p.ColView(0)), mat.DenseCopyOf(kfold.ColView(l)))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				for l, a := range alphas {
					s, err := r.Solve(a)
					if err != nil {
						t.Fatal(err)
					}
					loo, _ := s.LeaveOneOut()
					cmp("LOO", l, loo, mat.DenseCopyOf(brute.ColView(l)))
					sq := mat.NewDense(m, 1, nil)
					for i := 0; i < m; i++ {
						e := y.At(i, 0) - loo.At(i, 0)
						sq.Set(i, 0, w[i]*e*e)
					}
					cmp("RidgeCV values", l, sq, mat.DenseCopyOf(cvv.ColView(l)))
					cmp("fitted", l, s.Fitted(), mat.DenseCopyOf(fitted.ColView(l)))
				}
				t.Logf("%s: largest relative difference %.1e", name, worst)
			}
		}
	}
}

// sklearnWeighted runs weightedRidgeScript.
func sklearnWeighted(t *testing.T, py string, x *mat.Dense, y, w, alphas []float64, folds [][]int, icpt bool) (kfold, brute, cv, fitted *mat.Dense) {
	t.Helper()
	m, _ := x.Dims()
	var rows [][]float64
	for i := 0; i < m; i++ {
		rows = append(rows, x.RawRowView(i))
	}
	in, err := json.Marshal(map[string]any{"x": rows, "y": y, "w": w, "alphas": alphas, "folds": folds, "intercept": icpt})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", weightedRidgeScript)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var res struct{ KFold, Brute, CV, Fitted [][]float64 }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python output: %v", err)
	}
	toDense := func(r [][]float64) *mat.Dense {
		if len(r) != m || len(r[0]) != len(alphas) {
			t.Fatalf("python gave %d rows, want %d×%d", len(r), m, len(alphas))
		}
		d := mat.NewDense(m, len(alphas), nil)
		for i, row := range r {
			d.SetRow(i, row)
		}
		return d
	}
	return toDense(res.KFold), toDense(res.Brute), toDense(res.CV), toDense(res.Fitted)
}
