package learners_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/stream"
)

// Every exported entry point returns an error for nil and empty inputs —
// never a panic (issue: rls.Fit(nil, y, …), rank.FitGlobal(nil, …) and
// (*model.Predictor).Predict(nil) panicked). Each row calls one entry point
// with one nil or empty argument; the call must return a non-nil error.
func TestNilAndEmptyInputs(t *testing.T) {
	gauss := kernel.Gaussian{Gamma: 1}
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 1, 1, 3})
	y := mat.NewDense(4, 1, []float64{1, 2, 0, 3})
	empty := &mat.Dense{}
	opt := learn.Options{Kernel: gauss}
	mse, _ := measure.ByName("mse")
	side, err := pairwise.NewSide(x, gauss, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rls.Fit(x, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Solve(1)
	pred := s.Predictor()
	d, _ := learn.Lookup("rls")
	cases := []struct {
		name string
		call func() error
	}{
		{"rls.Fit nil X", func() error { _, err := rls.Fit(nil, y, opt); return err }},
		{"rls.Fit empty X", func() error { _, err := rls.Fit(empty, y, opt); return err }},
		{"rls.Fit nil Y", func() error { _, err := rls.Fit(x, nil, opt); return err }},
		{"rls.Fit no kernel", func() error { _, err := rls.Fit(x, y, learn.Options{}); return err }},
		{"rank.FitGlobal nil X", func() error { _, err := rank.FitGlobal(nil, y, opt); return err }},
		{"rank.FitGlobal nil Y", func() error { _, err := rank.FitGlobal(x, nil, opt); return err }},
		{"rank.FitQuery nil X", func() error { _, err := rank.FitQuery(nil, y, []int{0, 0, 1, 1}, opt); return err }},
		{"rank.FitQuery nil queries", func() error { _, err := rank.FitQuery(x, y, nil, opt); return err }},
		{"rank.FitQueryNormalized nil X", func() error { _, err := rank.FitQueryNormalized(nil, y, []int{0, 0, 1, 1}, opt); return err }},
		{"rank.FitPreference nil X", func() error {
			_, err := rank.FitPreference(nil, []rank.Edge{{I: 0, J: 1}}, rank.Unit, opt)
			return err
		}},
		{"rank.FitPreference no edges", func() error { _, err := rank.FitPreference(x, nil, rank.Unit, opt); return err }},
		{"pairwise.NewSide nil", func() error { _, err := pairwise.NewSide(nil, gauss, false); return err }},
		{"pairwise.NewSide empty", func() error { _, err := pairwise.NewSide(empty, gauss, false); return err }},
		{"pairwise.FitKron nil side", func() error {
			_, err := pairwise.FitKron(nil, side, []pairwise.Pair{{Row: 0, Col: 0}}, []float64{1}, pairwise.Options{})
			return err
		}},
		{"pairwise.FitKron no pairs", func() error { _, err := pairwise.FitKron(side, side, nil, nil, pairwise.Options{}); return err }},
		{"pairwise.FitTwoStep nil side", func() error {
			_, err := pairwise.FitTwoStep(side, nil, []pairwise.Pair{{Row: 0, Col: 0}}, []float64{1}, pairwise.Options{})
			return err
		}},
		{"pairwise.FitKronCG nil side", func() error {
			_, err := pairwise.FitKronCG(nil, nil, []pairwise.Pair{{Row: 0, Col: 0}}, []float64{1}, pairwise.Options{})
			return err
		}},
		{"greedy.Select nil X", func() error {
			_, err := greedy.Select(nil, y, greedy.Options{Lambdas: []float64{1}, K: 1, Measure: mse})
			return err
		}},
		{"greedy.Select nil Y", func() error {
			_, err := greedy.Select(x, nil, greedy.Options{Lambdas: []float64{1}, K: 1, Measure: mse})
			return err
		}},
		{"greedy.Outer nil X", func() error {
			_, err := greedy.Outer(nil, y, greedy.Options{Lambdas: []float64{1}, K: 1, Measure: mse}, [][]int{{0, 1}, {2, 3}})
			return err
		}},
		{"cg.Solve nil X", func() error { _, err := cg.Solve(cg.Problem{Y: y}, cg.Options{Lambda: 1}); return err }},
		{"cg.Solve empty X", func() error { _, err := cg.Solve(cg.Problem{X: empty, Y: y}, cg.Options{Lambda: 1}); return err }},
		{"factor.Build nil X", func() error { _, err := factor.Build(nil, gauss, factor.Request{Auto: true}); return err }},
		{"factor.Build nil kernel", func() error { _, err := factor.Build(x, nil, factor.Request{Auto: true}); return err }},
		{"factor.NewDual nil", func() error { _, err := factor.NewDual(nil); return err }},
		{"factor.NewLinear nil", func() error { _, err := factor.NewLinear(nil); return err }},
		{"basis.Greedy nil X", func() error { _, err := basis.Greedy(nil, y, gauss, 2, basis.GreedyOptions{Lambda: 1}); return err }},
		{"basis.Greedy nil kernel", func() error { _, err := basis.Greedy(x, y, nil, 2, basis.GreedyOptions{Lambda: 1}); return err }},
		{"kernel.Inner nil", func() error { _, err := kernel.Inner(nil, x); return err }},
		{"kernel.CheckFinite nil", func() error { return kernel.CheckFinite(kernel.Spec{Name: "linear"}, nil) }},
		{"model.Predictor.Predict nil", func() error { _, err := pred.Predict(nil); return err }},
		{"model.Predictor.Predict empty", func() error { _, err := pred.Predict(empty); return err }},
		{"nil model.Predictor.Predict", func() error { var p *model.Predictor; _, err := p.Predict(x); return err }},
		{"model.Load nil reader", func() error { _, err := model.Load(nil); return err }},
		{"model.Load empty", func() error { _, err := model.Load(bytes.NewReader(nil)); return err }},
		{"model.LoadPairwise nil reader", func() error { _, err := model.LoadPairwise(nil); return err }},
		{"model.Scaler.Transform nil", func() error { _, err := model.FitScaler(x).Transform(nil); return err }},
		{"selection.Select nil learner", func() error {
			_, err := selection.Select(nil, []float64{1}, selection.Scheme{Kind: selection.LOO, Name: "loo"}, mse, selection.Options{})
			return err
		}},
		{"selection.Search empty problem", func() error {
			_, err := selection.Search(selection.Problem{}, selection.Settings{Kernels: []kernel.Spec{{Name: "linear"}}, Lambdas: []float64{1}, Measure: mse})
			return err
		}},
		{"selection.Search nil input", func() error {
			_, err := selection.Search(selection.Problem{Learner: d}, selection.Settings{Kernels: []kernel.Spec{{Name: "linear"}}, Lambdas: []float64{1}, Measure: mse})
			return err
		}},
		{"selection.ScoreWithin nil", func() error { _, _, err := selection.ScoreWithin(mse, nil, nil, nil, nil); return err }},
		{"selection.CheckInput nil", func() error { return selection.CheckInput(d, nil) }},
		{"descriptor New nil input", func() error { _, err := d.New(nil); return err }},
		{"cv.KFold zero rows", func() error { _, err := cv.KFold(0, 2, 1); return err }},
		{"cv.LeaveGroupOut nil", func() error { _, err := cv.LeaveGroupOut(nil); return err }},
		{"measure nil", func() error { _, err := mse.Score(nil, nil, nil); return err }},
		{"stream.Run no files", func() error {
			_, err := stream.Run(context.Background(), stream.Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1},
				CV: "none", Lambdas: []float64{1}, Measure: mse}, stream.Source{}, stream.RunOptions{})
			return err
		}},
	}
	for _, dd := range learn.Descriptors() {
		cases = append(cases, struct {
			name string
			call func() error
		}{string(dd.Name) + " New nil", func() error { _, err := dd.New(nil); return err }},
			struct {
				name string
				call func() error
			}{string(dd.Name) + " New empty", func() error { _, err := dd.New(&learn.Input{}); return err }})
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			if e := c.call(); e == nil {
				return fmt.Errorf("no error")
			}
			return nil
		}()
		if err != nil {
			msg := err.Error()
			if i := strings.IndexByte(msg, '\n'); i > 0 {
				msg = msg[:i]
			}
			t.Errorf("%s: %s", c.name, msg)
		}
	}
}
