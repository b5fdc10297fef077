package linalg

import (
	"testing"
)

// TestEstimatesScale checks the estimates' form: positive, cubic in m for the
// eigendecomposition and proportional to m·n·k for the product.
// (How close they come to measured runs is shown in the README, not asserted:
// timings are no unit-test material.)
func TestEstimatesScale(t *testing.T) {
	e1, e2 := EstimateEigSym(400), EstimateEigSym(600) // one calibration size, n₀ = 200
	if e1 <= 0 || e2 < 3*e1 || e2 > 4*e1 {
		t.Errorf("EstimateEigSym(400) = %v, (600) = %v: want positive and 3.375× apart", e1, e2)
	}
	g1, g2 := EstimateGemm(300, 300, 10), EstimateGemm(300, 300, 20)
	if g1 <= 0 || g2 < 19*g1/10 || g2 > 21*g1/10 {
		t.Errorf("EstimateGemm k=10: %v, k=20: %v: want positive and 2× apart", g1, g2)
	}
}
