package pairwise

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// RowCIndex names the per-row-averaged concordance index
// (measure.RowAveragedCIndex), measure.ByName("cindex-row").
//
// Deprecated: use measure.ByName("cindex-row"), scored with each pair's row
// object as its query id.
const RowCIndex = "cindex-row"

// Measure is a measure of package measure scoring the pooled predictions of
// pairs as one output, with each pair's row object as its query id (which
// makes "disagreement" and "cindex-row" per row object).
//
// Deprecated: use measure.Measure (measure.ByName) with selection.Search,
// passing each pair's row object as its query id; this wrapper is kept for
// the command line until it moves and will be deleted then.
type Measure struct {
	measure.Measure
}

// Score scores the labels y and predictions p of n pairs whose row objects
// are rows: the embedded measure on them as n×1 matrices with rows as the
// query ids. Cost: the measure's.
//
// Deprecated: use measure.Measure.Score with the rows as query ids.
func (m Measure) Score(y, p []float64, rows []int) (float64, error) {
	return m.Measure.Score(mat.NewDense(len(y), 1, y), mat.NewDense(len(p), 1, p), rows)
}

// MeasureByName returns measure.ByName(name) wrapped as a Measure;
// multiclass-accuracy does not apply to pairs (one label each).
//
// Deprecated: use selection.Search with measure.ByName and each pair's row
// object as its query id.
func MeasureByName(name string) (Measure, error) {
	m, err := measure.ByName(name)
	if err != nil {
		return Measure{}, err
	}
	if m.Name == "multiclass-accuracy" {
		return Measure{}, fmt.Errorf("%w: %s needs one output per class; pairs have one label", measure.ErrUnknown, m.Name)
	}
	return Measure{Measure: m}, nil
}

// MeasureNames lists the names MeasureByName accepts: measure.Names() but
// multiclass-accuracy.
//
// Deprecated: use measure.Names.
func MeasureNames() []string {
	var out []string
	for _, n := range measure.Names() {
		if n != "multiclass-accuracy" {
			out = append(out, n)
		}
	}
	return out
}

// Point is one point of a pairwise cross-validation curve.
//
// Deprecated: use selection.Point (selection.Search's curves).
type Point struct {
	Lambda float64 `json:"lambda"`
	// ColLambda is two-step RLS's column λ (0 for Kronecker RLS).
	ColLambda float64 `json:"col_lambda,omitempty"`
	Value     float64 `json:"value"`
}

// Result is a cross-validation curve and its best point.
//
// Deprecated: use selection.Search's result.
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

// scorer scores the pooled CV predictions of the given pairs (n×1, in
// their order) and keeps the best point.
type scorer struct {
	lab   *labels
	meas  Measure
	res   *Result
	order func(a, b Point) bool // tie-break: a preferred over b at equal value
}

func (sc *scorer) add(pt Point, p *mat.Dense) error {
	var y, pp []float64
	var rows []int
	for i, v := range p.RawMatrix().Data {
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
		r.BestIndex, r.Best = len(r.Curve)-1, pt
		r.Predictions = append(r.Predictions[:0], p.RawMatrix().Data...)
	}
	return nil
}

// SelectKron cross-validates Kronecker RLS with the design along the λ grid
// (CrossValidateDesign) and scores the pooled predictions, each pair's row
// object its query id: the curve, the best λ (ties: the larger λ) and the
// predictions there. Predictions are compared exactly (no tie rule). Cost:
// CrossValidate's plus the measure's.
//
// Deprecated: use selection.Search with KronRLSDescriptor's method and the
// design as its scheme, which applies the one tie rule (the learner's
// Perturbed twin); this wrapper is kept for the command line until it moves
// and will be deleted then.
func SelectKron(k *KronRLS, d Design, grid []float64, meas Measure) (*Result, error) {
	sc := &scorer{lab: k.lab, meas: meas, res: &Result{Design: d, Measure: meas.Name, BestIndex: -1},
		order: func(a, b Point) bool { return a.Lambda > b.Lambda }}
	err := k.CrossValidateDesign(d.Learn(), grid, nil, func(i, _ int, p *mat.Dense) error {
		return sc.add(Point{Lambda: grid[i]}, p)
	})
	if err != nil {
		return nil, err
	}
	return sc.res, nil
}

// SelectTwoStep cross-validates two-step RLS with the design on the grid of
// (λ_r, λ_c) pairs, searched jointly (CrossValidateDesign; ties: the larger
// λ_r·λ_c), scored as SelectKron scores.
//
// Deprecated: use selection.Search with TwoStepDescriptor's method, the
// design as its scheme and the column λ grid, which applies the one tie
// rule; this wrapper is kept for the command line until it moves and will
// be deleted then.
func SelectTwoStep(t *TwoStep, d Design, rowGrid, colGrid []float64, meas Measure) (*Result, error) {
	sc := &scorer{lab: t.lab, meas: meas, res: &Result{Design: d, Measure: meas.Name, BestIndex: -1},
		order: func(a, b Point) bool { return a.Lambda*a.ColLambda > b.Lambda*b.ColLambda }}
	err := t.CrossValidateDesign(d.Learn(), rowGrid, colGrid, func(i, j int, p *mat.Dense) error {
		return sc.add(Point{Lambda: rowGrid[i], ColLambda: colGrid[j]}, p)
	})
	if err != nil {
		return nil, err
	}
	return sc.res, nil
}
