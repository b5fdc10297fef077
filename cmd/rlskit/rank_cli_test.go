package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSVM writes m rows in q queries: "label qid:Q 1:a 2:b 3:c".
func writeSVM(t *testing.T, dir string, m, q int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	for i := 0; i < m; i++ {
		a, bb, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		y := math.Round(a - 0.5*bb + 0.3*rng.NormFloat64())
		fmt.Fprintf(&b, "%g qid:%d 1:%g 2:%g 3:%g\n", y, i%q, a, bb, c)
	}
	path := filepath.Join(dir, fmt.Sprintf("rank%d.svm", seed))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFitRankers(t *testing.T) {
	dir := t.TempDir()
	data := writeSVM(t, dir, 40, 4, 1)
	prefs := filepath.Join(dir, "prefs.txt")
	os.WriteFile(prefs, []byte("0 1\n2 3 2\n4 5 1 0.5\n6 7\n8 9\n10 11 3\n12 13\n14 15\n16 0\n"), 0o644)
	modelPath := filepath.Join(dir, "m.json")
	cases := []struct {
		name     string
		args     []string
		strategy string
		measure  string
	}{
		{"globalrank lpo", []string{"--learner", "globalrank", "--kernel", "gaussian", "--gamma", "0.3", "--cv", "lpo"}, "lpo", "cindex"},
		{"globalrank lpo auc", []string{"--learner", "globalrank", "--cv", "lpo", "--measure", "auc"}, "lpo", "auc"},
		{"queryrank lqo", []string{"--learner", "queryrank", "--kernel", "gaussian", "--gamma", "0.3", "--cv", "lqo"}, "lqo", "disagreement"},
		{"queryrank lpo", []string{"--learner", "queryrank", "--cv", "lpo"}, "lpo", "cindex"},
		{"queryrank kfold", []string{"--learner", "queryrank", "--cv", "kfold:4", "--measure", "disagreement"}, "kfold:4", "disagreement"},
		{"prefrank", []string{"--learner", "prefrank", "--preferences", prefs, "--cost", "unit", "--cv", "loo"}, "loo", "cindex"},
		{"prefrank sparse", []string{"--learner", "prefrank", "--preferences", prefs, "--kernel", "gaussian", "--basis", "10", "--cv", "kfold:5"}, "kfold:5", "cindex"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"fit", "--data", data, "--lambda-grid", "0.1,1,10", "--quiet", "--model", modelPath}, c.args...)
			stdout, _, err := run(t, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			o := decodeFit(t, stdout)
			if o.CV.Strategy != c.strategy || o.CV.Measure != c.measure || len(o.CV.Curve) != 3 {
				t.Errorf("cv %+v", o.CV)
			}
			if o.Queries == nil || o.Queries.Count != 4 {
				t.Errorf("queries %+v", o.Queries)
			}
			if o.Kernel.Name == "linear" && o.Kernel.Bias != 0 {
				t.Errorf("rankers default to bias 0, got %+v", o.Kernel)
			}
			if _, _, err := run(t, "", "predict", "--model", modelPath, "--data", data, "--measure", "cindex"); err != nil {
				t.Errorf("predict: %v", err)
			}
		})
	}
}

func TestFitRankerErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeSVM(t, dir, 12, 3, 2)
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	oneQuery := write("one.svm", "1 qid:1 1:1\n2 qid:1 1:2\n3 qid:1 1:0.5\n1 qid:2 1:3\n")
	someQids := write("some.svm", "1 qid:1 1:1\n2 1:2\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--learner", "prefrank", "--preferences", write("p1", "0 12\n")}, "p1:1"},
		{[]string{"--learner", "prefrank", "--preferences", write("p2", "3 3\n")}, "p2:1"},
		{[]string{"--learner", "prefrank", "--preferences", write("p3", "0 1 -1\n")}, "negative magnitude"},
		{[]string{"--learner", "prefrank", "--preferences", write("p4", "0 1 0\n"), "--cost", "inverse"}, "magnitude 0"},
		{[]string{"--learner", "prefrank"}, "--preferences"},
		{[]string{"--learner", "rls", "--preferences", write("p5", "0 1\n")}, "--preferences"},
		{[]string{"--learner", "queryrank", "--cv", "lqo", "--data", oneQuery}, "leaving queries out needs 2"},
		{[]string{"--learner", "globalrank", "--cv", "lpo", "--data", write("tie.svm", "1 1:1\n1 1:2\n1 1:3\n1 1:0\n")}, "leave-pair-out needs 2"},
		{[]string{"--learner", "queryrank", "--data", someQids}, "qid"},
		{[]string{"--learner", "rank"}, "unknown learner"},
		{[]string{"--cost", "unit"}, "--cost"},
	}
	for _, c := range cases {
		args := append([]string{"fit", "--data", data, "--lambda", "1", "--quiet"}, c.args...)
		_, _, err := run(t, "", args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.args, err, c.want)
		}
	}
}

// --solver cg trains the same linear model as the direct solver (to its tolerance).
func TestFitCG(t *testing.T) {
	dir := t.TempDir()
	data := writeSVM(t, dir, 60, 5, 3)
	test := writeSVM(t, dir, 15, 3, 4)
	for _, learner := range []string{"rls", "globalrank", "queryrank"} {
		direct, cgm := filepath.Join(dir, learner+"-d.json"), filepath.Join(dir, learner+"-c.json")
		if _, _, err := run(t, "", "fit", "--data", data, "--learner", learner, "--lambda", "0.5", "--cv", "none", "--model", direct, "--quiet"); err != nil {
			t.Fatal(err)
		}
		stdout, _, err := run(t, "", "fit", "--data", data, "--learner", learner, "--lambda", "0.5", "--cv", "none", "--solver", "cg", "--tol", "1e-12", "--model", cgm, "--quiet")
		if err != nil {
			t.Fatal(err)
		}
		o := decodeFit(t, stdout)
		if o.CG == nil || !o.CG.Converged[0] || o.CG.Iterations[0] < 1 {
			t.Errorf("%s: cg report %+v", learner, o.CG)
		}
		a, _, err := run(t, "", "predict", "--model", direct, "--data", test)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := run(t, "", "predict", "--model", cgm, "--data", test)
		if err != nil {
			t.Fatal(err)
		}
		la, lb := strings.Fields(a), strings.Fields(b)
		for i := range la {
			var x, y float64
			fmt.Sscan(la[i], &x)
			fmt.Sscan(lb[i], &y)
			if math.Abs(x-y) > 1e-6*(1+math.Abs(x)) {
				t.Fatalf("%s row %d: direct %v, cg %v", learner, i, x, y)
			}
		}
	}
	for _, bad := range [][]string{
		{"--solver", "cg", "--kernel", "gaussian", "--cv", "none", "--lambda", "1"},
		{"--solver", "cg", "--lambda", "1"},
		{"--solver", "cg", "--cv", "none", "--lambda", "1", "--max-iter", "0"},
		{"--solver", "sgd", "--cv", "none", "--lambda", "1"},
		{"--tol", "1e-3", "--cv", "none", "--lambda", "1"},
	} {
		if _, _, err := run(t, "", append([]string{"fit", "--data", data, "--quiet"}, bad...)...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
