package rank

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// The descriptors' New refuses an input without rows (learn.ErrShape), and
// the query ranker one without query ids; otherwise the method trains the
// learner the input asks for — the factored ranker (exact against
// retraining, with shortcuts) or, for Input.Form learn.Iterative, the
// conjugate gradient learner (no shortcuts; equal to retraining up to its
// stopping rule) — and the query normalization and a preference graph's
// cost reach the learner.
func TestDescriptors(t *testing.T) {
	for _, d := range []learn.Descriptor{GlobalDescriptor(), QueryDescriptor(), PreferenceDescriptor()} {
		for _, in := range []*learn.Input{nil, {}} {
			if _, err := d.New(in); !errors.Is(err, learn.ErrShape) {
				t.Errorf("%s: New(%v): err = %v, want learn.ErrShape", d.Name, in, err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(33, 33))
	const m = 14
	x, y := randData(rng, m, 3, 1, false)
	queries := make([]int, m)
	for i := range queries {
		queries[i] = i % 3
	}
	edges := randomEdges(rng, m, 30)
	for k := range edges {
		edges[k].Magnitude++ // the inverse cost divides by it
	}
	gauss := kernel.Gaussian{Gamma: 0.3}
	lin := kernel.Linear{}
	const lambda = 2.0
	all := allRows(m)
	for _, c := range []struct {
		name    string
		d       learn.Descriptor
		in      learn.Input
		k       kernel.Kernel
		edges   []oracle.Edge // what retraining minimizes
		factors bool
		tol     float64
	}{
		{"global, dual", GlobalDescriptor(), learn.Input{Form: learn.Dual}, gauss, scoringEdges(y, nil), true, 1e-9},
		{"global, iterative", GlobalDescriptor(), learn.Input{Form: learn.Iterative, Tol: 1e-12}, lin, scoringEdges(y, nil), false, 1e-6},
		{"query", QueryDescriptor(), learn.Input{Groups: queries}, gauss, scoringEdges(y, queries), true, 1e-9},
		{"query, normalized", QueryDescriptor(), learn.Input{Groups: queries, QueryNormalize: true}, gauss, normalizedEdges(y, queries, nil), true, 1e-9},
		{"query, iterative", QueryDescriptor(), learn.Input{Groups: queries, Form: learn.Iterative, Tol: 1e-12}, lin, scoringEdges(y, queries), false, 1e-6},
		{"preference, unit", PreferenceDescriptor(), learn.Input{Graph: edges}, gauss, oracleEdges(edges, Unit), true, 1e-9},
		{"preference, inverse", PreferenceDescriptor(), learn.Input{Graph: edges, Cost: "inverse"}, gauss, oracleEdges(edges, Inverse), true, 1e-9},
	} {
		in := c.in
		in.X, in.Y = x, y
		method, err := c.d.New(&in)
		if err != nil {
			t.Errorf("%s: New: %v", c.name, err)
			continue
		}
		l, err := method(learn.Setting{Kernel: c.k})
		if err != nil {
			t.Errorf("%s: training: %v", c.name, err)
			continue
		}
		s, err := l.At(lambda)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, ok := s.(learn.HoldOuter); ok != c.factors {
			t.Errorf("%s: solution %T has hold-outs %v, want %v", c.name, s, ok, c.factors)
		}
		got, err := s.Predictor().Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		p := problem{x: x, y: y, kern: c.k}
		if e := relErr(got, oracleFit(p, c.edges, nil, all, lambda)); e > c.tol {
			t.Errorf("%s: predictions rel. error %.2e against retraining", c.name, e)
		}
	}
	// refusals
	for _, c := range []struct {
		name string
		d    learn.Descriptor
		in   learn.Input
	}{
		{"query without ids", QueryDescriptor(), learn.Input{X: x, Y: y}},
		{"query, iterative, normalized", QueryDescriptor(), learn.Input{X: x, Y: y, Groups: queries, Form: learn.Iterative, QueryNormalize: true}},
		{"preference, unknown cost", PreferenceDescriptor(), learn.Input{X: x, Graph: edges, Cost: "quadratic"}},
	} {
		if _, err := c.d.New(&c.in); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// A preference model's one output is named "score", or after the first of
// the input's output names when labels come with it (they score its
// cross-validation).
func TestPreferenceOutputName(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 34))
	x, y := randData(rng, 8, 2, 1, false)
	edges := []Edge{{I: 0, J: 1}, {I: 2, J: 3}, {I: 1, J: 5}, {I: 7, J: 6}}
	for _, c := range []struct {
		name string
		in   learn.Input
		want string
	}{
		{"no labels", learn.Input{}, "score"},
		{"names without labels", learn.Input{Outputs: []string{"rel"}}, "score"},
		{"labels without names", learn.Input{Y: y}, "score"},
		{"labels with names", learn.Input{Y: y, Outputs: []string{"rel", "other"}}, "rel"},
	} {
		in := c.in
		in.X, in.Graph = x, edges
		method, err := PreferenceDescriptor().New(&in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		l, err := method(learn.Setting{Kernel: kernel.Gaussian{Gamma: 1}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s, _ := l.At(1)
		if got := s.Predictor().Outputs; len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: outputs %q, want [%q]", c.name, got, c.want)
		}
	}
}

// ParseCost maps the documented names, "" as unit, and refuses others.
func TestParseCost(t *testing.T) {
	for s, want := range map[string]Cost{"": Unit, "unit": Unit, "magnitude": Magnitude, "inverse": Inverse} {
		if got, err := ParseCost(s); err != nil || got != want {
			t.Errorf("ParseCost(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseCost("Unit"); err == nil {
		t.Error(`ParseCost("Unit"): no error`)
	}
}
