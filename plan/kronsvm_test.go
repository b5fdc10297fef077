package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// The support vector machine of pairs (learn.PairSquaredHinge) plans one
// model without cross-validation: --tol and --max-iter pass through, the
// default measure is accuracy, and every flag that needs a grid, a
// cross-validation or a homogeneous network is refused by name and value.
func TestHingePlan(t *testing.T) {
	base := []string{"--learner", "kronsvm", "--rows", "r", "--pairs", "p", "--cols", "c", "--lambda", "0.5"}
	with := func(more ...string) []string { return append(slices.Clone(base), more...) }
	for _, args := range [][]string{base, with("--cv", "none")} {
		p, err := newPlan(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		pp := p.Pairwise
		if pp.Setting != "" || pp.CVSpec != "none" || pp.Measure.Name != "accuracy" || pp.Tol != 1e-10 ||
			!slices.Equal(pp.Lambdas, []float64{0.5}) || len(pp.RowKernels) != 1 || len(pp.ColKernels) != 1 {
			t.Errorf("%v: setting %q cv %q measure %s tol %g lambdas %v kernels %v %v", args, pp.Setting, pp.CVSpec, pp.Measure.Name, pp.Tol, pp.Lambdas, pp.RowKernels, pp.ColKernels)
		}
	}
	p, err := newPlan(t, with("--tol", "1e-7", "--max-iter", "50", "--kernel", "gaussian", "--gamma", "2", "--col-kernel", "linear", "--standardize")...)
	if err != nil {
		t.Fatal(err)
	}
	if pp := p.Pairwise; pp.Tol != 1e-7 || pp.flags.MaxIter != 50 || pp.RowKernels[0] != (kernel.Spec{Name: "gaussian", Gamma: 2}) || pp.ColKernels[0].Name != "linear" {
		t.Errorf("tol %g max-iter %d kernels %v %v", pp.Tol, pp.flags.MaxIter, pp.RowKernels, pp.ColKernels)
	}
	noLambda := []string{"--learner", "kronsvm", "--rows", "r", "--pairs", "p", "--cols", "c"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{with("--cv", "pairs"), "--cv pairs: --learner kronsvm trains one model without cross-validation"},
		{with("--cv", "rows:5"), "--cv rows:5: --learner kronsvm"},
		{noLambda, "--learner kronsvm trains one model at one λ: give --lambda"},
		{append(slices.Clone(noLambda), "--lambda-grid", "0.1,1"), "--lambda-grid 0.1,1: --learner kronsvm trains one model at one λ"},
		{with("--kernel", "gaussian", "--gamma-grid", "1,2"), "give one row kernel setting, not a grid of 2"},
		{with("--col-kernel", "gaussian", "--col-gamma-grid", "1,2,3"), "give one column kernel setting, not a grid of 3"},
		{with("--col-lambda", "2"), "--col-lambda applies to --learner twostep; kronsvm has one λ"},
		{with("--validation-pairs", "v"), "--validation-pairs v: --learner kronsvm has no early stopping"},
		{with("--folds", "f"), "--folds f: --learner kronsvm has no cross-validation"},
		{with("--col-folds", "f"), "--col-folds f: --learner kronsvm has no cross-validation"},
		{with("--interval", "cv+"), "--interval cv+: --learner kronsvm"},
		{with("--outer-folds", "5"), "--outer-folds 5: --learner kronsvm"},
		{with("--cv-predictions", "o"), "--cv-predictions o: --learner kronsvm has no cross-validation"},
		{with("--curves", "o"), "--curves o: --learner kronsvm has no cross-validation curve"},
		{with("--solver", "cg"), "--solver cg trains --learner kronrls"},
		{[]string{"--learner", "kronsvm", "--rows", "r", "--pairs", "p", "--cols", "same", "--lambda", "1"}, "--cols same: --learner kronsvm learns from pairs of two sets of objects"},
		{with("--pair-kernel", "kronecker"), "--pair-kernel kronecker trains --learner kronrls by conjugate gradients, not kronsvm"},
	} {
		_, err := newPlan(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to say %q", c.args, err, c.want)
		}
	}
}
