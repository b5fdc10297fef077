package report_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// intervalFit is an rls fit on n rows of d features (noise growing with
// the first feature, so that coverage differs by prediction range) with
// the CV+ interval of k folds recorded in its predictor.
func intervalFit(t *testing.T, n, d, k int, form learn.Form, kern kernel.Kernel) (*model.Predictor, *mat.Dense) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	x, y := mat.NewDense(n, d, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, 2*x.At(i, 0)-x.At(i, 1)+(0.1+math.Abs(x.At(i, 0)))*rng.NormFloat64())
	}
	r, err := rls.Fit(x, y, rls.Options{Kernel: kern, Form: form})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := r.Solve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	folds := make([][]int, k)
	for i, j := range rng.Perm(n) {
		folds[j%k] = append(folds[j%k], i)
	}
	p := sol.Predictor()
	if p.Interval, err = interval.New(p, sol, y, model.CVPlus, folds); err != nil {
		t.Fatal(err)
	}
	p.Outputs = []string{"y"}
	return p, x
}

// Intervals' data recomputed independently: the drawn rows are every row
// (n ≤ MaxIntervalRows) or the evenly spaced row j·n/MaxIntervalRows,
// with PredictInterval's prediction and ends at 0.9; the residual
// quantiles are the ⌈l·(n+1)⌉-th smallest residual by integer arithmetic;
// a row is covered when its residual is at most the ⌈0.9·n⌉-th smallest
// of the other n − 1 residuals (each row's others sorted anew); and the
// bins are five equal-count groups of rows by the model's prediction with
// the covered share of each.
func TestIntervals(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		form learn.Form
		kern kernel.Kernel
	}{
		{"gaussian/n=97", 97, learn.Dual, kernel.Gaussian{Gamma: 0.3}},
		{"linear/n=2003", report.MaxIntervalRows + 3, learn.Linear, kernel.Linear{Bias: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, x := intervalFit(t, c.n, 3, 5, c.form, c.kern)
			ips, err := report.Intervals(p, x, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			if len(ips) != 1 {
				t.Fatalf("%d panels, want 1", len(ips))
			}
			ip := ips[0]
			n := c.n
			if ip.Output != "y" || ip.Method != model.CVPlus || ip.Models != 5 || ip.Rows != n || ip.Coverage != 0.9 {
				t.Fatalf("panel %q %s K=%d n=%d at %g", ip.Output, ip.Method, ip.Models, ip.Rows, ip.Coverage)
			}
			var rows []int
			for i := range n {
				if n <= report.MaxIntervalRows {
					rows = append(rows, i)
				} else if i < report.MaxIntervalRows {
					rows = append(rows, i*n/report.MaxIntervalRows)
				}
			}
			if len(ip.Prediction) != len(rows) {
				t.Fatalf("%d drawn rows, want %d", len(ip.Prediction), len(rows))
			}
			for a, i := range rows {
				xi := mat.NewDense(1, 3, mat.Row(nil, i, x))
				pr, lo, hi, err := p.PredictInterval(xi, 0.9)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(ip.Prediction[a]-pr.At(0, 0)) > 1e-12*(1+math.Abs(pr.At(0, 0))) ||
					math.Abs(ip.Lower[a]-lo.At(0, 0)) > 1e-12*(1+math.Abs(lo.At(0, 0))) ||
					math.Abs(ip.Upper[a]-hi.At(0, 0)) > 1e-12*(1+math.Abs(hi.At(0, 0))) {
					t.Fatalf("drawn row %d (training row %d): %g in [%g, %g], PredictInterval %g in [%g, %g]",
						a, i, ip.Prediction[a], ip.Lower[a], ip.Upper[a], pr.At(0, 0), lo.At(0, 0), hi.At(0, 0))
				}
			}
			res := mat.Col(nil, 0, p.Interval.Residuals)
			sorted := slices.Sorted(slices.Values(res))
			wantLevels := []float64{0.8, 0.9, 0.95}
			if !slices.Equal(ip.Levels, wantLevels) {
				t.Fatalf("levels %v, want %v", ip.Levels, wantLevels)
			}
			for j, num := range []int{8, 9, 19} {
				den := []int{10, 10, 20}[j]
				h := (num*(n+1) + den - 1) / den
				if ip.Quantiles[j] != sorted[h-1] {
					t.Errorf("quantile at %g: %g, want the %d-th smallest residual %g", wantLevels[j], ip.Quantiles[j], h, sorted[h-1])
				}
			}
			covered := make([]bool, n)
			in := 0
			for i := range n {
				others := slices.Concat(res[:i], res[i+1:])
				slices.Sort(others)
				h := (9*n + 9) / 10 // ⌈0.9·((n−1)+1)⌉
				covered[i] = h > n-1 || res[i] <= others[h-1]
				if covered[i] {
					in++
				}
			}
			if want := float64(in) / float64(n); ip.Covered != want {
				t.Errorf("covered %g, want %g", ip.Covered, want)
			}
			full, err := p.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			pred := mat.Col(nil, 0, full)
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int {
				if pred[a] < pred[b] {
					return -1
				} else if pred[a] > pred[b] {
					return 1
				}
				return 0
			})
			if len(ip.Bins) != 5 {
				t.Fatalf("%d bins, want 5", len(ip.Bins))
			}
			spread := false
			for b, bin := range ip.Bins {
				idx := order[b*n/5 : (b+1)*n/5]
				c := 0
				for _, i := range idx {
					if covered[i] {
						c++
					}
				}
				want := report.CoverageBin{Lo: pred[idx[0]], Hi: pred[idx[len(idx)-1]], Rows: len(idx), Covered: float64(c) / float64(len(idx))}
				if bin != want {
					t.Errorf("bin %d: %+v, want %+v", b, bin, want)
				}
				spread = spread || math.Abs(bin.Covered-ip.Covered) > 0.02
			}
			if !spread {
				t.Errorf("every bin's share within 0.02 of %g: the heteroscedastic data should move some", ip.Covered)
			}
			var buf bytes.Buffer
			if err := report.Write(&buf, report.Data{Curves: []report.Curve{{Lambdas: []float64{0.5}, Values: []float64{1}}}, BestLambda: 0.5, BestValue: 1, Intervals: ips}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), `<section id="interval-1">`) {
				t.Error("no interval section")
			}
		})
	}
}

// A predictor without an interval has no panel; the training rows must be
// the residuals' rows.
func TestIntervalsNone(t *testing.T) {
	p, x := intervalFit(t, 20, 2, 4, learn.Linear, kernel.Linear{})
	if _, err := report.Intervals(p, mat.DenseCopyOf(x.Slice(0, 19, 0, 2)), 0.9); err == nil {
		t.Error("19 rows for 20 residuals accepted")
	}
	p.Interval = nil
	if ips, err := report.Intervals(p, x, 0.9); ips != nil || err != nil {
		t.Errorf("no interval: %v, %v", ips, err)
	}
}

// The outer estimate from a fit's JSON "outer": each fold's value (NaN
// where it has none), the pooled value, SE, interval, level, method and
// bias, drawn as its own section with a summary row; an interval with
// lo > hi or a level outside (0, 1) is refused as ErrData.
func TestOuterEstimate(t *testing.T) {
	v1, v3 := 1.25, 2.5
	se, iv, bias := 0.3, [2]float64{1.1, 2.2}, -0.05
	out := &summary.Outer{Folds: 3, Measure: "mse", Value: 1.75, SE: &se, Interval: &iv, Level: 0.9,
		Method: selection.IntervalNestedCV, Bias: &bias,
		PerFold: []summary.OuterFold{{Fold: 0, Outer: &v1}, {Fold: 1}, {Fold: 2, Outer: &v3}}}
	d := report.Data{Curves: []report.Curve{{Lambdas: []float64{0.5, 1}, Values: []float64{1, 2}}}, BestLambda: 0.5, BestValue: 1}
	d.Outer = report.OuterFromSummary(out)
	o := d.Outer
	if o.Measure != "mse" || o.Value != 1.75 || o.SE != se || *o.Interval != iv || o.Level != 0.9 || o.Method != selection.IntervalNestedCV || o.Bias != bias ||
		len(o.Folds) != 3 || o.Folds[0] != v1 || !math.IsNaN(o.Folds[1]) || o.Folds[2] != v3 {
		t.Fatalf("outer estimate %+v", *o)
	}
	if report.OuterFromSummary(nil) != nil {
		t.Error("an estimate without outer")
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	doc := buf.String()
	for _, want := range []string{`<section id="nested-outer">`, "[1.1, 2.2]", "1 fold has no value"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	bad := iv
	bad[0], bad[1] = 3, 2
	d.Outer = &report.OuterEstimate{Measure: "mse", Folds: []float64{1, 2}, Value: 1.5, Interval: &bad, Level: 0.9}
	if err := report.Write(&buf, d); !errors.Is(err, report.ErrData) {
		t.Errorf("interval %v: %v", bad, err)
	}
	d.Outer = &report.OuterEstimate{Measure: "mse", Folds: []float64{1, 2}, Value: 1.5, Interval: &iv, Level: 1}
	if err := report.Write(&buf, d); !errors.Is(err, report.ErrData) {
		t.Errorf("level 1: %v", err)
	}
	d.Outer = nil
	d.Intervals = []report.IntervalPanel{{Output: "y", Coverage: 0.9, Prediction: []float64{1}, Lower: []float64{2}, Upper: []float64{1.5}}}
	if err := report.Write(&buf, d); !errors.Is(err, report.ErrData) {
		t.Errorf("lower > upper: %v", err)
	}
}
