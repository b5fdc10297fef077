package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	ioracle "github.com/rlskit/rlskit/internal/oracle"
)

// intervalCSV writes n rows of features a, b, c and labels y1, y2 at full
// precision, and returns the file and the rows (features, labels).
func intervalCSV(t *testing.T, dir, name string, n int, rng *rand.Rand) (string, *mat.Dense, *mat.Dense) {
	t.Helper()
	x, y := mat.NewDense(n, 3, nil), mat.NewDense(n, 2, nil)
	var b strings.Builder
	b.WriteString("a,b,c,y1,y2\n")
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, 2*x.At(i, 0)-x.At(i, 1)+0.3*rng.NormFloat64())
		y.Set(i, 1, math.Sin(x.At(i, 2))+0.5*rng.NormFloat64())
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", g(x.At(i, 0)), g(x.At(i, 1)), g(x.At(i, 2)), g(y.At(i, 0)), g(y.At(i, 1)))
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, x, y
}

// TestIntervalCLI: fit --interval then predict --coverage writes, per
// output, prediction, lower and upper, equal (1e-8 of max|y|) to the
// jackknife+ / CV+ intervals computed here by refitting every leave-one-out
// or fold model from scratch (internal/oracle) and taking Barber et al.'s
// order statistics by sorting: the jackknife+ of the linear kernel (--cv
// loo), and CV+ of the gaussian kernel over the folds of a --folds file
// (uneven folds); coverage 0.8 and 0.95, and 0.99 (> n/(n+1) for n = 40:
// ±Inf). The model file is version 5.
func TestIntervalCLI(t *testing.T) {
	dir := t.TempDir()
	const m, mt = 40, 9
	rng := rand.New(rand.NewPCG(22, 9))
	train, x, y := intervalCSV(t, dir, "train.csv", m, rng)
	test, xt, _ := intervalCSV(t, dir, "test.csv", mt, rng)
	xAll := mat.NewDense(m+mt, 3, nil)
	xAll.Stack(x, xt)
	yAll := mat.NewDense(m+mt, 2, nil)
	yAll.Stack(y, mat.NewDense(mt, 2, nil))
	testRows := make([]int, mt)
	for i := range testRows {
		testRows[i] = m + i
	}
	perm := rng.Perm(m)
	folds := [][]int{perm[:5], perm[5:14], perm[14:22], perm[22:31], perm[31:]}
	var fb strings.Builder
	for _, f := range folds {
		for k, i := range f {
			if k > 0 {
				fb.WriteString(" ")
			}
			fmt.Fprint(&fb, i)
		}
		fb.WriteString("\n")
	}
	foldsFile := filepath.Join(dir, "folds.txt")
	if err := os.WriteFile(foldsFile, []byte(fb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	scale := mat.Norm(y, math.Inf(1))
	for _, c := range []struct {
		name  string
		args  []string
		prob  ioracle.Problem
		folds [][]int
	}{
		{"jackknife+ linear", []string{"--kernel", "linear", "--cv", "loo", "--interval", "jackknife+"},
			ioracle.Problem{X: xAll, Y: yAll, K: ioracle.Kernel{Name: "linear", Bias: 1}, Primal: true}, nil},
		{"cv+ gaussian", []string{"--kernel", "gaussian", "--gamma", "0.4", "--folds", foldsFile, "--interval", "cv+"},
			ioracle.Problem{X: xAll, Y: yAll, K: ioracle.Kernel{Name: "gaussian", Gamma: 0.4}}, folds},
	} {
		const lambda = 0.7
		mp := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		args := append([]string{"fit", "--data", train, "--label", "y1,y2", "--lambda", "0.7", "--model", mp, "--quiet"}, c.args...)
		if _, stderr, err := run(t, "", args...); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, stderr)
		}
		if !strings.Contains(readFileT(t, mp), `"version":5`) {
			t.Errorf("%s: the model is not version 5", c.name)
		}
		bf := c.folds
		if bf == nil {
			for i := 0; i < m; i++ {
				bf = append(bf, []int{i})
			}
		}
		fold := make([]int, m)
		res := mat.NewDense(m, 2, nil)
		mu := make([]*mat.Dense, len(bf)) // mt×2 per fold
		for k, s := range bf {
			var keep []int
			for i := 0; i < m; i++ {
				if !slices.Contains(s, i) {
					keep = append(keep, i)
				}
			}
			out := ioracle.Ridge(c.prob, keep, append(slices.Clone(s), testRows...), lambda)
			for a, i := range s {
				fold[i] = k
				for o := 0; o < 2; o++ {
					res.Set(i, o, math.Abs(y.At(i, o)-out.At(a, o)))
				}
			}
			mu[k] = mat.DenseCopyOf(out.Slice(len(s), len(s)+mt, 0, 2))
		}
		full := ioracle.Ridge(c.prob, ioracle.AllRows(m), testRows, lambda)
		for _, lv := range []struct{ num, den int }{{4, 5}, {19, 20}, {99, 100}} {
			cov := strconv.FormatFloat(float64(lv.num)/float64(lv.den), 'g', -1, 64)
			stdout, stderr, err := run(t, "", "predict", "--model", mp, "--data", test, "--coverage", cov)
			if err != nil {
				t.Fatalf("%s: predict --coverage %s: %v\n%s", c.name, cov, err, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if len(lines) != mt {
				t.Fatalf("%s: %d lines, want %d", c.name, len(lines), mt)
			}
			kHi := (lv.num*(m+1) + lv.den - 1) / lv.den
			kLo := m + 1 - kHi
			for j, line := range lines {
				f := strings.Split(line, "\t")
				if len(f) != 6 {
					t.Fatalf("%s: line %q: %d columns, want 6 (prediction, lower, upper per output)", c.name, line, len(f))
				}
				for o := 0; o < 2; o++ {
					want := []float64{full.At(j, o), math.Inf(-1), math.Inf(1)}
					if kHi <= m {
						lo, hi := make([]float64, m), make([]float64, m)
						for i := 0; i < m; i++ {
							lo[i] = mu[fold[i]].At(j, o) - res.At(i, o)
							hi[i] = mu[fold[i]].At(j, o) + res.At(i, o)
						}
						sort.Float64s(lo)
						sort.Float64s(hi)
						want[1], want[2] = lo[kLo-1], hi[kHi-1]
					}
					for q := 0; q < 3; q++ {
						got, err := strconv.ParseFloat(f[3*o+q], 64)
						if err != nil {
							t.Fatal(err)
						}
						if math.IsInf(want[q], 0) && got != want[q] || !math.IsInf(want[q], 0) && !(math.Abs(got-want[q]) <= 1e-8*scale) {
							t.Errorf("%s coverage %s row %d output %d column %d: got %v, want %v", c.name, cov, j, o, q, got, want[q])
						}
					}
				}
			}
		}
	}
}

// TestIntervalCLIRefusals: every refused combination names the flag and
// its value; --intercept with --weights and a sparse model with
// --basis-holdout keep are recorded.
func TestIntervalCLIRefusals(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	train, _, _ := intervalCSV(t, dir, "train.csv", 30, rng)
	plain := filepath.Join(dir, "plain.json")
	if _, stderr, err := run(t, "", "fit", "--data", train, "--label", "y1", "--lambda", "1", "--cv", "loo", "--model", plain, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	withIv := filepath.Join(dir, "iv.json")
	if _, stderr, err := run(t, "", "fit", "--data", train, "--label", "y1", "--lambda", "1", "--cv", "loo", "--interval", "jackknife+", "--model", withIv, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	fit := []string{"fit", "--data", train, "--label", "y1", "--lambda", "1", "--quiet"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(slices.Clone(fit), "--interval", "jackknife"), `--interval "jackknife": want jackknife+`},
		{append(slices.Clone(fit), "--interval", "jackknife+", "--cv", "kfold:5"), "--interval jackknife+ reads the leave-one-out models: give --cv loo, not --cv kfold:5"},
		{append(slices.Clone(fit), "--interval", "cv+", "--cv", "loo"), "--interval cv+ with --cv loo is the jackknife+"},
		{append(slices.Clone(fit), "--interval", "cv+", "--cv", "repeated-kfold:5x2"), "not --cv repeated-kfold:5x2"},
		{append(slices.Clone(fit), "--interval", "cv+", "--cv", "lpo", "--measure", "cindex"), "not --cv lpo"},
		{append(slices.Clone(fit), "--interval", "cv+", "--cv", "none"), "not --cv none"},
		{append(slices.Clone(fit), "--interval", "jackknife+", "--cv", "loo", "--kernel", "gaussian"), "--interval jackknife+: interval: the jackknife+ of a kernel expansion"},
		{append(slices.Clone(fit), "--interval", "cv+", "--cv", "lgo", "--stream"), "--interval cv+ with --stream: the streamed fit records CV+ from the fold models of --cv kfold:K"},
		{append(slices.Clone(fit), "--interval", "cv+", "--cv", "kfold:5", "--learner", "globalrank"), "not --learner globalrank"},
		{append(slices.Clone(fit), "--interval", "cv+", "--cv", "kfold:5", "--basis", "10"), "give --basis-holdout keep, not remove"},
		{[]string{"predict", "--model", withIv, "--data", train, "--coverage", "1"}, "--coverage 1: want a level in (0, 1)"},
		{[]string{"predict", "--model", withIv, "--data", train, "--coverage", "0"}, "--coverage 0: want a level in (0, 1)"},
		{[]string{"predict", "--model", plain, "--data", train, "--coverage", "0.9"}, "--coverage 0.9: " + plain + " records no prediction interval"},
	} {
		_, stderr, err := run(t, "", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v (stderr %s), want %q", c.args, err, stderr, c.want)
		}
	}
	// --measure scores the predictions; covered is the share inside
	test, _, _ := intervalCSV(t, dir, "test.csv", 40, rng)
	outFile := filepath.Join(dir, "pred.tsv")
	stdout, stderr, err := run(t, "", "predict", "--model", withIv, "--data", test, "--label", "y1", "--coverage", "0.9", "--measure", "mse", "--out", outFile)
	if err != nil {
		t.Fatalf("predict --coverage --measure: %v\n%s", err, stderr)
	}
	var got struct {
		Measure           string
		Value             float64
		Coverage, Covered float64
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	lines := strings.Split(strings.TrimSpace(readFileT(t, outFile)), "\n")
	testLines := strings.Split(strings.TrimSpace(readFileT(t, test)), "\n")[1:]
	mse, in := 0.0, 0
	for i, line := range lines {
		f := strings.Split(line, "\t")
		yv, _ := strconv.ParseFloat(strings.Split(testLines[i], ",")[3], 64)
		pv, _ := strconv.ParseFloat(f[0], 64)
		lo, _ := strconv.ParseFloat(f[1], 64)
		hi, _ := strconv.ParseFloat(f[2], 64)
		mse += (yv - pv) * (yv - pv) / float64(len(lines))
		if lo <= yv && yv <= hi {
			in++
		}
	}
	if got.Measure != "mse" || math.Abs(got.Value-mse) > 1e-12*mse || got.Coverage != 0.9 || got.Covered != float64(in)/float64(len(lines)) {
		t.Errorf("predict --coverage --measure: %+v, want mse %v, covered %v", got, mse, float64(in)/float64(len(lines)))
	}
	// --intercept and --weights: the hold-out models refit them
	wfile := filepath.Join(dir, "w.txt")
	if err := os.WriteFile(wfile, []byte(strings.Repeat("1\n2\n", 15)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := run(t, "", append(slices.Clone(fit), "--interval", "cv+", "--cv", "kfold:5", "--intercept", "--weights", wfile, "--model", filepath.Join(dir, "icpt.json"))...); err != nil {
		t.Errorf("cv+ with --intercept --weights: %v\n%s", err, stderr)
	}
	if out, stderr, err := run(t, "", "predict", "--model", filepath.Join(dir, "icpt.json"), "--data", train, "--coverage", "0.8"); err != nil || len(strings.Fields(strings.Split(out, "\n")[0])) != 3 {
		t.Errorf("predict --coverage of the --intercept model: %v %q\n%s", err, out, stderr)
	}
	// the jackknife+ of a sparse model (n models over the basis) is recorded
	if _, stderr, err := run(t, "", append(slices.Clone(fit), "--interval", "jackknife+", "--cv", "loo", "--basis", "10", "--kernel", "gaussian", "--model", filepath.Join(dir, "spj.json"))...); err != nil {
		t.Errorf("sparse jackknife+: %v\n%s", err, stderr)
	}
	// --basis-holdout keep: a sparse CV+ model is recorded
	if _, stderr, err := run(t, "", append(slices.Clone(fit), "--interval", "cv+", "--cv", "kfold:5", "--basis", "10", "--basis-holdout", "keep", "--kernel", "gaussian", "--model", filepath.Join(dir, "sp.json"))...); err != nil {
		t.Errorf("sparse cv+ with --basis-holdout keep: %v\n%s", err, stderr)
	}
}
