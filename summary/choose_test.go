package summary_test

import (
	"encoding/json"
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// TestPointSE: a point with per-fold values (NFolds ≥ 2) carries its
// standard error and fold mean — a zero SE too — and one without none.
func TestPointSE(t *testing.T) {
	spec := kernel.Spec{Name: "linear"}
	for _, tc := range []struct {
		p    selection.Point
		want string
	}{
		{selection.Point{Lambda: 2, Value: 0.5, FoldMean: 0.52, SE: 0.03, NFolds: 5}, `{"lambda":2,"value":0.5,"se":0.03,"fold_mean":0.52}`},
		{selection.Point{Lambda: 2, Value: 0.5, FoldMean: 0.5, SE: 0, NFolds: 2}, `{"lambda":2,"value":0.5,"se":0,"fold_mean":0.5}`},
		{selection.Point{Lambda: 2, Value: 0.5, FoldMean: 0.5, SE: 0.1, NFolds: 1}, `{"lambda":2,"value":0.5}`},
	} {
		b, _ := json.Marshal(summary.Point(tc.p, spec, false))
		if string(b) != tc.want {
			t.Errorf("%+v: %s, want %s", tc.p, b, tc.want)
		}
	}
}
