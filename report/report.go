// Package report renders a cross-validated fit as one self-contained HTML
// document: a summary table, then plots — the cross-validation curve over λ
// (y axis and heatmap colours logarithmic in the distance from the best value
// when the values near it would otherwise be squeezed, legend beside the
// plot), a kernel-parameter × λ heatmap when a kernel grid was searched, one named
// panel per output (CV prediction vs. truth and residuals, or a ROC curve),
// for one-vs-all a confusion matrix and per-class ROC curves, the per-fold
// spread of the CV value, the permutation test's null distribution, a
// histogram of per-query ranking disagreement, the width of the jackknife+
// or CV+ prediction intervals against the prediction with the coverage of
// the hold-out residuals (Intervals), the nested cross-validation's outer
// estimate with its interval — and the provenance (command line, version,
// backend, data file and its SHA-256, date).
//
// The plots are drawn with gonum/plot on its SVG canvas (vg/vgsvg) and
// inlined as <svg> elements. The document references nothing outside
// itself: no script, no stylesheet, no font or image is fetched, and a
// Content-Security-Policy meta element tells the browser to refuse any
// fetch anyway. It can be mailed, archived or opened offline as one file.
//
// Search and Greedy build the Data from the library's results (a search,
// a greedy selection) and their summary (package summary); what the results
// do not hold — the title, the provenance — the front end gives in Options.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
)

// ErrData is returned (wrapped, test with errors.Is) by Write when the Data
// are inconsistent: no curves, mismatched slice lengths, a λ that is not
// positive and finite or not ascending, an infinite value, a BestCurve out
// of range, ROC data with only one class, disagreement values outside
// [0, 1], and the like. Nothing is written to the writer in that case.
var ErrData = errors.New("report: invalid data")

// Curve is one cross-validation curve over λ: one per kernel setting when a
// kernel grid was searched, or a single curve otherwise.
type Curve struct {
	// Label names the curve in the legend, e.g. "gamma=0.5". It may be
	// empty for a single curve; with several curves an empty label is
	// shown as "curve i".
	Label string
	// Lambdas are the regularization parameters, positive, finite and
	// strictly ascending.
	Lambdas []float64
	// Values holds the measure value per λ, same length as Lambdas. NaN
	// is allowed and leaves a gap in the line; ±Inf is not allowed.
	Values []float64
	// FoldMeans and SE, when set (same length as Lambdas), are the mean
	// of the per-fold values at each λ and its standard error
	// (selection.Point), drawn as a bar FoldMean ± SE; NaN: no bar there.
	FoldMeans, SE []float64
}

// Data is everything a report shows. Only Curves and the Best* fields are
// required; every other plot is drawn only when its data are non-empty.
type Data struct {
	// Title heads the document (and names the browser tab). Empty gives
	// "Cross-validation report".
	Title string
	// Summary holds the rows (key, value) of the summary table: data
	// shape, learner, kernel, chosen parameters, CV value, timing, ...
	// The table is omitted when there are no rows.
	Summary [][2]string
	// Measure names the CV measure, e.g. "mse" or "auc". Empty gives
	// "value".
	Measure string
	// HigherIsBetter tells whether larger Measure values are better; it
	// is stated on the CV plot's axis.
	HigherIsBetter bool
	// Curves are the CV curves; at least one is required.
	Curves []Curve
	// BestCurve is the index into Curves of the chosen point.
	BestCurve int
	// BestLambda (positive, finite) and BestValue (finite) locate the
	// chosen point, marked on the CV plot.
	BestLambda, BestValue float64
	// ChooseNote, when set, says how the chosen point was chosen if not as
	// the best value (the one-standard-error rule), a sentence of the CV
	// plot's caption.
	ChooseNote string
	// OutputCurves (a λ per output) are each output's CV curve on the
	// chosen kernel setting, Label the output's name, and OutputLambdas
	// and OutputValues each output's chosen point, ringed; drawn as their
	// own plot. Empty omits it.
	OutputCurves                []Curve
	OutputLambdas, OutputValues []float64
	// ValueNote says what the CV values are computed over, completing
	// "The <measure> is …", e.g. "the mean over the 3 outputs of each
	// output's mse over the 20 leave-one-out predictions"; it is printed in
	// the CV plot's caption. Empty omits it.
	ValueNote string

	// Steps are feature-selection curves over the number of features (one
	// per λ); empty omits the plot. BestSteps indexes the chosen curve and
	// BestStep (1-based) its chosen number of features.
	Steps               []StepCurve
	BestSteps, BestStep int

	// Outputs holds the cross-validated predictions of each output, drawn as
	// one named panel per output: for a regression output the CV prediction
	// against the true label and the residuals against the prediction, for
	// a binary output (Binary) a ROC curve. Empty omits them.
	Outputs []Output

	// Classes names the classes of a one-vs-all model; with ClassTrue (the
	// index of each row's true class) and ClassScores (per row, the CV
	// output of every class) it draws the confusion matrix (predicted class
	// = the largest output) and one-vs-rest ROC curves per class.
	Classes     []string
	ClassTrue   []int
	ClassScores [][]float64

	// FoldValues holds the measure's value on each fold at the chosen point
	// (k-fold, group and fold-file schemes), drawn as a strip with the CV
	// value (BestValue) marked; FoldNote says how BestValue relates to them
	// (e.g. "pooled over all folds"). Empty omits the panel.
	FoldValues []float64
	FoldNote   string
	// NoFoldNote, when FoldValues is empty, says why there is no per-fold
	// panel (e.g. "Leave-one-out: each fold is one row, ..."); it is a
	// sentence of the CV plot's caption. Empty omits it.
	NoFoldNote string

	// Null holds the permutation test's best CV values of the permuted
	// labellings, drawn as a histogram with Observed (the real labels'
	// value) marked and PValue in the caption. Empty omits the panel.
	Null             []float64
	Observed, PValue float64

	// OnEdge lists the parameters chosen at an end of their grid, e.g.
	// "λ at the lower end of its grid"; each is a warning above the plots
	// and a note on the CV plot.
	OnEdge []string

	// Provenance holds (key, value) rows of where the report comes from:
	// command line, version, backend, seed, data file, its size and SHA-256,
	// date. Empty omits the section.
	Provenance [][2]string

	// QueryDisagreement holds, for ranking, the per-query disagreement
	// (1 − c-index, in [0, 1]) of the CV predictions. NaN marks a query
	// without comparable pairs and is left out of the histogram (and
	// counted in its caption); at least one value must be a number.
	// Empty (nil) omits the histogram.
	QueryDisagreement []float64

	// Intervals (fit --interval) are the interval panels, one per output
	// (Intervals builds them); empty omits them.
	Intervals []IntervalPanel
	// Outer, when set (fit --outer-folds), is the nested cross-validation's
	// estimate, drawn per outer fold with the pooled value and its
	// interval, and a row of the summary table.
	Outer *OuterEstimate
	// TLPO, when set (fit --roc tlpo), is the tournament leave-pair-out
	// ROC panel (tlpo.go).
	TLPO *TournamentROC
}

// Write renders the report as one HTML document and writes it to w.
//
// Sections, in order: the title, the on-edge warnings, the summary table,
// the CV curve (λ on a log₂ axis; y linear, or logarithmic in the distance
// from the best value (see focus) when the values within 10 % of the best
// would take less than 30 % of a linear axis; one line per Curve with the
// legend beside the plot, the chosen point ringed), the heatmap of every
// Curve × λ when there are several curves on one λ grid (colours likewise,
// with a 40 % share), the
// feature-selection curves when Steps are given, the per-output panels, the
// confusion matrix and per-class ROC curves, the per-fold spread, the
// permutation null distribution, the per-query disagreement histogram, the
// prediction-interval panels (Intervals), the nested cross-validation's
// outer estimate (Outer), and the provenance table. Every plot is an inline <svg>. All text is
// HTML-escaped.
//
// The data are checked first; on an error wrapping ErrData nothing is
// written. The document is rendered completely in memory and written with
// a single call to w.Write.
func Write(w io.Writer, d Data) error {
	if err := validate(&d); err != nil {
		return err
	}
	page := pageData{Title: d.Title, Summary: d.Summary, Warnings: d.OnEdge, Provenance: d.Provenance}
	if page.Title == "" {
		page.Title = "Cross-validation report"
	}
	type maker func(*Data) ([]figure, error)
	one := func(f func(*Data) (figure, error)) maker {
		return func(d *Data) ([]figure, error) {
			fig, err := f(d)
			return []figure{fig}, err
		}
	}
	steps := []struct {
		present bool
		make    maker
	}{
		{true, one(cvFigure)},
		{heatmapPossible(&d), one(heatmapFigure)},
		{len(d.OutputCurves) > 0, one(outputCurvesFigure)},
		{len(d.Steps) > 0, one(stepsFigure)},
		{len(d.Outputs) > 0, outputFigures},
		{len(d.Classes) > 0, classFigures},
		{len(d.FoldValues) > 0, one(foldFigure)},
		{len(d.Null) > 0, one(nullFigure)},
		{len(d.QueryDisagreement) > 0, one(disagreementFigure)},
		{len(d.Intervals) > 0, intervalFigures},
		{d.Outer != nil, one(outerFigure)},
		{d.TLPO != nil, one(tlpoFigure)},
	}
	for _, st := range steps {
		if !st.present {
			continue
		}
		figs, err := st.make(&d)
		if err != nil {
			return err
		}
		page.Figures = append(page.Figures, figs...)
	}

	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, page); err != nil {
		return fmt.Errorf("report: rendering HTML: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// figure is one plot section of the page.
type figure struct {
	ID      string        // element id of the section
	Heading string        // section heading
	SVG     template.HTML // the inline <svg> element, generated here
	Caption string        // plain text under the plot
}

// pageData is what pageTemplate renders.
type pageData struct {
	Title      string
	Warnings   []string
	Summary    [][2]string
	Figures    []figure
	Provenance [][2]string
}

// pageTemplate is the whole document. html/template escapes every string
// field; only figure.SVG, produced by this package from escaped text, is
// trusted. The style is kept to greys so that the only coloured pixels of a
// rendered page are those of the plots.
var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { margin: 0; background: #fff; color: #222; font-family: sans-serif; line-height: 1.4; }
main { max-width: 760px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 1.6em; margin: 0.4em 0 0.6em; }
h2 { font-size: 1.2em; margin: 1.6em 0 0.5em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #bbb; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; width: 35%; font-weight: 600; }
td { font-family: monospace; white-space: pre-wrap; word-break: break-word; }
figure { margin: 0; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #555; margin-top: 0.3em; }
.warning { border: 1px solid #999; background: #f4f4f4; padding: 6px 10px; margin: 0.5em 0; font-weight: 600; }
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
{{- range .Warnings}}
<p class="warning" role="alert">Warning: {{.}} — the best value may lie beyond the grid: widen it.</p>
{{- end}}
{{- if .Summary}}
<section id="summary">
<h2>Summary</h2>
<table>
{{- range .Summary}}
<tr><th scope="row">{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{- end}}
</table>
</section>
{{- end}}
{{- range .Figures}}
<section id="{{.ID}}">
<h2>{{.Heading}}</h2>
<figure>
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
</section>
{{- end}}
{{- if .Provenance}}
<section id="provenance">
<h2>Provenance</h2>
<table>
{{- range .Provenance}}
<tr><th scope="row">{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{- end}}
</table>
</section>
{{- end}}
</main>
</body>
</html>
`))

// validate checks d and wraps ErrData with the first problem found.
func validate(d *Data) error {
	if len(d.Curves) == 0 {
		return fmt.Errorf("%w: no curves", ErrData)
	}
	for i, c := range d.Curves {
		if len(c.Lambdas) == 0 {
			return fmt.Errorf("%w: curve %d has no points", ErrData, i)
		}
		if len(c.Lambdas) != len(c.Values) {
			return fmt.Errorf("%w: curve %d has %d lambdas but %d values", ErrData, i, len(c.Lambdas), len(c.Values))
		}
		for j, l := range c.Lambdas {
			if !(l > 0) || math.IsInf(l, 0) {
				return fmt.Errorf("%w: curve %d: lambda[%d] = %g is not positive and finite", ErrData, i, j, l)
			}
			if j > 0 && !(l > c.Lambdas[j-1]) {
				return fmt.Errorf("%w: curve %d: lambdas not strictly ascending at index %d", ErrData, i, j)
			}
		}
		for j, v := range c.Values {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: curve %d: value[%d] is infinite", ErrData, i, j)
			}
		}
		if err := validateSE(c, i); err != nil {
			return err
		}
	}
	if err := validateOutputCurves(d); err != nil {
		return err
	}
	if d.BestCurve < 0 || d.BestCurve >= len(d.Curves) {
		return fmt.Errorf("%w: BestCurve %d out of range [0, %d)", ErrData, d.BestCurve, len(d.Curves))
	}
	if !(d.BestLambda > 0) || math.IsInf(d.BestLambda, 0) {
		return fmt.Errorf("%w: BestLambda = %g is not positive and finite", ErrData, d.BestLambda)
	}
	if !finite(d.BestValue) {
		return fmt.Errorf("%w: BestValue = %g is not finite", ErrData, d.BestValue)
	}
	if err := validateSteps(d); err != nil {
		return err
	}

	if err := validateOutputs(d); err != nil {
		return err
	}
	if err := validateClasses(d); err != nil {
		return err
	}
	for i, v := range d.FoldValues {
		if math.IsInf(v, 0) {
			return fmt.Errorf("%w: fold value %d is infinite", ErrData, i)
		}
	}
	if len(d.FoldValues) > 0 && countFinite(d.FoldValues) == 0 {
		return fmt.Errorf("%w: no fold value is a number", ErrData)
	}
	for i, v := range d.Null {
		if !finite(v) {
			return fmt.Errorf("%w: permutation null value %d is not finite", ErrData, i)
		}
	}
	if len(d.Null) > 0 && (!finite(d.Observed) || !(d.PValue > 0 && d.PValue <= 1)) {
		return fmt.Errorf("%w: permutation test: observed %g, p-value %g", ErrData, d.Observed, d.PValue)
	}
	if err := validateIntervals(d); err != nil {
		return err
	}
	if len(d.QueryDisagreement) > 0 {
		numbers := 0
		for i, v := range d.QueryDisagreement {
			if math.IsNaN(v) {
				continue
			}
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("%w: query disagreement[%d] = %g is outside [0, 1]", ErrData, i, v)
			}
			numbers++
		}
		if numbers == 0 {
			return fmt.Errorf("%w: every query disagreement is NaN", ErrData)
		}
	}
	return nil
}

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// num formats v with 4 significant digits for captions and titles.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
