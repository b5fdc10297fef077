package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	plotpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Output is the cross-validated predictions of one output (label column),
// one entry per row that was held out.
type Output struct {
	// Name names the output (its label column or class); empty for the
	// single output of an unnamed label.
	Name string
	// True holds the labels and Predicted the CV predictions, equal
	// lengths, all finite, at least one.
	True, Predicted []float64
	// Binary draws a ROC curve (True > 0 is positive; both classes must be
	// present) instead of the prediction scatter and the residuals.
	Binary bool
}

// Pow2 formats v as 2^k when it is a power of two with |k| ≥ 2 (kernel
// parameters and λ are usually searched on such grids), else with %g.
func Pow2(v float64) string {
	if v > 0 && !math.IsInf(v, 0) {
		frac, exp := math.Frexp(v)
		if k := exp - 1; frac == 0.5 && (k <= -2 || k >= 2) {
			return "2^" + strconv.Itoa(k)
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// validateOutputs checks d.Outputs.
func validateOutputs(d *Data) error {
	for i, o := range d.Outputs {
		if len(o.True) == 0 || len(o.True) != len(o.Predicted) {
			return fmt.Errorf("%w: output %d: %d labels and %d predictions", ErrData, i, len(o.True), len(o.Predicted))
		}
		pos := 0
		for j := range o.True {
			if !finite(o.True[j]) || !finite(o.Predicted[j]) {
				return fmt.Errorf("%w: output %d: label/prediction %d is not finite", ErrData, i, j)
			}
			if o.True[j] > 0 {
				pos++
			}
		}
		if o.Binary && (pos == 0 || pos == len(o.True)) {
			return fmt.Errorf("%w: output %d: a ROC curve needs both classes (%d positive of %d)", ErrData, i, pos, len(o.True))
		}
	}
	return nil
}

// validateClasses checks the one-vs-all data of d.
func validateClasses(d *Data) error {
	k := len(d.Classes)
	if k == 0 {
		if len(d.ClassTrue) > 0 || len(d.ClassScores) > 0 {
			return fmt.Errorf("%w: class rows without Classes", ErrData)
		}
		return nil
	}
	if k < 2 || len(d.ClassTrue) == 0 || len(d.ClassTrue) != len(d.ClassScores) {
		return fmt.Errorf("%w: %d classes, %d true classes, %d score rows", ErrData, k, len(d.ClassTrue), len(d.ClassScores))
	}
	for i, c := range d.ClassTrue {
		if c < 0 || c >= k {
			return fmt.Errorf("%w: row %d: class %d out of range [0, %d)", ErrData, i, c, k)
		}
		if len(d.ClassScores[i]) != k {
			return fmt.Errorf("%w: row %d has %d class scores, want %d", ErrData, i, len(d.ClassScores[i]), k)
		}
		for _, v := range d.ClassScores[i] {
			if !finite(v) {
				return fmt.Errorf("%w: row %d: a class score is not finite", ErrData, i)
			}
		}
	}
	return nil
}

// countFinite counts the finite values of v.
func countFinite(v []float64) int {
	n := 0
	for _, x := range v {
		if finite(x) {
			n++
		}
	}
	return n
}

// outputName is the name of output i in headings and captions.
func outputName(o Output, i int) string {
	if o.Name != "" {
		return o.Name
	}
	return "output " + strconv.Itoa(i+1)
}

// outputFigures draws the panels of every output: prediction vs. truth and
// residuals (regression) or a ROC curve (binary), headed by the output's name.
func outputFigures(d *Data) ([]figure, error) {
	var figs []figure
	for i, o := range d.Outputs {
		name := outputName(o, i)
		id := fmt.Sprintf("output-%d", i+1)
		if o.Binary {
			f, err := rocFigure(o, name, id+"-roc")
			if err != nil {
				return nil, err
			}
			figs = append(figs, f)
			continue
		}
		f, err := scatterFigure(o, name, id+"-scatter")
		if err != nil {
			return nil, err
		}
		r, err := residualFigure(o, name, id+"-residuals")
		if err != nil {
			return nil, err
		}
		figs = append(figs, f, r)
	}
	return figs, nil
}

// residualFigure draws the residuals (true − predicted) against the CV
// prediction with the zero line.
func residualFigure(o Output, name, id string) (figure, error) {
	n := len(o.True)
	pts := strided(n, func(i int) plotter.XY { return plotter.XY{X: o.Predicted[i], Y: o.True[i] - o.Predicted[i]} })
	m := len(pts)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		lo, hi = min(lo, o.Predicted[i]), max(hi, o.Predicted[i])
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	lo, hi = lo-0.03*(hi-lo), hi+0.03*(hi-lo) // the outermost dots drawn whole
	p := newPlot("Residuals of "+name, "CV prediction", "true − CV prediction")
	zero, err := plotter.NewLine(plotter.XYs{{X: lo, Y: 0}, {X: hi, Y: 0}})
	if err != nil {
		return figure{}, err
	}
	zero.LineStyle = draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return figure{}, err
	}
	c := palette1(1)
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: dotRadius(m), Shape: draw.CircleGlyph{}}
	p.Add(zero, s)
	rlo, rhi := math.Inf(1), math.Inf(-1)
	for i := range n {
		r := o.True[i] - o.Predicted[i]
		rlo, rhi = min(rlo, r), max(rhi, r)
	}
	rlo, rhi = min(rlo, 0), max(rhi, 0)
	if rhi == rlo {
		rlo, rhi = rlo-1, rhi+1
	}
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = rlo-0.04*(rhi-rlo), rhi+0.04*(rhi-rlo)
	mean, sd := meanSD(residuals(o))
	caption := fmt.Sprintf("%s of %s; dashed line: zero. Residual mean %s, standard deviation %s: a trend or a funnel shape shows what the model misses.",
		shown(m, n), name, num(mean), num(sd))
	svg, err := renderSVG(p, "Residuals of "+name+" against the CV prediction")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: id, Heading: "Residuals — " + name, SVG: svg, Caption: caption}, nil
}

// dotRadius is the radius of a scatter's dots: larger when they are few.
func dotRadius(n int) vg.Length {
	switch {
	case n <= 100:
		return 3.2
	case n <= 1000:
		return 2.4
	}
	return 1.8
}

// strided returns at most maxScatterPoints of the n points at(i), evenly
// strided (all of them when n is at most that).
func strided(n int, at func(i int) plotter.XY) plotter.XYs {
	m := min(n, maxScatterPoints)
	pts := make(plotter.XYs, m)
	for k := range m {
		pts[k] = at(k * n / m)
	}
	return pts
}

// residuals returns true − predicted.
func residuals(o Output) []float64 {
	r := make([]float64, len(o.True))
	for i := range r {
		r[i] = o.True[i] - o.Predicted[i]
	}
	return r
}

// shown describes how many of n points a plot draws.
func shown(m, n int) string {
	if m < n {
		return fmt.Sprintf("%d of %d CV predictions shown (evenly strided)", m, n)
	}
	return plural(n, "CV prediction", "CV predictions")
}

// palette1 is palette entry i, slightly transparent for dense scatters.
func palette1(i int) color.Color {
	c := palette[i%len(palette)].(color.RGBA)
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: 0xb0}
}

// meanSD is the mean and the (population) standard deviation of v.
func meanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)))
}

// heatmapPossible says whether the curves form a kernel setting × λ grid:
// at least two curves, on one λ grid of at least two values.
func heatmapPossible(d *Data) bool {
	if len(d.Curves) < 2 || len(d.Curves[0].Lambdas) < 2 {
		return false
	}
	for _, c := range d.Curves[1:] {
		if !slices.Equal(c.Lambdas, d.Curves[0].Lambdas) {
			return false
		}
	}
	return true
}

// cvGrid is the curves as a plotter.GridXYZ: column c is λ_c (at log₂ λ),
// row r is curve r.
type cvGrid struct {
	x []float64
	z [][]float64
}

func (g cvGrid) Dims() (c, r int)   { return len(g.x), len(g.z) }
func (g cvGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g cvGrid) X(c int) float64    { return g.x[c] }
func (g cvGrid) Y(r int) float64    { return float64(r) }

// Min and Max are the finite extremes (NaN cells are left out).
func (g cvGrid) Min() float64 { return g.extreme(math.Min, math.Inf(1)) }
func (g cvGrid) Max() float64 { return g.extreme(math.Max, math.Inf(-1)) }

func (g cvGrid) extreme(f func(a, b float64) float64, start float64) float64 {
	v := start
	for _, row := range g.z {
		for _, z := range row {
			if finite(z) {
				v = f(v, z)
			}
		}
	}
	return v
}

// heatmapFigure draws every kernel setting × λ as a coloured cell, the
// chosen one ringed, with a colour bar.
func heatmapFigure(d *Data) (figure, error) {
	g := cvGrid{}
	for _, l := range d.Curves[0].Lambdas {
		g.x = append(g.x, math.Log2(l))
	}
	var all []float64
	for _, c := range d.Curves {
		all = append(all, c.Values...)
	}
	sc := newColourScale(all, d.HigherIsBetter)
	var rowTicks []plot.Tick
	for i, c := range d.Curves {
		row := make([]float64, len(c.Values))
		for j, v := range c.Values {
			row[j] = sc.at(v)
		}
		g.z = append(g.z, row)
		rowTicks = append(rowTicks, plot.Tick{Value: float64(i), Label: curveLabel(d.Curves, i)})
	}
	lo, hi := sc.Lo, sc.Hi
	cm := moreland.Kindlmann()
	cm.SetMin(lo)
	cm.SetMax(hi + 0.15*(hi-lo)) // Kindlmann ends in white: keep the worst cells coloured
	hm := plotter.NewHeatMap(g, cm.Palette(128))
	hm.Min, hm.Max = lo, cm.Max()
	hm.NaN = color.Gray{Y: 0xcc}
	measure := measureName(d)
	p := newPlot("Cross-validated "+measure+" over the grid", "log₂ λ", "")
	p.Add(hm)
	p.X.Tick.Marker = log2Ticks{}
	p.Y.Tick.Marker = plot.ConstantTicks(rowTicks)
	best, err := plotter.NewScatter(plotter.XYs{{X: math.Log2(d.BestLambda), Y: float64(d.BestCurve)}})
	if err != nil {
		return figure{}, err
	}
	best.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{0xd6, 0x27, 0x28, 0xff}, Radius: 6, Shape: thickRing{}}
	p.Add(best)

	bar, err := colorBar(cm, lo, cm.Max(), hi, measure, barTicks{sc})
	if err != nil {
		return figure{}, err
	}

	better := "darker is lower, lower is better"
	if d.HigherIsBetter {
		better = "darker is lower, higher is better"
	}
	caption := fmt.Sprintf("Each cell is the CV %s of one kernel setting (row) and λ (column); colour bar on the right, %s",
		measure, better)
	caption += "."
	if sc.Focus != nil {
		caption += " " + focusNote(*sc.Focus, "The colour scale", measure)
	}
	if sc.ClipHigh {
		caption += fmt.Sprintf(" Colours stop at %s: cells at or above it share the lightest colour, so that the values within 10 %% of the best keep %d %% of the colours.", num(sc.value(sc.Hi)), int(100*colourNearShare))
	}
	if sc.ClipLow {
		caption += fmt.Sprintf(" Colours stop at %s: cells at or below it share the darkest colour, so that the values within 10 %% of the best keep %d %% of the colours.", num(sc.value(sc.Lo)), int(100*colourNearShare))
	}
	caption += fmt.Sprintf(" The chosen cell is ringed (%s, λ = %s, %s = %s). Grey cells have no value.",
		curveLabel(d.Curves, d.BestCurve), Pow2(d.BestLambda), measure, num(d.BestValue))
	svg, err := renderSide(p, bar, 100, "Heatmap of the cross-validated "+measure+" over kernel settings and lambda")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "heatmap", Heading: "Kernel parameter × λ", SVG: svg, Caption: caption}, nil
}

// measureName is d.Measure, or "value".
func measureName(d *Data) string {
	if d.Measure == "" {
		return "value"
	}
	return d.Measure
}

// classFigures draws the confusion matrix and the per-class ROC curves of a
// one-vs-all model.
func classFigures(d *Data) ([]figure, error) {
	k := len(d.Classes)
	counts := make([][]float64, k) // [true][predicted]
	for i := range counts {
		counts[i] = make([]float64, k)
	}
	correct := 0
	for i, c := range d.ClassTrue {
		pred := 0
		for j, v := range d.ClassScores[i] {
			if v > d.ClassScores[i][pred] {
				pred = j
			}
		}
		counts[c][pred]++
		if pred == c {
			correct++
		}
	}
	conf, err := confusionFigure(d, counts, correct)
	if err != nil {
		return nil, err
	}
	roc, err := classROCFigure(d)
	if err != nil {
		return nil, err
	}
	return []figure{conf, roc}, nil
}

// countGrid is a confusion matrix as a plotter.GridXYZ: column = predicted
// class, row = true class (drawn top-down).
type countGrid [][]float64

func (g countGrid) Dims() (c, r int)   { return len(g), len(g) }
func (g countGrid) Z(c, r int) float64 { return g[len(g)-1-r][c] }
func (g countGrid) X(c int) float64    { return float64(c) }
func (g countGrid) Y(r int) float64    { return float64(r) }

func confusionFigure(d *Data, counts [][]float64, correct int) (figure, error) {
	k := len(d.Classes)
	var xt, yt []plot.Tick
	maxCount := 0.0
	var lab plotter.XYLabels
	for i := range k {
		xt = append(xt, plot.Tick{Value: float64(i), Label: d.Classes[i]})
		yt = append(yt, plot.Tick{Value: float64(k - 1 - i), Label: d.Classes[i]})
		for j := range k {
			maxCount = max(maxCount, counts[i][j])
			lab.XYs = append(lab.XYs, plotter.XY{X: float64(j), Y: float64(k - 1 - i)})
			lab.Labels = append(lab.Labels, strconv.Itoa(int(counts[i][j])))
		}
	}
	pal := bluePalette(64)
	var grid countGrid = counts
	if k == 1 {
		return figure{}, fmt.Errorf("%w: one class", ErrData)
	}
	hm := plotter.NewHeatMap(grid, pal)
	hm.Min, hm.Max = 0, math.Max(maxCount, 1)
	p := newPlot("Confusion matrix of the CV predictions", "predicted class", "true class")
	p.Add(hm)
	labels, err := plotter.NewLabels(lab)
	if err != nil {
		return figure{}, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font = sans(10)
		labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		labels.TextStyle[i].Color = textBlack
		// dark cells get white numbers
		if counts[k-1-int(lab.XYs[i].Y)][int(lab.XYs[i].X)] > 0.6*maxCount {
			labels.TextStyle[i].Color = color.White
		}
	}
	p.Add(labels)
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	n := len(d.ClassTrue)
	caption := fmt.Sprintf("Rows: true class; columns: the class with the largest CV output; cells: rows counted (darker is more). %d of %d rows on the diagonal: accuracy %s.",
		correct, n, num(float64(correct)/float64(n)))
	svg, err := renderSVG(p, "Confusion matrix")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "confusion", Heading: "Confusion matrix", SVG: svg, Caption: caption}, nil
}

func classROCFigure(d *Data) (figure, error) {
	p := newPlot("One-vs-rest ROC curve per class", "false positive rate", "true positive rate")
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return figure{}, err
	}
	diag.LineStyle = draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}
	p.Add(diag)
	n := len(d.ClassTrue)
	labels, scores := make([]float64, n), make([]float64, n)
	drawn := 0
	var aucs []string
	for c, name := range d.Classes {
		pos := 0
		for i := range n {
			labels[i], scores[i] = -1, d.ClassScores[i][c]
			if d.ClassTrue[i] == c {
				labels[i] = 1
				pos++
			}
		}
		if pos == 0 || pos == n {
			aucs = append(aucs, name+": no ROC (one class only)")
			continue
		}
		r := computeROC(labels, scores)
		fpr, tpr := thinCurve(r.FPR, r.TPR, 1e-3)
		pts := make(plotter.XYs, len(fpr))
		for i := range fpr {
			pts[i] = plotter.XY{X: fpr[i], Y: tpr[i]}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return figure{}, err
		}
		line.LineStyle = draw.LineStyle{Color: palette[c%len(palette)], Width: 1.8, Dashes: dashes(c)}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (AUC %s)", name, formatAUC(r.AUC)), line)
		aucs = append(aucs, name+" "+formatAUC(r.AUC))
		drawn++
	}
	p.Legend.Add("chance", diag)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	caption := fmt.Sprintf("Each class's CV output scores it against the rest (ties counted ½); AUC per class: %s.", joinComma(aucs))
	svg, err := renderSVG(p, "ROC curve per class")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "roc-classes", Heading: "ROC per class (one vs. rest)", SVG: svg, Caption: caption}, nil
}

// dashes varies the line pattern after the palette's colours run out.
func dashes(i int) []vg.Length {
	if i < len(palette) {
		return nil
	}
	return []vg.Length{vg.Length(2 + i%4*2), 2}
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// foldFigure draws the measure's value per fold at the chosen point, with
// the reported CV value and the folds' mean.
func foldFigure(d *Data) (figure, error) {
	measure := measureName(d)
	var pts plotter.XYs
	var vals []float64
	for i, v := range d.FoldValues {
		if finite(v) {
			pts = append(pts, plotter.XY{X: float64(i + 1), Y: v})
			vals = append(vals, v)
		}
	}
	k := len(d.FoldValues)
	p := newPlot(fmt.Sprintf("%s per fold at the chosen point", measure), "fold", measure)
	p.X.Tick.Marker = foldTicks{k}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return figure{}, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: palette[0], Radius: 3.5, Shape: draw.CircleGlyph{}}
	mean, sd := meanSD(vals)
	cvLine, err := plotter.NewLine(plotter.XYs{{X: 0.5, Y: d.BestValue}, {X: float64(k) + 0.5, Y: d.BestValue}})
	if err != nil {
		return figure{}, err
	}
	cvLine.LineStyle = draw.LineStyle{Color: textBlack, Width: 1.5, Dashes: []vg.Length{5, 3}}
	band, err := plotter.NewPolygon(plotter.XYs{{X: 0.5, Y: mean - sd}, {X: float64(k) + 0.5, Y: mean - sd},
		{X: float64(k) + 0.5, Y: mean + sd}, {X: 0.5, Y: mean + sd}})
	if err != nil {
		return figure{}, err
	}
	band.Color = color.NRGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0x30}
	band.LineStyle.Width = 0
	p.Add(band, cvLine)
	// each fold a stem from the CV value to its own value
	for _, pt := range pts {
		stem, err := plotter.NewLine(plotter.XYs{{X: pt.X, Y: d.BestValue}, pt})
		if err != nil {
			return figure{}, err
		}
		stem.LineStyle = draw.LineStyle{Color: palette[0], Width: 2}
		p.Add(stem)
	}
	p.Add(s)
	p.Legend.Add("fold", s)
	p.Legend.Add("CV value", cvLine)
	p.Legend.Add("mean ± sd", band)
	p.X.Min, p.X.Max = 0.5, float64(k)+0.5
	if r := p.Y.Max - p.Y.Min; r > 0 { // the outermost dots drawn whole
		p.Y.Min, p.Y.Max = p.Y.Min-0.06*r, p.Y.Max+0.06*r
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	caption := fmt.Sprintf("%s of %d folds have a value; mean %s, standard deviation %s, range %s … %s. The CV value %s = %s (%s).",
		strconv.Itoa(len(vals)), k, num(mean), num(sd), num(lo), num(hi), measure, num(d.BestValue), d.FoldNote)
	if left := k - len(vals); left > 0 {
		caption += fmt.Sprintf(" %s left out: the measure is undefined on them.", plural(left, "fold is", "folds are"))
	}
	svg, err := renderSVG(p, "Cross-validated "+measure+" per fold")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "fold-spread", Heading: "Spread over the folds", SVG: svg, Caption: caption}, nil
}

// nullFigure draws the permutation test's null distribution with the
// observed value. The bins cover the null values only; the observed value is
// a line on the same axis unless it lies more than the null's own range away
// from it, when the axis keeps to the null and an arrow at its edge points to
// the observed value (stated in the label and the caption).
func nullFigure(d *Data) (figure, error) {
	measure := measureName(d)
	nlo, nhi := slices.Min(d.Null), slices.Max(d.Null)
	if nlo == nhi {
		h := max(math.Abs(nlo)*0.01, 1e-6)
		nlo, nhi = nlo-h, nhi+h
	}
	width := nhi - nlo
	near := d.Observed >= nlo-width && d.Observed <= nhi+width
	nb := min(max(len(d.Null)/5, 8), 30)
	w := width / float64(nb)
	bins := make([]plotter.HistogramBin, nb)
	for i := range bins {
		bins[i].Min, bins[i].Max = nlo+float64(i)*w, nlo+float64(i+1)*w
	}
	for _, v := range d.Null {
		bins[min(max(int((v-nlo)/w), 0), nb-1)].Weight++
	}
	p := newPlot("Permutation test: best CV "+measure+" of permuted labels", measure, "permutations")
	h := &plotter.Histogram{Bins: bins, Width: w, FillColor: palette[0], LineStyle: draw.LineStyle{Color: color.White, Width: 0.5}}
	p.Add(h)
	ymax := 0.0
	for _, b := range bins {
		ymax = max(ymax, b.Weight)
	}
	lo, hi := nlo, nhi
	if near {
		lo, hi = min(lo, d.Observed), max(hi, d.Observed)
	}
	pad := (hi - lo) * 0.04
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = 0, ymax*1.12
	obsStyle := draw.LineStyle{Color: palette[3], Width: 2.5}
	where := ""
	if near {
		obs, err := plotter.NewLine(plotter.XYs{{X: d.Observed, Y: 0}, {X: d.Observed, Y: ymax * 1.12}})
		if err != nil {
			return figure{}, err
		}
		obs.LineStyle = obsStyle
		p.Add(obs)
		p.Legend.Add("real labels", obs)
	} else {
		x, text, align := p.X.Min, "← real labels: "+num(d.Observed), draw.XLeft
		if d.Observed > nhi {
			x, text, align = p.X.Max, "real labels: "+num(d.Observed)+" →", draw.XRight
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: ymax * 1.06}}, Labels: []string{text}})
		if err != nil {
			return figure{}, err
		}
		l.TextStyle[0].Font = sans(10)
		l.TextStyle[0].Color = palette[3]
		l.TextStyle[0].XAlign, l.TextStyle[0].YAlign = align, draw.YCenter
		p.Add(l)
		p.Legend.Add("real labels (off scale, arrow)", &plotter.Line{LineStyle: obsStyle})
		where = " The real labels' value lies far outside the null distribution (off the axis, at the arrow)."
	}
	p.Legend.Add("permuted labels", h)
	mean, sd := meanSD(d.Null)
	caption := fmt.Sprintf("%s, each the best CV %s over the same kernel settings and λ grid as the real labels; mean %s, sd %s, range %s … %s. Real labels: %s = %s, p = %s (the share of permutations at least as good, counting the real labelling).%s",
		plural(len(d.Null), "permutation", "permutations"), measure, num(mean), num(sd), num(slices.Min(d.Null)), num(slices.Max(d.Null)),
		measure, num(d.Observed), num(d.PValue), where)
	svg, err := renderSVG(p, "Histogram of the permutation null distribution")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "permutation-null", Heading: "Permutation test", SVG: svg, Caption: caption}, nil
}

// barGrid is a colour bar as a 2×n plotter.GridXYZ: row r holds value lo +
// (r+½)·(hi−lo)/n in both columns.
type barGrid struct {
	lo, step float64
	n        int
}

func (g barGrid) Dims() (c, r int)   { return 2, g.n }
func (g barGrid) Z(c, r int) float64 { return g.Y(r) }
func (g barGrid) X(c int) float64    { return float64(c) }
func (g barGrid) Y(r int) float64    { return g.lo + (float64(r)+0.5)*g.step }

// colorBar is a vertical colour scale from lo to hi (the colour map cm
// spread over [lo, cmax]), its axis labelled by ticks, drawn with vector
// cells (gonum's ColorBar draws an embedded image, which the report avoids).
func colorBar(cm plotpalette.ColorMap, lo, cmax, hi float64, label string, ticks plot.Ticker) (*plot.Plot, error) {
	const n = 64
	g := barGrid{lo: lo, step: (hi - lo) / n, n: n}
	hm := plotter.NewHeatMap(g, cm.Palette(128))
	hm.Min, hm.Max = lo, cmax
	bar := plot.New()
	bar.Add(hm)
	bar.HideX()
	bar.Y.Label.Text = label
	bar.Y.Label.TextStyle.Font = sans(10)
	bar.Y.Tick.Label.Font = sans(9)
	bar.Y.Min, bar.Y.Max = lo, hi
	bar.Y.Tick.Marker = ticks
	return bar, nil
}
