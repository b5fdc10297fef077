package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/pairwise"
)

// bindingPairs writes the pairs of a docs/data pairs file with label +1
// when pKd ≥ 7 (binding) and −1 otherwise, and returns the file with the
// pairs and labels.
func bindingPairs(t *testing.T, dir, name string) (string, []pairwise.Pair, []float64) {
	t.Helper()
	var b strings.Builder
	var pairs []pairwise.Pair
	var y []float64
	for _, l := range strings.Split(readFileT(t, dti(name)), "\n") {
		var r, c int
		var v float64
		if _, err := fmt.Sscan(l, &r, &c, &v); err != nil || strings.HasPrefix(l, "#") {
			continue
		}
		label := -1.0
		if v >= 7 {
			label = 1
		}
		pairs, y = append(pairs, pairwise.Pair{Row: r, Col: c}), append(y, label)
		fmt.Fprintf(&b, "%d %d %g\n", r, c, label)
	}
	path := filepath.Join(dir, "bind-"+name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, pairs, y
}

// csvDense reads a CSV of numbers with a header line.
func csvDense(t *testing.T, path string) *mat.Dense {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(readFileT(t, path)), "\n")[1:]
	var x *mat.Dense
	for i, l := range lines {
		f := strings.Split(l, ",")
		if x == nil {
			x = mat.NewDense(len(lines), len(f), nil)
		}
		for j, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			x.Set(i, j, v)
		}
	}
	return x
}

// fit --learner kronsvm, then predict, gives what the library gives —
// pairwise.FitKronSVM, Solve and PairModel called directly on the same
// data — to 1e-12, for the training pairs and for pairs of new drugs; the
// summary reports the library's Newton steps, iterations, support vectors
// and objective; a label other than ±1 is refused naming its file and line.
func TestKronSVMCLI(t *testing.T) {
	dir := t.TempDir()
	train, pairs, y := bindingPairs(t, dir, "dti-pairs-train.txt")
	newPairs, _, _ := bindingPairs(t, dir, "dti-pairs-new.txt")
	mf := filepath.Join(dir, "svm.json")
	args := []string{"fit", "--learner", "kronsvm", "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"), "--pairs", train,
		"--kernel", "gaussian", "--gamma", "0.015625", "--col-gamma", "0.25", "--standardize", "--lambda", "0.1", "--quiet"}
	stdout, stderr, err := run(t, "", append(args, "--model", mf)...)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	out := decodePairFit(t, stdout)

	drugs, targets := csvDense(t, dti("dti-drugs.csv")), csvDense(t, dti("dti-targets.csv"))
	rows, err := pairwise.NewSide(drugs, kernel.Gaussian{Gamma: 0.015625}, true)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pairwise.NewSide(targets, kernel.Gaussian{Gamma: 0.25}, true)
	if err != nil {
		t.Fatal(err)
	}
	k, err := pairwise.FitKronSVM(rows, cols, pairs, y)
	if err != nil {
		t.Fatal(err)
	}
	res, err := k.Solve(0.1, pairwise.SVMOptions{Tol: 1e-10, MaxIter: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// 597 pairs inside the margin: the number of docs/cli.md and ExampleFitKronSVM
	if s := out.SVM; s != nil && s.SupportVectors != 597 {
		t.Errorf("%d support vectors, docs/cli.md says 597", s.SupportVectors)
	}
	if s := out.SVM; out.Form != "newton" || out.Lambda != 0.1 || out.Complete || out.CV != nil || s == nil || !s.Converged ||
		s.NewtonSteps != res.NewtonSteps || s.CGIterations != res.CGIterations || s.SupportVectors != res.SupportVectors || s.Objective != res.Objective {
		t.Fatalf("summary %+v %+v, library: %d steps, %d iterations, %d support vectors, objective %v", out, out.SVM,
			res.NewtonSteps, res.CGIterations, res.SupportVectors, res.Objective)
	}
	check := func(what string, got []float64, rowX *mat.Dense, ps []pairwise.Pair) {
		t.Helper()
		var ri, ci []int
		for _, p := range ps {
			ri, ci = append(ri, p.Row), append(ci, p.Col)
		}
		want, err := res.PairModel().Predict(rowX, targets, ri, ci)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d predictions, want %d", what, len(got), len(want))
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("%s: pair %v: %v, the library %v", what, ps[i], got[i], want[i])
			}
		}
	}
	p1, stderr, err := run(t, "", "predict", "--model", mf, "--pairs", train)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	check("training pairs", predictionsOf(t, p1), drugs, pairs)
	_, newP, _ := bindingPairs(t, dir, "dti-pairs-new.txt")
	p2, stderr, err := run(t, "", "predict", "--model", mf, "--rows", dti("dti-drugs-new.csv"), "--pairs", newPairs)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	check("new drugs", predictionsOf(t, p2), csvDense(t, dti("dti-drugs-new.csv")), newP)

	// the pKd values themselves are not labels of a support vector machine
	bad := append(append([]string(nil), args[:8]...), dti("dti-pairs-train.txt"))
	bad = append(bad, args[9:]...)
	if _, _, err := run(t, "", bad...); err == nil || !strings.Contains(err.Error(), "--pairs "+dti("dti-pairs-train.txt")+":2: label 5: --learner kronsvm takes labels −1 and +1") {
		t.Errorf("pKd labels: %v", err)
	}
	// two conjugate-gradient iterations per Newton step do not converge: a warning names the flags
	if out, stderr, err := run(t, "", append(args, "--max-iter", "2")...); err != nil || decodePairFit(t, out).SVM.Converged ||
		!strings.Contains(stderr, "rlskit: warning: the support vector machine stopped after 100 Newton steps (at most 100)") || !strings.Contains(stderr, "--max-iter 2 per step") {
		t.Errorf("--max-iter 2: %v, %q", err, stderr)
	}
	if _, _, err := run(t, "", append(args, "--cv", "pairs")...); err == nil || !strings.Contains(err.Error(), "--cv pairs: --learner kronsvm trains one model without cross-validation") {
		t.Errorf("--cv pairs: %v", err)
	}
	// --newton-steps caps the Newton steps (RLScore's maxiter): 2 steps end
	// where the library's 2 do, unconverged, with a warning naming the cap
	short, err := k.Solve(0.1, pairwise.SVMOptions{Tol: 1e-10, MaxIter: 1000, NewtonSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if out, stderr, err := run(t, "", append(args, "--newton-steps", "2")...); err != nil {
		t.Errorf("--newton-steps 2: %v %s", err, stderr)
	} else if s := decodePairFit(t, out).SVM; s == nil || s.Converged || s.NewtonSteps != 2 || s.Objective != short.Objective ||
		!strings.Contains(stderr, "stopped after 2 Newton steps (at most 2)") {
		t.Errorf("--newton-steps 2: summary %+v (library objective %v), stderr %q", s, short.Objective, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(append([]string(nil), args...), "--newton-steps", "0"), "--newton-steps 0: --learner kronsvm needs at least 1 Newton step"},
		{[]string{"fit", "--learner", "kronrls", "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"), "--pairs", train, "--lambda", "1", "--newton-steps", "3"},
			"--newton-steps 3: only --learner kronsvm trains by Newton steps"},
	} {
		if _, _, err := run(t, "", c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args[len(c.args)-2:], err, c.want)
		}
	}
}
