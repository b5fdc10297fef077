package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// Options are what a report shows that the results do not hold: the front
// end's title and name of the data, a one-vs-all fit's class-label column,
// and the provenance (the command line, the version, the input files' sizes
// and hashes, the date: the front end's to gather).
type Options struct {
	// Title heads the report; Data names the data in its summary table.
	Title, Data string
	// OneVsAll says the outputs are one-vs-all scores of the classes of the
	// label column ClassColumn (the data's outputs name the classes).
	OneVsAll    bool
	ClassColumn string
	// Provenance holds the (key, value) rows of where the report comes from.
	Provenance [][2]string
}

// Search is the report's data of a search on the data d, summarized as fit
// (summary.Search, with its timing): the curves and the chosen point (with its
// on-edge warnings), and — from the CV predictions at the chosen point —
// one named panel per output (or, one-vs-all, the confusion matrix and
// per-class ROC; with queries, the per-query disagreement), the per-fold
// values, the permutation null distribution and the provenance.
func Search(fit *summary.Fit, res *selection.SearchResult, d *dataset.Data, scheme selection.Scheme, meas measure.Measure, opt Options) Data {
	curves, best := res.Curves, res.Curves[res.Best].Result
	r := Data{
		Title:          opt.Title,
		Measure:        meas.Name,
		HigherIsBetter: meas.HigherIsBetter,
		BestCurve:      res.Best,
		BestLambda:     best.Best.Lambda,
		BestValue:      best.Best.Value,
	}
	if res.ChosenPredictions != nil { // the model's CV predictions: at its λ (one-standard-error rule) or each output's
		cp := *best
		cp.Predictions, cp.Tolerance = res.ChosenPredictions, res.ChosenTolerance
		best = &cp
	}
	if res.Choose == selection.Choose1SE {
		c := best.Curve[res.Chosen]
		r.BestLambda, r.BestValue = c.Lambda, c.Value
		ref := best.Curve[0] // the best fold mean, ties to the larger λ: the rule's reference (selection.OneSE)
		for _, p := range best.Curve {
			if meas.Better(p.FoldMean, ref.FoldMean) || p.FoldMean == ref.FoldMean && p.Lambda > ref.Lambda {
				ref = p
			}
		}
		r.ChooseNote = fmt.Sprintf("The chosen λ is the one-standard-error rule's (--choose 1se): the largest λ whose fold mean is within one standard error of the best fold mean, %s ± %s at λ = %s; the best %s value is %s at λ = %s.",
			num(ref.FoldMean), num(ref.SE), Pow2(ref.Lambda), meas.Name, num(best.Best.Value), Pow2(best.Best.Lambda))
	}
	if len(res.PerOutput) > 0 {
		c := res.Curves[res.Best]
		for _, o := range res.PerOutput {
			rc := Curve{Label: labelName(d, o.Output)}
			for n, p := range c.Curve {
				rc.Lambdas, rc.Values = append(rc.Lambdas, p.Lambda), append(rc.Values, c.PerOutput[n][o.Output])
			}
			r.OutputCurves = append(r.OutputCurves, rc)
			r.OutputLambdas, r.OutputValues = append(r.OutputLambdas, o.Lambda), append(r.OutputValues, o.Value)
		}
	}
	r.Summary = [][2]string{
		{"data", fmt.Sprintf("%s: %d rows × %d features, outputs %v", opt.Data, fit.NTrain, fit.NFeatures, fit.Outputs)},
		{"learner", fmt.Sprintf("%s (%s form)", fit.Learner, fit.Form)},
		{"kernel", specLabel(fit.Kernel)},
		{"λ", Pow2(fit.Lambda)},
		{"cross-validation", fmt.Sprintf("%s, %s = %.6g", fit.CV.Strategy, meas.Name, best.Best.Value)},
		{"time", fmt.Sprintf("load %.2f s, training %.2f s, cross-validation %.2f s", fit.Timing.Load, fit.Timing.Train, fit.Timing.CV)},
	}
	if res.Choose == selection.Choose1SE {
		r.Summary[4][1] = fmt.Sprintf("%s, %s = %.6g at the chosen λ (the one-standard-error rule; the best value %.6g at λ = %s)",
			fit.CV.Strategy, meas.Name, r.BestValue, best.Best.Value, Pow2(best.Best.Lambda))
	}
	if _, t := d.Y.Dims(); t > 1 && !opt.OneVsAll {
		r.Summary[4][1] += fmt.Sprintf(" (the mean over the %d outputs)", t)
	} else if opt.OneVsAll {
		r.Summary[4][1] += fmt.Sprintf(" (one-vs-all over the %d classes)", t)
	}
	if fit.NBasis > 0 {
		r.Summary = append(r.Summary, [2]string{"basis", fmt.Sprintf("%d vectors, held-out basis vectors: %s", fit.NBasis, fit.CV.BasisHoldOut)})
	}
	for _, e := range res.OnEdge {
		name := map[string]string{"lambda": "λ"}[e.Parameter]
		if name == "" {
			name = e.Parameter
		}
		r.OnEdge = append(r.OnEdge, fmt.Sprintf("the chosen %s is at the %s end of its grid", name, map[string]string{"low": "lower", "high": "upper"}[e.Side]))
	}
	var labels []string
	for _, c := range curves {
		labels = append(labels, specLabel(c.Kernel))
	}
	labels = varyingParts(labels)
	for i, c := range curves {
		rc := Curve{}
		if len(curves) > 1 {
			rc.Label = labels[i]
		}
		withSE := false
		for _, p := range c.Curve {
			rc.Lambdas = append(rc.Lambdas, p.Lambda)
			rc.Values = append(rc.Values, p.Value)
			withSE = withSE || p.NFolds >= 2
		}
		if withSE {
			for _, p := range c.Curve {
				m, se := math.NaN(), math.NaN()
				if p.NFolds >= 2 {
					m, se = p.FoldMean, p.SE
				}
				rc.FoldMeans, rc.SE = append(rc.FoldMeans, m), append(rc.SE, se)
			}
		}
		r.Curves = append(r.Curves, rc)
	}
	addPredictionPlots(&r, d, best.Predictions, fit.NTrain, opt)
	_, t := d.Y.Dims()
	r.ValueNote = valueNote(scheme, predictedRows(best.Predictions), t, opt.OneVsAll)
	if scheme.Kind == selection.Folds && best.Predictions != nil {
		// the predictions are the first repetition's (selection.Result)
		r.FoldValues = best.FoldValues(d.Y, scheme.Repetitions()[0], meas, d.Queries)
		r.FoldNote = "the predictions of all folds scored together"
		if scheme.FoldMean {
			r.FoldNote = "the mean of the folds' values"
		}
		if scheme.Repeats > 1 {
			r.FoldNote += fmt.Sprintf("; the folds of the first of %d repetitions, the value the mean over all of them", scheme.Repeats)
		}
	}
	switch scheme.Kind {
	case selection.LOO:
		r.NoFoldNote = "No per-fold panel: leave-one-out holds out one row at a time, and a single row has no spread to show"
		if len(r.Outputs) > 0 && !r.Outputs[0].Binary {
			r.NoFoldNote += " — each row's own error is in the residual plots below."
		} else {
			r.NoFoldNote += " (nor, for a ranking measure, a value)."
		}
	case selection.LPO:
		r.NoFoldNote = "No per-fold panel: leave-pair-out holds out one pair at a time, which has no value of its own to spread."
	}
	if pr := res.Permutation; pr != nil {
		r.Null, r.Observed, r.PValue = pr.Null, pr.Real, pr.PValue
	}
	if res.Predictor != nil && res.Predictor.Interval != nil {
		ivs, err := Intervals(res.Predictor, d.X, IntervalCoverage)
		if err != nil { // the report shows what it can, and says why not the rest
			r.Summary = append(r.Summary, [2]string{"prediction intervals", "not drawn: " + err.Error()})
		}
		r.Intervals = ivs
	}
	if r.Outer = OuterFromSummary(fit.Outer); r.Outer != nil {
		r.Summary = append(r.Summary, outerRow(r.Outer))
	}
	r.TLPO = TournamentFromSummary(fit.ROC)
	r.Provenance = opt.Provenance
	return r
}

// labelName is the name of output c of the data (its label column), or
// "output c+1".
func labelName(d *dataset.Data, c int) string {
	if c < len(d.LabelNames) && d.LabelNames[c] != "" {
		return d.LabelNames[c]
	}
	return fmt.Sprintf("output %d", c+1)
}

// Greedy is the report's data of a greedy selection res on the data d,
// summarized as fit (summary.Greedy, with its timing): the CV curve over λ
// (best over k), the curves over k, and the CV predictions of the chosen
// model.
func Greedy(fit *summary.Fit, res *greedy.Result, d *dataset.Data, meas measure.Measure, opt Options) Data {
	lc := summary.LambdaCurve(res, meas)
	r := Data{
		Title: opt.Title, Measure: meas.Name, HigherIsBetter: meas.HigherIsBetter,
		BestLambda: res.Lambda, BestValue: res.Value, BestStep: res.K,
	}
	rc := Curve{}
	for _, pt := range lc {
		rc.Lambdas, rc.Values = append(rc.Lambdas, pt.Lambda), append(rc.Values, pt.Value)
	}
	r.Curves = []Curve{rc}
	// the chosen λ's path and, of a long grid, six others spread over it
	show := func(l int) bool {
		n := len(res.Paths)
		return n <= 6 || l == res.Best || (l*5)%(n-1) < 5
	}
	for l, path := range res.Paths {
		if !show(l) {
			continue
		}
		sc := StepCurve{}
		if len(res.Paths) > 1 {
			sc.Label = fmt.Sprintf("lambda=%g", path.Lambda)
		}
		for _, st := range path.Steps {
			sc.Values = append(sc.Values, st.Value)
		}
		r.Steps = append(r.Steps, sc)
		if l == res.Best {
			r.BestSteps = len(r.Steps) - 1
		}
	}
	names := fit.Selection.Names
	if names == nil {
		names = make([]string, len(res.Selected))
		for n, j := range res.Selected {
			names[n] = fmt.Sprint(j)
		}
	}
	r.Summary = [][2]string{
		{"data", fmt.Sprintf("%s: %d rows × %d features, outputs %v", opt.Data, fit.NTrain, fit.NFeatures, fit.Outputs)},
		{"learner", fmt.Sprintf("greedy RLS, linear kernel (bias %g), %d of %d features", fit.Kernel.Bias, res.K, fit.NFeatures)},
		{"features", fmt.Sprintf("%v", names)},
		{"λ", Pow2(res.Lambda)},
		{"selection criterion", fmt.Sprintf("%s, %s = %.6g (optimistic: it chose the features)", fit.CV.Strategy, meas.Name, res.Value)},
	}
	if fit.Outer != nil {
		r.Summary = append(r.Summary, [2]string{"outer cross-validation", fmt.Sprintf("%d folds, %s = %.6g", fit.Outer.Folds, meas.Name, fit.Outer.Value)})
	}
	r.Outer = OuterFromSummary(fit.Outer)
	r.Summary = append(r.Summary, [2]string{"time", fmt.Sprintf("load %.2f s, selection %.2f s, outer %.2f s", fit.Timing.Load, fit.Timing.Train, fit.Timing.CV)})
	addPredictionPlots(&r, d, res.Predictions, fit.NTrain, Options{})
	r.Provenance = opt.Provenance
	return r
}

// predictedRows counts the rows with a CV prediction (NaN rows were in no
// fold).
func predictedRows(pred *mat.Dense) int {
	if pred == nil {
		return 0
	}
	m, _ := pred.Dims()
	n := 0
	for i := range m {
		if !math.IsNaN(pred.At(i, 0)) {
			n++
		}
	}
	return n
}

// valueNote says what the CV value is computed over (see Data's
// ValueNote): the scheme's predictions, and for several outputs (not one-vs-
// all, whose measure scores the classes together) the mean over them.
func valueNote(scheme selection.Scheme, rows, outputs int, oneVsAll bool) string {
	var over string
	switch scheme.Kind {
	case selection.LOO:
		over = fmt.Sprintf("the %d leave-one-out predictions", rows)
	case selection.Folds:
		k := len(scheme.Repetitions()[0])
		if scheme.FoldMean {
			over = fmt.Sprintf("the %d folds, each fold scored on its own and the folds' values averaged", k)
		} else {
			over = fmt.Sprintf("the %d CV predictions of the %d folds, pooled", rows, k)
		}
		if scheme.Repeats > 1 {
			over = fmt.Sprintf("%d repetitions of k-fold, averaged: in each, %s", scheme.Repeats, over)
		}
	case selection.LPO:
		over = "the leave-pair-out predictions of every pair"
	default:
		return ""
	}
	if outputs > 1 && !oneVsAll {
		return fmt.Sprintf("the mean over the %d outputs of each output's value over %s", outputs, over)
	}
	return "computed over " + over
}

// addPredictionPlots adds, from the CV predictions (NaN rows skipped): the
// per-query disagreement of the first output (queries); for a one-vs-all
// model the classes' scores; otherwise one named output panel per output — a
// ROC curve for two-valued labels, else the scatter and residuals.
func addPredictionPlots(r *Data, d *dataset.Data, pred *mat.Dense, n int, opt Options) {
	if pred == nil || d.Y == nil {
		return
	}
	_, t := pred.Dims()
	if opt.OneVsAll {
		for _, c := range d.LabelNames {
			r.Classes = append(r.Classes, opt.ClassColumn+"="+c)
		}
		for i := 0; i < n; i++ {
			row := pred.RawRowView(i)
			if math.IsNaN(row[0]) {
				continue
			}
			r.ClassTrue = append(r.ClassTrue, argmax(d.Y.RawRowView(i)))
			r.ClassScores = append(r.ClassScores, slices.Clone(row))
		}
		return
	}
	for j := 0; j < t; j++ {
		var y, p []float64
		var q []int
		for i := 0; i < n; i++ {
			if v := pred.At(i, j); !math.IsNaN(v) {
				y, p = append(y, d.Y.At(i, j)), append(p, v)
				if d.Queries != nil {
					q = append(q, d.Queries[i])
				}
			}
		}
		if len(y) == 0 {
			continue
		}
		if d.Queries != nil {
			if j == 0 {
				r.QueryDisagreement = measure.QueryDisagreements(y, p, q)
			}
			continue
		}
		o := Output{Predicted: p}
		if j < len(d.LabelNames) {
			o.Name = d.LabelNames[j]
		}
		if classes := slices.Compact(slices.Sorted(slices.Values(y))); len(classes) == 2 {
			o.Binary = true
			for _, v := range y {
				o.True = append(o.True, math.Copysign(1, v-(classes[0]+classes[1])/2))
			}
		} else {
			o.True = y
		}
		r.Outputs = append(r.Outputs, o)
	}
}

func argmax(v []float64) int {
	k := 0
	for i, x := range v {
		if x > v[k] {
			k = i
		}
	}
	return k
}

// varyingParts drops from the kernel labels the space-separated parts that
// every label shares (e.g. "gamma=1" when only degree and coef0 were
// searched), so that legends and heatmap rows name what differs; labels of
// different shapes are returned as they are.
func varyingParts(labels []string) []string {
	if len(labels) < 2 {
		return labels
	}
	parts := make([][]string, len(labels))
	for i, l := range labels {
		parts[i] = strings.Fields(l)
		if len(parts[i]) != len(parts[0]) {
			return labels
		}
	}
	out := make([]string, len(labels))
	for j := range parts[0] {
		same := true
		for _, p := range parts[1:] {
			same = same && p[j] == parts[0][j]
		}
		if same {
			continue
		}
		for i, p := range parts {
			if out[i] != "" {
				out[i] += " "
			}
			out[i] += p[j]
		}
	}
	if out[0] == "" {
		return labels
	}
	return out
}

// specLabel names a kernel setting, parameters that are powers of two as 2^k.
func specLabel(s kernel.Spec) string {
	switch s.Name {
	case "gaussian":
		return "gamma=" + Pow2(s.Gamma)
	case "polynomial":
		return fmt.Sprintf("gamma=%s coef0=%s degree=%d", Pow2(s.Gamma), Pow2(s.Coef0), s.Degree)
	case "linear":
		return "linear, bias=" + Pow2(s.Bias)
	}
	return s.String()
}
