package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// TestGammaFlag: --gamma takes a number or scale (then γ and the
// --gamma-grid values are multiples of scikit-learn's gamma="scale",
// resolved by the search); the kernel parameters' flags with a kernel that
// has no such parameter are refused naming the flag given and the kernels
// that take it.
func TestGammaFlag(t *testing.T) {
	gammas := func(p *Plan) []float64 {
		var g []float64
		for _, s := range p.Kernels {
			g = append(g, s.Gamma)
		}
		return g
	}
	for _, c := range []struct {
		args  []string
		scale bool
		want  []float64
	}{
		{[]string{"--kernel", "gaussian"}, false, []float64{1}},
		{[]string{"--kernel", "gaussian", "--gamma", "0.25"}, false, []float64{0.25}},
		{[]string{"--kernel", "gaussian", "--gamma", " 2e-3"}, false, []float64{2e-3}},
		{[]string{"--kernel", "gaussian", "--gamma", "scale"}, true, []float64{1}},
		{[]string{"--kernel", "polynomial", "--gamma", "scale"}, true, []float64{1}},
		{[]string{"--kernel", "gaussian", "--gamma", "scale", "--gamma-grid", "0.5,1,2"}, true, []float64{0.5, 1, 2}},
		{[]string{"--kernel", "gaussian", "--gamma-grid", "0.5,1,2"}, false, []float64{0.5, 1, 2}},
	} {
		p, err := newPlan(t, append([]string{"--data", "d.csv"}, c.args...)...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if p.GammaScale != c.scale || !slices.Equal(gammas(p), c.want) {
			t.Errorf("%v: GammaScale %v, γ %v; want %v, %v", c.args, p.GammaScale, gammas(p), c.scale, c.want)
		}
	}
	// a Flags built without --gamma's text (the column kernel's) keeps Gamma
	f := &Flags{Kernel: "gaussian", Gamma: 0.5}
	specs, err := kernelGrid(f, func(string) bool { return false })
	if err != nil || len(specs) != 1 || specs[0] != (kernel.Spec{Name: "gaussian", Gamma: 0.5}) || f.GammaScale {
		t.Errorf("Flags{Gamma: 0.5}: %v, %v", specs, err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kernel", "gaussian", "--gamma", "scal"}, `--gamma "scal": want a number > 0 or scale`},
		{[]string{"--kernel", "gaussian", "--gamma", "-1"}, "gamma = -1, must be > 0"},
		{[]string{"--kernel", "gaussian", "--gamma", "scale", "--gamma-grid", "0,1"}, "--gamma-grid"},
		{[]string{"--gamma-grid", "0.1,1"}, "--gamma-grid does not apply to the linear kernel: gamma is a parameter of --kernel gaussian"},
		{[]string{"--gamma", "scale"}, "--gamma does not apply to the linear kernel: gamma is a parameter of --kernel gaussian"},
		{[]string{"--degree-grid", "2,3"}, "--degree-grid does not apply to the linear kernel: degree is a parameter of --kernel polynomial"},
		{[]string{"--kernel", "gaussian", "--coef0", "1"}, "--coef0 does not apply to the gaussian kernel: coef0 is a parameter of --kernel polynomial"},
		{[]string{"--kernel", "gaussian", "--bias", "1"}, "--bias does not apply to the gaussian kernel: bias is a parameter of --kernel linear"},
		{[]string{"--stream", "--kernel", "gaussian", "--basis", "4", "--gamma", "scale"}, "--gamma scale is resolved on the rows of one data set in memory: not with --learner rls or --stream"},
	} {
		_, err := newPlan(t, append([]string{"--data", "d.csv"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to say %q", c.args, err, c.want)
		}
	}
	_, err = newPlan(t, "--learner", "kronrls", "--rows", "r", "--cols", "c", "--pairs", "p", "--kernel", "gaussian", "--gamma", "scale")
	if err == nil || !strings.Contains(err.Error(), "not with --learner kronrls") {
		t.Errorf("kronrls --gamma scale: err = %v", err)
	}
}
