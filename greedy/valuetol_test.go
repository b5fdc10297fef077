package greedy

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestValueToleranceRoundingTerm: for an ordinal measure, and for any measure
// without prediction tolerances, a value's tolerance is the rounding of its
// sums alone, (n·t + 2)·ε·|v| (the rule at the top of ties.go) — tiny, so that
// values a few ulps apart tie and values 1e-12 apart do not. For mse with
// tolerances it adds the first-order bound 2·tol·mean|e| + tol² (one output).
func TestValueToleranceRoundingTerm(t *testing.T) {
	const n = 50
	y, p := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, float64(i%2))
		p.Set(i, 0, 0.3+0.01*float64(i))
	}
	auc, mse := mustMeasure(t, "auc"), mustMeasure(t, "mse")
	for _, tc := range []struct {
		name string
		tol  []float64
		v    float64
	}{
		{"auc with tolerances", []float64{1e-3}, 0.62},
		{"auc without", nil, 0.62},
	} {
		want := float64(n+2) * eps * tc.v
		if got := valueTolerance(auc, y, p, nil, tc.tol, tc.v); got != want {
			t.Errorf("%s: %g, want (n·t+2)·ε·|v| = %g", tc.name, got, want)
		}
	}
	v, err := mse.Score(y, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := valueTolerance(mse, y, p, nil, nil, v), float64(n+2)*eps*v; got != want {
		t.Errorf("mse without tolerances: %g, want %g", got, want)
	}
	// mse with tolerance τ: every prediction moved by τ away from its label
	// changes the mean square by 2τ·mean|e| + τ² exactly (no prediction
	// crosses its label here: |e| ≥ 0.3 > τ).
	tau := 1e-4
	meanAbs := 0.0
	for i := range n {
		meanAbs += math.Abs(p.At(i, 0) - y.At(i, 0))
	}
	meanAbs /= n
	want := 2*tau*meanAbs + tau*tau + float64(n+2)*eps*v
	if got := valueTolerance(mse, y, p, nil, []float64{tau}, v); math.Abs(got-want) > 1e-12*want {
		t.Errorf("mse with τ = %g: %g, want 2τ·mean|e| + τ² + rounding = %g", tau, got, want)
	}
}
