package summary

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

// Selection is the JSON "selection" of a greedy forward selection.
type Selection struct {
	// Selected and Names are the final model's features, in order of selection.
	Selected []int    `json:"selected"`
	Names    []string `json:"names,omitempty"`
	// Curve has one point per step of every path (lambda only when a grid was searched).
	Curve []Step `json:"curve"`
	Best  Step   `json:"best"`
	// Memory is "cached" or "lean" (package greedy).
	Memory string `json:"memory"`
}

// Step is the CV value after adding the k-th feature (Features = k): the
// feature added and its name on the curve, λ on a grid's curves and at the
// best point.
type Step struct {
	Lambda            *float64 `json:"lambda,omitempty"`
	Features          int      `json:"features"`
	Value             float64  `json:"value"`
	Feature           *int     `json:"feature,omitempty"`
	Name              string   `json:"name,omitempty"`
	Indistinguishable bool     `json:"indistinguishable,omitempty"`
}

// Outer is the JSON "outer": the outer cross-validation of the whole
// selection — a greedy selection's (greedy.OuterResult) or the kernel × λ
// search's nested cross-validation (selection.NestedResult, Nested): the
// number of folds, the measure, its value on the pooled outer predictions
// and each fold's choice; for a nested cross-validation also the standard
// error, the interval [lo, hi] at Level, how it was formed (Method:
// selection.IntervalNestedCV — Bates, Hastie & Tibshirani 2024, centred at
// value − bias — or selection.IntervalFoldSE) and the bias estimate.
type Outer struct {
	Folds    int         `json:"folds"`
	Measure  string      `json:"measure"`
	Value    float64     `json:"value"`
	SE       *float64    `json:"se,omitempty"`
	Interval *[2]float64 `json:"interval,omitempty"`
	Level    float64     `json:"level,omitempty"`
	Method   string      `json:"method,omitempty"`
	Bias     *float64    `json:"bias,omitempty"`
	PerFold  []OuterFold `json:"per_fold"`
}

// OuterFold is the point an outer fold's selection chose — its λ, a greedy
// selection's features, a nested search's kernel (and a learner of pairs'
// column kernel and λ) — its (optimistic) inner
// CV value and, for a nested search, the measure of the fold's own outer
// predictions (omitted where undefined, e.g. auc on one class); Fold
// numbers the folds from 0 in the order given.
type OuterFold struct {
	Fold      int          `json:"fold"`
	Kernel    *kernel.Spec `json:"kernel,omitempty"`
	ColKernel *kernel.Spec `json:"col_kernel,omitempty"`
	Lambda    float64      `json:"lambda"`
	ColLambda float64      `json:"col_lambda,omitempty"`
	Features  int          `json:"features,omitempty"`
	Selected  []int        `json:"selected,omitempty"`
	Inner     float64      `json:"inner"`
	Outer     *float64     `json:"outer,omitempty"`
}

// Greedy is the summary of a greedy selection res on the data d with the
// options opt, by the learner named learner, cross-validated by the scheme
// named strategy: the linear kernel with opt.Bias, the chosen λ, the
// selection (Selection), the CV curve over λ (LambdaCurve) and, with outer
// (nil for none), the outer cross-validation. The timing is left to the caller.
func Greedy(learner string, d *dataset.Data, res *greedy.Result, opt greedy.Options, strategy string, outer *greedy.OuterResult) *Fit {
	m, width := d.X.Dims()
	out := &Fit{Learner: learner, Kernel: kernel.Spec{Name: "linear", Bias: opt.Bias}, Form: "linear", Lambda: res.Lambda,
		NTrain: m, NFeatures: width, Outputs: d.LabelNames, Backend: linalg.Backend(), Queries: QueryStats(d),
		Selection: GreedySelection(res, d.FeatureNames)}
	out.CV = &CV{Strategy: strategy, Measure: opt.Measure.Name}
	for _, c := range LambdaCurve(res, opt.Measure) {
		out.CV.Curve = append(out.CV.Curve, CurvePoint{Lambda: c.Lambda, Value: c.Value})
	}
	best := res.BestPoint()
	out.CV.Best = CurvePoint{Lambda: best.Lambda, Value: best.Value}
	if outer != nil {
		out.Outer = &Outer{Folds: len(outer.Folds), Measure: opt.Measure.Name, Value: outer.Value}
		values := make([]float64, len(outer.Folds))
		for n, fo := range outer.Folds {
			of := OuterFold{Fold: n, Lambda: fo.Lambda, Features: fo.K, Selected: fo.Selected, Inner: fo.Inner}
			values[n] = foldValue(d, outer, fo.Test, opt.Measure)
			if !math.IsNaN(values[n]) {
				v := values[n]
				of.Outer = &v
			}
			out.Outer.PerFold = append(out.Outer.PerFold, of)
		}
		// the folds' standard error (selection.IntervalFoldSE): the greedy
		// outer loop keeps no inner losses for the nested-CV interval
		if se, iv := selection.FoldSEInterval(values, outer.Value, selection.DefaultLevel); !math.IsNaN(se) {
			out.Outer.SE, out.Outer.Interval = &se, &iv
			out.Outer.Level, out.Outer.Method = selection.DefaultLevel, selection.IntervalFoldSE
		}
	}
	return out
}

// foldValue is the measure of an outer fold's predictions alone (NaN where
// it is undefined, e.g. auc on one class). O(|test|·t) plus the measure's.
func foldValue(d *dataset.Data, outer *greedy.OuterResult, test []int, meas measure.Measure) float64 {
	_, t := d.Y.Dims()
	y, p := mat.NewDense(len(test), t, nil), mat.NewDense(len(test), t, nil)
	var q []int
	for k, i := range test {
		y.SetRow(k, d.Y.RawRowView(i))
		p.SetRow(k, outer.Predictions.RawRowView(i))
		if d.Queries != nil {
			q = append(q, d.Queries[i])
		}
	}
	v, err := meas.Score(y, p, q)
	if err != nil {
		return math.NaN()
	}
	return v
}

// GreedySelection is the JSON "selection" of a result: the features
// selected (with their names when names is not nil), every path's steps
// (λ on each only when a grid was searched) and the best point — its λ,
// number of features and value (greedy.Result.BestPoint; not whether it is
// indistinguishable, which its step on the curve says).
func GreedySelection(res *greedy.Result, names []string) *Selection {
	name := func(j int) string {
		if j < len(names) {
			return names[j]
		}
		return ""
	}
	s := &Selection{Selected: res.Selected, Memory: map[bool]string{true: "cached", false: "lean"}[res.Cached]}
	if names != nil {
		for _, j := range res.Selected {
			s.Names = append(s.Names, name(j))
		}
	}
	// greedy.Result.Curve has no feature per step: the paths' steps do.
	grid := len(res.Paths) > 1
	for l, p := range res.Paths {
		for n, st := range p.Steps {
			pt := Step{Features: n + 1, Value: st.Value, Feature: &st.Feature, Name: name(st.Feature), Indistinguishable: st.Indistinguishable}
			if grid {
				pt.Lambda = &res.Paths[l].Lambda
			}
			s.Curve = append(s.Curve, pt)
		}
	}
	best := res.BestPoint()
	s.Best = Step{Lambda: &best.Lambda, Features: best.Features, Value: best.Value}
	return s
}

// LambdaCurve is a greedy selection's CV curve over λ: the best value over
// k at each λ, ascending in λ (a λ given twice keeps its first path).
func LambdaCurve(res *greedy.Result, meas measure.Measure) []selection.Point {
	var out []selection.Point
	for _, p := range res.Paths {
		best := math.NaN()
		for _, st := range p.Steps {
			if meas.Better(st.Value, best) {
				best = st.Value
			}
		}
		if !slices.ContainsFunc(out, func(q selection.Point) bool { return q.Lambda == p.Lambda }) {
			out = append(out, selection.Point{Lambda: p.Lambda, Value: best})
		}
	}
	slices.SortFunc(out, func(a, b selection.Point) int { return cmp.Compare(a.Lambda, b.Lambda) })
	return out
}
