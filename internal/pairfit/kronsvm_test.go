package pairfit

import (
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/pairwise"
)

// Fit trains the learner of the squared hinge loss (kronsvm) on complete
// and incomplete data by pairwise.FitKronSVM and Solve: the same
// coefficients bit for bit as the library called directly with the plan's
// tolerance and Fit's iteration cap, the model its PairModel, the summary
// its work; a label other than ±1 is refused naming its pair.
func TestFitKronSVM(t *testing.T) {
	for _, incomplete := range []bool{false, true} {
		rx, cx, pairs, y := objects(7, 5, incomplete)
		for i := range y {
			if y[i] < 0.4 {
				y[i] = -1
			} else {
				y[i] = 1
			}
		}
		p := planOf(t, "--learner", "kronsvm", "--lambda", "0.3", "--kernel", "gaussian", "--gamma", "0.7", "--col-kernel", "linear", "--tol", "1e-9")
		r, err := Fit(p, Data{Rows: rx, Cols: cx, Pairs: pairs, Labels: y, PairsName: "p.txt"}, Options{MaxIter: 200})
		if err != nil {
			t.Fatal(err)
		}
		rs, _ := pairwise.NewSide(rx, kernel.Gaussian{Gamma: 0.7}, false)
		cs, _ := pairwise.NewSide(cx, kernel.Linear{Bias: 1}, false)
		k, err := pairwise.FitKronSVM(rs, cs, pairs, y)
		if err != nil {
			t.Fatal(err)
		}
		want, err := k.Solve(0.3, pairwise.SVMOptions{Tol: 1e-9, MaxIter: 200})
		if err != nil {
			t.Fatal(err)
		}
		if r.SVM == nil || r.Model != r.SVM || r.CG != nil || r.Search != nil {
			t.Fatalf("incomplete %v: result %+v", incomplete, r)
		}
		for i := range want.Coef {
			if r.SVM.Coef[i] != want.Coef[i] {
				t.Fatalf("incomplete %v: coefficient %d: %v, the library %v", incomplete, i, r.SVM.Coef[i], want.Coef[i])
			}
		}
		s := r.Summary
		if s.Complete == incomplete || s.Form != "newton" || s.SVM == nil || s.SVM.NewtonSteps != want.NewtonSteps || s.SVM.SupportVectors != want.SupportVectors ||
			s.SVM.Objective != want.Objective || s.SVM.CGIterations != want.CGIterations || s.SVM.SupportVectors == 0 {
			t.Errorf("incomplete %v: summary %+v %+v", incomplete, s, s.SVM)
		}
		if r.Model.PairModel().Learner != "kronsvm" {
			t.Errorf("model of %q", r.Model.PairModel().Learner)
		}
		y[2] = 0.5
		if _, err := Fit(p, Data{Rows: rx, Cols: cx, Pairs: pairs, Labels: y, PairsName: "p.txt"}, Options{}); err == nil ||
			!strings.Contains(err.Error(), "--pairs p.txt: pair 2 (") || !strings.Contains(err.Error(), "has label 0.5: --learner kronsvm takes labels −1 and +1") {
			t.Errorf("label 0.5: %v", err)
		}
	}
}
