package report_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

var nan = math.NaN()

// measureNamed is a registered measure (a test's name: no error).
func measureNamed(name string) measure.Measure {
	m, err := measure.ByName(name)
	if err != nil {
		panic(err)
	}
	return m
}

// twoOutputs are 8 rows with a regression output y and a two-valued output
// z (0 or 5).
func twoOutputs() *dataset.Data {
	y := mat.NewDense(8, 2, []float64{1.5, 0, 2, 5, 0.5, 0, 3, 5, 2.5, 5, 1, 0, 4, 5, 2, 0})
	return &dataset.Data{X: mat.NewDense(8, 3, nil), Y: y, LabelNames: []string{"y", "z"}}
}

// polySearch is a search over two polynomial kernels (degree 2 and 3) and
// three λ that chose the second kernel's smallest λ (both on an edge), with
// its CV predictions (row 7 in no fold) and a permutation test.
func polySearch(pred *mat.Dense) *selection.SearchResult {
	curve := func(v ...float64) *selection.Result {
		r := &selection.Result{Predictions: pred}
		for k, l := range []float64{1.0 / 16, 1, 16} {
			r.Curve = append(r.Curve, selection.Point{Lambda: l, Value: v[k]})
		}
		r.Best = r.Curve[slices.Index(v, slices.Min(v))]
		return r
	}
	k2 := kernel.Spec{Name: "polynomial", Gamma: 1, Coef0: 1, Degree: 2}
	k3 := kernel.Spec{Name: "polynomial", Gamma: 1, Coef0: 1, Degree: 3}
	return &selection.SearchResult{
		Curves: []selection.Curve{{Kernel: k2, Result: curve(3, 2, 4)}, {Kernel: k3, Result: curve(1, 2.5, 5)}},
		Best:   1, Kernel: k3, Lambda: 1.0 / 16, Value: 1,
		OnEdge:      []selection.Edge{{Parameter: "lambda", Side: "low"}, {Parameter: "degree", Side: "high"}},
		Permutation: &selection.PermutationResult{Permutations: 3, Real: 1, Null: []float64{3, 4, 0.5}, PValue: 0.5},
	}
}

func write(t *testing.T, d report.Data) {
	t.Helper()
	var b bytes.Buffer
	if err := report.Write(&b, d); err != nil {
		t.Fatalf("report.Write: %v", err)
	}
}

// TestSearch: a search's report data — the summary table (the mean over
// two outputs), one curve per kernel setting labelled by what differs, the
// chosen point and its edges, a panel per output (the two-valued one as
// ±1 for its ROC, the row in no fold left out), the leave-one-out notes,
// the permutation null and the provenance given.
func TestSearch(t *testing.T) {
	d := twoOutputs()
	pred := mat.NewDense(8, 2, []float64{1, 0.1, 2, 4, 1, 1, 3, 3, 2, 4, 1, 0, 3, 5, nan, nan})
	res := polySearch(pred)
	fit := &summary.Fit{Learner: "rls", Kernel: res.Kernel, Form: "dual", Lambda: res.Lambda, NTrain: 8, NFeatures: 3, Outputs: d.LabelNames,
		CV: &summary.CV{Strategy: "loo"}, Timing: summary.Timing{Load: 1, Train: 2, CV: 3, Total: 6}}
	prov := [][2]string{{"command", "a front end --flag"}}
	loo := selection.Scheme{Kind: selection.LOO, Name: "loo"}
	r := report.Search(fit, res, d, loo, measureNamed("mse"), report.Options{Title: "T", Data: "d.csv", Provenance: prov})
	wantSummary := [][2]string{
		{"data", "d.csv: 8 rows × 3 features, outputs [y z]"},
		{"learner", "rls (dual form)"},
		{"kernel", "gamma=1 coef0=1 degree=3"},
		{"λ", "2^-4"},
		{"cross-validation", "loo, mse = 1 (the mean over the 2 outputs)"},
		{"time", "load 1.00 s, training 2.00 s, cross-validation 3.00 s"},
	}
	if !reflect.DeepEqual(r.Summary, wantSummary) {
		t.Errorf("summary\n%q\nwant\n%q", r.Summary, wantSummary)
	}
	if r.Title != "T" || r.Measure != "mse" || r.HigherIsBetter || r.BestCurve != 1 || r.BestLambda != 1.0/16 || r.BestValue != 1 {
		t.Errorf("chosen point: %+v", r)
	}
	wantCurves := []report.Curve{{Label: "degree=2", Lambdas: []float64{1.0 / 16, 1, 16}, Values: []float64{3, 2, 4}},
		{Label: "degree=3", Lambdas: []float64{1.0 / 16, 1, 16}, Values: []float64{1, 2.5, 5}}}
	if !reflect.DeepEqual(r.Curves, wantCurves) {
		t.Errorf("curves %+v, want %+v", r.Curves, wantCurves)
	}
	if want := []string{"the chosen λ is at the lower end of its grid", "the chosen degree is at the upper end of its grid"}; !reflect.DeepEqual(r.OnEdge, want) {
		t.Errorf("on edge %q, want %q", r.OnEdge, want)
	}
	wantOutputs := []report.Output{
		{Name: "y", True: []float64{1.5, 2, 0.5, 3, 2.5, 1, 4}, Predicted: []float64{1, 2, 1, 3, 2, 1, 3}},
		{Name: "z", Binary: true, True: []float64{-1, 1, -1, 1, 1, -1, 1}, Predicted: []float64{0.1, 4, 1, 3, 4, 0, 5}},
	}
	if !reflect.DeepEqual(r.Outputs, wantOutputs) {
		t.Errorf("outputs\n%+v\nwant\n%+v", r.Outputs, wantOutputs)
	}
	if want := "the mean over the 2 outputs of each output's value over the 7 leave-one-out predictions"; r.ValueNote != want {
		t.Errorf("value note %q, want %q", r.ValueNote, want)
	}
	if want := "No per-fold panel: leave-one-out holds out one row at a time, and a single row has no spread to show — each row's own error is in the residual plots below."; r.NoFoldNote != want || r.FoldValues != nil {
		t.Errorf("no-fold note %q, want %q (fold values %v)", r.NoFoldNote, want, r.FoldValues)
	}
	if !reflect.DeepEqual(r.Null, []float64{3, 4, 0.5}) || r.Observed != 1 || r.PValue != 0.5 || !reflect.DeepEqual(r.Provenance, prov) {
		t.Errorf("null %v observed %v p %v provenance %q", r.Null, r.Observed, r.PValue, r.Provenance)
	}
	write(t, r)

	// one kernel setting: no label; a basis: its row
	res.Curves, res.Best = res.Curves[1:], 0
	fit.NBasis, fit.CV.BasisHoldOut = 4, "keep"
	r = report.Search(fit, res, d, loo, measureNamed("mse"), report.Options{})
	if r.Curves[0].Label != "" || r.Summary[6] != [2]string{"basis", "4 vectors, held-out basis vectors: keep"} {
		t.Errorf("one kernel: label %q; summary %q", r.Curves[0].Label, r.Summary)
	}
}

// TestSearchFoldsQueries: k-fold's per-fold values (with the queries) and
// notes (folds averaged); with queries the per-query disagreement of the
// first output instead of output panels.
func TestSearchFoldsQueries(t *testing.T) {
	d := twoOutputs()
	d.Y, d.LabelNames = mat.DenseCopyOf(d.Y.Slice(0, 8, 0, 1)), d.LabelNames[:1]
	d.Queries = []int{0, 0, 0, 1, 1, 1, 2, 2}
	// each query ordered right, the queries apart wrong
	pred := mat.NewDense(8, 1, []float64{11.5, 12, 10.5, 3, 2.5, 1, -6, -8})
	res := polySearch(pred)
	fit := &summary.Fit{NTrain: 8, CV: &summary.CV{Strategy: "kfold:2"}}
	disagreement := measureNamed("disagreement") // within queries
	scheme := selection.Scheme{Kind: selection.Folds, Name: "kfold:2", Folds: [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}, FoldMean: true}
	r := report.Search(fit, res, d, scheme, disagreement, report.Options{})
	want := res.Curves[1].FoldValues(d.Y, scheme.Folds, disagreement, d.Queries)
	if !reflect.DeepEqual(r.FoldValues, want) || !reflect.DeepEqual(want, []float64{0, 0}) {
		t.Errorf("fold values %v, want %v, each query ordered right (0)", r.FoldValues, want)
	}
	if r.FoldNote != "the mean of the folds' values" || r.NoFoldNote != "" ||
		r.ValueNote != "computed over the 2 folds, each fold scored on its own and the folds' values averaged" {
		t.Errorf("notes %q, %q, %q", r.FoldNote, r.NoFoldNote, r.ValueNote)
	}
	wantQ := measure.QueryDisagreements(mat.Col(nil, 0, d.Y), mat.Col(nil, 0, pred), d.Queries)
	if len(r.Outputs) != 0 || len(wantQ) != 3 || !reflect.DeepEqual(r.QueryDisagreement, wantQ) {
		t.Errorf("%d output panels, disagreement %v, want none and %v", len(r.Outputs), r.QueryDisagreement, wantQ)
	}
	scheme.FoldMean = false
	r = report.Search(fit, res, d, scheme, disagreement, report.Options{})
	if r.FoldNote != "the predictions of all folds scored together" || r.ValueNote != "computed over the 8 CV predictions of the 2 folds, pooled" {
		t.Errorf("pooled: notes %q, %q", r.FoldNote, r.ValueNote)
	}
	// repeated k-fold: the panel shows the first repetition's folds (whose
	// predictions the result keeps), the notes say the value is the mean
	// over the repetitions
	rep := scheme
	rep.Name, rep.Repeats = "repeated-kfold:2x2", 2
	rep.Folds = append(slices.Clone(scheme.Folds), []int{0, 2, 4, 6}, []int{1, 3, 5, 7})
	r = report.Search(fit, res, d, rep, disagreement, report.Options{})
	if !reflect.DeepEqual(r.FoldValues, want) ||
		r.FoldNote != "the predictions of all folds scored together; the folds of the first of 2 repetitions, the value the mean over all of them" ||
		r.ValueNote != "computed over 2 repetitions of k-fold, averaged: in each, the 8 CV predictions of the 2 folds, pooled" {
		t.Errorf("repeated: fold values %v (want %v), notes %q, %q", r.FoldValues, want, r.FoldNote, r.ValueNote)
	}
	r = report.Search(fit, res, d, selection.Scheme{Kind: selection.LPO, Name: "lpo"}, disagreement, report.Options{})
	if r.NoFoldNote != "No per-fold panel: leave-pair-out holds out one pair at a time, which has no value of its own to spread." ||
		r.ValueNote != "computed over the leave-pair-out predictions of every pair" || r.FoldValues != nil {
		t.Errorf("lpo: notes %q, %q, fold values %v", r.NoFoldNote, r.ValueNote, r.FoldValues)
	}
}

// TestSearchOneVsAll: a one-vs-all fit's report names the classes by the
// class column, gives each scored row's true class (the largest label)
// and scores, and no output panels.
func TestSearchOneVsAll(t *testing.T) {
	y := mat.NewDense(4, 3, []float64{1, -1, -1, -1, -1, 1, -1, 1, -1, 1, -1, -1})
	d := &dataset.Data{X: mat.NewDense(4, 2, nil), Y: y, LabelNames: []string{"a", "b", "c"}}
	pred := mat.NewDense(4, 3, []float64{0.5, -0.2, -0.9, nan, nan, nan, -0.1, 0.3, -0.7, -0.4, 0.1, 0.2}) // the last row scored as c
	res := polySearch(pred)
	fit := &summary.Fit{NTrain: 4, CV: &summary.CV{Strategy: "loo"}}
	r := report.Search(fit, res, d, selection.Scheme{Kind: selection.LOO}, measureNamed("mse"), report.Options{OneVsAll: true, ClassColumn: "cls"})
	if want := []string{"cls=a", "cls=b", "cls=c"}; !reflect.DeepEqual(r.Classes, want) {
		t.Errorf("classes %q, want %q", r.Classes, want)
	}
	if want := []int{0, 1, 0}; !reflect.DeepEqual(r.ClassTrue, want) {
		t.Errorf("true classes %v, want %v", r.ClassTrue, want)
	}
	if want := [][]float64{{0.5, -0.2, -0.9}, {-0.1, 0.3, -0.7}, {-0.4, 0.1, 0.2}}; !reflect.DeepEqual(r.ClassScores, want) || len(r.Outputs) != 0 {
		t.Errorf("scores %v, want %v; %d output panels", r.ClassScores, want, len(r.Outputs))
	}
	if r.Summary[4][1] != "loo, mse = 1 (one-vs-all over the 3 classes)" || r.ValueNote != "computed over the 3 leave-one-out predictions" {
		t.Errorf("cross-validation %q, value note %q", r.Summary[4][1], r.ValueNote)
	}
}

// TestGreedy: a selection's report data — the curve over λ (the best over
// k, ascending), the paths over k (of a long grid the chosen one and six
// spread over it) with the chosen one marked, the features by name or
// index, the outer estimate, the CV predictions' panel.
func TestGreedy(t *testing.T) {
	path := func(l float64, v ...float64) greedy.Path {
		p := greedy.Path{Lambda: l}
		for n, x := range v {
			p.Steps = append(p.Steps, greedy.Step{Feature: n, Value: x})
		}
		return p
	}
	d := &dataset.Data{X: mat.NewDense(4, 5, nil), Y: mat.NewDense(4, 1, []float64{1, 2, 3, 4}), LabelNames: []string{"y"},
		FeatureNames: []string{"a", "b", "c", "d", "e"}}
	res := &greedy.Result{Paths: []greedy.Path{path(4, 3, 2, 2.5), path(0.25, 2, 1, 1.5)}, Best: 1, K: 2, Lambda: 0.25, Value: 1,
		Selected: []int{2, 0}, Predictions: mat.NewDense(4, 1, []float64{1, 2, 2, 5})}
	mse := measureNamed("mse")
	opt := greedy.Options{Lambdas: []float64{4, 0.25}, Bias: 1, Measure: mse}
	fit := summary.Greedy("greedy", d, res, opt, "loo", nil)
	fit.Outer = &summary.Outer{Folds: 3, Value: 1.5}
	r := report.Greedy(fit, res, d, mse, report.Options{Title: "G", Data: "d.csv"})
	if want := []report.Curve{{Lambdas: []float64{0.25, 4}, Values: []float64{1, 2}}}; !reflect.DeepEqual(r.Curves, want) {
		t.Errorf("curves %+v, want %+v", r.Curves, want)
	}
	wantSteps := []report.StepCurve{{Label: "lambda=4", Values: []float64{3, 2, 2.5}}, {Label: "lambda=0.25", Values: []float64{2, 1, 1.5}}}
	if !reflect.DeepEqual(r.Steps, wantSteps) || r.BestSteps != 1 || r.BestStep != 2 || r.BestLambda != 0.25 || r.BestValue != 1 {
		t.Errorf("steps %+v (want %+v), best %d/%d", r.Steps, wantSteps, r.BestSteps, r.BestStep)
	}
	wantSummary := [][2]string{
		{"data", "d.csv: 4 rows × 5 features, outputs [y]"},
		{"learner", "greedy RLS, linear kernel (bias 1), 2 of 5 features"},
		{"features", "[c a]"},
		{"λ", "2^-2"},
		{"selection criterion", "loo, mse = 1 (optimistic: it chose the features)"},
		{"outer cross-validation", "3 folds, mse = 1.5"},
		{"time", "load 0.00 s, selection 0.00 s, outer 0.00 s"},
	}
	if !reflect.DeepEqual(r.Summary, wantSummary) {
		t.Errorf("summary\n%q\nwant\n%q", r.Summary, wantSummary)
	}
	if len(r.Outputs) != 1 || !reflect.DeepEqual(r.Outputs[0].Predicted, []float64{1, 2, 2, 5}) || r.Title != "G" {
		t.Errorf("outputs %+v, title %q", r.Outputs, r.Title)
	}
	write(t, r)

	// features by index without names; of ten paths, the chosen one and six
	d.FeatureNames = nil
	res.Paths, res.Best = nil, 3
	for l := range 10 {
		res.Paths = append(res.Paths, path(float64(l+1), 2, 1, 1.5))
	}
	res.Lambda = 4
	fit = summary.Greedy("greedy", d, res, opt, "loo", nil)
	r = report.Greedy(fit, res, d, mse, report.Options{})
	var labels []string
	for _, s := range r.Steps {
		labels = append(labels, s.Label)
	}
	if want := []string{"lambda=1", "lambda=3", "lambda=4", "lambda=5", "lambda=7", "lambda=9", "lambda=10"}; !reflect.DeepEqual(labels, want) || r.BestSteps != 2 {
		t.Errorf("paths shown %q (chosen %d), want %q (chosen 2)", labels, r.BestSteps, want)
	}
	if r.Summary[2] != [2]string{"features", fmt.Sprint(res.Selected)} {
		t.Errorf("features %q", r.Summary[2])
	}
}
