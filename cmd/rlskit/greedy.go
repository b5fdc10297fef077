package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/selection"
)

// selectionOutput is fit's JSON "selection" of --learner greedy.
type selectionOutput struct {
	// Selected and Names are the final model's features, in order of selection.
	Selected []int    `json:"selected"`
	Names    []string `json:"names,omitempty"`
	// Curve has one point per step of every path (lambda only when a grid was searched).
	Curve []stepPoint `json:"curve"`
	Best  stepPoint   `json:"best"`
	// Memory is "cached" or "lean" (package greedy).
	Memory string `json:"memory"`
}

// stepPoint is the CV value after adding the k-th feature.
type stepPoint struct {
	Lambda            *float64 `json:"lambda,omitempty"`
	Features          int      `json:"features"`
	Value             float64  `json:"value"`
	Feature           *int     `json:"feature,omitempty"`
	Name              string   `json:"name,omitempty"`
	Indistinguishable bool     `json:"indistinguishable,omitempty"`
}

// outerOutput is fit's JSON "outer": the outer cross-validation of the whole selection.
type outerOutput struct {
	Folds   int             `json:"folds"`
	Measure string          `json:"measure"`
	Value   float64         `json:"value"`
	PerFold []outerFoldJSON `json:"per_fold"`
}

type outerFoldJSON struct {
	Lambda   float64 `json:"lambda"`
	Features int     `json:"features"`
	Selected []int   `json:"selected"`
	Inner    float64 `json:"inner"`
}

// runGreedy is fit --learner greedy: read → greedy.Select (and greedy.Outer)
// → write. The selection, its criterion and the outer loop are the library's.
func runGreedy(e *env, f *fitFlags, p *plan.Plan, start time.Time) error {
	var (
		out  fitOutput
		res  *greedy.Result
		rd   report.Data
		outs = dataset.Outputs{Stdout: e.stdout}
	)
	outs.Add("--model", f.Model, func(w io.Writer) error { return res.Predictor.Save(w) })
	outs.Add("--cv-predictions", f.CVPredictions, func(w io.Writer) error { return writeRowPredictions(w, res.Predictions, res.Predictor.Outputs) })
	outs.Add("--report", f.Report, func(w io.Writer) error { return report.Write(w, rd) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.Data, f.Folds); err != nil {
		return err
	}
	d, err := readData(e, f.Data, f.Format, f.Label, f.Qid, 0, f.In)
	if err != nil {
		return err
	}
	if _, _, err := trainingInput(f, p, d); err != nil {
		return err
	}
	m, width := d.X.Dims()
	if f.Select > width {
		return fmt.Errorf("--select %d: %w: %s has %d features", f.Select, greedy.ErrSelect, f.Data, width)
	}
	scheme, err := fitScheme(f, p, d, nil)
	if err != nil {
		return err
	}
	loaded := time.Now()
	prog := newProgress(e.stderr, f.Quiet)
	defer prog.done()
	opt := greedy.Options{Lambdas: p.Lambdas, Bias: f.Bias, K: f.Select, Measure: p.Measure, Folds: scheme.Folds,
		Queries: d.Queries, Outputs: d.LabelNames, Standardize: f.Standardize, Progress: prog.observe}
	res, err = greedy.Select(d.X, d.Y, opt)
	if err != nil {
		return fmt.Errorf("--learner greedy: %w", err)
	}
	res.Predictor.Features, res.Predictor.ZeroBased = d.FeatureNames, d.ZeroBased
	t1 := time.Now()
	var outer *greedy.OuterResult
	if f.OuterFolds > 0 {
		folds, err := cv.KFold(m, f.OuterFolds, f.Seed)
		if err != nil {
			return fmt.Errorf("--outer-folds %d: %w", f.OuterFolds, err)
		}
		if outer, err = greedy.Outer(d.X, d.Y, opt, folds); err != nil {
			return fmt.Errorf("--outer-folds %d: %w", f.OuterFolds, err)
		}
	}

	out = fitOutput{Learner: string(p.Learner.Name), Kernel: kernel.Spec{Name: "linear", Bias: f.Bias}, Form: "linear", Lambda: res.Lambda,
		NTrain: m, NFeatures: width, Outputs: d.LabelNames, Backend: linalg.Backend()}
	if d.Queries != nil {
		out.Queries = queryStats(d)
	}
	out.Selection = greedySelection(res, d.FeatureNames)
	out.CV = &cvOutput{Strategy: scheme.Name, Measure: p.Measure.Name}
	for _, c := range lambdaCurve(res, p.Measure) {
		out.CV.Curve = append(out.CV.Curve, curvePoint{Lambda: c.Lambda, Value: c.Value})
	}
	out.CV.Best = curvePoint{Lambda: res.Lambda, Value: res.Value}
	if outer != nil {
		out.Outer = &outerOutput{Folds: f.OuterFolds, Measure: p.Measure.Name, Value: outer.Value}
		for _, fo := range outer.Folds {
			out.Outer.PerFold = append(out.Outer.PerFold, outerFoldJSON{Lambda: fo.Lambda, Features: fo.K, Selected: fo.Selected, Inner: fo.Inner})
		}
	}
	if !f.Quiet {
		greedyWarnings(e, res, p)
	}
	out.Timing = timing{Load: loaded.Sub(start).Seconds(), Train: t1.Sub(loaded).Seconds(), CV: time.Since(t1).Seconds(),
		Total: time.Since(start).Seconds()}
	if f.Report != "" {
		if rd, err = greedyReport(f, d, &out, p, res); err != nil {
			return err
		}
	}
	return finish(e, f, &outs, prog, out)
}

// greedySelection is the JSON "selection" of a result.
func greedySelection(res *greedy.Result, names []string) *selectionOutput {
	name := func(j int) string {
		if j < len(names) {
			return names[j]
		}
		return ""
	}
	s := &selectionOutput{Selected: res.Selected, Memory: map[bool]string{true: "cached", false: "lean"}[res.Cached]}
	for _, j := range res.Selected {
		if names != nil {
			s.Names = append(s.Names, name(j))
		}
	}
	grid := len(res.Paths) > 1
	for l, p := range res.Paths {
		for n, st := range p.Steps {
			pt := stepPoint{Features: n + 1, Value: st.Value, Feature: &st.Feature, Name: name(st.Feature), Indistinguishable: st.Indistinguishable}
			if grid {
				pt.Lambda = &res.Paths[l].Lambda
			}
			s.Curve = append(s.Curve, pt)
		}
	}
	s.Best = stepPoint{Lambda: &res.Lambda, Features: res.K, Value: res.Value}
	return s
}

// lambdaCurve is the best value over k at each λ, ascending in λ (a λ given
// twice keeps its first path).
func lambdaCurve(res *greedy.Result, meas measure.Measure) []selection.Point {
	var out []selection.Point
	for _, p := range res.Paths {
		best := math.NaN()
		for _, st := range p.Steps {
			if meas.Better(st.Value, best) {
				best = st.Value
			}
		}
		if !slices.ContainsFunc(out, func(q selection.Point) bool { return q.Lambda == p.Lambda }) {
			out = append(out, selection.Point{Lambda: p.Lambda, Value: best})
		}
	}
	slices.SortFunc(out, func(a, b selection.Point) int { return cmp.Compare(a.Lambda, b.Lambda) })
	return out
}

// greedyWarnings: a choice at the end of what was searched may lie beyond it.
func greedyWarnings(e *env, res *greedy.Result, p *plan.Plan) {
	if len(p.Lambdas) > 1 {
		lo, hi := slices.Min(p.Lambdas), slices.Max(p.Lambdas)
		if res.Lambda == lo || res.Lambda == hi {
			fmt.Fprintf(e.stderr, "rlskit: warning: the chosen lambda is the %s end of its grid; the best value may lie beyond it: widen the grid\n",
				map[bool]string{true: "lower", false: "upper"}[res.Lambda == lo])
		}
	}
	if res.K == len(res.Paths[res.Best].Steps) && res.K > 1 {
		fmt.Fprintf(e.stderr, "rlskit: note: the criterion was still improving at the last of the %d features selected; more might be better (raise --select)\n", res.K)
	}
	if res.Paths[res.Best].Steps[res.K-1].Indistinguishable {
		fmt.Fprintf(e.stderr, "rlskit: warning: at the chosen point the CV predictions are numerically indistinguishable; %s counts them as ties\n", p.Measure.Name)
	}
}
