package learners_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	_ "github.com/rlskit/rlskit/learners"
)

// inputFor builds a small input with what the descriptor needs.
func inputFor(d *learn.Descriptor) *learn.Input {
	rng := rand.New(rand.NewPCG(3, 9))
	dense := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	if d.Needs.Has(learn.NeedsPairs) {
		in := &learn.Input{X: dense(6, 2), Cols: dense(5, 2)}
		var y []float64
		for i := 0; i < 6; i++ {
			for j := 0; j < 5; j++ {
				in.Pairs = append(in.Pairs, learn.ObjectPair{Row: i, Col: j})
				y = append(y, rng.NormFloat64())
			}
		}
		in.Y = mat.NewDense(len(y), 1, y)
		return in
	}
	const m = 20
	in := &learn.Input{X: dense(m, 3), Y: dense(m, 1), Select: 2}
	if d.Needs.Has(learn.NeedsGroups) {
		for i := 0; i < m; i++ {
			in.Groups = append(in.Groups, i%4)
		}
	}
	if d.Needs.Has(learn.NeedsGraph) {
		for i := 0; i+1 < m; i++ {
			in.Graph = append(in.Graph, learn.Edge{I: i, J: i + 1, Magnitude: 1, Weight: 1})
		}
	}
	return in
}

// undeclared lists capabilities a learner has but deliberately does not
// declare, with the reason.
var undeclared = map[learn.Name]map[learn.Capability]string{
	// a learner of pairs holds out pairs through its object designs (setting
	// A is "pairs"), so its row-style hold-outs are not offered to schemes
	learn.KronRLS: {learn.CanLeaveOneOut: "setting A is the pairs design", learn.CanHoldOut: "object designs"},
	learn.TwoStep: {learn.CanLeaveOneOut: "setting A is the pairs design", learn.CanHoldOut: "object designs"},
}

// Every registered learner has exactly the capabilities it declares: each
// declared one is there on a trained learner (or its solution), and each one
// present is declared (or listed above with its reason). Plans are checked
// against the declarations before any training, so a false declaration
// would fail late — or let a scheme through that the learner cannot run.
func TestDeclaredCapabilities(t *testing.T) {
	onSolution := []learn.Capability{learn.CanLeaveOneOut, learn.CanHoldOut, learn.CanLeavePairOut, learn.CanHoldOutBasis}
	onLearner := []learn.Capability{learn.CanRelabel, learn.CanPerturb, learn.CanHoldOutObjects, learn.CanColLambda}
	ds := learn.Descriptors()
	if len(ds) < 4 {
		t.Fatalf("%d learners registered: %v", len(ds), learn.Names())
	}
	for _, d := range ds {
		in := inputFor(d)
		method, err := d.New(in)
		if err != nil {
			t.Fatalf("%s: New: %v", d.Name, err)
		}
		spec := kernel.Spec{Name: "gaussian", Gamma: 0.5}
		if !d.TakesKernel("gaussian") {
			spec = kernel.Spec{Name: "linear", Bias: 1}
		}
		k, _ := kernel.New(spec)
		l, err := method(learn.Setting{Kernel: k, ColKernel: k})
		if err != nil {
			t.Fatalf("%s: training: %v", d.Name, err)
		}
		var sol learn.Solution
		if c, ok := l.(learn.ColLambdaLearner); ok {
			sol, err = c.AtBoth(1, 1)
		} else {
			sol, err = l.At(1)
		}
		if err != nil {
			t.Fatalf("%s: solving: %v", d.Name, err)
		}
		check := func(v any, caps []learn.Capability) {
			for _, c := range caps {
				has, declared := learn.Has(v, c), d.Can(c)
				switch {
				case declared && !has:
					t.Errorf("%s declares %s but has not got it", d.Name, c)
				case has && !declared && undeclared[d.Name][c] == "":
					t.Errorf("%s has %s but does not declare it", d.Name, c)
				}
			}
		}
		check(sol, onSolution)
		check(l, onLearner)
		if d.Summary == "" || d.Measure("loo") == "" {
			t.Errorf("%s: no summary or default measure", d.Name)
		}
	}
}

// A learner that declares CanCG trains by conjugate gradients through the
// one search (Input.Form learn.Iterative) and agrees with its direct
// factorization at the same λ: the stopping rule ‖r‖ ≤ Tol·‖b‖ bounds the
// weights' relative error by κ·Tol (κ ≤ 10³ here, Tol 1e-13), so 1e-8 of the
// predictions' scale would catch a wrong loss or bias. A learner that does
// not declare it refuses the iterative form.
func TestDeclaredConjugateGradients(t *testing.T) {
	lin := kernel.Spec{Name: "linear", Bias: 1}
	for _, d := range learn.Descriptors() {
		if !d.TakesKernel("linear") || d.Needs.Has(learn.NeedsPairs) {
			continue
		}
		in := inputFor(d)
		predict := func(form learn.Form) ([]float64, error) {
			cp := *in
			cp.Form, cp.Tol, cp.MaxIter = form, 1e-13, 10000
			method, err := d.New(&cp)
			if err != nil {
				return nil, err
			}
			k, _ := kernel.New(lin)
			l, err := method(learn.Setting{Kernel: k})
			if err != nil {
				return nil, err
			}
			s, err := l.At(0.5)
			if err != nil {
				return nil, err
			}
			p, err := s.Predictor().Predict(in.X)
			if err != nil {
				return nil, err
			}
			return mat.Col(nil, 0, p), nil
		}
		got, err := predict(learn.Iterative)
		if !d.Can(learn.CanCG) {
			if err == nil {
				t.Errorf("%s does not declare conjugate gradients but trained by them", d.Name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: conjugate gradients: %v", d.Name, err)
		}
		want, err := predict(learn.Dual)
		if err != nil {
			t.Fatalf("%s: direct: %v", d.Name, err)
		}
		scale := 0.0
		for _, v := range want {
			scale = max(scale, v, -v)
		}
		for i := range want {
			if diff := got[i] - want[i]; diff > 1e-8*scale || diff < -1e-8*scale {
				t.Errorf("%s row %d: conjugate gradients %v, direct %v", d.Name, i, got[i], want[i])
			}
		}
	}
}
