package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot size: 480×300 pt, which is 640×400 CSS pixels (1 px = 0.75 pt).
const (
	plotWidth  = 480 * vg.Inch / 72
	plotHeight = 300 * vg.Inch / 72
)

// maxScatterPoints caps the points drawn in the prediction scatter; larger
// data are thinned to an evenly strided subset to keep the SVG small.
const maxScatterPoints = 5000

// histBins is the number of equal bins over [0, 1] of the disagreement
// histogram.
const histBins = 20

// palette holds the line colours, one per curve (cycled). Every entry is
// clearly chromatic, so that plots stand out from the grey page.
var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, // blue
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, // orange
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, // green
	color.RGBA{0xd6, 0x27, 0x28, 0xff}, // red
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, // purple
	color.RGBA{0x8c, 0x56, 0x4b, 0xff}, // brown
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, // pink
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, // olive
	color.RGBA{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// shapes holds the point glyphs, one per curve (cycled).
var shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.PyramidGlyph{},
	draw.RingGlyph{},
	draw.BoxGlyph{},
	draw.CrossGlyph{},
	draw.PlusGlyph{},
}

var (
	gridGrey  = color.Gray{Y: 0xdd}
	refGrey   = color.Gray{Y: 0x80}
	textBlack = color.Gray{Y: 0x20}
)

// sans returns the Liberation Sans font (bundled with gonum/plot, used to
// measure text; the browser substitutes its own sans-serif if needed).
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// newPlot returns a plot with the common look: sans-serif text, a light
// grid, the given title and axis labels.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(13)
	p.Title.Padding = 6
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(11)
		a.Tick.Label.Font = sans(9)
	}
	p.Legend.TextStyle.Font = sans(9)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = 18
	p.Legend.Padding = 2
	grid := plotter.NewGrid()
	grid.Vertical.Color = gridGrey
	grid.Horizontal.Color = gridGrey
	p.Add(grid)
	return p
}

// legendGap separates the plot from the legend beside it.
const legendGap = 8 * vg.Inch / 72

// renderSVG draws p on an SVG canvas of the report's plot size and returns
// the <svg> element (without the XML prolog), labelled for screen readers.
// A legend is drawn beside the plotting area, never over it: the canvas is
// widened by the legend's width.
func renderSVG(p *plot.Plot, label string) (svg template.HTML, err error) {
	lg := p.Legend
	w := lg.Rectangle(draw.Canvas{}).Size().X
	if w <= 0 {
		return renderCanvas(plotWidth, label, func(dc draw.Canvas) { p.Draw(dc) })
	}
	p.Legend = plot.NewLegend() // empty: the entries are drawn beside
	p.Legend.TextStyle = lg.TextStyle
	lg.Top, lg.Left = true, true
	lg.XOffs, lg.YOffs = 0, 0
	return renderCanvas(plotWidth+legendGap+w, label, func(dc draw.Canvas) {
		p.Draw(draw.Crop(dc, 0, -(legendGap + w), 0, 0))
		lg.Draw(draw.Crop(dc, plotWidth+legendGap, 0, 0, -(p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding + 4)))
	})
}

// renderSide draws p with side (a colour bar) in a strip of the given width
// beside it.
func renderSide(p, side *plot.Plot, width vg.Length, label string) (template.HTML, error) {
	return renderCanvas(plotWidth+width, label, func(dc draw.Canvas) {
		p.Draw(draw.Crop(dc, 0, -width, 0, 0))
		top := p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding + 4
		side.Draw(draw.Crop(dc, plotWidth+legendGap, 0, 30, -top))
	})
}

// renderCanvas draws on an SVG canvas of the given width and the plot
// height, and returns the <svg> element.
func renderCanvas(width vg.Length, label string, paint func(draw.Canvas)) (svg template.HTML, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: drawing %q: %v", label, r)
		}
	}()
	c := vgsvg.New(width, plotHeight)
	paint(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("report: writing SVG: %w", err)
	}
	s := b.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("report: SVG canvas produced no <svg> element")
	}
	s = `<svg role="img" aria-label="` + html.EscapeString(label) + `" ` + strings.TrimSpace(s[i+len("<svg"):])
	// Nothing in the element may be a fetch. vgsvg only emits the SVG and
	// XLink namespace URIs, which are names, not links; check it stays so.
	rest := strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "",
		`xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(s)
	if strings.Contains(rest, "http://") || strings.Contains(rest, "https://") {
		return "", fmt.Errorf("report: SVG of %q contains an external URL", label)
	}
	return template.HTML(s), nil
}

// curveAxis is the y axis of the CV curve plot: linear, or the focus
// transform (see focus) when values within 10 % of the best would take less
// than 30 % of a linear axis. With the focus transform, values further than
// the cut from the best (where the neighbourhood would fall below 30 %) are
// drawn at Edge, the end of the axis on the poor side.
type curveAxis struct {
	Focus    *focus
	Min, Max float64 // the axis range, padded by 5 % below and 8 % above in its coordinate
	Edge     float64 // the value at which poor values are held (±Inf: none are)
	Clipped  int     // how many values are held at Edge
	Higher   bool    // higher values are better
}

// newCurveAxis chooses the axis of the curves' values (NaN gaps and ±Inf
// left out of the range) in O(n).
func newCurveAxis(values []float64, higher bool) curveAxis {
	sp := newSpan(values, higher)
	ax := curveAxis{Edge: math.Inf(1), Higher: higher}
	if higher {
		ax.Edge = math.Inf(-1)
	}
	if !sp.ok {
		ax.Min, ax.Max = 0, 1
		return ax
	}
	lo, hi := min(sp.Best, sp.Worst), max(sp.Best, sp.Worst)
	f, cut, ok := focusFor(sp, higher, curveNearShare)
	if !ok {
		if r := hi - lo; r > 0 {
			ax.Min, ax.Max = lo-0.05*r, hi+0.08*r
		} else {
			ax.Min, ax.Max = lo-0.5, hi+0.5
		}
		return ax
	}
	ax.Focus = &f
	if sp.Dist > cut {
		ax.Edge = f.poorEnd(cut)
		for _, v := range values {
			if !higher && v > ax.Edge || higher && v < ax.Edge {
				ax.Clipped++
			}
		}
		if higher {
			lo = ax.Edge
		} else {
			hi = ax.Edge
		}
	}
	tlo, thi := f.t(lo), f.t(hi)
	r := thi - tlo
	ax.Min, ax.Max = f.inv(tlo-0.05*r), f.inv(thi+0.08*r)
	return ax
}

// hold is v as drawn: held at Edge when beyond it; NaN, and ±Inf when no
// value is held, are NaN (a gap in the curve).
func (ax curveAxis) hold(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return v
	case !math.IsInf(ax.Edge, 0) && (!ax.Higher && v > ax.Edge || ax.Higher && v < ax.Edge):
		return ax.Edge
	case math.IsInf(v, 0):
		return math.NaN()
	}
	return v
}

// focusNote is the caption sentence explaining the focus transform f of a
// plot's axis or colours (subject: "The y axis", "The colour scale").
func focusNote(f focus, subject, measure string) string {
	dist := measure + " − " + num(f.Best)
	if f.Higher {
		dist = num(f.Best) + " − " + measure
	}
	c := "0.5 % of the best"
	if f.Best == 0 {
		c = "a thousandth of the range"
	}
	return fmt.Sprintf("%s is logarithmic in the distance from the best %s: it follows log₁₀(%s + %s), %s being %s, so that the values within 10 %% of the best are spread apart; it is labelled in %s values.",
		subject, measure, dist, num(f.C), num(f.C), c, measure)
}

// log2Ticks places major ticks at integer exponents of a log₂ axis (whose
// data coordinate is log₂ λ), every 1, 2, 5, 10, 20, … exponents so that
// there are at most about ten. Ranges narrower than two units fall back to
// gonum's default ticks.
type log2Ticks struct{}

// Ticks implements plot.Ticker.
func (log2Ticks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo-1e-9), math.Floor(hi+1e-9)
	if last-first < 2 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := 1.0
	for mult := 0; (last-first)/step > 10; mult++ {
		step = []float64{2, 5, 10}[mult%3] * math.Pow(10, float64(mult/3))
	}
	var ticks []plot.Tick
	for k := math.Ceil(first/step) * step; k <= last; k += step {
		if k == 0 {
			k = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: k, Label: strconv.FormatFloat(k, 'f', -1, 64)})
	}
	if step > 1 && last-first <= 100 {
		for k := first; k <= last; k++ {
			if math.Mod(k, step) != 0 {
				ticks = append(ticks, plot.Tick{Value: k})
			}
		}
	}
	return ticks
}

// cvFigure draws the CV curves over log₂ λ and marks the chosen point.
func cvFigure(d *Data) (figure, error) {
	measure := measureName(d)
	better := "lower is better"
	if d.HigherIsBetter {
		better = "higher is better"
	}
	p := newPlot("Cross-validated "+measure, "log₂ λ", measure+" ("+better+")")
	p.X.Tick.Marker = log2Ticks{}
	var all []float64
	for _, c := range d.Curves {
		all = append(all, c.Values...)
	}
	ax := newCurveAxis(all, d.HigherIsBetter)
	if ax.Focus != nil {
		p.Y.Scale = *ax.Focus
		p.Y.Tick.Marker = focusTicks{*ax.Focus}
	}
	several := len(d.Curves) > 1

	points := 0
	for i, c := range d.Curves {
		ls := draw.LineStyle{Color: palette[i%len(palette)], Width: 1.5, Dashes: dashes(i)}
		gs := draw.GlyphStyle{Color: palette[i%len(palette)], Radius: 2.5, Shape: shapes[i%len(shapes)]}
		points += len(c.Lambdas)
		xs := make([]float64, len(c.Lambdas))
		for j, l := range c.Lambdas {
			xs[j] = math.Log2(l)
		}
		ys := make([]float64, len(c.Values))
		for j, v := range c.Values {
			ys[j] = ax.hold(v)
		}
		if err := addRuns(p, xs, ys, ls, gs); err != nil {
			return figure{}, fmt.Errorf("report: CV curve %d: %w", i, err)
		}
		if several {
			p.Legend.Add(curveLabel(d.Curves, i), &plotter.Line{LineStyle: ls}, &plotter.Scatter{GlyphStyle: gs})
		}
	}

	bars, err := addSEBars(p, d.Curves, ax)
	if err != nil {
		return figure{}, err
	}
	best, err := plotter.NewScatter(plotter.XYs{{X: math.Log2(d.BestLambda), Y: ax.hold(d.BestValue)}})
	if err != nil {
		return figure{}, fmt.Errorf("report: chosen point: %w", err)
	}
	best.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: 6, Shape: thickRing{}}
	p.Add(best)
	if ax.Clipped > 0 {
		xs := []float64{math.Inf(1), math.Inf(-1)} // the λ range of all curves
		for _, c := range d.Curves {
			for _, l := range c.Lambdas {
				xs[0], xs[1] = min(xs[0], math.Log2(l)), max(xs[1], math.Log2(l))
			}
		}
		edge, err := plotter.NewLine(plotter.XYs{{X: xs[0], Y: ax.Edge}, {X: xs[1], Y: ax.Edge}})
		if err != nil {
			return figure{}, fmt.Errorf("report: edge line: %w", err)
		}
		edge.LineStyle = draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}
		p.Add(edge)
	}
	if several {
		p.Legend.Add("chosen", best)
	}
	if len(d.OnEdge) > 0 {
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: math.Log2(d.BestLambda), Y: d.BestValue}},
			Labels: []string{"chosen at a grid's edge (see the warning)"}})
		if err != nil {
			return figure{}, err
		}
		l.TextStyle[0].Font = sans(9)
		l.TextStyle[0].Color = palette[3]
		l.Offset = vg.Point{X: -40, Y: 9}
		if math.Log2(d.BestLambda) <= (math.Log2(d.Curves[0].Lambdas[0])+math.Log2(d.Curves[0].Lambdas[len(d.Curves[0].Lambdas)-1]))/2 {
			l.Offset.X = 4
		}
		p.Add(l)
	}

	// the padded range keeps the ringed point and the edge note inside
	p.Y.Min, p.Y.Max = ax.Min, ax.Max

	chosen := fmt.Sprintf("λ = %s", Pow2(d.BestLambda))
	if several {
		chosen += ", " + curveLabel(d.Curves, d.BestCurve)
	} else if l := d.Curves[0].Label; l != "" {
		chosen += ", " + l
	}
	caption := fmt.Sprintf("Chosen (ringed): %s, %s = %s. %s, %s in all; a gap marks λ values without a %s.",
		chosen, measure, num(d.BestValue), plural(len(d.Curves), "curve", "curves"), plural(points, "point", "points"), measure)
	if d.ValueNote != "" {
		caption += " The " + measure + " is " + d.ValueNote + "."
	}
	if bars > 0 {
		caption += " The bars are the mean of the per-fold values ± one standard error (their sd/√K over the K folds; for leave-one-out the rows' losses), the uncertainty of the CV value at each λ; a bar reaching past the axis is cut at its end."
	}
	if d.ChooseNote != "" {
		caption += " " + d.ChooseNote
	}
	if f := ax.Focus; f != nil {
		caption += " " + focusNote(*f, "The y axis", measure)
		if ax.Clipped > 0 {
			dir := "above"
			if d.HigherIsBetter {
				dir = "below"
			}
			caption += fmt.Sprintf(" %s %s %s are drawn on the dashed line at that value, so that the neighbourhood of the best keeps its share of the axis.",
				plural(ax.Clipped, "value", "values"), dir, num(ax.Edge))
		}
	}
	if len(d.FoldValues) == 0 && d.NoFoldNote != "" {
		caption += " " + d.NoFoldNote
	}
	for _, e := range d.OnEdge {
		caption += " Warning: " + e + "."
	}
	svg, err := renderSVG(p, "Cross-validated "+measure+" over log2 lambda")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "cv-curve", Heading: "Cross-validation curve", SVG: svg, Caption: caption}, nil
}

// curveLabel is the legend label of curve i.
func curveLabel(cs []Curve, i int) string {
	if cs[i].Label != "" {
		return cs[i].Label
	}
	return "curve " + strconv.Itoa(i)
}

// plural formats n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// thickRing is a ring glyph drawn with a 2 pt line, for the chosen point.
type thickRing struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (thickRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: 2})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// scatterFigure draws an output's CV predictions against the true labels
// with the y = x line, on equal axis ranges.
func scatterFigure(o Output, name, id string) (figure, error) {
	n := len(o.True)
	pts := strided(n, func(i int) plotter.XY { return plotter.XY{X: o.True[i], Y: o.Predicted[i]} })
	m := len(pts)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		lo = min(lo, o.True[i], o.Predicted[i])
		hi = max(hi, o.True[i], o.Predicted[i])
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.03
	lo, hi = lo-pad, hi+pad

	p := newPlot("CV prediction vs. true label: "+name, "true label", "CV prediction")
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return figure{}, fmt.Errorf("report: y = x line: %w", err)
	}
	diag.LineStyle = draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return figure{}, fmt.Errorf("report: scatter: %w", err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: palette1(0), Radius: dotRadius(m), Shape: draw.CircleGlyph{}}
	p.Add(diag, s)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi

	caption := fmt.Sprintf("%s of %s; dashed line y = x. Mean squared error of %s over these %d CV predictions: %s.",
		shown(m, n), name, name, n, num(mse(o.True, o.Predicted)))
	svg, err := renderSVG(p, "CV prediction versus true label of "+name)
	if err != nil {
		return figure{}, err
	}
	return figure{ID: id, Heading: "Predictions vs. true labels — " + name, SVG: svg, Caption: caption}, nil
}

// mse is the mean squared difference of a and b (equal lengths, n ≥ 1).
func mse(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		e := a[i] - b[i]
		s += e * e
	}
	return s / float64(len(a))
}

// rocFigure draws a binary output's ROC curve with the diagonal reference
// and the AUC in the title.
func rocFigure(o Output, name, id string) (figure, error) {
	r := computeROC(o.True, o.Predicted)
	fpr, tpr := thinCurve(r.FPR, r.TPR, 1e-3)
	pts := make(plotter.XYs, len(fpr))
	for i := range fpr {
		pts[i] = plotter.XY{X: fpr[i], Y: tpr[i]}
	}
	auc := formatAUC(r.AUC)
	p := newPlot("ROC curve of "+name+" (AUC = "+auc+")", "false positive rate", "true positive rate")
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return figure{}, fmt.Errorf("report: ROC diagonal: %w", err)
	}
	diag.LineStyle = draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return figure{}, fmt.Errorf("report: ROC curve: %w", err)
	}
	line.LineStyle = draw.LineStyle{Color: palette[0], Width: 2}
	p.Add(diag, line)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Legend.Add("CV predictions", line)
	p.Legend.Add("chance", diag)

	caption := fmt.Sprintf("%s: %d positive and %d negative examples (label > 0 is positive); AUC of these pooled CV predictions = %s, ties counted ½; dashed diagonal: chance.",
		name, r.Pos, r.Neg, auc)
	svg, err := renderSVG(p, "ROC curve of "+name+", AUC "+auc)
	if err != nil {
		return figure{}, err
	}
	return figure{ID: id, Heading: "ROC curve — " + name, SVG: svg, Caption: caption}, nil
}

// formatAUC is the AUC as printed in the ROC title and caption.
func formatAUC(auc float64) string { return strconv.FormatFloat(auc, 'f', 4, 64) }

// disagreementFigure draws the histogram of per-query disagreement over
// [0, 1] with a dashed line at the mean.
func disagreementFigure(d *Data) (figure, error) {
	bins := make([]plotter.HistogramBin, histBins)
	w := 1.0 / histBins
	for i := range bins {
		bins[i].Min, bins[i].Max = float64(i)*w, float64(i+1)*w
	}
	var vals []float64
	for _, v := range d.QueryDisagreement {
		if math.IsNaN(v) {
			continue
		}
		vals = append(vals, v)
		bins[min(int(v*histBins), histBins-1)].Weight++
	}
	mean := 0.0
	for _, v := range vals {
		mean += v
	}
	mean /= float64(len(vals))
	slices.Sort(vals)
	median := vals[len(vals)/2]
	if len(vals)%2 == 0 {
		median = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
	}

	p := newPlot("Per-query disagreement (1 − c-index)", "disagreement", "queries")
	h := &plotter.Histogram{Bins: bins, Width: w, FillColor: palette[0],
		LineStyle: draw.LineStyle{Color: color.White, Width: 0.5}}
	p.Add(h)
	ymax := 0.0
	for _, b := range bins {
		ymax = max(ymax, b.Weight)
	}
	ml, err := plotter.NewLine(plotter.XYs{{X: mean, Y: 0}, {X: mean, Y: ymax}})
	if err != nil {
		return figure{}, fmt.Errorf("report: mean line: %w", err)
	}
	ml.LineStyle = draw.LineStyle{Color: textBlack, Width: 1.2, Dashes: []vg.Length{4, 3}}
	p.Add(ml)
	p.X.Min, p.X.Max = 0, 1

	caption := fmt.Sprintf("%s; dashed line: mean %s; median %s. 0 is a perfect ordering within a query, 0.5 chance.",
		plural(len(vals), "query", "queries"), num(mean), num(median))
	if skipped := len(d.QueryDisagreement) - len(vals); skipped > 0 {
		caption += fmt.Sprintf(" Left out: %s without comparable pairs.", plural(skipped, "query", "queries"))
	}
	svg, err := renderSVG(p, "Histogram of per-query disagreement")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "query-disagreement", Heading: "Per-query disagreement", SVG: svg, Caption: caption}, nil
}

// addRuns draws the points (x, y) as lines with markers, split at NaN values
// of y: each run of numbers is its own line (a lone point only its marker).
func addRuns(p *plot.Plot, x, y []float64, ls draw.LineStyle, gs draw.GlyphStyle) error {
	var run plotter.XYs
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		if len(run) > 1 {
			l, err := plotter.NewLine(run)
			if err != nil {
				return err
			}
			l.LineStyle = ls
			p.Add(l)
		}
		s, err := plotter.NewScatter(run)
		if err != nil {
			return err
		}
		s.GlyphStyle = gs
		p.Add(s)
		run = nil
		return nil
	}
	for j, v := range y {
		if math.IsNaN(v) {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		run = append(run, plotter.XY{X: x[j], Y: v})
	}
	return flush()
}
