package pairwise

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// RowCIndex names the per-row-averaged concordance index
// (measure.RowAveragedCIndex) among the pairwise measures.
const RowCIndex = "cindex-row"

// Measure scores pooled pairwise predictions: the labels y and predictions p
// of the pairs, and each pair's row object.
type Measure struct {
	Name           string
	HigherIsBetter bool
	Score          func(y, p []float64, rows []int) (float64, error)
}

// Better reports whether a is strictly better than b (NaN is never better;
// anything beats NaN).
func (m Measure) Better(a, b float64) bool {
	return measure.Measure{HigherIsBetter: m.HigherIsBetter}.Better(a, b)
}

// MeasureByName returns a measure of package measure by its name, scored on
// the pooled pairs as one output (disagreement with the row objects as its
// queries), or RowCIndex. Multi-output measures do not apply.
func MeasureByName(name string) (Measure, error) {
	if strings.EqualFold(name, RowCIndex) {
		return Measure{Name: RowCIndex, HigherIsBetter: true, Score: measure.RowAveragedCIndex}, nil
	}
	m, err := measure.ByName(name)
	if err != nil {
		return Measure{}, fmt.Errorf("%w (or %s)", err, RowCIndex)
	}
	if m.Name == "multiclass-accuracy" {
		return Measure{}, fmt.Errorf("%w: %s needs one output per class; pairs have one label", measure.ErrUnknown, m.Name)
	}
	return Measure{Name: m.Name, HigherIsBetter: m.HigherIsBetter, Score: func(y, p []float64, rows []int) (float64, error) {
		return m.Score(mat.NewDense(len(y), 1, y), mat.NewDense(len(p), 1, p), rows)
	}}, nil
}

// MeasureNames lists the names MeasureByName accepts.
func MeasureNames() []string {
	var out []string
	for _, n := range measure.Names() {
		if n != "multiclass-accuracy" {
			out = append(out, n)
		}
	}
	return append(out, RowCIndex)
}

// Point is one point of a pairwise cross-validation curve.
type Point struct {
	Lambda float64 `json:"lambda"`
	// ColLambda is two-step RLS's column λ (0 for Kronecker RLS).
	ColLambda float64 `json:"col_lambda,omitempty"`
	Value     float64 `json:"value"`
}

// Result is a cross-validation curve and its best point.
type Result struct {
	Design    Design
	Measure   string
	Curve     []Point
	Best      Point
	BestIndex int
	// Predictions are the cross-validation predictions at the best point for
	// the pairs as given (NaN for pairs no fold predicts).
	Predictions []float64
}

// scorer pools the CV predictions of the given pairs and scores them.
type scorer struct {
	lab   *labels
	meas  Measure
	res   *Result
	order func(a, b Point) bool // tie-break: a preferred over b at equal value
}

func (sc *scorer) add(pt Point, p *mat.Dense) error {
	all := sc.lab.pick(p)
	var y, pp []float64
	var rows []int
	for i, v := range all {
		if math.IsNaN(v) {
			continue
		}
		if math.IsInf(v, 0) {
			pr := sc.lab.given[i]
			return fmt.Errorf("pairwise: %w: the cross-validation prediction of pair %d (%d, %d) is %v (rescale the features or labels)",
				learn.ErrShape, i, pr.Row, pr.Col, v)
		}
		y, pp, rows = append(y, sc.lab.givenY[i]), append(pp, v), append(rows, sc.lab.given[i].Row)
	}
	if len(y) == 0 {
		return fmt.Errorf("%w: %s predicts none of the pairs", ErrSetting, sc.res.Design)
	}
	v, err := sc.meas.Score(y, pp, rows)
	if err != nil {
		return fmt.Errorf("pairwise: %s: %w", sc.meas.Name, err)
	}
	pt.Value = v
	r := sc.res
	r.Curve = append(r.Curve, pt)
	if r.BestIndex < 0 || sc.meas.Better(v, r.Best.Value) || (v == r.Best.Value && sc.order(pt, r.Best)) {
		r.BestIndex, r.Best, r.Predictions = len(r.Curve)-1, pt, all
	}
	return nil
}

// SelectKron cross-validates Kronecker RLS with the design along the λ grid
// and scores the pooled predictions: the curve, the best λ (ties: the larger
// λ) and the predictions there. Cost: CrossValidate's plus the measure's.
func SelectKron(k *KronRLS, d Design, grid []float64, meas Measure) (*Result, error) {
	sc := &scorer{lab: k.lab, meas: meas, res: &Result{Design: d, Measure: meas.Name, BestIndex: -1},
		order: func(a, b Point) bool { return a.Lambda > b.Lambda }}
	err := k.CrossValidate(d, grid, func(i int, p *mat.Dense) error {
		return sc.add(Point{Lambda: grid[i]}, p)
	})
	if err != nil {
		return nil, err
	}
	return sc.res, nil
}

// SelectTwoStep cross-validates two-step RLS with the design on the grid of
// (λ_r, λ_c) pairs, searched jointly (ties: the larger λ_r·λ_c).
func SelectTwoStep(t *TwoStep, d Design, rowGrid, colGrid []float64, meas Measure) (*Result, error) {
	sc := &scorer{lab: t.lab, meas: meas, res: &Result{Design: d, Measure: meas.Name, BestIndex: -1},
		order: func(a, b Point) bool { return a.Lambda*a.ColLambda > b.Lambda*b.ColLambda }}
	err := t.CrossValidate(d, rowGrid, colGrid, func(i, j int, p *mat.Dense) error {
		return sc.add(Point{Lambda: rowGrid[i], ColLambda: colGrid[j]}, p)
	})
	if err != nil {
		return nil, err
	}
	return sc.res, nil
}

// TwoStepAt is two-step RLS with the column λ fixed, as a learn.Learner:
// At(λ) solves at (λ, col λ).
type TwoStepAt struct {
	*TwoStep
	ColLambda float64
}

// WithColLambda returns the learner whose At(λ) is Solve(λ, colLambda).
func (t *TwoStep) WithColLambda(colLambda float64) *TwoStepAt {
	return &TwoStepAt{TwoStep: t, ColLambda: colLambda}
}

// Name is learn.TwoStep.
func (t *TwoStepAt) Name() learn.Name { return learn.TwoStep }

// At solves at (λ, ColLambda): the learn.Learner contract.
func (t *TwoStepAt) At(lambda float64) (learn.Solution, error) { return t.Solve(lambda, t.ColLambda) }
