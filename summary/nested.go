package summary

import (
	"math"

	"github.com/rlskit/rlskit/selection"
)

// Nested is the JSON "outer" of a nested cross-validation of the kernel × λ
// search (selection.Nested): the pooled outer value, its standard error
// and interval at the level (omitted when undefined: fewer than two outer
// folds on which the measure is defined), the interval's method and, for
// selection.IntervalNestedCV, the bias estimate; per fold (per outer
// block of a learner of pairs) the kernel and λ (and column kernel and λ)
// the inner search chose, the inner value there and the fold's outer
// value. O(K).
func Nested(res *selection.NestedResult) *Outer {
	out := &Outer{Folds: len(res.Folds), Measure: res.Measure, Value: res.Value, Level: res.Level, Method: res.Method}
	if !math.IsNaN(res.SE) {
		se, iv := res.SE, res.Interval
		out.SE, out.Interval = &se, &iv
	}
	if res.Method == selection.IntervalNestedCV {
		b := res.Bias
		out.Bias = &b
	}
	for n, f := range res.Folds {
		fo := OuterFold{Fold: n, Kernel: &f.Kernel, ColKernel: f.ColKernel, Lambda: f.Lambda, ColLambda: f.ColLambda, Inner: f.Inner}
		if !math.IsNaN(f.Outer) {
			v := f.Outer
			fo.Outer = &v
		}
		out.PerFold = append(out.PerFold, fo)
	}
	return out
}
