// Package report renders a cross-validated fit as one self-contained HTML
// document: a summary table followed by plots (the cross-validation curve
// over λ, and, when the data are given, a prediction-versus-truth scatter,
// a ROC curve and a histogram of per-query ranking disagreement).
//
// The plots are drawn with gonum/plot on its SVG canvas (vg/vgsvg) and
// inlined as <svg> elements. The document references nothing outside
// itself: no script, no stylesheet, no font or image is fetched, and a
// Content-Security-Policy meta element tells the browser to refuse any
// fetch anyway. It can be mailed, archived or opened offline as one file.
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

	// Steps are feature-selection curves over the number of features (one
	// per λ); empty omits the plot. BestSteps indexes the chosen curve and
	// BestStep (1-based) its chosen number of features.
	Steps               []StepCurve
	BestSteps, BestStep int

	// True and Predicted are the true labels and the cross-validated
	// predictions (first output) for regression, equal lengths, all
	// finite. Empty (nil) omits the scatter plot. When there are more
	// than 5000 points an evenly strided subset of 5000 is drawn.
	True, Predicted []float64

	// ROCLabels and ROCScores give a ROC curve of the cross-validated
	// predictions for binary labels (label > 0 is positive), equal
	// lengths, all finite, both classes present. Empty (nil) omits the
	// ROC plot. Its AUC is computed here with ties counted ½.
	ROCLabels, ROCScores []float64

	// QueryDisagreement holds, for ranking, the per-query disagreement
	// (1 − c-index, in [0, 1]) of the CV predictions. NaN marks a query
	// without comparable pairs and is left out of the histogram (and
	// counted in its caption); at least one value must be a number.
	// Empty (nil) omits the histogram.
	QueryDisagreement []float64
}

// Write renders the report as one HTML document and writes it to w.
//
// Sections, in order: the title, the summary table, the CV curve (λ on a
// log₂ axis, one line per Curve with a legend when there are several, the
// chosen point marked), the feature-selection curves over the number of
// features when Steps are given, then whichever of the prediction scatter (with the
// y = x line), the ROC curve (AUC in its title, diagonal reference line)
// and the per-query disagreement histogram have data. Every plot is an
// inline <svg> of 640×400 CSS pixels. All text is HTML-escaped.
//
// The data are checked first; on an error wrapping ErrData nothing is
// written. The document is rendered completely in memory and written with
// a single call to w.Write.
func Write(w io.Writer, d Data) error {
	if err := validate(&d); err != nil {
		return err
	}
	page := pageData{Title: d.Title, Summary: d.Summary}
	if page.Title == "" {
		page.Title = "Cross-validation report"
	}

	fig, err := cvFigure(&d)
	if err != nil {
		return err
	}
	page.Figures = append(page.Figures, fig)
	if len(d.Steps) > 0 {
		if fig, err = stepsFigure(&d); err != nil {
			return err
		}
		page.Figures = append(page.Figures, fig)
	}
	if len(d.True) > 0 {
		if fig, err = scatterFigure(&d); err != nil {
			return err
		}
		page.Figures = append(page.Figures, fig)
	}
	if len(d.ROCLabels) > 0 {
		if fig, err = rocFigure(&d); err != nil {
			return err
		}
		page.Figures = append(page.Figures, fig)
	}
	if len(d.QueryDisagreement) > 0 {
		if fig, err = disagreementFigure(&d); err != nil {
			return err
		}
		page.Figures = append(page.Figures, fig)
	}

	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, page); err != nil {
		return fmt.Errorf("report: rendering HTML: %w", err)
	}
	_, err = w.Write(buf.Bytes())
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
	Title   string
	Summary [][2]string
	Figures []figure
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
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
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

	if len(d.True) != len(d.Predicted) {
		return fmt.Errorf("%w: %d true labels but %d predictions", ErrData, len(d.True), len(d.Predicted))
	}
	for i := range d.True {
		if !finite(d.True[i]) || !finite(d.Predicted[i]) {
			return fmt.Errorf("%w: true/predicted pair %d is not finite", ErrData, i)
		}
	}

	if len(d.ROCLabels) != len(d.ROCScores) {
		return fmt.Errorf("%w: %d ROC labels but %d scores", ErrData, len(d.ROCLabels), len(d.ROCScores))
	}
	if len(d.ROCLabels) > 0 {
		pos, neg := 0, 0
		for i := range d.ROCLabels {
			if !finite(d.ROCLabels[i]) || !finite(d.ROCScores[i]) {
				return fmt.Errorf("%w: ROC label/score pair %d is not finite", ErrData, i)
			}
			if d.ROCLabels[i] > 0 {
				pos++
			} else {
				neg++
			}
		}
		if pos == 0 || neg == 0 {
			return fmt.Errorf("%w: ROC needs both classes (%d positive, %d negative)", ErrData, pos, neg)
		}
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
