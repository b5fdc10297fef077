package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/summary"
)

// A point chosen at an end of its grid is reported in the JSON and on stderr.
func TestOnEdgeReported(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 3)
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--kernel", "gaussian",
		"--gamma-grid", "2^-3..2^-1", "--lambda-grid", "2^10..2^12")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	found := false
	for _, e := range o.CV.Best.OnEdge {
		if e.Parameter == "lambda" && e.Side == "low" {
			found = true
		}
	}
	if !found || !strings.Contains(stderr, "lambda is the lower end of its grid") {
		t.Errorf("λ on the low edge not reported: %+v\n%s", o.CV.Best.OnEdge, stderr)
	}
}

// With a kernel that carries no information (gaussian, γ = 1e6: K = I) the
// shortcut's rounding noise must not score as signal: c-index 0.5, flagged.
func TestIndistinguishableCV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tiny_noise.csv")
	if err := os.WriteFile(p, []byte("y,a\n1,0\n-1,1\n1,2\n-1,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := run(t, "", "fit", "--data", p, "--label", "y", "--learner", "globalrank",
		"--kernel", "gaussian", "--gamma", "1e6", "--cv", "loo", "--measure", "cindex")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	if o.CV.Best.Value != 0.5 || !o.CV.Best.Indistinguishable {
		t.Errorf("best %+v, want c-index 0.5 flagged indistinguishable", o.CV.Best)
	}
	for _, pt := range o.CV.Curve {
		if pt.Value != 0.5 {
			t.Errorf("λ = %g: c-index %v from rounding noise", pt.Lambda, pt.Value)
		}
	}
	if !strings.Contains(stderr, "numerically indistinguishable") {
		t.Errorf("no warning on stderr: %q", stderr)
	}
}

// A non-finite CV prediction is an error, never a row silently dropped from the score.
func TestNonFiniteCVPrediction(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nd.csv")
	if err := os.WriteFile(p, []byte("y,a\n1,1e20\n2,2\n3,3\n4,4.5\n5,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "", "fit", "--data", p, "--label", "y", "--lambda", "1")
	if err == nil || !strings.Contains(err.Error(), "non-finite") || !strings.Contains(err.Error(), "row 0") {
		t.Errorf("err = %v, want a non-finite prediction error naming row 0", err)
	}
}

// LPO-AUC on a continuous, all-positive label says what AUC needs.
func TestLPOAUCNeedsTwoClasses(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cont.csv")
	if err := os.WriteFile(p, []byte("y,a\n1.5,0\n2.5,1\n3.1,2\n4.2,3\n5.0,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "", "fit", "--data", p, "--label", "y", "--cv", "lpo", "--measure", "auc")
	if err == nil || !strings.Contains(err.Error(), "AUC needs two classes") || !strings.Contains(err.Error(), "cindex") {
		t.Errorf("err = %v", err)
	}
}

// fit checks every output before any work and writes them together: a report
// path that is a directory fails the command before the model is written, and
// an output that is an input is refused.
func TestFitOutputsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 5)
	model := filepath.Join(dir, "m.json")
	_, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--model", model, "--report", dir)
	if err == nil || !strings.Contains(err.Error(), "--report") {
		t.Errorf("report into a directory: err = %v", err)
	}
	if _, err := os.Stat(model); !os.IsNotExist(err) {
		t.Errorf("model written by a failing command: %v", err)
	}
	before, _ := os.ReadFile(data)
	_, _, err = run(t, "", "fit", "--data", data, "--label", "y", "--model", data)
	if err == nil || !strings.Contains(err.Error(), "--model") {
		t.Errorf("--model = --data: err = %v", err)
	}
	if after, _ := os.ReadFile(data); string(after) != string(before) {
		t.Error("the data file was overwritten")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// --model - puts the model alone on standard output; the summary goes to stderr.
func TestModelToStdout(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 6)
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--model", "-", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout, `{"format":"rlskit-model"`) || strings.Count(stdout, "\n{") > 0 {
		t.Errorf("stdout is not the model alone: %.200s", stdout)
	}
	// the warnings print with --quiet too, each on its own line before the
	// summary (this λ is at the grid's lower end)
	warning, summary, _ := strings.Cut(stderr, "\n")
	if !strings.HasPrefix(warning, "rlskit: warning: the chosen lambda is the lower end of its grid") {
		t.Errorf("stderr does not start with the grid-edge warning: %.200s", stderr)
	}
	decodeFit(t, summary)
}

// Flags with empty or misleading values get messages that name them.
func TestFlagMessages(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 7)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--lambda-grid", ""}, `--lambda-grid ""`},
		{[]string{"--model", ""}, `--model ""`},
		{[]string{"--folds", ""}, `--folds ""`},
		{[]string{"--cv", "folds"}, "give --folds"},
		{[]string{"--lambda-grid", "2^-2000..2^0"}, "exponents from -1074 to 1023"},
	}
	for _, c := range cases {
		args := append([]string{"fit", "--data", data, "--label", "y"}, c.args...)
		if _, _, err := run(t, "", args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
	if _, _, err := run(t, "", "fit", "--data", dir, "--label", "y"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("--data directory: %v", err)
	}
}

// The brute-force side of the convention tests below: everything is computed
// here from the numbers written to the data files, by retraining from scratch
// with gonum's dense LU solver; nothing of the module but the CLI's output is
// used.

// writeRows writes a CSV file with the given header and rows, every value in
// its shortest exact decimal form, so the CLI reads the very float64s the
// test computes with.
func writeRows(t *testing.T, path, header string, rows [][]float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range rows {
		for k, v := range r {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readCVColumn reads a one-output --cv-predictions file: the header, then
// one prediction per row.
func readCVColumn(t *testing.T, path string, rows int) []float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(readFileT(t, path)), "\n")
	if len(lines) != rows+1 {
		t.Fatalf("%s: %d lines, want a header and %d rows", path, len(lines), rows)
	}
	return predictionsOf(t, strings.Join(lines[1:], "\n"))
}

// readPairPredictions reads a one-output leave-pair-out --cv-predictions
// file: "i j pred_i pred_j" per pair.
func readPairPredictions(t *testing.T, path string) map[[2]int][2]float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(readFileT(t, path)), "\n")
	if lines[0] != "i\tj\tpred_i\tpred_j" {
		t.Fatalf("%s: header %q", path, lines[0])
	}
	out := map[[2]int][2]float64{}
	for _, l := range lines[1:] {
		var i, j int
		var a, b float64
		if _, err := fmt.Sscan(l, &i, &j, &a, &b); err != nil {
			t.Fatalf("%s: line %q: %v", path, l, err)
		}
		out[[2]int{i, j}] = [2]float64{a, b}
	}
	return out
}

// complementOf returns the rows 0..m-1 not in held.
func complementOf(held []int, m int) []int {
	out := []int{}
	for i := 0; i < m; i++ {
		if !slices.Contains(held, i) {
			out = append(out, i)
		}
	}
	return out
}

// ridgeRetrain is RLS retrained from scratch on the rows not in held, by the
// conventions of RLScore (and of rlskit): the linear kernel k(x, z) = x·z +
// bias (the bias is a constant feature √bias, regularized like the others),
// and λ multiplying the squared RKHS norm of f, not a mean:
//
//	minimize Σ_{i∉held} (y_i − f(x_i))² + λ‖f‖²_k  ⇔  (K + λI) a = y,  f(x) = Σ a_i k(x, x_i).
//
// It returns the predictions for the held rows and the condition number of
// K + λI.
func ridgeRetrain(t *testing.T, x [][]float64, y []float64, bias, lambda float64, held []int) ([]float64, float64) {
	t.Helper()
	var xs, ys, xn [][]float64
	for _, i := range complementOf(held, len(x)) {
		xs, ys = append(xs, x[i]), append(ys, []float64{y[i]})
	}
	for _, i := range held {
		xn = append(xn, x[i])
	}
	p, k := ridgeDual(t, linearKernel(bias), xs, ys, xn, lambda)
	out := make([]float64, len(held))
	for h := range out {
		out[h] = p[h][0]
	}
	return out, k
}

// pairShare is the share of the given pairs (i, j) with different labels
// that the predictions order like the labels, ties in the predictions
// counting ½: RLScore's c-index and AUC (for AUC the pairs are the
// positive–negative ones). pred(i, j) returns the two predictions.
func pairShare(pairs [][2]int, y []float64, pred func(i, j int) (float64, float64)) float64 {
	halves, counted := 0, 0
	for _, p := range pairs {
		i, j := p[0], p[1]
		if y[i] == y[j] {
			continue
		}
		counted++
		a, b := pred(i, j)
		switch {
		case a == b:
			halves++
		case (y[i] > y[j]) == (a > b):
			halves += 2
		}
	}
	return float64(halves) / float64(2*counted)
}

// conventionRows draws the data of TestRLScoreConventions: two features,
// an integer label y with ties (c-index pairs of equal labels are not
// counted) and a class label cls = ±1. Rows 12 and 13 have the same
// features and different classes, so leaving that pair out predicts both
// alike: a tie, which counts ½.
func conventionRows() (x [][]float64, y, cls []float64) {
	rng := rand.New(rand.NewPCG(21, 5))
	for i := 0; i < 14; i++ {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		x = append(x, []float64{a, b})
		y = append(y, math.Round(a-0.5*b+0.4*rng.NormFloat64()))
		c := 1.0
		if a+0.5*rng.NormFloat64() < 0 {
			c = -1
		}
		cls = append(cls, c)
	}
	x[13] = slices.Clone(x[12])
	cls[12], cls[13] = 1, -1
	return x, y, cls
}

// TestRLScoreConventions checks what RLScore's conventions mean, number by
// number, against retraining from scratch (ridgeRetrain): its bias (linear
// kernel x·z + 1 by default for rls, the bias regularized), its λ (regparam:
// ‖Y − KA‖² + λAᵀKA, no 1/m), its leave-one-out, its per-fold mean of
// --fold-score mean (a fold where the measure is undefined left out), its
// leave-pair-out AUC over the positive–negative pairs and c-index over the
// pairs of different labels, prediction ties ½.
//
// Tolerances: each side solves a system of condition number κ ≤ κmax
// (computed here, asserted ≤ 1e3) by a backward-stable method, so each
// prediction has a forward error of order κ·ε relative to the scale of the
// labels; tolP = 1e3·κmax·ε (≤ 2.3e-10) allows for the constants (m ≤ 14 rows,
// the shortcut's extra products) and still fails a 1e-7 relative error. The
// pair measures are ratios of counts: equal up to the order of a mean's sum
// (1e-12), once every non-tied pair's predictions are 1e-6 apart.
func TestRLScoreConventions(t *testing.T) {
	dir := t.TempDir()
	x, y, cls := conventionRows()
	m := len(x)
	rowsY, rowsC := make([][]float64, m), make([][]float64, m)
	for i := range x {
		rowsY[i] = []float64{x[i][0], x[i][1], y[i]}
		rowsC[i] = []float64{x[i][0], x[i][1], cls[i]}
	}
	dataY, dataC := filepath.Join(dir, "y.csv"), filepath.Join(dir, "cls.csv")
	writeRows(t, dataY, "a,b,y", rowsY)
	writeRows(t, dataC, "a,b,cls", rowsC)
	const lambda, bias = 0.5, 1.0 // bias: rls's default, not passed to the CLI
	scale := 0.0
	for _, v := range y {
		scale = math.Max(scale, math.Abs(v))
	}
	kmax := 0.0
	retrain := func(labels []float64, held ...int) []float64 {
		p, k := ridgeRetrain(t, x, labels, bias, lambda, held)
		kmax = math.Max(kmax, k)
		return p
	}
	fit := func(args ...string) summary.Fit {
		t.Helper()
		stdout, _, err := run(t, "", append([]string{"fit", "--lambda", strconv.FormatFloat(lambda, 'g', -1, 64), "--quiet"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return decodeFit(t, stdout)
	}
	var checks []func(tolP float64) // run once κmax is known
	worst := 0.0
	closeTo := func(what string, got, want []float64) {
		checks = append(checks, func(tolP float64) {
			for i := range want {
				worst = math.Max(worst, math.Abs(got[i]-want[i])/scale)
				if !(math.Abs(got[i]-want[i]) <= tolP*scale) {
					t.Errorf("%s: row %d: CLI %.17g, retraining %.17g (tolerance %.2g)", what, i, got[i], want[i], tolP*scale)
				}
			}
		})
	}

	// Leave-one-out with the default bias 1 and λ as given.
	looPath := filepath.Join(dir, "loo.tsv")
	o := fit("--data", dataY, "--label", "y", "--cv", "loo", "--cv-predictions", looPath)
	if o.Kernel.Name != "linear" || o.Kernel.Bias != bias || o.CV.Measure != "mse" {
		t.Errorf("kernel %+v, measure %s: want linear with bias %g, mse", o.Kernel, o.CV.Measure, bias)
	}
	loo := make([]float64, m)
	mse := 0.0
	for i := range loo {
		loo[i] = retrain(y, i)[0]
		mse += (y[i] - loo[i]) * (y[i] - loo[i]) / float64(m)
	}
	closeTo("leave-one-out", readCVColumn(t, looPath, m), loo)
	looValue := o.CV.Best.Value
	checks = append(checks, func(tolP float64) {
		// δmse ≤ 2·rms(residual)·max|δp| + max|δp|², max|δp| ≤ tolP·scale
		if d := math.Abs(looValue - mse); !(d <= 3*tolP*scale*math.Sqrt(mse)) {
			t.Errorf("leave-one-out mse %.17g, retraining %.17g", looValue, mse)
		}
	})

	// --fold-score mean: the mean of the folds' MSEs (unequal folds, so not
	// the pooled MSE).
	folds := [][]int{{0, 1, 2}, {3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13}}
	foldsPath := filepath.Join(dir, "folds.txt")
	var fb strings.Builder
	for _, f := range folds {
		for k, i := range f {
			if k > 0 {
				fb.WriteByte(' ')
			}
			fb.WriteString(strconv.Itoa(i))
		}
		fb.WriteByte('\n')
	}
	if err := os.WriteFile(foldsPath, []byte(fb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	foldPath := filepath.Join(dir, "folds.tsv")
	o = fit("--data", dataY, "--label", "y", "--folds", foldsPath, "--fold-score", "mean", "--measure", "mse", "--cv-predictions", foldPath)
	if o.CV.Strategy != "folds:"+foldsPath+",fold-score:mean" {
		t.Errorf("strategy %q", o.CV.Strategy)
	}
	held := make([]float64, m)
	meanMSE, pooled := 0.0, 0.0
	for _, f := range folds {
		p := retrain(y, f...)
		fm := 0.0
		for k, i := range f {
			held[i] = p[k]
			fm += (y[i] - p[k]) * (y[i] - p[k]) / float64(len(f))
			pooled += (y[i] - p[k]) * (y[i] - p[k]) / float64(m)
		}
		meanMSE += fm / float64(len(folds))
	}
	closeTo("hold-out", readCVColumn(t, foldPath, m), held)
	if math.Abs(meanMSE-pooled) < 1e-3*pooled {
		t.Fatalf("the folds' mean MSE %g is the pooled %g: the data do not tell the conventions apart", meanMSE, pooled)
	}
	foldValue := o.CV.Best.Value
	checks = append(checks, func(tolP float64) {
		if d := math.Abs(foldValue - meanMSE); !(d <= 3*tolP*scale*math.Sqrt(meanMSE)) {
			t.Errorf("--fold-score mean: mse %.17g, the folds' mean by retraining %.17g (pooled %.17g)", foldValue, meanMSE, pooled)
		}
	})

	// --fold-score mean with AUC: the first fold holds positives only, AUC
	// is undefined there and the mean is over the other folds.
	aucFolds := [][]int{}
	var pos, neg []int
	for i := range cls {
		if cls[i] > 0 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	if len(pos) < 4 || len(neg) < 3 {
		t.Fatalf("%d positives, %d negatives", len(pos), len(neg))
	}
	aucFolds = append(aucFolds, pos[:2])
	rest := append(slices.Clone(pos[2:]), neg...)
	slices.Sort(rest)
	aucFolds = append(aucFolds, rest[:len(rest)/2], rest[len(rest)/2:])
	var ab strings.Builder
	for _, f := range aucFolds {
		for k, i := range f {
			if k > 0 {
				ab.WriteByte(' ')
			}
			ab.WriteString(strconv.Itoa(i))
		}
		ab.WriteByte('\n')
	}
	aucFoldsPath := filepath.Join(dir, "aucfolds.txt")
	if err := os.WriteFile(aucFoldsPath, []byte(ab.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o = fit("--data", dataC, "--label", "cls", "--folds", aucFoldsPath, "--fold-score", "mean", "--measure", "auc")
	wantAUC, defined := 0.0, 0
	var margins []float64 // prediction gaps of the counted pairs
	for _, f := range aucFolds {
		p := retrain(cls, f...)
		var pairs [][2]int
		for a := range f {
			for b := range f {
				if cls[f[a]] > 0 && cls[f[b]] <= 0 {
					pairs = append(pairs, [2]int{a, b})
					if p[a] != p[b] { // rows 12 and 13 tie
						margins = append(margins, math.Abs(p[a]-p[b]))
					}
				}
			}
		}
		if len(pairs) == 0 {
			continue // undefined on a one-class fold: left out of the mean
		}
		fc := make([]float64, len(f))
		for k, i := range f {
			fc[k] = cls[i]
		}
		wantAUC += pairShare(pairs, fc, func(a, b int) (float64, float64) { return p[a], p[b] })
		defined++
	}
	wantAUC /= float64(defined)
	if defined != 2 {
		t.Fatalf("%d folds with both classes, want 2", defined)
	}
	if math.Abs(o.CV.Best.Value-wantAUC) > 1e-12 {
		t.Errorf("--fold-score mean AUC %.17g, the mean over the two two-class folds %.17g", o.CV.Best.Value, wantAUC)
	}

	// Leave-pair-out: AUC over the positive–negative pairs (the tied pair
	// 12, 13 counting ½), c-index over the pairs of different labels.
	for _, c := range []struct {
		label, measure string
		labels         []float64
	}{{"cls", "auc", cls}, {"y", "cindex", y}} {
		path := filepath.Join(dir, "lpo-"+c.measure+".tsv")
		data := dataY
		if c.label == "cls" {
			data = dataC
		}
		o := fit("--data", data, "--label", c.label, "--cv", "lpo", "--measure", c.measure, "--cv-predictions", path)
		var pairs [][2]int
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				if c.measure == "auc" && c.labels[i] > 0 && c.labels[j] <= 0 || c.measure == "cindex" && i < j && c.labels[i] != c.labels[j] {
					pairs = append(pairs, [2]int{i, j})
				}
			}
		}
		got := readPairPredictions(t, path)
		if len(got) != len(pairs) {
			t.Errorf("%s: %d pairs left out, want %d", c.measure, len(got), len(pairs))
		}
		want := map[[2]int][2]float64{}
		ties := 0
		for _, pr := range pairs {
			p := retrain(c.labels, pr[0], pr[1])
			want[pr] = [2]float64{p[0], p[1]}
			if p[0] == p[1] {
				ties++
			} else {
				margins = append(margins, math.Abs(p[0]-p[1]))
			}
			g, ok := got[pr]
			if !ok {
				g, ok = got[[2]int{pr[1], pr[0]}]
				g[0], g[1] = g[1], g[0]
			}
			if !ok {
				t.Errorf("%s: pair %v not left out", c.measure, pr)
				continue
			}
			closeTo(fmt.Sprintf("%s pair %v", c.measure, pr), g[:], p)
		}
		if c.measure == "auc" && ties != 1 {
			t.Errorf("AUC: %d tied pairs by retraining, want the one of rows 12, 13", ties)
		}
		share := pairShare(pairs, c.labels, func(i, j int) (float64, float64) {
			p := want[[2]int{i, j}]
			return p[0], p[1]
		})
		if math.Abs(o.CV.Best.Value-share) > 1e-12 {
			t.Errorf("leave-pair-out %s %.17g, by retraining %.17g", c.measure, o.CV.Best.Value, share)
		}
	}
	if mg := slices.Min(margins); mg < 1e-6*scale {
		t.Fatalf("a pair's predictions are %g apart: too close to a tie for the count to be robust", mg)
	}

	if kmax > 1e3 {
		t.Fatalf("condition number %g: the tolerance assumes ≤ 1e3", kmax)
	}
	tolP := 1e3 * kmax * eps
	for _, c := range checks {
		c(tolP)
	}
	t.Logf("κmax %.3g, tolerance %.2g, largest prediction difference %.2g (relative to the labels' scale)", kmax, tolP, worst)

	// The RLScore conventions as the CLI names them.
	data := writeCSV(t, dir, 30, 8)
	stdout, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--cv", "kfold:3", "--fold-score", "mean")
	if err != nil {
		t.Fatal(err)
	}
	if o := decodeFit(t, stdout); o.CV.Strategy != "kfold:3,fold-score:mean" {
		t.Errorf("strategy %q", o.CV.Strategy)
	}
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--fold-score", "mean"); err == nil {
		t.Error("--fold-score mean with loo accepted")
	}
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--query-normalize"); err == nil {
		t.Error("--query-normalize with rls accepted")
	}
}

// queryRankRetrain is query RankRLS with the linear kernel of bias 0 (the
// rankers' default) retrained from scratch on the rows train, from an
// explicit Laplacian: every query q of the training rows contributes the
// block n_q·I − 11ᵀ (its n_q(n_q−1)/2 pairs weighing 1 each), or under
// --query-normalize (RLScore's convention) that block divided by n_q,
// I − 11ᵀ/n_q, n_q counting the query's training rows. The weights minimize
// (y − Xw)ᵀL(y − Xw) + λ‖w‖², so (XᵀLX + λI) w = XᵀLy, solved by LU. It
// returns the predictions Xw for the rows test and the condition number of
// XᵀLX + λI.
func queryRankRetrain(t *testing.T, x [][]float64, y []float64, q []int, normalized bool, lambda float64, train, test []int) ([]float64, float64) {
	t.Helper()
	n, d := len(train), len(x[0])
	l := mat.NewDense(n, n, nil)
	for r, i := range train {
		size := 0
		for _, j := range train {
			if q[j] == q[i] {
				size++
			}
		}
		for c, j := range train {
			if q[j] != q[i] {
				continue
			}
			v := -1.0
			if r == c {
				v += float64(size)
			}
			if normalized {
				v /= float64(size)
			}
			l.Set(r, c, v)
		}
	}
	xt := mat.NewDense(n, d, nil)
	yt := mat.NewVecDense(n, nil)
	for r, i := range train {
		xt.SetRow(r, x[i])
		yt.SetVec(r, y[i])
	}
	var lx, sys mat.Dense
	lx.Mul(l, xt)
	sys.Mul(xt.T(), &lx)
	for k := 0; k < d; k++ {
		sys.Set(k, k, sys.At(k, k)+lambda)
	}
	var ly, rhs, w mat.VecDense
	ly.MulVec(l, yt)
	rhs.MulVec(xt.T(), &ly)
	if err := w.SolveVec(&sys, &rhs); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(test))
	for h, i := range test {
		out[h] = mat.Dot(mat.NewVecDense(d, slices.Clone(x[i])), &w)
	}
	return out, condSym(t, &sys)
}

// TestQueryNormalizeCLI: the leave-query-out predictions of queryrank, with
// and without --query-normalize, are those of retraining on the other
// queries with the Laplacian of each convention (queryRankRetrain). The
// queries have 7, 8, 7 and 2 rows, so the conventions differ, and the test
// checks that they differ by far more than the tolerance.
//
// Tolerance: the CLI's shortcut and the retraining both solve systems of
// condition number ≤ κmax (computed, here below 1e2), forward errors of
// order κ·ε relative to the predictions' scale; 1e3·κmax·ε leaves room for
// the constants and fails a 1e-7 relative error.
func TestQueryNormalizeCLI(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "q.csv")
	const m, lambda = 24, 1.0
	x := make([][]float64, m)
	y := make([]float64, m)
	q := make([]int, m)
	body := "y,q,a,b\n"
	for i := 0; i < m; i++ {
		y[i], q[i] = float64((i*7)%5), i%3+i/20
		x[i] = []float64{float64(i%5) + 0.1*float64(i), float64((i * 3) % 7)}
		body += fmt.Sprintf("%s,%d,%s,%s\n", ftoaT(y[i]), q[i], ftoaT(x[i][0]), ftoaT(x[i][1]))
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var got [2][]float64
	for n, extra := range [][]string{nil, {"--query-normalize"}} {
		out := filepath.Join(dir, fmt.Sprintf("cv%d.tsv", n))
		args := append([]string{"fit", "--data", p, "--label", "y", "--qid", "q", "--learner", "queryrank", "--cv", "lqo",
			"--lambda", ftoaT(lambda), "--cv-predictions", out, "--quiet"}, extra...)
		if _, _, err := run(t, "", args...); err != nil {
			t.Fatal(err)
		}
		got[n] = readCVColumn(t, out, m)
	}
	var want [2][]float64
	kmax, scale := 0.0, 0.0
	for n, normalized := range []bool{false, true} {
		want[n] = make([]float64, m)
		for _, query := range []int{0, 1, 2, 3} {
			var held []int
			for i := range q {
				if q[i] == query {
					held = append(held, i)
				}
			}
			pred, k := queryRankRetrain(t, x, y, q, normalized, lambda, complementOf(held, m), held)
			kmax = math.Max(kmax, k)
			for h, i := range held {
				want[n][i] = pred[h]
				scale = math.Max(scale, math.Abs(pred[h]))
			}
		}
	}
	if kmax > 1e3 {
		t.Fatalf("condition number %g: the tolerance assumes ≤ 1e3", kmax)
	}
	tol := 1e3 * kmax * eps * scale
	apart := 0.0
	for i := 0; i < m; i++ {
		apart = math.Max(apart, math.Abs(want[0][i]-want[1][i]))
	}
	if apart < 1e4*tol {
		t.Fatalf("the two conventions' predictions differ by at most %g: the data do not tell them apart", apart)
	}
	worst := 0.0
	for n, name := range []string{"pairs weighing 1", "--query-normalize"} {
		for i := 0; i < m; i++ {
			d := math.Abs(got[n][i] - want[n][i])
			worst = math.Max(worst, d)
			if !(d <= tol) {
				t.Errorf("%s: row %d (query %d): CLI %.17g, retraining %.17g (tolerance %.2g)", name, i, q[i], got[n][i], want[n][i], tol)
			}
		}
	}
	t.Logf("κmax %.3g, tolerance %.2g, largest difference %.2g, the conventions %.2g apart", kmax, tol, worst, apart)
}
