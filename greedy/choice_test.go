package greedy

import "testing"

// TestChoiceRuleGridOrder: among the steps that tie the best value, the choice is the
// fewest features, then the largest λ, then the first path — whatever order
// the λ grid was given in. Values here are exact (tolerance 0) except where a
// tie is meant.
func TestChoiceRuleGridOrder(t *testing.T) {
	mse := mustMeasure(t, "mse")
	step := func(v, tol float64) Step { return Step{Value: v, Tolerance: tol} }
	for _, tc := range []struct {
		name         string
		paths        []Path
		wantL, wantK int
	}{
		{"largest λ among equal k, λ descending", []Path{
			{Lambda: 10, Steps: []Step{step(2, 0), step(1, 0)}},
			{Lambda: 1, Steps: []Step{step(2, 0), step(1, 0)}},
		}, 0, 2},
		{"largest λ among equal k, λ ascending", []Path{
			{Lambda: 1, Steps: []Step{step(2, 0), step(1, 0)}},
			{Lambda: 10, Steps: []Step{step(2, 0), step(1, 0)}},
		}, 1, 2},
		{"fewest features before λ", []Path{
			{Lambda: 10, Steps: []Step{step(2, 0), step(1, 0)}},
			{Lambda: 1, Steps: []Step{step(1, 0), step(1.5, 0)}},
		}, 1, 1},
		{"first path among equal k and λ", []Path{
			{Lambda: 1, Steps: []Step{step(1, 0)}},
			{Lambda: 1, Steps: []Step{step(1, 0)}},
		}, 0, 1},
		{"a tie within the tolerances counts", []Path{
			{Lambda: 1, Steps: []Step{step(2, 0), step(1, 0)}},
			{Lambda: 5, Steps: []Step{step(1.05, 0.03), step(0.9, 0.2)}},
		}, 1, 1},
	} {
		l, k, ok := choice(tc.paths, mse)
		if !ok || l != tc.wantL || k != tc.wantK {
			t.Errorf("%s: path %d, k %d (ok %v); want path %d, k %d", tc.name, l, k, ok, tc.wantL, tc.wantK)
		}
	}
}
