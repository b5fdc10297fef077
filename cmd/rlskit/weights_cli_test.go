package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// weightsFile writes the weights w, one per line, and returns the file.
func weightsFile(t *testing.T, dir, name string, w []float64) string {
	t.Helper()
	var b strings.Builder
	for _, v := range w {
		fmt.Fprintf(&b, "%s\n", strconv.FormatFloat(v, 'g', -1, 64))
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// subsetCSV writes the header and the given data rows of a CSV file.
func subsetCSV(t *testing.T, dir, name string, lines []string, rows []int) string {
	t.Helper()
	out := []string{lines[0]}
	for _, i := range rows {
		out = append(out, lines[1+i])
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fit --weights with --folds (5 folds) gives, in --cv-predictions, what
// refitting on each fold's complement with its rows' weights (fit --weights
// --cv none, then predict) gives for the fold, and what the weighted
// problem solved directly here gives, to 1e-8 relative: the
// gaussian kernel, and the linear kernel with --intercept (the weighted
// intercept). The CV value reported is the unweighted mean squared error
// of those predictions. (rls's TestWeightsEqualsRefit states the rounding
// bound: well below 1e-8 at λ = 0.3 for these 40 rows.)
func TestWeightsCLIKFoldEqualsRefit(t *testing.T) {
	dir := t.TempDir()
	const m = 40
	data := writeCSV(t, dir, m, 71)
	lines := strings.Split(strings.TrimSpace(readFileT(t, data)), "\n")
	rng := rand.New(rand.NewPCG(71, 1))
	w := make([]float64, m)
	for i := range w {
		w[i] = math.Exp((2*rng.Float64() - 1) * math.Log(5))
	}
	wfile := weightsFile(t, dir, "w.txt", w)
	perm := rng.Perm(m)
	var folds [][]int
	var foldLines []string
	for k := 0; k < 5; k++ {
		var f []int
		var s []string
		for i := k; i < m; i += 5 {
			f, s = append(f, perm[i]), append(s, strconv.Itoa(perm[i]))
		}
		folds, foldLines = append(folds, f), append(foldLines, strings.Join(s, " "))
	}
	foldFile := filepath.Join(dir, "folds.txt")
	if err := os.WriteFile(foldFile, []byte(strings.Join(foldLines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	y := testLabels(t, data)
	for _, kern := range [][]string{{"--kernel", "gaussian", "--gamma", "0.5"}, {"--kernel", "linear", "--intercept"}} {
		name := strings.Join(kern, " ")
		common := append([]string{"--label", "y", "--ignore", "cls", "--lambda", "0.3", "--quiet"}, kern...)
		cvPred := filepath.Join(dir, "cv.tsv")
		out, stderr, err := run(t, "", append([]string{"fit", "--data", data, "--weights", wfile, "--folds", foldFile, "--cv-predictions", cvPred}, common...)...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr)
		}
		got := icptColumn(t, readFileT(t, cvPred), true)
		want := make([]float64, m)
		for k, f := range folds {
			train := weightsComplement(f, m)
			var tw []float64
			for _, i := range train {
				tw = append(tw, w[i])
			}
			sub := subsetCSV(t, dir, fmt.Sprintf("train%d.csv", k), lines, train)
			test := subsetCSV(t, dir, fmt.Sprintf("test%d.csv", k), lines, f)
			model := filepath.Join(dir, fmt.Sprintf("m%d.json", k))
			args := append([]string{"fit", "--data", sub, "--weights", weightsFile(t, dir, fmt.Sprintf("w%d.txt", k), tw), "--cv", "none", "--model", model}, common...)
			if _, stderr, err := run(t, "", args...); err != nil {
				t.Fatalf("%s fold %d: %v\n%s", name, k, err, stderr)
			}
			pred, stderr, err := run(t, "", "predict", "--model", model, "--data", test)
			if err != nil {
				t.Fatalf("%s fold %d predict: %v\n%s", name, k, err, stderr)
			}
			for a, v := range icptColumn(t, pred, false) {
				want[f[a]] = v
			}
		}
		e := icptVecRel(got, want)
		if e > 1e-8 {
			t.Errorf("%s: 5-fold CV predictions differ from refitting per fold by %.1e (relative)", name, e)
		}
		// and from the weighted problem solved here, per fold
		direct := make([]float64, m)
		for _, f := range folds {
			p := weightedRefit(lines, y, w, weightsComplement(f, m), f, 0.3, kern[1] == "gaussian")
			for a, i := range f {
				direct[i] = p[a]
			}
		}
		if ed := icptVecRel(got, direct); ed > 1e-8 {
			t.Errorf("%s: 5-fold CV predictions differ from the weighted problem solved per fold by %.1e (relative)", name, ed)
		}
		mse := 0.0
		for i := range y {
			mse += (y[i] - got[i]) * (y[i] - got[i])
		}
		mse /= float64(m)
		res := decodeFit(t, out)
		if d := math.Abs(res.CV.Best.Value-mse) / mse; d > 1e-12 {
			t.Errorf("%s: CV value %v, the unweighted mse of the CV predictions %v", name, res.CV.Best.Value, mse)
		}
		t.Logf("%s: largest relative difference from refitting %.1e; mse %.6g", name, e, mse)
	}
}

// weightedRefit solves the weighted problem on the rows train of the CSV
// lines (features a, b, c) directly and predicts the rows test: the
// gaussian kernel (γ = 0.5) with (K_TT + λW_T⁻¹)a = y_T, or the linear
// kernel (bias 0) with an intercept, [K_TT + λW_T⁻¹, 1; 1ᵀ, 0][a; b] =
// [y_T; 0].
func weightedRefit(lines []string, y, w []float64, train, test []int, lambda float64, gaussian bool) []float64 {
	x := func(i int) []float64 {
		f := strings.Split(lines[1+i], ",")
		out := make([]float64, 3)
		for j := range out {
			out[j], _ = strconv.ParseFloat(f[j], 64)
		}
		return out
	}
	k := func(i, j int) float64 {
		a, b := x(i), x(j)
		v := 0.0
		for c := range a {
			if gaussian {
				v += (a[c] - b[c]) * (a[c] - b[c])
			} else {
				v += a[c] * b[c]
			}
		}
		if gaussian {
			return math.Exp(-0.5 * v)
		}
		return v
	}
	n := len(train)
	size := n
	if !gaussian {
		size++
	}
	a, rhs := mat.NewDense(size, size, nil), mat.NewVecDense(size, nil)
	for r, i := range train {
		for c, j := range train {
			a.Set(r, c, k(i, j))
		}
		a.Set(r, r, a.At(r, r)+lambda/w[i])
		rhs.SetVec(r, y[i])
		if !gaussian {
			a.Set(r, n, 1)
			a.Set(n, r, 1)
		}
	}
	var sol mat.VecDense
	if err := sol.SolveVec(a, rhs); err != nil {
		panic(err)
	}
	out := make([]float64, len(test))
	for q, h := range test {
		for r, i := range train {
			out[q] += k(h, i) * sol.AtVec(r)
		}
		if !gaussian {
			out[q] += sol.AtVec(n)
		}
	}
	return out
}

// weightsComplement returns the rows of 0..m-1 not in f, in order.
func weightsComplement(f []int, m int) []int {
	in := map[int]bool{}
	for _, i := range f {
		in[i] = true
	}
	var out []int
	for i := 0; i < m; i++ {
		if !in[i] {
			out = append(out, i)
		}
	}
	return out
}

// Weights all 1 give the fit without weights: the same LOO curve over the
// default grid (to 1e-12 relative: the same factorization, the weights'
// scaling exact) and the same λ, in the dual (gaussian) and linear forms.
func TestWeightsCLIOnesEqualNoWeights(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 72)
	ones := make([]float64, 30)
	for i := range ones {
		ones[i] = 1
	}
	wfile := weightsFile(t, dir, "ones.txt", ones)
	for _, kern := range [][]string{{"--kernel", "gaussian"}, {"--kernel", "linear"}, {"--kernel", "linear", "--intercept"}} {
		args := append([]string{"fit", "--data", data, "--label", "y", "--ignore", "cls", "--quiet", "--standardize"}, kern...)
		a, stderr, err := run(t, "", args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		b, stderr, err := run(t, "", append(args, "--weights", wfile)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		fa, fb := decodeFit(t, a), decodeFit(t, b)
		if fa.Lambda != fb.Lambda || len(fa.CV.Curve) != len(fb.CV.Curve) {
			t.Fatalf("%v: λ %g with weights 1, %g without", kern, fb.Lambda, fa.Lambda)
		}
		worst := 0.0
		for l, p := range fa.CV.Curve {
			worst = math.Max(worst, math.Abs(fb.CV.Curve[l].Value-p.Value)/p.Value)
		}
		if worst > 1e-12 {
			t.Errorf("%v: the curves with weights 1 and without differ by %.1e", kern, worst)
		}
		t.Logf("%v: curves differ by %.1e", kern, worst)
	}
}

// --weights is refused before any data is read for the learners that take
// no weights and with --stream, --solver cg and a basis; a weights file with
// a bad weight is refused naming the file and line, one of the wrong
// length naming the counts.
func TestWeightsCLIRefusals(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 10, 73)
	missing := filepath.Join(dir, "missing.csv") // never read: the plan refuses first
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--learner", "globalrank"}, "--weights goes with --learner rls, not globalrank"},
		{[]string{"--learner", "greedy", "--select", "2"}, "--weights goes with --learner rls, not greedy"},
		{[]string{"--stream"}, "--weights with --stream"},
		{[]string{"--solver", "cg", "--lambda", "1", "--cv", "none"}, "--weights with --solver cg"},
		{[]string{"--kernel", "gaussian", "--basis", "5"}, "--weights with a sparse model"},
	} {
		_, _, err := run(t, "", append([]string{"fit", "--data", missing, "--label", "y", "--quiet", "--weights", missing}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
	_, _, err := run(t, "", "fit", "--learner", "kronrls", "--rows", missing, "--cols", missing, "--pairs", missing, "--weights", missing, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "--weights goes with --learner rls, not kronrls") {
		t.Errorf("kronrls --weights: err = %v", err)
	}
	for _, c := range []struct{ file, want string }{
		{"1\n1\n0\n1\n1\n1\n1\n1\n1\n1\n", "bad.txt:3: weight 0: want a finite number > 0"},
		{"1\n-1\n", "bad.txt:2: weight -1"},
		{"1\n1\nNaN\n", "bad.txt:3: weight NaN"},
		{"1\ninf\n", "bad.txt:2: weight inf"},
		{"1\nabc\n", `bad.txt:2: "abc" is not a number`},
		{"1\n1\n1\n", "bad.txt: 3 weights for 10 training rows"},
		{strings.Repeat("1\n", 11), "bad.txt:11: more weights than the 10 training rows"},
	} {
		bad := filepath.Join(dir, "bad.txt")
		if err := os.WriteFile(bad, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--ignore", "cls", "--quiet", "--weights", bad)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.file, err, c.want)
		}
	}
	_, _, err = run(t, "", "fit", "--data", data, "--label", "y", "--quiet", "--weights", filepath.Join(dir, "none.txt"))
	if err == nil || !strings.Contains(err.Error(), "none.txt") {
		t.Errorf("missing weights file: err = %v", err)
	}
	help, _, err := run(t, "", "fit", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"--weights", "sample_weight", "the CV measure is not weighted"} {
		if !strings.Contains(help, w) {
			t.Errorf("fit --help does not say %q", w)
		}
	}
}
