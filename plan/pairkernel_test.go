package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/pairkernel"
)

// TestPairKernelPlan: --pair-kernel and --pair-kernel-weights resolve to
// the kind, weights and object kernels pairkernel.Train takes, and every bad
// combination is refused naming the flag and its value.
func TestPairKernelPlan(t *testing.T) {
	two := []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--lambda", "0.5"}
	same := []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "same", "--lambda", "0.5"}
	with := func(base []string, more ...string) []string { return append(slices.Clone(base), more...) }
	g := func(gamma float64) kernel.Spec { return kernel.Spec{Name: "gaussian", Gamma: gamma} }
	lin := kernel.Spec{Name: "linear", Bias: 1}

	good := []struct {
		name       string
		args       []string
		kind       pairkernel.Kind
		weights    []float64
		rows, cols []kernel.Spec
	}{
		{"symmetric", with(same, "--pair-kernel", "symmetric", "--kernel", "gaussian", "--gamma", "0.5"), pairkernel.Symmetric, nil, []kernel.Spec{g(0.5)}, nil},
		{"ranking", with(same, "--pair-kernel", "ranking"), pairkernel.Ranking, nil, []kernel.Spec{lin}, nil},
		{"kronecker of a network", with(same, "--pair-kernel", "kronecker"), pairkernel.Kronecker, nil, []kernel.Spec{lin}, []kernel.Spec{lin}},
		{"cartesian", with(two, "--pair-kernel", "cartesian", "--col-kernel", "gaussian", "--col-gamma", "2"), pairkernel.Cartesian, nil, []kernel.Spec{lin}, []kernel.Spec{g(2)}},
		{"sum, row grid, one column kernel", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "1, 0.25", "--kernel", "gaussian", "--gamma-grid", "0.5,2", "--col-kernel", "linear"),
			pairkernel.Sum, []float64{1, 0.25}, []kernel.Spec{g(0.5), g(2)}, []kernel.Spec{lin, lin}},
		{"sum --cv none", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "1,0,3", "--kernel", "gaussian", "--gamma-grid", "1,2,3", "--col-kernel", "gaussian", "--col-gamma-grid", "1,2,3", "--cv", "none"),
			pairkernel.Sum, []float64{1, 0, 3}, []kernel.Spec{g(1), g(2), g(3)}, []kernel.Spec{g(1), g(2), g(3)}},
		{"sum of a network", with(same, "--pair-kernel", "sum", "--pair-kernel-weights", "2,1", "--kernel", "gaussian", "--gamma-grid", "1,2"),
			pairkernel.Sum, []float64{2, 1}, []kernel.Spec{g(1), g(2)}, []kernel.Spec{g(1), g(2)}},
	}
	for _, c := range good {
		p, err := newPlan(t, c.args...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		pp := p.Pairwise
		if pp.PairKernel != c.kind || !slices.Equal(pp.PairWeights, c.weights) || !slices.Equal(pp.PairRowKernels, c.rows) || !slices.Equal(pp.PairColKernels, c.cols) {
			t.Errorf("%s: kind %q weights %v rows %v cols %v, want %q %v %v %v", c.name, pp.PairKernel, pp.PairWeights, pp.PairRowKernels, pp.PairColKernels, c.kind, c.weights, c.rows, c.cols)
		}
		if pp.Setting != "" || pp.CVSpec != "none" {
			t.Errorf("%s: setting %q, cv %q: want no cross-validation", c.name, pp.Setting, pp.CVSpec)
		}
	}
	if p, err := newPlan(t, two...); err != nil || p.Pairwise.PairKernel != "" || p.Pairwise.Setting != "pairs" {
		t.Errorf("without --pair-kernel: %v, %+v", err, p)
	}

	bad := []struct {
		name string
		args []string
		want string
	}{
		{"unknown", with(two, "--pair-kernel", "tensor"), `--pair-kernel: pairkernel: unknown pairwise kernel "tensor"`},
		{"empty", with(two, "--pair-kernel="), `--pair-kernel "": want kronecker`},
		{"weights alone", with(two, "--pair-kernel-weights", "1"), "--pair-kernel-weights goes with --pair-kernel sum"},
		{"weights of kronecker", with(two, "--pair-kernel", "kronecker", "--pair-kernel-weights", "1"), "--pair-kernel-weights 1: only --pair-kernel sum takes weights, not kronecker"},
		{"sum without weights", with(two, "--pair-kernel", "sum"), "--pair-kernel sum needs --pair-kernel-weights"},
		{"negative weight", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "1,-1", "--gamma-grid", "1,2", "--kernel", "gaussian"), `--pair-kernel-weights 1,-1: weight 2 ("-1") is not a finite number ≥ 0`},
		{"NaN weight", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "NaN"), `--pair-kernel-weights NaN: weight 1 ("NaN")`},
		{"Inf weight", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "Inf"), `--pair-kernel-weights Inf: weight 1 ("Inf")`},
		{"text weight", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "1,x"), `--pair-kernel-weights 1,x: weight 2 ("x")`},
		{"zero weights", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "0,0", "--gamma-grid", "1,2", "--kernel", "gaussian"), "--pair-kernel-weights 0,0: every weight is 0"},
		{"weights count", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "1,2", "--kernel", "gaussian", "--gamma-grid", "1,2,3"), "--pair-kernel-weights 1,2: 2 weights, but the --kernel grid has 3 kernels"},
		{"column count", with(two, "--pair-kernel", "sum", "--pair-kernel-weights", "1,2", "--kernel", "gaussian", "--gamma-grid", "1,2", "--col-kernel", "gaussian", "--col-gamma-grid", "1,2,3"), "the --col-kernel grid has 3 kernels"},
		{"symmetric of two sets", with(two, "--pair-kernel", "symmetric"), "--pair-kernel symmetric compares a pair's row object with the other pair's column object: the rows and columns must be one set of objects (--cols same), not --cols c"},
		{"antisymmetric of two sets", with(two, "--pair-kernel", "antisymmetric"), "--pair-kernel antisymmetric compares"},
		{"ranking of two sets", with(two, "--pair-kernel", "ranking"), "--pair-kernel ranking compares"},
		{"twostep", []string{"--learner", "twostep", "--rows", "r", "--pairs", "p", "--cols", "c", "--pair-kernel", "kronecker"}, "--pair-kernel kronecker trains --learner kronrls by conjugate gradients, not twostep"},
		{"rls", []string{"--data", "d.csv", "--pair-kernel", "kronecker"}, "--pair-kernel applies to --learner"},
		{"symmetry", with(same, "--pair-kernel", "symmetric", "--symmetry", "antisymmetric"), "--symmetry antisymmetric with --pair-kernel symmetric"},
		{"cv", with(two, "--pair-kernel", "kronecker", "--cv", "rows"), "--cv rows with --pair-kernel kronecker"},
		{"lambda grid", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--pair-kernel", "kronecker"}, "--pair-kernel kronecker fits one model: give one --lambda, not a grid of 31"},
		{"kernel grid", with(two, "--pair-kernel", "kronecker", "--kernel", "gaussian", "--gamma-grid", "1,2"), "--pair-kernel kronecker fits one model: give one kernel setting"},
		{"precomputed", with(two, "--pair-kernel", "kronecker", "--kernel", "precomputed"), "--kernel precomputed with --pair-kernel kronecker"},
		{"standardize", with(two, "--pair-kernel", "kronecker", "--standardize"), "--standardize with --pair-kernel kronecker"},
		{"validation", with(two, "--pair-kernel", "kronecker", "--validation-pairs", "v"), "--validation-pairs v with --pair-kernel kronecker"},
		{"cv predictions", with(two, "--pair-kernel", "kronecker", "--cv-predictions", "o"), "--cv-predictions"},
		{"interval", with(two, "--pair-kernel", "kronecker", "--interval", "cv+"), "--interval cv+ with --pair-kernel kronecker"},
		{"outer folds", with(two, "--pair-kernel", "kronecker", "--outer-folds", "3"), "--outer-folds 3 with --pair-kernel kronecker"},
	}
	for _, c := range bad {
		_, err := newPlan(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
