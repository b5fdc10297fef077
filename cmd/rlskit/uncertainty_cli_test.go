package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// multiOutputCSV writes m rows of features x1..x4 and three labels that
// want different λ: y1 a linear function with little noise, y2 the same
// with much noise, y3 noise alone.
func multiOutputCSV(t *testing.T, dir string, m int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(41, 42))
	var b strings.Builder
	b.WriteString("x1,x2,x3,x4,y1,y2,y3\n")
	for i := 0; i < m; i++ {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		f := 1.5*x[0] - x[1] + 0.5*x[2]
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", x[0], x[1], x[2], x[3],
			f+0.1*rng.NormFloat64(), f+4*rng.NormFloat64(), rng.NormFloat64())
	}
	path := filepath.Join(dir, "multi.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ridgeCVScript reads {csv, alphas} as JSON on stdin and prints
// scikit-learn's RidgeCV(alphas, alpha_per_target=True,
// fit_intercept=False) on features x1..x4 and targets y1..y3: alpha_ (one
// per target), each target's LOO mse at its alpha_ (the mean over rows of
// the stored squared errors) and the model's predictions on the rows.
const ridgeCVScript = `
import inspect, json, sys
import numpy as np
from sklearn.linear_model import RidgeCV
d = json.load(sys.stdin)
D = np.genfromtxt(d["csv"], delimiter=",", names=True)
X = np.column_stack([D[n] for n in ("x1", "x2", "x3", "x4")])
Y = np.column_stack([D[n] for n in ("y1", "y2", "y3")])
alphas = np.array(d["alphas"])
kw = "store_cv_results" if "store_cv_results" in inspect.signature(RidgeCV).parameters else "store_cv_values"
r = RidgeCV(alphas=alphas, alpha_per_target=True, fit_intercept=False, **{kw: True}).fit(X, Y)
v = np.asarray(r.cv_results_ if hasattr(r, "cv_results_") else r.cv_values_)  # n × targets × alphas
curves = v.mean(axis=0)
best = [float(curves[c, list(alphas).index(a)]) for c, a in enumerate(r.alpha_)]
print(json.dumps({"alpha": [float(a) for a in r.alpha_], "value": best, "predict": r.predict(X).tolist()}))
`

// fit --lambda-per-output on a linear kernel without bias equals
// scikit-learn's RidgeCV(alphas=grid, alpha_per_target=True,
// fit_intercept=False): each output's λ is its alpha_ (the same grid
// values), its LOO mse there the mean of RidgeCV's stored squared errors,
// and the model's predictions RidgeCV's (1e-8 relative: two exact
// solutions of the same small ridge problems). The outputs choose
// different λ (a test that can fail), and the top-level lambda differs
// from some output's. Skips without scikit-learn unless CI is set.
func TestLambdaPerOutputSklearn(t *testing.T) {
	py := icptSklearn(t)
	dir := t.TempDir()
	data := multiOutputCSV(t, dir, 60)
	model := filepath.Join(dir, "m.json")
	grid := "10^-3..10^4:15"
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y1,y2,y3", "--kernel", "linear", "--bias", "0",
		"--lambda-grid", grid, "--cv", "loo", "--measure", "mse", "--lambda-per-output", "--model", model, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	o := decodeFit(t, stdout)
	if o.CV == nil || len(o.CV.BestPerOutput) != 3 {
		t.Fatalf("best_per_output %+v", o.CV)
	}
	var alphas []float64
	for _, p := range o.CV.Curve {
		alphas = append(alphas, p.Lambda)
	}
	in, _ := json.Marshal(map[string]any{"csv": data, "alphas": alphas})
	cmd := exec.Command(py, "-c", ridgeCVScript)
	cmd.Stdin = bytes.NewReader(in)
	var perr bytes.Buffer
	cmd.Stderr = &perr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, perr.String())
	}
	var sk struct {
		Alpha, Value []float64
		Predict      [][]float64
	}
	if err := json.Unmarshal(out, &sk); err != nil {
		t.Fatal(err)
	}
	distinct := map[float64]bool{}
	worst := 0.0
	for c, b := range o.CV.BestPerOutput {
		worst = math.Max(worst, math.Abs(b.Value-sk.Value[c])/sk.Value[c])
		if b.Output != fmt.Sprintf("y%d", c+1) || b.Lambda != sk.Alpha[c] {
			t.Errorf("output %d: %s at λ %g, RidgeCV alpha_ %g", c, b.Output, b.Lambda, sk.Alpha[c])
		}
		if d := math.Abs(b.Value - sk.Value[c]); !(d <= 1e-8*sk.Value[c]) {
			t.Errorf("output %d: LOO mse %.15g, RidgeCV %.15g", c, b.Value, sk.Value[c])
		}
		distinct[b.Lambda] = true
	}
	if len(distinct) < 2 {
		t.Errorf("every output chose λ %v: the data do not exercise a λ per output", distinct)
	}
	var mf struct{ Lambda float64 }
	if b, err := os.ReadFile(model); err != nil || json.Unmarshal(b, &mf) != nil || mf.Lambda != o.Lambda || o.Lambda != o.CV.Best.Lambda {
		t.Errorf("model λ %g, top-level %g, best %g: want the best λ of all outputs together", mf.Lambda, o.Lambda, o.CV.Best.Lambda)
	}
	pout, stderr, err := run(t, "", "predict", "--model", model, "--data", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(pout), "\n")
	var got, want []float64
	for i, l := range lines {
		var v [3]float64
		if _, err := fmt.Sscan(l, &v[0], &v[1], &v[2]); err != nil {
			t.Fatalf("prediction line %d %q: %v", i+1, l, err)
		}
		got, want = append(got, v[:]...), append(want, sk.Predict[i]...)
	}
	if len(got) != 3*60 {
		t.Fatalf("%d predictions", len(got))
	}
	e := icptVecRel(got, want)
	if !(e <= 1e-8) {
		t.Errorf("predictions differ from RidgeCV's by %.2e relative", e)
	}
	t.Logf("λ per output %v; LOO values within %.1e, predictions within %.1e of RidgeCV's", o.CV.BestPerOutput, worst, e)
}

// fit --choose 1se: every curve point of a k-fold fit carries se and
// fold_mean; cv.choose is "1se" and cv.chosen the largest λ whose
// fold_mean is within one se of the smallest fold_mean (found here from
// the JSON curve), which is the top-level lambda and the model's — the
// same predictions as a fit at that λ alone — while cv.best stays the best
// value's point. Refused, naming the flag, where there is no standard error.
func TestChoose1SECLI(t *testing.T) {
	dir := t.TempDir()
	data := multiOutputCSV(t, dir, 60)
	model := filepath.Join(dir, "m.json")
	common := []string{"--data", data, "--label", "y2", "--kernel", "gaussian", "--gamma", "0.1", "--quiet"}
	cvp := filepath.Join(dir, "cvp.tsv")
	stdout, stderr, err := run(t, "", append([]string{"fit", "--lambda-grid", "10^-3..10^4:15", "--cv", "kfold:5", "--choose", "1se", "--model", model, "--cv-predictions", cvp}, common...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	o := decodeFit(t, stdout)
	ref := -1
	for n, p := range o.CV.Curve {
		if p.SE == nil || p.FoldMean == nil {
			t.Fatalf("point %d without se: %+v", n, p)
		}
		if ref < 0 || *p.FoldMean < *o.CV.Curve[ref].FoldMean || *p.FoldMean == *o.CV.Curve[ref].FoldMean && p.Lambda > o.CV.Curve[ref].Lambda {
			ref = n
		}
	}
	chosen := ref
	for n, p := range o.CV.Curve {
		if *p.FoldMean <= *o.CV.Curve[ref].FoldMean+*o.CV.Curve[ref].SE && p.Lambda > o.CV.Curve[chosen].Lambda {
			chosen = n
		}
	}
	want := o.CV.Curve[chosen]
	if o.CV.Choose != "1se" || o.CV.Chosen == nil || o.CV.Chosen.Lambda != want.Lambda || o.Lambda != want.Lambda {
		t.Fatalf("choose %q, chosen %+v, lambda %g; want 1se at λ %g", o.CV.Choose, o.CV.Chosen, o.Lambda, want.Lambda)
	}
	if len(o.CV.Best.OnEdge) != 0 && o.CV.Chosen.Lambda != o.CV.Best.Lambda {
		t.Errorf("best %+v carries the chosen point's edges", o.CV.Best)
	}
	if o.CV.Best.Lambda == o.Lambda {
		t.Errorf("the rule chose the best λ %g: the data do not exercise it", o.Lambda)
	}
	var m struct{ Lambda float64 }
	b, _ := os.ReadFile(model)
	if err := json.Unmarshal(b, &m); err != nil || m.Lambda != want.Lambda {
		t.Errorf("model λ %g (%v), want %g", m.Lambda, err, want.Lambda)
	}
	one, cvp1 := filepath.Join(dir, "one.json"), filepath.Join(dir, "cvp1.tsv")
	if _, stderr, err := run(t, "", append([]string{"fit", "--lambda", fmt.Sprint(want.Lambda), "--cv", "kfold:5", "--model", one, "--cv-predictions", cvp1}, common...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	c1, _ := os.ReadFile(cvp)
	c2, _ := os.ReadFile(cvp1)
	if len(c1) == 0 || !bytes.Equal(c1, c2) {
		t.Error("--cv-predictions of the 1se fit are not those of a fit at the chosen λ alone")
	}
	p1, _, err1 := run(t, "", "predict", "--model", model, "--data", data)
	p2, _, err2 := run(t, "", "predict", "--model", one, "--data", data)
	if err1 != nil || err2 != nil || p1 != p2 {
		t.Errorf("the 1se model's predictions differ from the model fit at its λ alone (%v, %v)", err1, err2)
	}
	for _, bad := range [][]string{{"--cv", "lpo", "--measure", "cindex", "--choose", "1se"}, {"--cv", "loo", "--measure", "r2", "--choose", "1se"}} {
		_, _, err := run(t, "", append(append([]string{"fit"}, bad...), common...)...)
		if err == nil || !strings.Contains(err.Error(), "--choose 1se") {
			t.Errorf("%v: %v, want an error naming --choose 1se", bad, err)
		}
	}
	_, _, err = run(t, "", append([]string{"fit", "--lambda-per-output"}, common...)...)
	if err == nil || !strings.Contains(err.Error(), "--lambda-per-output") {
		t.Errorf("--lambda-per-output with one label: %v", err)
	}
}
