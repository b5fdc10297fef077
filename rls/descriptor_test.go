package rls

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// The descriptor's New refuses an input without rows (learn.ErrShape) and
// otherwise trains: the factored learner for the factored forms, exact
// against retraining, and for Input.Form learn.Iterative the conjugate
// gradient learner (no shortcuts), its predictions equal to retraining up to
// the stopping rule.
func TestDescriptorNew(t *testing.T) {
	d := Descriptor()
	for _, in := range []*learn.Input{nil, {}} {
		if _, err := d.New(in); !errors.Is(err, learn.ErrShape) {
			t.Errorf("New(%v): err = %v, want learn.ErrShape", in, err)
		}
	}
	rng := rand.New(rand.NewPCG(21, 21))
	x, y := randProblem(rng, 15, 3, 2, false)
	const lambda = 0.7
	for _, c := range []struct {
		name    string
		form    learn.Form
		k       kernel.Kernel
		factors bool
		tol     float64
	}{
		{"dual", learn.Dual, kernel.Gaussian{Gamma: 0.3}, true, 1e-10},
		{"auto, linear", learn.Auto, kernel.Linear{Bias: 1}, true, 1e-10},
		// the relative error of the weights is at most κ·Tol (cg.Options.Tol)
		{"iterative", learn.Iterative, kernel.Linear{Bias: 1}, false, 1e-6},
	} {
		method, err := d.New(&learn.Input{X: x, Y: y, Form: c.form, Tol: 1e-12})
		if err != nil {
			t.Errorf("%s: New: %v", c.name, err)
			continue
		}
		l, err := method(learn.Setting{Kernel: c.k})
		if err != nil {
			t.Errorf("%s: training: %v", c.name, err)
			continue
		}
		if _, ok := l.(*RLS); ok != c.factors {
			t.Errorf("%s: learner %T, factored %v, want %v", c.name, l, ok, c.factors)
		}
		s, err := l.At(lambda)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, ok := s.(learn.LeaveOneOuter); ok != c.factors {
			t.Errorf("%s: solution %T has leave-one-out %v, want %v", c.name, s, ok, c.factors)
		}
		got, err := s.Predictor().Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		p := problem{x: x, y: y, kern: c.k}
		all := oracle.AllRows(15)
		if e := relErr(got, naivePredict(p, all, all, lambda)); e > c.tol {
			t.Errorf("%s: predictions rel. error %.2e against retraining", c.name, e)
		}
	}
}
