package greedy

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/selection"
)

// TestDescriptor: the registered descriptor says what greedy is — labels,
// the select parameter, the squared loss, the linear kernel with bias 1, mse,
// and no capability (its CV is its own criterion).
func TestDescriptor(t *testing.T) {
	d, err := learn.Lookup("greedy")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != Name || d.Summary != "greedy (forward feature selection for rls, --select K)" || d.Needs != learn.NeedsLabels ||
		!slices.Equal(d.Params, []learn.Param{learn.ParamSelect}) || d.Loss != learn.Squared ||
		!slices.Equal(d.Kernels, []string{"linear"}) || d.Bias != 1 || len(d.Caps) != 0 || d.SelfScaling || d.New == nil {
		t.Errorf("descriptor %+v", d)
	}
	for _, sc := range []string{"loo", "kfold", "lgo", "folds", "lpo"} {
		if got := d.Measure(sc); got != "mse" {
			t.Errorf("measure for %s: %s", sc, got)
		}
	}
	if !d.TakesKernel("linear") || d.TakesKernel("gaussian") || !d.Takes(learn.ParamSelect) || d.Takes(learn.ParamBasis) {
		t.Error("kernels or params")
	}
	if err := d.Require(learn.CanLeaveOneOut); !errors.Is(err, learn.ErrCapability) {
		t.Errorf("leave-one-out declared: %v", err)
	}
}

// TestDescriptorNew: New refuses what greedy cannot learn from; the method
// refuses other kernels; the learner's At(λ) is the selection at λ — its
// features are Select's, and its predictor is RLS retrained (by the oracle)
// on them with the setting's bias.
func TestDescriptorNew(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 12))
	x, y := oracle.Data(rng, 30, 8, 2, false, 0, oracle.Smooth)
	d := Descriptor()
	for _, c := range []struct {
		name string
		in   *learn.Input
		want error
	}{
		{"no input", nil, learn.ErrShape},
		{"no data", &learn.Input{Y: y, Select: 2}, learn.ErrShape},
		{"no labels", &learn.Input{X: x, Select: 2}, learn.ErrShape},
		{"labels of other rows", &learn.Input{X: x, Y: mat.NewDense(29, 2, nil), Select: 2}, learn.ErrShape},
		{"select 0", &learn.Input{X: x, Y: y}, ErrSelect},
		{"select more than d", &learn.Input{X: x, Y: y, Select: 9}, ErrSelect},
	} {
		if _, err := d.New(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	method, err := d.New(&learn.Input{X: x, Y: y, Select: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 1}, nil} {
		if _, err := method(learn.Setting{Kernel: k}); err == nil {
			t.Errorf("kernel %v: no error", k)
		}
	}
	l, err := method(learn.Setting{Kernel: kernel.Linear{Bias: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Name() != Name || l.Labels() != y {
		t.Errorf("name %s, labels %p", l.Name(), l.Labels())
	}
	if _, err := l.At(0); !errors.Is(err, learn.ErrLambda) {
		t.Errorf("λ = 0: %v", err)
	}
	for _, lambda := range []float64{0.1, 10} {
		s, err := l.At(lambda)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := Select(x, y, Options{Lambdas: []float64{lambda}, Bias: 2, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		got := s.(*Solution).Result
		if !slices.Equal(got.Selected, ref.Selected) || got.K != ref.K || got.Lambda != lambda {
			t.Errorf("λ %g: selected %v (k %d), Select %v (k %d)", lambda, got.Selected, got.K, ref.Selected, ref.K)
		}
		f := mat.NewDense(30, len(got.Selected), nil)
		for n, j := range got.Selected {
			f.SetCol(n, mat.Col(nil, j, x))
		}
		all := oracle.AllRows(30)
		want := oracle.Ridge(oracle.Problem{X: f, Y: y, K: oracle.Kernel{Name: "linear", Bias: 2}, Primal: true}, all, all, lambda)
		p, err := s.Predictor().Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		if r := oracle.RelErr(p, want); r > 1e-10 {
			t.Errorf("λ %g: predictions differ from retraining by %.2g", lambda, r)
		}
		if learn.Has(s, learn.CanLeaveOneOut) || learn.Has(s, learn.CanHoldOut) {
			t.Error("the solution has a hold-out shortcut it does not declare")
		}
	}
}

// TestDescriptorSearch: the engine's search trains greedy through the
// registry (standardizing once, no cross-validation of its own) and returns
// the selection's model at the λ given.
func TestDescriptorSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 13))
	x, y := oracle.Data(rng, 30, 8, 1, false, 0, oracle.Smooth)
	d, err := learn.Lookup(string(Name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := selection.Search(selection.Problem{Learner: d, Input: &learn.Input{X: x, Y: y, Select: 2}, Standardize: true},
		selection.Settings{Kernels: []kernel.Spec{{Name: "linear", Bias: 1}}, Lambdas: []float64{1},
			Scheme: selection.Scheme{Kind: selection.None, Name: "none"}, Measure: mustMeasure(t, "mse")})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Select(x, y, Options{Lambdas: []float64{1}, Bias: 1, K: 2, Standardize: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := res.Predictor.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ref.Predictor.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	if r := oracle.RelErr(p, q); r > 1e-12 {
		t.Errorf("search's model differs from Select's by %.2g", r)
	}
	if _, err := selection.Search(selection.Problem{Learner: d, Input: &learn.Input{X: x, Y: y, Select: 2}},
		selection.Settings{Kernels: []kernel.Spec{{Name: "linear", Bias: 1}}, Lambdas: []float64{1},
			Scheme: selection.Scheme{Kind: selection.LOO, Name: "loo"}, Measure: mustMeasure(t, "mse")}); !errors.Is(err, learn.ErrCapability) {
		t.Errorf("leave-one-out of greedy's chosen model: %v, want ErrCapability", err)
	}
}
