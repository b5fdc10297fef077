package main

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/selection"
)

// reportData gathers what the HTML report shows: the curves, the chosen point,
// and — from the CV predictions at the best λ, first output — the prediction
// scatter (regression), the ROC curve (two classes) or the per-query
// disagreement (queries).
func reportData(f *fitFlags, d *dataset.Data, out *fitOutput, meas measure.Measure, res *selection.SearchResult, scheme selection.Scheme, classes *classInfo) report.Data {
	curves, best := res.Curves, res.Curves[res.Best].Result
	r := report.Data{
		Title:          "rlskit fit: " + f.data,
		Measure:        meas.Name,
		HigherIsBetter: meas.HigherIsBetter,
		BestCurve:      res.Best,
		BestLambda:     best.Best.Lambda,
		BestValue:      best.Best.Value,
	}
	r.Summary = [][2]string{
		{"data", fmt.Sprintf("%s: %d rows × %d features, outputs %v", f.data, out.NTrain, out.NFeatures, out.Outputs)},
		{"learner", fmt.Sprintf("%s (%s form)", out.Learner, out.Form)},
		{"kernel", out.Kernel.String()},
		{"λ", fmt.Sprintf("%g", out.Lambda)},
		{"cross-validation", fmt.Sprintf("%s, %s = %.6g", out.CV.Strategy, meas.Name, best.Best.Value)},
		{"time", fmt.Sprintf("load %.2f s, training %.2f s, cross-validation %.2f s", out.Timing.Load, out.Timing.Train, out.Timing.CV)},
	}
	if out.NBasis > 0 {
		r.Summary = append(r.Summary, [2]string{"basis", fmt.Sprintf("%d vectors, held-out basis vectors: %s", out.NBasis, out.CV.BasisHoldOut)})
	}
	if out.Perm != nil {
		r.Summary = append(r.Summary, [2]string{"permutation test", fmt.Sprintf("p = %.4g over %d permutations (null mean %.4g, sd %.4g)",
			out.Perm.PValue, out.Perm.Permutations, out.Perm.NullMean, out.Perm.NullSD)})
	}
	for _, c := range curves {
		rc := report.Curve{}
		if len(curves) > 1 {
			rc.Label = specLabel(c.Kernel)
		}
		for _, p := range c.Curve {
			rc.Lambdas = append(rc.Lambdas, p.Lambda)
			rc.Values = append(rc.Values, p.Value)
		}
		r.Curves = append(r.Curves, rc)
	}
	addPredictionPlots(&r, d, best.Predictions, out.NTrain)
	return r
}

// addPredictionPlots adds, from the CV predictions (first output; NaN rows
// skipped), the per-query disagreement (queries), the ROC curve (two classes)
// or the prediction scatter.
func addPredictionPlots(r *report.Data, d *dataset.Data, pred *mat.Dense, n int) {
	if pred == nil || d.Y == nil {
		return
	}
	var y, p []float64
	var q []int
	for i := 0; i < n; i++ {
		if v := pred.At(i, 0); !math.IsNaN(v) {
			y, p = append(y, d.Y.At(i, 0)), append(p, v)
			if d.Queries != nil {
				q = append(q, d.Queries[i])
			}
		}
	}
	classes := slices.Compact(slices.Sorted(slices.Values(y)))
	switch {
	case d.Queries != nil:
		r.QueryDisagreement = measure.QueryDisagreements(y, p, q)
	case len(classes) == 2:
		for _, v := range y {
			r.ROCLabels = append(r.ROCLabels, math.Copysign(1, v-(classes[0]+classes[1])/2))
		}
		r.ROCScores = p
	default:
		r.True, r.Predicted = y, p
	}
}

func specLabel(s kernel.Spec) string {
	switch s.Name {
	case "gaussian":
		return fmt.Sprintf("gamma=%g", s.Gamma)
	case "polynomial":
		return fmt.Sprintf("gamma=%g coef0=%g degree=%d", s.Gamma, s.Coef0, s.Degree)
	}
	return s.String()
}

// greedyReport is the HTML report of a selection: the CV curve over λ (best
// over k), the curves over k, and the CV predictions of the chosen model.
func greedyReport(f *fitFlags, d *dataset.Data, out *fitOutput, p *fitPlan, res *greedy.Result) (report.Data, error) {
	lc := lambdaCurve(res, p.meas)
	r := report.Data{
		Title: "rlskit fit --learner greedy: " + f.data, Measure: p.meas.Name, HigherIsBetter: p.meas.HigherIsBetter,
		BestLambda: res.Lambda, BestValue: res.Value, BestStep: res.K,
	}
	rc := report.Curve{}
	for _, pt := range lc {
		rc.Lambdas, rc.Values = append(rc.Lambdas, pt.Lambda), append(rc.Values, pt.Value)
	}
	r.Curves = []report.Curve{rc}
	// the chosen λ's path and, of a long grid, six others spread over it
	show := func(l int) bool {
		n := len(res.Paths)
		return n <= 6 || l == res.Best || (l*5)%(n-1) < 5
	}
	for l, path := range res.Paths {
		if !show(l) {
			continue
		}
		sc := report.StepCurve{}
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
	names := out.Selection.Names
	if names == nil {
		names = make([]string, len(res.Selected))
		for n, j := range res.Selected {
			names[n] = fmt.Sprint(j)
		}
	}
	r.Summary = [][2]string{
		{"data", fmt.Sprintf("%s: %d rows × %d features, outputs %v", f.data, out.NTrain, out.NFeatures, out.Outputs)},
		{"learner", fmt.Sprintf("greedy RLS, linear kernel (bias %g), %d of %d features", f.bias, res.K, out.NFeatures)},
		{"features", fmt.Sprintf("%v", names)},
		{"λ", fmt.Sprintf("%g", res.Lambda)},
		{"selection criterion", fmt.Sprintf("%s, %s = %.6g (optimistic: it chose the features)", out.CV.Strategy, p.meas.Name, res.Value)},
	}
	if out.Outer != nil {
		r.Summary = append(r.Summary, [2]string{"outer cross-validation", fmt.Sprintf("%d folds, %s = %.6g", out.Outer.Folds, p.meas.Name, out.Outer.Value)})
	}
	r.Summary = append(r.Summary, [2]string{"time", fmt.Sprintf("load %.2f s, selection %.2f s, outer %.2f s", out.Timing.Load, out.Timing.Train, out.Timing.CV)})
	addPredictionPlots(&r, d, res.Predictions, out.NTrain)
	return r, nil
}
