package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// validateSE checks a curve's fold means and standard errors: both or
// neither, as many as λ values, the SE not negative, NaN for none.
func validateSE(c Curve, i int) error {
	if c.FoldMeans == nil && c.SE == nil {
		return nil
	}
	if len(c.FoldMeans) != len(c.Lambdas) || len(c.SE) != len(c.Lambdas) {
		return fmt.Errorf("%w: curve %d has %d lambdas, %d fold means and %d standard errors", ErrData, i, len(c.Lambdas), len(c.FoldMeans), len(c.SE))
	}
	for j := range c.SE {
		if math.IsInf(c.FoldMeans[j], 0) || math.IsInf(c.SE[j], 0) || c.SE[j] < 0 {
			return fmt.Errorf("%w: curve %d: fold mean %g ± %g at index %d", ErrData, i, c.FoldMeans[j], c.SE[j], j)
		}
	}
	return nil
}

// validateOutputCurves checks the per-output curves (as Curves) and their
// chosen points, one per curve.
func validateOutputCurves(d *Data) error {
	if len(d.OutputCurves) == 0 {
		return nil
	}
	if len(d.OutputLambdas) != len(d.OutputCurves) || len(d.OutputValues) != len(d.OutputCurves) {
		return fmt.Errorf("%w: %d output curves, %d chosen λ and %d values", ErrData, len(d.OutputCurves), len(d.OutputLambdas), len(d.OutputValues))
	}
	for i, c := range d.OutputCurves {
		if len(c.Lambdas) == 0 || len(c.Lambdas) != len(c.Values) {
			return fmt.Errorf("%w: output curve %d has %d lambdas and %d values", ErrData, i, len(c.Lambdas), len(c.Values))
		}
		for j, v := range c.Values {
			if !(c.Lambdas[j] > 0) || math.IsInf(c.Lambdas[j], 0) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: output curve %d: λ %g, value %g at index %d", ErrData, i, c.Lambdas[j], v, j)
			}
		}
		if !(d.OutputLambdas[i] > 0) || !finite(d.OutputValues[i]) {
			return fmt.Errorf("%w: output %d chosen at λ = %g, value %g", ErrData, i, d.OutputLambdas[i], d.OutputValues[i])
		}
	}
	return nil
}

// errorPoints are the bars of a curve's fold means ± SE for plotter.YErrorBars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// addSEBars draws each point's fold mean ± SE of the curves that have them
// as a vertical bar with caps in a light shade of the curve's colour, on
// the axis ax (bar ends held as the values are, and cut at the axis
// range), and returns how many bars it drew.
func addSEBars(p *plot.Plot, curves []Curve, ax curveAxis) (int, error) {
	n := 0
	for i, c := range curves {
		var pts errorPoints
		for j, se := range c.SE {
			m := c.FoldMeans[j]
			if math.IsNaN(se) || math.IsNaN(m) {
				continue
			}
			// ends within the axis range (the axis is the values'; a bar may reach past it)
			lo, y, hi := math.Max(ax.hold(m-se), ax.Min), ax.hold(m), math.Min(ax.hold(m+se), ax.Max)
			if !(y >= ax.Min && y <= ax.Max) {
				continue
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: math.Log2(c.Lambdas[j]), Y: y})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: y - lo, High: hi - y})
		}
		if len(pts.XYs) == 0 {
			continue
		}
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return 0, fmt.Errorf("report: standard errors of curve %d: %w", i, err)
		}
		col := palette[i%len(palette)]
		if r, g, b, a := col.RGBA(); a > 0 { // lighter than the line, which stays readable over the bars
			col = color.NRGBA{R: uint8((r>>8 + 2*255) / 3), G: uint8((g>>8 + 2*255) / 3), B: uint8((b>>8 + 2*255) / 3), A: 255}
		}
		bars.LineStyle = draw.LineStyle{Color: col, Width: 1}
		bars.CapWidth = 4
		p.Add(bars)
		n += len(pts.XYs)
	}
	return n, nil
}

// outputCurvesFigure draws each output's own CV curve (a λ per output)
// over log₂ λ with its chosen point ringed.
func outputCurvesFigure(d *Data) (figure, error) {
	measure := measureName(d)
	better := "lower is better"
	if d.HigherIsBetter {
		better = "higher is better"
	}
	p := newPlot("Cross-validated "+measure+" of each output", "log₂ λ", measure+" ("+better+")")
	p.X.Tick.Marker = log2Ticks{}
	var all []float64
	for _, c := range d.OutputCurves {
		all = append(all, c.Values...)
	}
	ax := newCurveAxis(all, d.HigherIsBetter)
	if ax.Focus != nil {
		p.Y.Scale = *ax.Focus
		p.Y.Tick.Marker = focusTicks{*ax.Focus}
	}
	chosen := ""
	for i, c := range d.OutputCurves {
		col := palette[i%len(palette)]
		ls := draw.LineStyle{Color: col, Width: 1.5, Dashes: dashes(i)}
		gs := draw.GlyphStyle{Color: col, Radius: 2.5, Shape: shapes[i%len(shapes)]}
		xs, ys := make([]float64, len(c.Lambdas)), make([]float64, len(c.Values))
		for j := range c.Lambdas {
			xs[j], ys[j] = math.Log2(c.Lambdas[j]), ax.hold(c.Values[j])
		}
		if err := addRuns(p, xs, ys, ls, gs); err != nil {
			return figure{}, fmt.Errorf("report: output curve %d: %w", i, err)
		}
		ring, err := plotter.NewScatter(plotter.XYs{{X: math.Log2(d.OutputLambdas[i]), Y: ax.hold(d.OutputValues[i])}})
		if err != nil {
			return figure{}, fmt.Errorf("report: output %d's chosen point: %w", i, err)
		}
		ring.GlyphStyle = draw.GlyphStyle{Color: col, Radius: 6, Shape: thickRing{}}
		p.Add(ring)
		p.Legend.Add(curveLabel(d.OutputCurves, i), &plotter.Line{LineStyle: ls}, &plotter.Scatter{GlyphStyle: gs})
		if i > 0 {
			chosen += "; "
		}
		chosen += fmt.Sprintf("%s: λ = %s, %s = %s", curveLabel(d.OutputCurves, i), Pow2(d.OutputLambdas[i]), measure, num(d.OutputValues[i]))
	}
	p.Y.Min, p.Y.Max = ax.Min, ax.Max
	p.Legend.Top = true
	caption := fmt.Sprintf("Each output's λ is chosen by its own curve — the %s of that output's cross-validated predictions alone, from the same factorization — and the model applies it to that output (ringed). %s.", measure, chosen)
	if f := ax.Focus; f != nil {
		caption += " " + focusNote(*f, "The y axis", measure)
	}
	svg, err := renderSVG(p, "Cross-validated "+measure+" of each output over log2 lambda")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "cv-output-curves", Heading: "Cross-validation curve of each output", SVG: svg, Caption: caption}, nil
}
