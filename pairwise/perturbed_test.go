package pairwise

import (
	"errors"
	"math"
	"testing"

	"github.com/rlskit/rlskit/learn"
)

// TestPerturbedScaleRefused: the twin's label scale must be a finite non-zero
// number (learn.ErrShape otherwise) for every learner that gives a twin;
// negative and tiny scales are fine.
func TestPerturbedScaleRefused(t *testing.T) {
	rows, cols := labelSides(t, 3, 2)
	pairs, y := gridWithout(3, 2, nil)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]learn.Perturber{"kronrls": k, "twostep": ts, "twostep at λ_c": ts.WithColLambda(0.5)} {
		for _, s := range []float64{0, math.NaN(), math.Inf(1), math.Inf(-1)} {
			if tw, err := p.Perturbed(s); !errors.Is(err, learn.ErrShape) || tw != nil {
				t.Errorf("%s, scale %v: %v %v", name, s, tw, err)
			}
		}
		for _, s := range []float64{-2, 1e-300, 0.785} {
			if tw, err := p.Perturbed(s); err != nil || tw == nil {
				t.Errorf("%s, scale %v: %v", name, s, err)
			}
		}
	}
}
