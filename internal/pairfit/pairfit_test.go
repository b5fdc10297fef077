package pairfit

import (
	"errors"
	"flag"
	"io"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
)

// planOf plans a fit of pairs from rlskit fit's flags (the files named are
// never read: Fit takes the data).
func planOf(t *testing.T, args ...string) *plan.PairPlan {
	t.Helper()
	f := &plan.Flags{}
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	plan.Define(fs, f)
	if err := fs.Parse(append([]string{"--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt"}, args...)); err != nil {
		t.Fatal(err)
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	p, err := plan.New(f, func(name string) bool { return given[name] })
	if err != nil {
		t.Fatal(err)
	}
	return p.Pairwise
}

// objects returns m row and q column objects with smooth features and the
// labels of every (or, incomplete, every third) pair.
func objects(m, q int, incomplete bool) (*mat.Dense, *mat.Dense, []pairwise.Pair, []float64) {
	rx, cx := mat.NewDense(m, 2, nil), mat.NewDense(q, 3, nil)
	for i := 0; i < m; i++ {
		rx.Set(i, 0, math.Sin(float64(i)))
		rx.Set(i, 1, math.Cos(float64(3*i)))
	}
	for j := 0; j < q; j++ {
		for d := 0; d < 3; d++ {
			cx.Set(j, d, math.Cos(float64(j+2*d)))
		}
	}
	var pairs []pairwise.Pair
	var y []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			if incomplete && (i+2*j)%3 == 0 {
				continue
			}
			pairs = append(pairs, pairwise.Pair{Row: i, Col: j})
			y = append(y, math.Sin(rx.At(i, 0)*cx.At(j, 0)+rx.At(i, 1))+0.1*float64((i*j)%3))
		}
	}
	return rx, cx, pairs, y
}

// TestFitRowsCVEqualsRetraining: on complete data with setting B (--cv rows),
// Fit's CV prediction for each pair — in the order of Data.Pairs — is the
// model retrained without the pair's row object (pairwise.FitKron on the
// other rows, at the chosen λ), to 1e-10; the summary is the search's.
func TestFitRowsCVEqualsRetraining(t *testing.T) {
	rx, cx, pairs, y := objects(7, 5, false)
	// the pairs in an order other than row-major: the predictions follow it
	for i, j := 0, len(pairs)-1; i < j; i, j = i+1, j-1 {
		pairs[i], pairs[j], y[i], y[j] = pairs[j], pairs[i], y[j], y[i]
	}
	p := planOf(t, "--learner", "kronrls", "--kernel", "gaussian", "--gamma", "0.7", "--col-gamma", "0.4",
		"--lambda-grid", "0.01,0.1,1", "--cv", "rows")
	fit, err := Fit(p, Data{Rows: rx, Cols: cx, Pairs: pairs, Labels: y, PairsName: "p.txt"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fit.CG != nil || fit.Search == nil || fit.Summary.Form != "eigen" || !fit.Summary.Complete || fit.Summary.CV == nil {
		t.Fatalf("complete data: want the search, got summary %+v", fit.Summary)
	}
	if len(fit.CVPredictions) != len(pairs) {
		t.Fatalf("%d CV predictions for %d pairs", len(fit.CVPredictions), len(pairs))
	}
	lam := fit.Summary.Lambda
	for held := 0; held < 7; held++ {
		var keep []int
		for i := 0; i < 7; i++ {
			if i != held {
				keep = append(keep, i)
			}
		}
		sub := mat.NewDense(len(keep), 2, nil)
		idx := map[int]int{}
		for a, i := range keep {
			sub.SetRow(a, rx.RawRowView(i))
			idx[i] = a
		}
		var tp []pairwise.Pair
		var ty []float64
		for k, pr := range pairs {
			if pr.Row != held {
				tp, ty = append(tp, pairwise.Pair{Row: idx[pr.Row], Col: pr.Col}), append(ty, y[k])
			}
		}
		rs, err := newSide("rows", sub, p.RowKernels[0], false)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := newSide("cols", cx, p.ColKernels[0], false)
		if err != nil {
			t.Fatal(err)
		}
		k, err := pairwise.FitKron(rs, cs, tp, ty, pairwise.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sol, err := k.At(lam)
		if err != nil {
			t.Fatal(err)
		}
		pm := sol.(Solution).PairModel()
		for kk, pr := range pairs {
			if pr.Row != held {
				continue
			}
			want, err := pm.Predict(rx.Slice(held, held+1, 0, 2), nil, []int{0}, []int{pr.Col})
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(fit.CVPredictions[kk] - want[0]); d > 1e-10*math.Max(1, math.Abs(want[0])) {
				t.Fatalf("pair %v: CV prediction %v, retraining %v", pr, fit.CVPredictions[kk], want[0])
			}
		}
	}
}

// TestFitDispatch: incomplete data train by conjugate gradients (the plan's
// one λ, no CV; the summary's form "cg"), --solver cg forces them on
// complete data, and the refusals name the flag and the input.
func TestFitDispatch(t *testing.T) {
	rx, cx, pairs, y := objects(6, 5, true)
	p := planOf(t, "--learner", "kronrls", "--kernel", "gaussian", "--lambda", "0.5", "--cv", "none")
	fit, err := Fit(p, Data{Rows: rx, Cols: cx, Pairs: pairs, Labels: y}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fit.CG == nil || fit.Search != nil || fit.Summary.Form != "cg" || fit.Summary.Complete || fit.CVPredictions != nil {
		t.Fatalf("incomplete data: want CG, got %+v", fit.Summary)
	}
	// the CG model fits the training pairs as the closed form on them would: residual small
	if !fit.CG.Converged {
		t.Fatalf("CG did not converge: %+v", fit.Summary.CG)
	}
	rxc, cxc, cp, cy := objects(6, 5, false)
	forced := planOf(t, "--learner", "kronrls", "--kernel", "gaussian", "--lambda", "0.5", "--cv", "none", "--solver", "cg")
	if fit, err = Fit(forced, Data{Rows: rxc, Cols: cxc, Pairs: cp, Labels: cy}, Options{}); err != nil || fit.CG == nil {
		t.Fatalf("--solver cg on complete data: %v, %+v", err, fit)
	}
	for _, c := range []struct {
		name string
		p    *plan.PairPlan
		d    Data
		o    Options
		want string
	}{
		{"validation on closed form", planOf(t, "--learner", "kronrls", "--lambda", "1", "--cv", "none"),
			Data{Rows: rxc, Cols: cxc, Pairs: cp, Labels: cy}, Options{ValidationName: "v.txt",
				Validation: func(int, int) (*pairwise.Validation, error) { return nil, errors.New("read") }},
			"--validation-pairs v.txt stops conjugate-gradient training early"},
		{"two-step on incomplete data", planOf(t, "--learner", "twostep", "--lambda", "1", "--col-lambda", "1", "--cv", "none"),
			Data{Rows: rx, Cols: cx, Pairs: pairs, Labels: y}, Options{}, "needs complete data"},
		{"precomputed not square", planOf(t, "--learner", "kronrls", "--kernel", "precomputed", "--lambda", "1"),
			Data{Rows: rx, Cols: cx, Pairs: pairs, Labels: y, RowsName: "k.csv"}, Options{}, "--rows k.csv: a precomputed kernel matrix must be square"},
		{"pair outside", planOf(t, "--learner", "kronrls", "--lambda", "1"),
			Data{Rows: rx, Cols: cx, Pairs: []pairwise.Pair{{Row: 9, Col: 0}}, Labels: []float64{1}, PairsName: "p.txt"}, Options{}, "--pairs p.txt"},
	} {
		if _, err := Fit(c.p, c.d, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
