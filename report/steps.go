package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// StepCurve is one feature-selection path's CV curve over the number of
// selected features: Values[k-1] is the CV value after the k-th feature was
// added (greedy forward selection; one curve per λ).
type StepCurve struct {
	// Label names the curve in the legend, e.g. "lambda=0.5"; empty for a
	// single curve.
	Label string
	// Values holds the measure value per number of features, 1, 2, …; NaN
	// leaves a gap, ±Inf is not allowed.
	Values []float64
}

// validateSteps checks the selection curves of d.
func validateSteps(d *Data) error {
	if len(d.Steps) == 0 {
		return nil
	}
	for i, c := range d.Steps {
		if len(c.Values) == 0 {
			return fmt.Errorf("%w: step curve %d has no points", ErrData, i)
		}
		for j, v := range c.Values {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: step curve %d: value[%d] is infinite", ErrData, i, j)
			}
		}
	}
	if d.BestSteps < 0 || d.BestSteps >= len(d.Steps) {
		return fmt.Errorf("%w: BestSteps %d out of range [0, %d)", ErrData, d.BestSteps, len(d.Steps))
	}
	if d.BestStep < 1 || d.BestStep > len(d.Steps[d.BestSteps].Values) {
		return fmt.Errorf("%w: BestStep %d outside the chosen curve's 1…%d features", ErrData, d.BestStep, len(d.Steps[d.BestSteps].Values))
	}
	return nil
}

// integerTicks marks whole numbers of features.
type integerTicks struct{}

// Ticks implements plot.Ticker.
func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Label == "" || t.Value == math.Trunc(t.Value) {
			out = append(out, t)
		}
	}
	return out
}

// stepsFigure draws the CV curves over the number of selected features and
// marks the chosen point.
func stepsFigure(d *Data) (figure, error) {
	measure := d.Measure
	if measure == "" {
		measure = "value"
	}
	better := "lower is better"
	if d.HigherIsBetter {
		better = "higher is better"
	}
	p := newPlot("Cross-validated "+measure+" of the selection path", "features selected", measure+" ("+better+")")
	p.X.Tick.Marker = integerTicks{}
	several := len(d.Steps) > 1
	for i, c := range d.Steps {
		ls := draw.LineStyle{Color: palette[i%len(palette)], Width: 1.5}
		gs := draw.GlyphStyle{Color: palette[i%len(palette)], Radius: 2, Shape: shapes[i%len(shapes)]}
		xs := make([]float64, len(c.Values))
		for k := range xs {
			xs[k] = float64(k + 1)
		}
		if err := addRuns(p, xs, c.Values, ls, gs); err != nil {
			return figure{}, fmt.Errorf("report: step curve %d: %w", i, err)
		}
		if several {
			label := c.Label
			if label == "" {
				label = fmt.Sprintf("curve %d", i)
			}
			p.Legend.Add(label, &plotter.Line{LineStyle: ls}, &plotter.Scatter{GlyphStyle: gs})
		}
	}
	bv := d.Steps[d.BestSteps].Values[d.BestStep-1]
	best, err := plotter.NewScatter(plotter.XYs{{X: float64(d.BestStep), Y: bv}})
	if err != nil {
		return figure{}, fmt.Errorf("report: chosen point: %w", err)
	}
	best.GlyphStyle = draw.GlyphStyle{Color: palette[0], Radius: 6, Shape: thickRing{}}
	best.GlyphStyle.Color = textBlack
	p.Add(best)
	if several {
		p.Legend.Add("chosen", best)
		p.Y.Max += (p.Y.Max - p.Y.Min) * min(0.045*float64(len(d.Steps)+1), 0.6)
	}
	chosen := fmt.Sprintf("%s features", num(float64(d.BestStep)))
	if l := d.Steps[d.BestSteps].Label; l != "" {
		chosen += ", " + l
	}
	caption := fmt.Sprintf("Chosen (ringed): %s, %s = %s. Each point is the CV value after adding one more feature; the value of the chosen model is optimistic, as the same criterion chose its features.",
		chosen, measure, num(bv))
	svg, err := renderSVG(p, "Cross-validated "+measure+" over the number of selected features")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "selection-curve", Heading: "Feature selection", SVG: svg, Caption: caption}, nil
}
