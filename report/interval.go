package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// IntervalCoverage is the coverage level 1 − α of the intervals an
// interval panel draws.
const IntervalCoverage = 0.9

// MaxIntervalRows bounds the training rows whose intervals an interval
// panel computes and draws: an evenly spaced subset of this many when
// there are more (PredictInterval costs O(n·d + K·n·t) per row, so all n
// rows would cost O(n²) for a kernel expansion).
const MaxIntervalRows = 2000

// intervalBins is the number of prediction bins of the conditional
// coverage.
const intervalBins = 5

// IntervalPanel is what an interval panel shows for one output of a
// model that records jackknife+ or CV+ intervals (fit --interval).
type IntervalPanel struct {
	// Output names the output; Method is model.JackknifePlus or
	// model.CVPlus, Models the number K of hold-out models; Rows the
	// number n of training rows (residuals).
	Output, Method string
	Models, Rows   int
	// Coverage is the level 1 − α of the drawn intervals.
	Coverage float64
	// Prediction, Lower and Upper are, for the drawn training rows (all, or
	// an evenly spaced subset of MaxIntervalRows), the model's prediction
	// of the row's features and the ends of the interval
	// model.Predictor.PredictInterval gives them at Coverage.
	Prediction, Lower, Upper []float64
	// Levels are the levels of Quantiles: the ⌈level·(n+1)⌉-th smallest
	// hold-out residual R_i = |y_i − μ_{−S_k(i)}(x_i)| (+Inf when that rank
	// exceeds n): the half-width of the residual interval at that level.
	Levels, Quantiles []float64
	// Covered is the share of training rows whose hold-out residual R_i
	// lies within the quantile at Coverage of the other n − 1 residuals
	// (the leave-one-out coverage of the residual interval; at least
	// ⌈(1−α)n⌉/n by construction). Bins split the rows into intervalBins
	// ranges of the model's prediction of equal count and give that share
	// in each: the conditional coverage.
	Covered float64
	Bins    []CoverageBin
}

// CoverageBin is one range [Lo, Hi] of the prediction, the number of
// training rows predicted in it and the share of them covered.
type CoverageBin struct {
	Lo, Hi  float64
	Rows    int
	Covered float64
}

// Intervals returns one IntervalPanel per output of the predictor p, whose
// Interval (jackknife+ or CV+) was built on the training rows x (n rows,
// the features as given to p.Predict), at level coverage.
//
// Cost: p.Predict of the n rows, PredictInterval of at most
// MaxIntervalRows of them (O(K·d·t) linear, O(n·d + K·n·t) kernel per
// row, plus O(n) per output for the order statistics), and O(n log n)
// per output for the residual quantiles and coverage.
func Intervals(p *model.Predictor, x mat.Matrix, coverage float64) ([]IntervalPanel, error) {
	iv := p.Interval
	if iv == nil {
		return nil, nil
	}
	n, t := iv.Residuals.Dims()
	if r, _ := x.Dims(); r != n {
		return nil, fmt.Errorf("report: intervals: %d training rows for %d residuals", r, n)
	}
	rows := make([]int, 0, min(n, MaxIntervalRows))
	if n <= MaxIntervalRows {
		for i := range n {
			rows = append(rows, i)
		}
	} else {
		for j := range MaxIntervalRows {
			rows = append(rows, j*n/MaxIntervalRows)
		}
	}
	pred, lo, hi, err := p.PredictInterval(kernel.Rows(x, rows), coverage)
	if err != nil {
		return nil, fmt.Errorf("report: intervals of the training rows: %w", err)
	}
	full, err := p.Predict(x)
	if err != nil {
		return nil, fmt.Errorf("report: predictions of the training rows: %w", err)
	}
	levels := []float64{0.8, 0.95}
	if !slices.Contains(levels, coverage) {
		levels = append(levels, coverage)
	}
	slices.Sort(levels)
	var out []IntervalPanel
	for c := range t {
		name := fmt.Sprintf("output %d", c+1)
		if c < len(p.Outputs) && p.Outputs[c] != "" {
			name = p.Outputs[c]
		}
		ip := IntervalPanel{Output: name, Method: iv.Method, Models: iv.Models(), Rows: n, Coverage: coverage, Levels: levels}
		for a := range rows {
			ip.Prediction = append(ip.Prediction, pred.At(a, c))
			ip.Lower, ip.Upper = append(ip.Lower, lo.At(a, c)), append(ip.Upper, hi.At(a, c))
		}
		res := mat.Col(nil, c, iv.Residuals)
		sorted := slices.Clone(res)
		slices.Sort(sorted)
		for _, l := range levels {
			ip.Quantiles = append(ip.Quantiles, residualQuantile(sorted, l))
		}
		covered := looCovered(res, sorted, coverage)
		ip.Covered = share(covered, nil)
		ip.Bins = coverageBins(mat.Col(nil, c, full), covered)
		out = append(out, ip)
	}
	return out, nil
}

// residualQuantile is Barber et al.'s q̂⁺ at level l of the sorted
// residuals: the ⌈l·(n+1)⌉-th smallest (model.Ranks), +Inf beyond n.
func residualQuantile(sorted []float64, l float64) float64 {
	_, h := model.Ranks(l, len(sorted))
	if h > len(sorted) {
		return math.Inf(1)
	}
	return sorted[h-1]
}

// looCovered tells for each row i whether R_i ≤ q̂⁺ of the other n − 1
// residuals at the level: the h-th smallest of them, h = ⌈l·n⌉
// (model.Ranks of n − 1 values). Removing R_i from the sorted residuals S
// leaves S[h−1] as that h-th smallest when R_i ranks after it and S[h]
// when R_i ranks within the first h; in both cases R_i ≤ q̂⁺_{−i} exactly
// when R_i ≤ S[h−1]. With h > n − 1 the interval is the whole line and
// every row is covered. O(n) given S.
func looCovered(res, sorted []float64, l float64) []bool {
	n := len(res)
	out := make([]bool, n)
	_, h := model.Ranks(l, n-1)
	for i, r := range res {
		out[i] = h > n-1 || r <= sorted[h-1]
	}
	return out
}

// share is the share of true values of covered among the rows idx (all
// when idx is nil); NaN for none.
func share(covered []bool, idx []int) float64 {
	in, all := 0, 0
	count := func(i int) {
		all++
		if covered[i] {
			in++
		}
	}
	if idx == nil {
		for i := range covered {
			count(i)
		}
	} else {
		for _, i := range idx {
			count(i)
		}
	}
	if all == 0 {
		return math.NaN()
	}
	return float64(in) / float64(all)
}

// coverageBins splits the rows by their prediction into intervalBins
// groups of equal count (the last ones one larger, by rank; ties split by
// row order) and gives each group's prediction range and covered share.
// O(n log n).
func coverageBins(pred []float64, covered []bool) []CoverageBin {
	n := len(pred)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case pred[a] < pred[b]:
			return -1
		case pred[a] > pred[b]:
			return 1
		}
		return 0
	})
	k := min(intervalBins, n)
	var bins []CoverageBin
	for b := range k {
		idx := order[b*n/k : (b+1)*n/k]
		bins = append(bins, CoverageBin{Lo: pred[idx[0]], Hi: pred[idx[len(idx)-1]], Rows: len(idx), Covered: share(covered, idx)})
	}
	return bins
}

// validateIntervals checks the interval panels' slices and levels.
func validateIntervals(d *Data) error {
	for i, ip := range d.Intervals {
		k := len(ip.Prediction)
		if k == 0 || len(ip.Lower) != k || len(ip.Upper) != k {
			return fmt.Errorf("%w: interval panel %d has %d predictions, %d lower and %d upper ends", ErrData, i, k, len(ip.Lower), len(ip.Upper))
		}
		if !(ip.Coverage > 0 && ip.Coverage < 1) || len(ip.Levels) != len(ip.Quantiles) {
			return fmt.Errorf("%w: interval panel %d: coverage %g, %d levels and %d quantiles", ErrData, i, ip.Coverage, len(ip.Levels), len(ip.Quantiles))
		}
		for j := range k {
			if !finite(ip.Prediction[j]) || math.IsNaN(ip.Lower[j]) || math.IsNaN(ip.Upper[j]) || ip.Lower[j] > ip.Upper[j] {
				return fmt.Errorf("%w: interval panel %d: row %d predicted %g in [%g, %g]", ErrData, i, j, ip.Prediction[j], ip.Lower[j], ip.Upper[j])
			}
		}
	}
	if o := d.Outer; o != nil {
		if !finite(o.Value) {
			return fmt.Errorf("%w: outer estimate %g over %d folds", ErrData, o.Value, len(o.Folds))
		}
		for j, v := range o.Folds {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: outer fold %d's value is infinite", ErrData, j)
			}
		}
		if o.Interval != nil && (!(o.Level > 0 && o.Level < 1) || math.IsNaN(o.Interval[0]) || math.IsNaN(o.Interval[1]) || o.Interval[0] > o.Interval[1]) {
			return fmt.Errorf("%w: outer interval %v at level %g", ErrData, *o.Interval, o.Level)
		}
	}
	return nil
}

// intervalFigures draws one panel per output: the width of the interval
// each drawn training row's features get against the model's prediction,
// with twice the residual quantile at the same level as a line.
func intervalFigures(d *Data) ([]figure, error) {
	var figs []figure
	for i, ip := range d.Intervals {
		fig, err := intervalFigure(ip, i)
		if err != nil {
			return nil, err
		}
		figs = append(figs, fig)
	}
	return figs, nil
}

// intervalFigure draws the i-th interval panel: width against prediction,
// the residual quantile's width as a dashed line, and the caption stating
// what is drawn, the residual quantiles and the coverage by bin.
func intervalFigure(ip IntervalPanel, i int) (figure, error) {
	pct := fmt.Sprintf("%g %%", 100*ip.Coverage)
	p := newPlot(fmt.Sprintf("%s: %s interval width (%s)", ip.Output, ip.Method, pct), "prediction", "interval width")
	var pts plotter.XYs
	infinite := 0
	for j := range ip.Prediction {
		w := ip.Upper[j] - ip.Lower[j]
		if math.IsInf(w, 0) {
			infinite++
			continue
		}
		pts = append(pts, plotter.XY{X: ip.Prediction[j], Y: w})
	}
	q := math.Inf(1)
	for j, l := range ip.Levels {
		if l == ip.Coverage {
			q = ip.Quantiles[j]
		}
	}
	if len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return figure{}, fmt.Errorf("report: interval panel %d: %w", i, err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: palette1(0), Radius: dotRadius(len(pts)), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add("training row", s)
		if finite(q) {
			xlo, xhi := slices.MinFunc(pts, func(a, b plotter.XY) int { return cmpF(a.X, b.X) }).X, slices.MaxFunc(pts, func(a, b plotter.XY) int { return cmpF(a.X, b.X) }).X
			if xlo == xhi {
				xlo, xhi = xlo-0.5, xhi+0.5
			}
			l, err := plotter.NewLine(plotter.XYs{{X: xlo, Y: 2 * q}, {X: xhi, Y: 2 * q}})
			if err != nil {
				return figure{}, err
			}
			l.LineStyle = draw.LineStyle{Color: color.Black, Width: 1.5, Dashes: []vg.Length{5, 3}}
			p.Add(l)
			p.Legend.Add("2 × residual quantile", l)
			if p.Y.Min > 2*q {
				p.Y.Min = 2 * q
			}
			if p.Y.Max < 2*q {
				p.Y.Max = 2 * q
			}
		}
		if r := p.Y.Max - p.Y.Min; r > 0 {
			p.Y.Min, p.Y.Max = p.Y.Min-0.06*r, p.Y.Max+0.06*r
		}
		p.Legend.Top = true
	}
	what := "CV+ over the K = %d fold models"
	if ip.Method == model.JackknifePlus {
		what = "the jackknife+ over the %d leave-one-out models"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Each dot is a training row: x its prediction by the model, y the width of the %s prediction interval its features get from "+what+" and the n = %d hold-out residuals R_i = |y_i − μ_{−S_k(i)}(x_i)| (Barber, Candès, Ramdas & Tibshirani 2021; what predict --coverage %g gives a new row). ",
		pct, ip.Models, ip.Rows, ip.Coverage)
	if len(ip.Prediction) < ip.Rows {
		fmt.Fprintf(&b, "%d evenly spaced rows of the %d are drawn. ", len(ip.Prediction), ip.Rows)
	}
	if infinite > 0 {
		fmt.Fprintf(&b, "%d rows have an unbounded interval (α < 1/(n+1)) and are not drawn. ", infinite)
	}
	b.WriteString("The rows were in the training data, so these are the widths, not a test of coverage. The dashed line is twice the residual quantile at the same level: the width of an interval ± that quantile around one model's prediction. Residual quantiles (the ⌈level·(n+1)⌉-th smallest R_i): ")
	for j, l := range ip.Levels {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%g %%: %s", 100*l, num(ip.Quantiles[j]))
	}
	fmt.Fprintf(&b, ". Leave-one-out coverage of the CV residuals: %s of the rows have R_i within the %s quantile of the other n − 1 residuals — at least ⌈(1−α)n⌉/n by construction, so not evidence by itself; by prediction range (equal-count bins of the model's prediction of all n rows) the share covered is ",
		pct1(ip.Covered), pct)
	for j, bin := range ip.Bins {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s … %s: %s of %d", num(bin.Lo), num(bin.Hi), pct1(bin.Covered), bin.Rows)
	}
	b.WriteString(" — a bin well under the level has larger errors than the rest, where the interval's constant residual spread under-covers.")
	svg, err := renderSVG(p, fmt.Sprintf("%s prediction interval width against prediction, %s", ip.Method, ip.Output))
	if err != nil {
		return figure{}, err
	}
	return figure{ID: fmt.Sprintf("interval-%d", i+1), Heading: "Prediction intervals: " + ip.Output, SVG: svg, Caption: b.String()}, nil
}

// pct1 formats a share as a percentage with one decimal.
func pct1(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }

// cmpF orders two numbers (no NaN) for slices.MinFunc and MaxFunc.
func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// OuterEstimate is the outer (nested) cross-validation's estimate of the
// searched model's error: each outer fold's value (NaN where undefined),
// the pooled value over all outer predictions, and — when the result has
// one — the interval at Level (Method selection.IntervalNestedCV: Bates,
// Hastie & Tibshirani 2024, centred at the value minus Bias; or
// selection.IntervalFoldSE: value ± z·SE of the folds) with its SE.
type OuterEstimate struct {
	Measure  string
	Folds    []float64
	Value    float64
	SE       float64
	Interval *[2]float64
	Level    float64
	Method   string
	Bias     float64
}

// OuterFromSummary is the OuterEstimate of a fit's JSON "outer" (nil for
// none): each fold's outer value, NaN where the JSON omits it. O(K).
func OuterFromSummary(o *summary.Outer) *OuterEstimate {
	if o == nil {
		return nil
	}
	e := &OuterEstimate{Measure: o.Measure, Value: o.Value, SE: math.NaN(), Level: o.Level, Method: o.Method, Bias: math.NaN()}
	for _, f := range o.PerFold {
		v := math.NaN()
		if f.Outer != nil {
			v = *f.Outer
		}
		e.Folds = append(e.Folds, v)
	}
	if o.SE != nil {
		e.SE = *o.SE
	}
	if o.Interval != nil {
		iv := *o.Interval
		e.Interval = &iv
	}
	if o.Bias != nil {
		e.Bias = *o.Bias
	}
	return e
}

// outerRow is the summary table's row of the outer estimate.
func outerRow(o *OuterEstimate) [2]string {
	v := fmt.Sprintf("%s = %.6g over %d outer folds (pooled outer predictions)", o.Measure, o.Value, len(o.Folds))
	if o.Interval != nil {
		v += fmt.Sprintf("; %g %% interval [%.6g, %.6g] (%s", 100*o.Level, o.Interval[0], o.Interval[1], o.Method)
		if finite(o.SE) {
			v += fmt.Sprintf(", SE %.4g", o.SE)
		}
		if finite(o.Bias) {
			v += fmt.Sprintf(", bias %.4g", o.Bias)
		}
		v += ")"
	}
	return [2]string{"nested cross-validation", v}
}

// outerFigure draws each outer fold's value, the pooled value and the
// interval as a band.
func outerFigure(d *Data) (figure, error) {
	o := d.Outer
	k := max(len(o.Folds), 1)
	p := newPlot(fmt.Sprintf("Nested cross-validation: %s per outer fold", o.Measure), "outer fold", o.Measure)
	p.X.Tick.Marker = foldTicks{k}
	x0, x1 := 0.5, float64(k)+0.5
	if o.Interval != nil {
		band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: o.Interval[0]}, {X: x1, Y: o.Interval[0]}, {X: x1, Y: o.Interval[1]}, {X: x0, Y: o.Interval[1]}})
		if err != nil {
			return figure{}, err
		}
		band.Color = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0x30}
		band.LineStyle.Width = 0
		p.Add(band)
		p.Legend.Add(fmt.Sprintf("%g %% interval", 100*o.Level), band)
	}
	line, err := plotter.NewLine(plotter.XYs{{X: x0, Y: o.Value}, {X: x1, Y: o.Value}})
	if err != nil {
		return figure{}, err
	}
	line.LineStyle = draw.LineStyle{Color: textBlack, Width: 1.5, Dashes: []vg.Length{5, 3}}
	p.Add(line)
	p.Legend.Add("pooled outer value", line)
	var pts plotter.XYs
	for j, v := range o.Folds {
		if finite(v) {
			pts = append(pts, plotter.XY{X: float64(j + 1), Y: v})
		}
	}
	if len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return figure{}, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: palette[0], Radius: 3.5, Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add("outer fold", s)
	}
	p.X.Min, p.X.Max = x0, x1
	if r := p.Y.Max - p.Y.Min; r > 0 {
		p.Y.Min, p.Y.Max = p.Y.Min-0.06*r, p.Y.Max+0.06*r
	}
	p.Legend.Top = true
	caption := fmt.Sprintf("Each dot is the %s of one outer fold's predictions by the model the inner search chose on the other outer folds; the dashed line is the %s of all outer predictions pooled, %s, the estimate of the error of the whole search (kernel grid × λ, as fit ran it).",
		o.Measure, o.Measure, num(o.Value))
	if left := len(o.Folds) - len(pts); left > 0 {
		caption += fmt.Sprintf(" %s no value (the measure is undefined on it).", plural(left, "fold has", "folds have"))
	}
	switch {
	case o.Interval == nil:
		caption += " No interval: fewer than two outer folds have a value."
	case o.Method == selection.IntervalNestedCV:
		caption += fmt.Sprintf(" The band is the %g %% nested-CV interval of Bates, Hastie & Tibshirani (2024), [%s, %s], centred at the pooled outer value minus the bias estimate %s, with standard error %s.",
			100*o.Level, num(o.Interval[0]), num(o.Interval[1]), num(o.Bias), num(o.SE))
	default:
		caption += fmt.Sprintf(" The band is the %g %% interval %s ± z·SE, [%s, %s], SE = %s the outer folds' standard error (sd/√K, ignoring the folds' correlation; method %s).",
			100*o.Level, num(o.Value), num(o.Interval[0]), num(o.Interval[1]), num(o.SE), o.Method)
	}
	svg, err := renderSVG(p, "Nested cross-validation per outer fold")
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "nested-outer", Heading: "Nested cross-validation", SVG: svg, Caption: caption}, nil
}
