package rank

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// FitPreference's checks of a graph: rows inside [0, m), no self-loop,
// magnitudes finite and ≥ 0 (0 allowed except under the inverse cost),
// weights finite and > 0 (0 meaning 1), w²·max(1, magnitude) at most 1e100,
// one magnitude list of the same length on every edge or none.
func TestPreferenceGraphChecks(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 36))
	const m = 6
	x, _ := randData(rng, m, 2, 1, false)
	opt := Options{Kernel: kernel.Gaussian{Gamma: 0.5}}
	base := []Edge{{I: 0, J: 1, Magnitude: 1}, {I: 2, J: 1, Magnitude: 2}, {I: 3, J: 4, Magnitude: 1}}
	with := func(e ...Edge) []Edge { return append(append([]Edge(nil), base...), e...) }
	for _, c := range []struct {
		name  string
		edges []Edge
		cost  Cost
		ok    bool
		msg   string // in the error, when refused
	}{
		{"rows m-1 and 0", with(Edge{I: m - 1, J: 0, Magnitude: 1}), Magnitude, true, ""},
		{"I = m", with(Edge{I: m, J: 0}), Unit, false, ""},
		{"J = m", with(Edge{I: 0, J: m}), Unit, false, ""},
		{"I = -1", with(Edge{I: -1, J: 0}), Unit, false, ""},
		{"J = -1", with(Edge{I: 0, J: -1}), Unit, false, ""},
		{"self-loop", with(Edge{I: 5, J: 5}), Unit, false, "self-loop"},
		{"magnitude 0", with(Edge{I: 4, J: 5, Magnitude: 0}), Magnitude, true, ""},
		{"magnitude 0, inverse cost", with(Edge{I: 4, J: 5, Magnitude: 0}), Inverse, false, "divides"},
		{"magnitude NaN", with(Edge{I: 4, J: 5, Magnitude: math.NaN()}), Magnitude, false, "magnitude NaN"},
		{"magnitude +Inf", with(Edge{I: 4, J: 5, Magnitude: math.Inf(1)}), Magnitude, false, "magnitude +Inf"},
		{"weight NaN", with(Edge{I: 4, J: 5, Weight: math.NaN()}), Unit, false, "weight NaN"},
		{"weight +Inf", with(Edge{I: 4, J: 5, Weight: math.Inf(1)}), Unit, false, "weight +Inf"},
		{"weight -Inf", with(Edge{I: 4, J: 5, Weight: math.Inf(-1)}), Unit, false, "weight -Inf"},
		{"w² just below 1e100", with(Edge{I: 4, J: 5, Weight: 9.9e49, Magnitude: 1}), Magnitude, true, ""},
		{"w² = 1e20, magnitude 1e90", with(Edge{I: 4, J: 5, Weight: 1e10, Magnitude: 1e90}), Magnitude, false, "= 1e+20 × 1e+90 overflows"},
		{"w² above 1e100", with(Edge{I: 4, J: 5, Weight: 2e50, Magnitude: 1}), Magnitude, false, "overflows"},
		{"w²·magnitude = 1e100 exactly", with(Edge{I: 4, J: 5, Magnitude: 1e100}), Magnitude, true, ""},
		{"w²·magnitude = 1e101", with(Edge{I: 4, J: 5, Weight: 1e-2, Magnitude: 1e105}), Magnitude, false, "= 0.0001 × 1e+105 overflows"},
		{"magnitude 3e100", with(Edge{I: 4, J: 5, Magnitude: 3e100}), Unit, false, "= 1 × 3e+100 overflows"},
		{"one magnitude list on the first edge only", []Edge{{I: 0, J: 1, Magnitudes: []float64{2}}, {I: 2, J: 1, Magnitude: 1}}, Magnitude, true, ""},
		{"lists of one under the inverse cost", []Edge{{I: 0, J: 1, Magnitudes: []float64{2}}, {I: 2, J: 1, Magnitudes: []float64{1}}}, Inverse, true, ""},
		{"empty magnitude list", []Edge{{I: 0, J: 1, Magnitudes: []float64{}}}, Magnitude, false, "empty magnitude list"},
		{"list on the first edge, none on the second", []Edge{{I: 0, J: 1, Magnitudes: []float64{1, 2}}, {I: 2, J: 1, Magnitude: 1}}, Magnitude, false, "no magnitude list"},
		{"unknown cost", base, Cost(7), false, "unknown cost"},
	} {
		_, err := FitPreference(x, c.edges, c.cost, opt)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !c.ok && !errors.Is(err, ErrGraph):
			t.Errorf("%s: err = %v, want ErrGraph", c.name, err)
		case !c.ok && !strings.Contains(err.Error(), c.msg):
			t.Errorf("%s: %q does not say %q", c.name, err, c.msg)
		}
	}
}

// A weight of 0 means 1: the same model as weight 1. And with one magnitude
// list per edge the outputs are named score, score1, …
func TestPreferenceWeightDefaultAndOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 37))
	const m = 9
	x, _ := randData(rng, m, 2, 1, false)
	opt := Options{Kernel: kernel.Gaussian{Gamma: 0.5}}
	edges := randomEdges(rng, m, 14)
	zero, one := append([]Edge(nil), edges...), append([]Edge(nil), edges...)
	for k := range edges {
		zero[k].Weight, one[k].Weight = 0, 1
	}
	a, err := FitPreference(x, zero, Magnitude, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitPreference(x, one, Magnitude, opt)
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := a.Solve(0.5)
	sb, _ := b.Solve(0.5)
	if e := relErr(sa.Fitted(), sb.Fitted()); e > 1e-14 {
		t.Errorf("weight 0 vs weight 1: rel. difference %.2e", e)
	}
	for _, c := range []struct {
		t    int
		want []string
	}{{1, []string{"score"}}, {2, []string{"score", "score1"}}, {3, []string{"score", "score1", "score2"}}} {
		multi := append([]Edge(nil), edges...)
		for k := range multi {
			multi[k].Magnitudes = make([]float64, c.t)
			for j := range multi[k].Magnitudes {
				multi[k].Magnitudes[j] = float64(j + k%3)
			}
		}
		p, err := FitPreference(x, multi, Magnitude, opt)
		if err != nil {
			t.Fatalf("%d magnitudes: %v", c.t, err)
		}
		s, _ := p.Solve(1)
		if got := s.Predictor().Outputs; strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%d magnitudes: outputs %q, want %q", c.t, got, c.want)
		}
		if _, err := FitPreference(x, multi, Magnitude, Options{Kernel: opt.Kernel, Outputs: []string{"a"}}); c.t != 1 && err == nil {
			t.Errorf("%d magnitudes with 1 output name: no error", c.t)
		}
	}
}
