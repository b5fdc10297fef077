package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/plan"
)

// TestFitGreedy: the JSON contract of --learner greedy, for each criterion.
// Every point of the selection curve is the CV value of RLS (linear kernel,
// bias 1) retrained from scratch on the features selected so far along its
// λ's path (bruteRLS, the oracle's tolerances), and the model predicts the
// full-width data as RLS retrained on all rows with the selected features
// at the chosen λ does, with predict's MSE that of those predictions. The
// k-fold folds are the CLI's draw (cv.KFold, seed 1); the selection itself is
// the library's (TestFitGreedyLibrary).
func TestFitGreedy(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 50, 21)
	folds := filepath.Join(dir, "folds.txt")
	if err := os.WriteFile(folds, []byte("0 1 2 3 4 5 6 7 8 9\n10 11 12 13 14 15 16 17 18 19\n20 21 22 23 24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := readTable(t, data)
	or := newOracle(tab["y"], tab["cls"])
	kfold5, err := cv.KFold(50, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	foldsOf := map[string][][]int{"loo": looFolds(50), "kfold:5": kfold5,
		"folds:" + folds: {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, {20, 21, 22, 23, 24}}}
	cases := []struct {
		name, strategy string
		args           []string
	}{
		{"loo", "loo", nil},
		{"kfold", "kfold:5", []string{"--cv", "kfold:5"}},
		{"folds file", "folds:" + folds, []string{"--folds", folds}},
		{"auc", "loo", []string{"--label", "cls", "--measure", "auc"}},
		{"grid and outer", "loo", []string{"--lambda-grid", "0.1,1,10", "--outer-folds", "5"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, c.name+".json")
			args := append([]string{"fit", "--data", data, "--label", "y", "--learner", "greedy", "--select", "2",
				"--lambda", "1", "--quiet", "--model", model}, c.args...)
			if slices.Contains(c.args, "--lambda-grid") {
				args = slices.DeleteFunc(args, func(s string) bool { return s == "--lambda" })
				args = slices.DeleteFunc(args, func(s string) bool { return s == "1" })
			}
			stdout, stderr, err := run(t, "", args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			o := decodeFit(t, stdout)
			if o.Learner != "greedy" || o.CV.Strategy != c.strategy || o.Selection == nil || o.Kernel.Name != "linear" {
				t.Fatalf("output %+v", o)
			}
			s := o.Selection
			if len(s.Selected) != s.Best.Features || len(s.Names) != len(s.Selected) || len(s.Curve) != 2*len(o.CV.Curve) {
				t.Errorf("selection %+v", s)
			}
			names := []string{"a", "b", "c", "cls"} // the columns other than the label
			if slices.Contains(c.args, "cls") {
				names[3] = "y"
			}
			for n, j := range s.Selected {
				if s.Names[n] != names[j] {
					t.Errorf("feature %d named %q", j, s.Names[n])
				}
			}
			if (o.Outer != nil) != slices.Contains(c.args, "--outer-folds") {
				t.Errorf("outer %+v", o.Outer)
			}
			pred := loadModel(t, model)
			if pred.Learner != "greedy" || pred.Width != 4 || len(pred.WIndex) != len(s.Selected) {
				t.Errorf("model learner %q width %d index %v", pred.Learner, pred.Width, pred.WIndex)
			}
			label := "y"
			if slices.Contains(c.args, "cls") {
				label = "cls"
			}
			y := tab[label]
			// rls on the features sel, retrained from scratch
			brute := func(sel []int) bruteRLS {
				var cols []string
				for _, j := range sel {
					cols = append(cols, names[j])
				}
				return bruteRLS{x: rowsOf(tab, cols...), linear: true, bias: 1}
			}
			// each λ's path adds the curve's features in order
			paths := map[float64][]int{}
			for _, st := range s.Curve {
				lambda := o.Lambda
				if st.Lambda != nil {
					lambda = *st.Lambda
				}
				if st.Feature == nil || st.Features != len(paths[lambda])+1 {
					t.Fatalf("curve step %+v after the path %v", st, paths[lambda])
				}
				paths[lambda] = append(paths[lambda], *st.Feature)
				p, k := brute(paths[lambda]).holdOut(t, squaredLoss(y), foldsOf[c.strategy], nil, "", lambda)
				or.kappa(k)
				what := fmt.Sprintf("%s: %d features at λ %g", c.name, st.Features, lambda)
				if o.CV.Measure == "auc" {
					pairs := posNegPairs(y)
					pairs = slices.DeleteFunc(pairs, func(pr [2]int) bool { return math.IsNaN(p[pr[0]]) || math.IsNaN(p[pr[1]]) })
					or.ordinal(what, st.Value, pooledShare(pairs, y, p), minGap(pairs, y, p))
				} else {
					or.mse(what, st.Value, pooledMSE(y, p))
				}
			}
			if !slices.Equal(paths[o.Lambda][:s.Best.Features], s.Selected) {
				t.Errorf("selected %v, the chosen λ's path %v", s.Selected, paths[o.Lambda])
			}
			all := make([]int, 50)
			for i := range all {
				all[i] = i
			}
			full := brute(s.Selected)
			want, k := full.fit(t, squaredLoss(y), all, nil, o.Lambda, full.x)
			or.kappa(k)
			pout, perr, err := run(t, "", "predict", "--model", model, "--data", data, "--measure", "mse")
			if err != nil {
				t.Fatalf("predict on the full-width data: %v", err)
			}
			or.predictions(c.name+": predict", predictionsOf(t, pout), want)
			var score struct {
				Measure string
				Value   float64
			}
			if err := json.Unmarshal([]byte(perr), &score); err != nil || score.Measure != "mse" {
				t.Fatalf("measure line %q: %v", perr, err)
			}
			or.mse(c.name+": predict's mse", score.Value, pooledMSE(y, want))
		})
	}
	or.check(t)
}

// TestFitGreedyLibrary: the CLI reports what greedy.Select computes.
func TestFitGreedyLibrary(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 22)
	stdout, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--learner", "greedy", "--select", "3",
		"--lambda-grid", "0.5,2", "--cv", "kfold:4", "--seed", "3", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	d, err := dataset.ReadCSV(strings.NewReader(mustRead(t, data)), data, dataset.CSVOptions{Labels: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	rlsEntry, err := plan.LookupLearner("rls")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := fitScheme(&fitFlags{Flags: plan.Flags{Seed: 3, FoldScore: "pooled"}}, &plan.Plan{CVSpec: "kfold:4", CVKind: "kfold", Learner: rlsEntry}, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	mse, _ := measure.ByName("mse")
	res, err := greedy.Select(d.X, d.Y, greedy.Options{Lambdas: []float64{0.5, 2}, Bias: 1, K: 3, Measure: mse, Folds: sc.Folds})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Selection.Selected, res.Selected) || o.Lambda != res.Lambda || o.Selection.Best.Value != res.Value {
		t.Errorf("CLI %v λ %g %g, library %v λ %g %g", o.Selection.Selected, o.Lambda, o.Selection.Best.Value, res.Selected, res.Lambda, res.Value)
	}
}

// TestFitGreedyErrors: bad requests fail with a message naming the problem.
func TestFitGreedyErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 23)
	constant := filepath.Join(dir, "const.csv")
	if err := os.WriteFile(constant, []byte("a,b,y\n1,2,1\n2,1,1\n3,3,1\n4,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"select 0", []string{"--select", "0"}, "--select 0"},
		{"select negative", []string{"--select", "-2"}, "--select -2"},
		{"select more than the features", []string{"--select", "5"}, "has 4 features"},
		{"no select", nil, "needs --select"},
		{"gaussian kernel", []string{"--select", "2", "--kernel", "gaussian"}, "linear kernel"},
		{"lpo", []string{"--select", "2", "--cv", "lpo", "--label", "cls", "--measure", "auc"}, "leave-one-out or hold-out"},
		{"cv none", []string{"--select", "2", "--cv", "none", "--lambda", "1"}, "leave-one-out or hold-out"},
		{"basis", []string{"--select", "2", "--basis", "5"}, "--basis"},
		{"permutations", []string{"--select", "2", "--permutations", "9"}, "--permutations"},
		{"outer 1", []string{"--select", "2", "--outer-folds", "1"}, "--outer-folds 1"},
		{"auc on a regression label", []string{"--select", "2", "--measure", "auc", "--data", constant}, "criterion undefined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"fit", "--data", data, "--label", "y", "--learner", "greedy", "--quiet"}, c.args...)
			_, _, err := run(t, "", args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
	// --outer-folds is every learner's on rows now (nested cross-validation: TestFitNestedOuter)
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--select", "2", "--quiet"); err == nil || !strings.Contains(err.Error(), "goes with --learner greedy") {
		t.Errorf("--select with rls: %v", err)
	}
}

// TestFitGreedyReport: the report shows the selection curve.
func TestFitGreedyReport(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 24)
	rep := filepath.Join(dir, "r.html")
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--learner", "greedy", "--select", "3",
		"--lambda-grid", "2^-2..2^2", "--report", rep, "--cv-predictions", filepath.Join(dir, "cv.tsv"), "--quiet"); err != nil {
		t.Fatal(err)
	}
	html := mustRead(t, rep)
	for _, want := range []string{`id="selection-curve"`, `id="cv-curve"`, "lambda=0.25", "features selected"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	cv := mustRead(t, filepath.Join(dir, "cv.tsv"))
	if lines := strings.Count(cv, "\n"); lines != 41 || !strings.HasPrefix(cv, "y\n") {
		t.Errorf("%d CV prediction lines, want the header y and 40 rows:\n%.40s", lines, cv)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loadModel(t *testing.T, path string) *model.Predictor {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := model.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
