package report_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	_ "github.com/rlskit/rlskit/learners"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// uncertaintyData are 40 rows and three outputs that want different λ:
// a smooth function with little noise, with much noise, and noise alone.
func uncertaintyData() *dataset.Data {
	rng := rand.New(rand.NewPCG(31, 32))
	x, y := mat.NewDense(40, 3, nil), mat.NewDense(40, 3, nil)
	for i := 0; i < 40; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		f := math.Sin(x.At(i, 0)) + 0.5*x.At(i, 1)
		y.Set(i, 0, f+0.05*rng.NormFloat64())
		y.Set(i, 1, f+1.5*rng.NormFloat64())
		y.Set(i, 2, rng.NormFloat64())
	}
	return &dataset.Data{X: x, Y: y, LabelNames: []string{"smooth", "noisy", "noise"}}
}

// searchFor runs rls on d (gaussian kernel, 15 λ, 5-fold CV, mse) with
// the settings' rule and a λ per output as asked.
func searchFor(t *testing.T, d *dataset.Data, choose string, perOutput bool) (*selection.SearchResult, selection.Scheme) {
	t.Helper()
	le, err := learn.Lookup("rls")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := selection.NewScheme("kfold:5", selection.SchemeOptions{Rows: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	grid, _ := selection.ParseGrid("10^-4..10^3:15", true)
	res, err := selection.Search(selection.Problem{Learner: le, Input: &learn.Input{X: d.X, Y: d.Y, Outputs: d.LabelNames}},
		selection.Settings{Kernels: []kernel.Spec{{Name: "gaussian", Gamma: 0.3}}, Lambdas: grid, Scheme: sc, Measure: measureNamed("mse"),
			Choose: choose, LambdaPerOutput: perOutput})
	if err != nil {
		t.Fatal(err)
	}
	return res, sc
}

// render writes the report of d and returns its HTML.
func render(t *testing.T, d report.Data) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.Write(&b, d); err != nil {
		t.Fatalf("report.Write: %v", err)
	}
	return b.String()
}

// The CV curve of a fold scheme shows every point's fold mean ± SE as a
// bar (three SVG paths each: the bar and its two caps, so at least 3 per
// point more than without them), the caption says what the bars are, and
// with --choose 1se the ringed point is the rule's (λ and value of
// SearchResult.Chosen) and the caption names the rule, its reference
// (the best fold mean ± SE) and the best value; the panels of predictions
// are the chosen model's.
func TestReportSE(t *testing.T) {
	d := uncertaintyData()
	d.Y = mat.NewDense(40, 1, mat.Col(nil, 1, d.Y))
	d.LabelNames = d.LabelNames[1:2]
	res, sc := searchFor(t, d, selection.Choose1SE, false)
	fit := summary.Search("rls", d, res, sc, measureNamed("mse"), "")
	r := report.Search(fit, res, d, sc, measureNamed("mse"), report.Options{Title: "t", Data: "d"})
	curve := res.Curves[0].Curve
	if len(r.Curves[0].SE) != len(curve) {
		t.Fatalf("%d standard errors for %d points", len(r.Curves[0].SE), len(curve))
	}
	for n, p := range curve {
		if r.Curves[0].SE[n] != p.SE || r.Curves[0].FoldMeans[n] != p.FoldMean || p.NFolds != 5 {
			t.Errorf("point %d: %g ± %g, want %g ± %g over 5 folds (%d)", n, r.Curves[0].FoldMeans[n], r.Curves[0].SE[n], p.FoldMean, p.SE, p.NFolds)
		}
	}
	if r.BestLambda != res.Lambda || r.BestValue != res.Value || res.Lambda == res.Curves[0].Best.Lambda {
		t.Errorf("ringed λ %g (%g), chosen %g (%g), best %g: the rule must choose another λ here", r.BestLambda, r.BestValue, res.Lambda, res.Value, res.Curves[0].Best.Lambda)
	}
	if row := r.Summary[4][1]; !strings.Contains(row, "one-standard-error rule") || !strings.Contains(row, fmt.Sprintf("%.6g at the chosen λ", res.Value)) {
		t.Errorf("summary row %q", row)
	}
	if !strings.Contains(r.ChooseNote, "one-standard-error rule") {
		t.Errorf("choose note %q", r.ChooseNote)
	}
	if r.Outputs[0].Predicted == nil {
		t.Fatal("no prediction panel")
	}
	if got := r.Outputs[0].Predicted; got[0] != res.ChosenPredictions.At(0, 0) {
		t.Errorf("the panel's predictions are not the chosen model's: %g, want %g", got[0], res.ChosenPredictions.At(0, 0))
	}
	with := render(t, r)
	for _, s := range []string{"± one standard error", "one-standard-error rule"} {
		if !strings.Contains(with, s) {
			t.Errorf("the report does not say %q", s)
		}
	}
	r.Curves[0].SE, r.Curves[0].FoldMeans = nil, nil
	without := render(t, r)
	if n, m := strings.Count(with, "<path"), strings.Count(without, "<path"); n-m < 3*len(curve) {
		t.Errorf("%d SVG paths with the bars, %d without: want at least %d more", n, m, 3*len(curve))
	}
}

// With a λ per output the report draws each output's own curve (its
// values those of the search's per-output curves) with its chosen point,
// named by the label columns.
func TestReportPerOutput(t *testing.T) {
	d := uncertaintyData()
	res, sc := searchFor(t, d, selection.ChooseBest, true)
	fit := summary.Search("rls", d, res, sc, measureNamed("mse"), "")
	r := report.Search(fit, res, d, sc, measureNamed("mse"), report.Options{Title: "t", Data: "d"})
	if len(r.OutputCurves) != 3 {
		t.Fatalf("%d output curves", len(r.OutputCurves))
	}
	c := res.Curves[res.Best]
	for k, oc := range r.OutputCurves {
		if oc.Label != d.LabelNames[k] || r.OutputLambdas[k] != res.PerOutput[k].Lambda || r.OutputValues[k] != res.PerOutput[k].Value {
			t.Errorf("output %d: %q at λ %g (%g), want %q %+v", k, oc.Label, r.OutputLambdas[k], r.OutputValues[k], d.LabelNames[k], res.PerOutput[k])
		}
		for n := range oc.Values {
			if oc.Values[n] != c.PerOutput[n][k] {
				t.Errorf("output %d, point %d: %g, want %g", k, n, oc.Values[n], c.PerOutput[n][k])
			}
		}
	}
	html := render(t, r)
	if !strings.Contains(html, `id="cv-output-curves"`) || !strings.Contains(html, "noisy: λ = ") {
		t.Error("no per-output curve panel naming each output's λ")
	}
	if fit.CV.BestPerOutput[1].Output != "noisy" || fit.CV.BestPerOutput[1].Lambda != res.PerOutput[1].Lambda {
		t.Errorf("best_per_output %+v", fit.CV.BestPerOutput)
	}
}
