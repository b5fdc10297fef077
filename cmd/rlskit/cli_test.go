package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/summary"
)

// run executes rlskit with args in-process and returns stdout, stderr and the error.
func run(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(strings.NewReader(stdin), &out, &errb)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errb.String(), err
}

// writeCSV writes m rows: features a, b, c; labels y (regression) and cls (±1).
func writeCSV(t *testing.T, dir string, m int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	b.WriteString("a,b,c,y,cls\n")
	for i := 0; i < m; i++ {
		a, bb, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		y := 2*a - bb + math.Sin(c) + 0.1*rng.NormFloat64()
		cls := 1
		if y < 0 {
			cls = -1
		}
		fmt.Fprintf(&b, "%g,%g,%g,%g,%d\n", a, bb, c, y, cls)
	}
	path := filepath.Join(dir, fmt.Sprintf("data%d.csv", seed))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func decodeFit(t *testing.T, s string) summary.Fit {
	t.Helper()
	var o summary.Fit
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("fit output is not the JSON contract: %v\n%s", err, s)
	}
	return o
}

func TestFitContract(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 60, 1)
	stdout, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--learner", "rls",
		"--kernel", "gaussian", "--gamma", "0.3", "--lambda-grid", "2^-4..2^4", "--cv", "loo", "--measure", "mse", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	if o.Learner != "rls" || o.Kernel.Name != "gaussian" || o.NTrain != 60 || o.CV == nil {
		t.Fatalf("unexpected output %+v", o)
	}
	if o.CV.Strategy != "loo" || o.CV.Measure != "mse" || len(o.CV.Curve) != 9 {
		t.Fatalf("cv %+v", o.CV)
	}
	best := o.CV.Curve[0]
	for _, p := range o.CV.Curve {
		if p.Value < best.Value {
			best = p
		}
	}
	if o.CV.Best.Lambda != best.Lambda || o.CV.Best.Value != best.Value || o.Lambda != best.Lambda {
		t.Errorf("best %+v / lambda %g, want %+v", o.CV.Best, o.Lambda, best)
	}
}

// The model fit saves predicts like the CV says, and predict reads it back.
func TestFitPredictRoundTrip(t *testing.T) {
	dir := t.TempDir()
	train := writeCSV(t, dir, 80, 2)
	test := writeCSV(t, dir, 25, 3)
	modelPath := filepath.Join(dir, "m.json")
	cvPath := filepath.Join(dir, "cv.tsv")
	for _, kern := range [][]string{
		{"--kernel", "linear"},
		{"--kernel", "gaussian", "--gamma", "0.2"},
		{"--kernel", "gaussian", "--gamma", "0.2", "--basis", "20"},
		{"--kernel", "polynomial", "--gamma", "0.5", "--coef0", "1", "--degree", "3", "--standardize"},
	} {
		t.Run(strings.Join(kern, " "), func(t *testing.T) {
			args := append([]string{"fit", "--data", train, "--label", "y", "--lambda-grid", "0.01,0.1,1,10",
				"--cv", "kfold:5", "--model", modelPath, "--cv-predictions", cvPath, "--quiet"}, kern...)
			stdout, _, err := run(t, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			o := decodeFit(t, stdout)
			if o.CV.Strategy != "kfold:5" {
				t.Errorf("strategy %q", o.CV.Strategy)
			}
			cvLines := strings.Split(strings.TrimSpace(readFileT(t, cvPath)), "\n")
			if len(cvLines) != 81 || cvLines[0] != "y" {
				t.Errorf("%d CV prediction lines (header %q), want the header y and 80 rows", len(cvLines), cvLines[0])
			}
			// predictions to stdout, the measure on stderr
			pout, perr, err := run(t, "", "predict", "--model", modelPath, "--data", test, "--measure", "mse")
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(pout), "\n")
			if len(lines) != 25 {
				t.Fatalf("%d prediction lines, want 25", len(lines))
			}
			var score struct {
				Measure string
				Value   float64
			}
			if err := json.Unmarshal([]byte(perr), &score); err != nil || score.Measure != "mse" {
				t.Fatalf("measure line %q: %v", perr, err)
			}
			// recompute the MSE from the printed predictions and the file's labels
			want := 0.0
			labels := testLabels(t, test)
			for i, l := range lines {
				p, err := strconv.ParseFloat(l, 64)
				if err != nil {
					t.Fatal(err)
				}
				want += (p - labels[i]) * (p - labels[i]) / 25
			}
			if math.Abs(score.Value-want) > 1e-9*want {
				t.Errorf("reported MSE %g, recomputed %g", score.Value, want)
			}
			// with --out: file holds the predictions, the measure goes to stdout
			outPath := filepath.Join(dir, "pred.tsv")
			pout2, _, err := run(t, "", "predict", "--model", modelPath, "--data", test, "--measure", "mse", "--out", outPath)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(readFileT(t, outPath)) != strings.TrimSpace(pout) || !strings.Contains(pout2, `"measure":"mse"`) {
				t.Errorf("--out file or measure line wrong: %q", pout2)
			}
		})
	}
}

func testLabels(t *testing.T, path string) []float64 {
	var out []float64
	for i, line := range strings.Split(strings.TrimSpace(readFileT(t, path)), "\n") {
		if i == 0 {
			continue
		}
		v, _ := strconv.ParseFloat(strings.Split(line, ",")[3], 64)
		out = append(out, v)
	}
	return out
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFitSchemes: every scheme's CV curve is that of retraining from
// scratch (bruteRLS, the oracle's tolerances): hold-out folds read from a
// file, leave-pair-out AUC and c-index (each pair's predictions in
// --cv-predictions too), a two-output k-fold MSE (the mean of the outputs'),
// a γ grid, and one λ. The k-fold folds are the CLI's draw (cv.KFold with
// the default seed 1); everything else is computed here.
func TestFitSchemes(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 4)
	folds := filepath.Join(dir, "folds.txt")
	os.WriteFile(folds, []byte("0 1 2 3 4\n5 6 7 8 9\n10 11 12\n"), 0o644)
	pairsOut := filepath.Join(dir, "pairs.tsv")
	tab := readTable(t, data)
	or := newOracle(tab["y"], tab["cls"])
	fileFolds := [][]int{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12}}
	kfold3, err := cv.KFold(30, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	// rls's default kernel: linear with bias 1
	linear := func(features ...string) bruteRLS {
		return bruteRLS{x: rowsOf(tab, features...), linear: true, bias: 1}
	}
	pooled := func(s bruteRLS, label string, folds [][]int) func(lambda float64) float64 {
		return func(lambda float64) float64 {
			p, k := s.holdOut(t, squaredLoss(tab[label]), folds, nil, "", lambda)
			or.kappa(k)
			return pooledMSE(tab[label], p)
		}
	}
	// lpoPairs retrains without each pair: the pairs' predictions.
	lpoPairs := func(s bruteRLS, label string, pairs [][2]int, lambda float64) map[[2]int][2]float64 {
		out := map[[2]int][2]float64{}
		for _, pr := range pairs {
			p, k := s.holdOut(t, squaredLoss(tab[label]), [][]int{{pr[0], pr[1]}}, nil, "", lambda)
			or.kappa(k)
			out[pr] = [2]float64{p[pr[0]], p[pr[1]]}
		}
		return out
	}
	lpo := func(s bruteRLS, label string, pairs [][2]int) func(lambda float64) float64 {
		return func(lambda float64) float64 {
			pp := lpoPairs(s, label, pairs, lambda)
			gap := math.Inf(1)
			for _, v := range pp {
				gap = math.Min(gap, math.Abs(v[0]-v[1]))
			}
			or.gap = math.Min(or.gap, gap)
			return pairShare(pairs, tab[label], func(i, j int) (float64, float64) { return pp[[2]int{i, j}][0], pp[[2]int{i, j}][1] })
		}
	}
	yPairs := diffPairs(tab["y"], nil)
	clsPairs := posNegPairs(tab["cls"])
	cases := []struct {
		name     string
		args     []string
		strategy string
		measure  string
		// value is the CV value at λ (and γ) by retraining
		value func(lambda float64, gamma *float64) float64
	}{
		{"folds file", []string{"--label", "y", "--folds", folds}, "folds:" + folds, "mse",
			func(l float64, _ *float64) float64 { return pooled(linear("a", "b", "c", "cls"), "y", fileFolds)(l) }},
		{"lpo auc", []string{"--label", "cls", "--cv", "lpo", "--cv-predictions", pairsOut}, "lpo", "auc",
			func(l float64, _ *float64) float64 { return lpo(linear("a", "b", "c", "y"), "cls", clsPairs)(l) }},
		{"lpo cindex", []string{"--label", "y", "--cv", "lpo", "--measure", "cindex"}, "lpo", "cindex",
			func(l float64, _ *float64) float64 { return lpo(linear("a", "b", "c", "cls"), "y", yPairs)(l) }},
		{"multi-output", []string{"--label", "y,cls", "--cv", "kfold:3", "--measure", "mse"}, "kfold:3", "mse",
			func(l float64, _ *float64) float64 {
				s := linear("a", "b", "c")
				return (pooled(s, "y", kfold3)(l) + pooled(s, "cls", kfold3)(l)) / 2
			}},
		{"gamma grid", []string{"--label", "y", "--kernel", "gaussian", "--gamma-grid", "0.1,1"}, "loo", "mse",
			func(l float64, g *float64) float64 {
				if g == nil {
					t.Fatal("gamma grid: a curve point without γ")
				}
				s := bruteRLS{x: rowsOf(tab, "a", "b", "c", "cls"), k: gaussianKernel(*g)}
				return pooled(s, "y", looFolds(30))(l)
			}},
		{"single lambda", []string{"--label", "y", "--lambda", "0.5"}, "loo", "mse",
			func(l float64, _ *float64) float64 { return pooled(linear("a", "b", "c", "cls"), "y", looFolds(30))(l) }},
	}
	var lpoAUC summary.Fit
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"fit", "--data", data, "--quiet", "--lambda-grid", "0.1,1"}, c.args...)
			if c.name == "single lambda" {
				args = append([]string{"fit", "--data", data, "--quiet"}, c.args...)
			}
			stdout, _, err := run(t, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			o := decodeFit(t, stdout)
			if o.CV.Strategy != c.strategy || o.CV.Measure != c.measure {
				t.Errorf("cv %s/%s, want %s/%s", o.CV.Strategy, o.CV.Measure, c.strategy, c.measure)
			}
			want := map[string]int{"gamma grid": 4, "single lambda": 1}[c.name]
			if want == 0 {
				want = 2
			}
			if len(o.CV.Curve) != want {
				t.Fatalf("%d curve points, want %d: %+v", len(o.CV.Curve), want, o.CV.Curve)
			}
			for _, pt := range o.CV.Curve {
				what := fmt.Sprintf("%s at λ %g", c.name, pt.Lambda)
				if pt.Gamma != nil {
					what += fmt.Sprintf(", γ %g", *pt.Gamma)
				}
				v := c.value(pt.Lambda, pt.Gamma)
				if c.measure == "mse" {
					or.mse(what, pt.Value, v)
				} else {
					or.ordinal(what, pt.Value, v, math.Inf(1))
				}
			}
			if c.name == "lpo auc" {
				lpoAUC = o
			}
		})
	}
	// LPO CV predictions: one line per positive–negative pair "i j p_i p_j",
	// the predictions of retraining without the pair at the chosen λ
	got := readPairPredictions(t, pairsOut)
	if len(got) != len(clsPairs) {
		t.Errorf("%d pair lines, want %d", len(got), len(clsPairs))
	}
	want := lpoPairs(linear("a", "b", "c", "y"), "cls", clsPairs, lpoAUC.Lambda)
	for _, pr := range clsPairs {
		g, ok := got[pr]
		if !ok {
			t.Errorf("pair %v not in --cv-predictions", pr)
			continue
		}
		w := want[pr]
		or.predictions(fmt.Sprintf("lpo pair %v", pr), g[:], w[:])
	}
	or.check(t)
}

func testLabelsCol(t *testing.T, path string, col int) []float64 {
	var out []float64
	for i, line := range strings.Split(strings.TrimSpace(readFileT(t, path)), "\n") {
		if i > 0 {
			v, _ := strconv.ParseFloat(strings.Split(line, ",")[col], 64)
			out = append(out, v)
		}
	}
	return out
}

// Bad input: a clear error, and no output file left behind.
func TestFitErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 12, 5)
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	allRows := write("all.txt", "0 1 2 3 4 5 6 7 8 9 10 11\n")
	dupFolds := write("dup.txt", "0 1\n1 2\n")
	basisBad := write("basis.txt", "0 12\n")
	modelPath := filepath.Join(dir, "never.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--lambda", "0"}, "--lambda"},
		{[]string{"--lambda", "-1"}, "--lambda"},
		{[]string{"--lambda", "NaN"}, "--lambda"},
		{[]string{"--lambda-grid", "1,x"}, "--lambda-grid"},
		{[]string{"--kernel", "rbf"}, "unknown kernel"},
		{[]string{"--measure", "rmsle"}, "unknown measure"},
		{[]string{"--cv", "lpo", "--measure", "mse"}, "pairwise"},
		{[]string{"--cv", "kfold:1"}, "kfold:1"},
		{[]string{"--cv", "bootstrap"}, "bootstrap"},
		{[]string{"--folds", allRows}, "all"},
		{[]string{"--folds", dupFolds}, "already"},
		{[]string{"--basis", "13", "--kernel", "gaussian"}, "more basis vectors"},
		{[]string{"--basis-rows", basisBad, "--kernel", "gaussian"}, "basis.txt:1"},
		{[]string{"--learner", "svm"}, "unknown learner"},
		{[]string{"--gamma", "2"}, "does not apply"},
		{[]string{"--kernel", "gaussian", "--gamma", "0"}, "gamma"},
		{[]string{"--cv", "lgo"}, "group ids"},
		{[]string{"--cv", "none", "--lambda-grid", "1,2"}, "needs cross-validation"},
	}
	for _, c := range cases {
		args := append([]string{"fit", "--data", data, "--label", "y", "--quiet", "--model", modelPath}, c.args...)
		_, _, err := run(t, "", args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.args, err, c.want)
		}
		if _, serr := os.Stat(modelPath); serr == nil {
			t.Fatalf("%v: failed run left %s behind", c.args, modelPath)
		}
	}
	// data errors name the file and line
	bad := write("bad.csv", "a,y\n1,2\n3,oops\n")
	_, _, err := run(t, "", "fit", "--data", bad, "--label", "y", "--quiet")
	if err == nil || !strings.Contains(err.Error(), "bad.csv:3") {
		t.Errorf("non-numeric label: err = %v", err)
	}
	_, _, err = run(t, "", "fit", "--data", data, "--label", "nope", "--quiet")
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown label column: err = %v", err)
	}
}

func TestPredictErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 6)
	modelPath := filepath.Join(dir, "m.json")
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--model", modelPath, "--quiet"); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte(`{"format":"rlskit-model","version":1,`), 0o644)
	narrow := filepath.Join(dir, "narrow.csv")
	os.WriteFile(narrow, []byte("a,b,y\n1,2,3\n"), 0o644)
	renamed := filepath.Join(dir, "renamed.csv")
	os.WriteFile(renamed, []byte("a,b,z,cls,y\n1,2,3,1,4\n"), 0o644)
	out := filepath.Join(dir, "never.tsv")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--model", corrupt, "--data", data}, "corrupt"},
		{[]string{"--model", filepath.Join(dir, "missing.json"), "--data", data}, "missing.json"},
		{[]string{"--model", modelPath, "--data", narrow}, `feature column "c" of the model not in the header`},
		{[]string{"--model", modelPath, "--data", renamed}, `"z"`},
		{[]string{"--model", modelPath, "--data", data, "--measure", "rmsle"}, "unknown measure"},
	}
	for _, c := range cases {
		_, _, err := run(t, "", append(append([]string{"predict"}, c.args...), "--out", out)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.args, err, c.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Fatalf("%v: failed run left %s behind", c.args, out)
		}
	}
}

// TestStdin: the data read from standard input give the fit of the same
// file read by name — the same curve, bit for bit (the same numbers through
// the same code) — and its leave-one-out predictions and CV value are those
// of retraining from scratch (the oracle's tolerances).
func TestStdin(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 15, 7)
	stdinCV, fileCV := filepath.Join(dir, "stdin.tsv"), filepath.Join(dir, "file.tsv")
	stdout, _, err := run(t, readFileT(t, data), "fit", "--data", "-", "--format", "csv", "--label", "y", "--quiet", "--cv-predictions", stdinCV)
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	if o.NTrain != 15 {
		t.Errorf("n_train %d", o.NTrain)
	}
	stdout, _, err = run(t, "", "fit", "--data", data, "--label", "y", "--quiet", "--cv-predictions", fileCV)
	if err != nil {
		t.Fatal(err)
	}
	f := decodeFit(t, stdout)
	if len(o.CV.Curve) != len(f.CV.Curve) || len(o.CV.Curve) != 31 {
		t.Fatalf("%d curve points from stdin, %d from the file, want 31", len(o.CV.Curve), len(f.CV.Curve))
	}
	for n := range f.CV.Curve {
		if a, b := o.CV.Curve[n], f.CV.Curve[n]; a.Lambda != b.Lambda || a.Value != b.Value {
			t.Errorf("curve point %d: stdin %+v, file %+v", n, o.CV.Curve[n], f.CV.Curve[n])
		}
	}
	if o.Lambda != f.Lambda || readFileT(t, stdinCV) != readFileT(t, fileCV) {
		t.Errorf("stdin: λ %g and its CV predictions, the file: λ %g and others", o.Lambda, f.Lambda)
	}
	// leave-one-out of rls's default linear kernel (bias 1) at the chosen λ
	tab := readTable(t, data)
	or := newOracle(tab["y"])
	s := bruteRLS{x: rowsOf(tab, "a", "b", "c", "cls"), linear: true, bias: 1}
	loo, k := s.holdOut(t, squaredLoss(tab["y"]), looFolds(15), nil, "", o.Lambda)
	or.kappa(k)
	or.predictions("leave-one-out", readCVColumn(t, stdinCV, 15), loo)
	or.mse("CV value", o.CV.Best.Value, pooledMSE(tab["y"], loo))
	or.check(t)
}

func TestDemoAndVersion(t *testing.T) {
	stdout, _, err := run(t, "", "demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LOO MSE", "<- best", "chosen gamma", "held-out test MSE"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	v, _, err := run(t, "", "version")
	if err != nil || !strings.HasPrefix(v, "rlskit ") {
		t.Errorf("version: %q %v", v, err)
	}
}

func TestFitPermutations(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 50, 21)
	stdout, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma", "0.3",
		"--lambda-grid", "0.01,0.1,1", "--permutations", "39", "--seed", "4", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	if o.Perm == nil || o.Perm.Permutations != 39 || o.Perm.PValue > 2.0/40 || o.Perm.NullMean <= o.Perm.Real {
		t.Errorf("permutation report %+v", o.Perm)
	}
	// the real labels are column 0 of a (P+1)-output model: the same numbers through
	// a wider product, equal to rounding (an optimized BLAS blocks the two differently)
	if o.Perm != nil && math.Abs(o.Perm.Real-o.CV.Best.Value) > 1e-12*math.Abs(o.CV.Best.Value) {
		t.Errorf("permutation real value %v, CV best %v", o.Perm.Real, o.CV.Best.Value)
	}
	for _, bad := range [][]string{
		{"--permutations", "5", "--cv", "none", "--lambda", "1"},
		{"--permutations", "-1"},
		{"--permutations", "5", "--label", "y,cls"},
	} {
		args := append([]string{"fit", "--data", data, "--label", "y", "--quiet"}, bad...)
		if _, _, err := run(t, "", args...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestOneVsAll(t *testing.T) {
	dir := t.TempDir()
	// three classes from the sign pattern of two features
	rng := rand.New(rand.NewPCG(31, 1))
	var b strings.Builder
	b.WriteString("a,b,kind\n")
	var test strings.Builder
	test.WriteString("a,b,kind\n")
	for i := 0; i < 90; i++ {
		a, c := rng.NormFloat64(), rng.NormFloat64()
		k := 0
		switch {
		case a > 0.4:
			k = 2
		case c > 0:
			k = 1
		}
		line := fmt.Sprintf("%g,%g,%d\n", a, c, k)
		if i < 70 {
			b.WriteString(line)
		} else {
			test.WriteString(line)
		}
	}
	train, testPath := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	os.WriteFile(train, []byte(b.String()), 0o644)
	os.WriteFile(testPath, []byte(test.String()), 0o644)
	modelPath := filepath.Join(dir, "m.json")
	stdout, _, err := run(t, "", "fit", "--data", train, "--label", "kind", "--one-vs-all", "--kernel", "gaussian",
		"--lambda-grid", "2^-6..2^2", "--cv", "kfold:5", "--model", modelPath, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	if o.CV.Measure != "multiclass-accuracy" || len(o.Outputs) != 3 || o.CV.Best.Value < 0.7 {
		t.Errorf("one-vs-all fit: %+v, outputs %v", o.CV, o.Outputs)
	}
	pout, perr, err := run(t, "", "predict", "--model", modelPath, "--data", testPath, "--measure", "multiclass-accuracy")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(pout), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines", len(lines))
	}
	sout, _, err := run(t, "", "predict", "--model", modelPath, "--data", testPath, "--scores")
	if err != nil {
		t.Fatal(err)
	}
	// The per-class outputs are RLS on the ±1 encoding of each class,
	// retrained from scratch at the chosen γ and λ; the predicted class is
	// the one of the largest output, and the accuracy is the share of test
	// rows whose class it is. Tolerance on the outputs 1e3·κ·ε of their
	// scale (κ of K + λI computed, asserted ≤ 1e5), as in TestPredictStreams.
	tr, te := readTable(t, train), readTable(t, testPath)
	xs, xn := rowsOf(tr, "a", "b"), rowsOf(te, "a", "b")
	ys := make([][]float64, len(xs))
	for i, k := range tr["kind"] {
		ys[i] = []float64{-1, -1, -1}
		ys[i][int(k)] = 1
	}
	if o.Kernel.Name != "gaussian" || o.Kernel.Gamma != 1 {
		t.Fatalf("kernel %+v, want gaussian with the default γ 1", o.Kernel)
	}
	want, kappa := ridgeDual(t, gaussianKernel(o.Kernel.Gamma), xs, ys, xn, o.Lambda)
	if kappa > 1e5 {
		t.Fatalf("condition number %g: the tolerance assumes ≤ 1e5", kappa)
	}
	tol := 1e3 * kappa * eps
	correct := 0
	for i, l := range strings.Split(strings.TrimSpace(sout), "\n") {
		f := predictionsOf(t, l)
		if len(f) != 4 {
			t.Fatalf("--scores line %q: want the class and 3 outputs", l)
		}
		best := 0
		for c := 0; c < 3; c++ {
			if d := math.Abs(f[1+c] - want[i][c]); !(d <= tol*math.Max(1, math.Abs(want[i][c]))) {
				t.Errorf("row %d class %d: output %.17g, retraining %.17g", i, c, f[1+c], want[i][c])
			}
			if want[i][c] > want[i][best] {
				best = c
			}
		}
		for c := 0; c < 3; c++ {
			if c != best && want[i][best]-want[i][c] < 1e-6 {
				t.Fatalf("row %d: outputs %v too close to tell the class", i, want[i])
			}
		}
		if lines[i] != strconv.Itoa(best) || f[0] != float64(best) {
			t.Errorf("row %d: predicted class %s (--scores %v), the largest output's %d", i, lines[i], f[0], best)
		}
		if te["kind"][i] == float64(best) {
			correct++
		}
	}
	var score struct {
		Measure string
		Value   float64
	}
	if err := json.Unmarshal([]byte(perr), &score); err != nil || score.Measure != "multiclass-accuracy" {
		t.Fatalf("measure line %q: %v", perr, err)
	}
	t.Logf("λ %g, κ %.3g, tolerance %.2g", o.Lambda, kappa, tol)
	if score.Value != float64(correct)/20 {
		t.Errorf("multiclass accuracy %v, want %d/20", score.Value, correct)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b,kind\n1,2,5\n"), 0o644)
	if _, _, err := run(t, "", "predict", "--model", modelPath, "--data", bad, "--measure", "multiclass-accuracy"); err == nil || !strings.Contains(err.Error(), "class 5") {
		t.Errorf("unknown class: %v", err)
	}
	if _, _, err := run(t, "", "fit", "--data", train, "--label", "kind", "--one-vs-all", "--learner", "globalrank", "--quiet"); err == nil {
		t.Error("one-vs-all with a ranker: no error")
	}
}

// writeStream writes s to a file for readTable.
func writeStream(t *testing.T, dir, s string) string {
	t.Helper()
	p := filepath.Join(dir, "stream.csv")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// predict streams: large input in chunks gives the same lines as the model on all rows.
func TestPredictStreams(t *testing.T) {
	dir := t.TempDir()
	train := writeCSV(t, dir, 40, 41)
	modelPath := filepath.Join(dir, "m.json")
	if _, _, err := run(t, "", "fit", "--data", train, "--label", "y", "--kernel", "linear", "--lambda", "1", "--cv", "none", "--model", modelPath, "--quiet"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("a,b,c,cls\n")
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&b, "%g,%g,%g,1\n", rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
	}
	stdout, _, err := run(t, b.String(), "predict", "--model", modelPath, "--data", "-", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 10000 {
		t.Fatalf("%d lines, want 10000", len(lines))
	}
	// Every line is the model's prediction for its row: the linear kernel of
	// bias 1 (rls's default) at λ = 1 retrained from scratch on the training
	// file (features a, b, c, cls), evaluated at the streamed rows as the
	// test wrote them. Tolerance: both sides solve systems of condition
	// number ≤ κ (computed, asserted ≤ 1e3), forward errors of order κ·ε of
	// the predictions' scale; 1e3·κ·ε leaves room for the constants and
	// fails a 1e-7 relative error.
	tr := readTable(t, train)
	xs, ys := rowsOf(tr, "a", "b", "c", "cls"), rowsOf(tr, "y")
	xn := rowsOf(readTable(t, writeStream(t, dir, b.String())), "a", "b", "c", "cls")
	want, kappa := ridgeDual(t, linearKernel(1), xs, ys, xn, 1)
	if kappa > 1e3 {
		t.Fatalf("condition number %g: the tolerance assumes ≤ 1e3", kappa)
	}
	got := predictionsOf(t, stdout)
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w[0]))
	}
	worst := 0.0
	for i := range want {
		d := math.Abs(got[i] - want[i][0])
		worst = math.Max(worst, d/scale)
		if !(d <= 1e3*kappa*eps*scale) {
			t.Fatalf("row %d: streamed prediction %.17g, retraining %.17g", i, got[i], want[i][0])
		}
	}
	t.Logf("κ %.3g, tolerance %.2g, largest difference %.2g (relative to the predictions' scale)", kappa, 1e3*kappa*eps, worst)
	// a malformed row deep in the stream is reported with its line
	bad := b.String() + "1,2,x,1\n"
	if _, _, err := run(t, bad, "predict", "--model", modelPath, "--data", "-", "--format", "csv"); err == nil || !strings.Contains(err.Error(), ":10002") {
		t.Errorf("bad row: %v", err)
	}
}

// --report writes one self-contained HTML file (its rendering is tested in package report).
func TestFitReport(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 51)
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"regression", []string{"--label", "y", "--kernel", "gaussian", "--gamma-grid", "0.1,1"}, []string{"<svg", "gamma=0.1", "mse"}},
		{"binary", []string{"--label", "cls", "--measure", "auc", "--cv", "kfold:4"}, []string{"<svg", "AUC", "auc"}},
	} {
		path := filepath.Join(dir, c.name+".html")
		args := append([]string{"fit", "--data", data, "--lambda-grid", "0.1,1,10", "--quiet", "--report", path}, c.args...)
		if _, _, err := run(t, "", args...); err != nil {
			t.Fatal(err)
		}
		html := readFileT(t, path)
		for _, w := range c.want {
			if !strings.Contains(html, w) {
				t.Errorf("%s report lacks %q", c.name, w)
			}
		}
	}
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--lambda", "1", "--cv", "none", "--report", filepath.Join(dir, "x.html"), "--quiet"); err == nil {
		t.Error("--report without cross-validation: no error")
	}
}
