package main

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"rlskit/dataset"
	"rlskit/kernel"
	"rlskit/model"
	"rlskit/rank"
	"rlskit/rls"
	"rlskit/selection"
)

// learnerNames are the values of --learner.
var learnerNames = []string{"rls", "globalrank", "queryrank", "prefrank"}

// solution is a learner's model at one λ: its CV shortcuts and its predictor.
type solution interface {
	selection.Solution
	Predictor() *model.Predictor
}

// trained is a learner fitted once (its factorization); solve gives any λ.
type trained struct {
	solve func(float64) (solution, error)
	form  string
}

// train fits the named learner. The CLI only dispatches; the learners do the work.
func train(learner string, x mat.Matrix, d *dataset.Data, k kernel.Kernel, basis []int, edges []rank.Edge, cost rank.Cost) (*trained, error) {
	ropt := rank.Options{Kernel: k, Basis: basis, Outputs: d.LabelNames}
	switch learner {
	case "rls":
		r, err := rls.Fit(x, d.Y, rls.Options{Kernel: k, Basis: basis, Outputs: d.LabelNames})
		if err != nil {
			return nil, err
		}
		return &trained{form: r.Form().String(), solve: func(l float64) (solution, error) { return r.Solve(l) }}, nil
	case "globalrank":
		g, err := rank.FitGlobal(x, d.Y, ropt)
		if err != nil {
			return nil, err
		}
		return &trained{form: formOf(basis, k, x), solve: func(l float64) (solution, error) { return g.Solve(l) }}, nil
	case "queryrank":
		q, err := rank.FitQuery(x, d.Y, d.Queries, ropt)
		if err != nil {
			return nil, err
		}
		return &trained{form: formOf(basis, k, x), solve: func(l float64) (solution, error) { return q.Solve(l) }}, nil
	case "prefrank":
		ropt.Outputs = []string{"score"}
		if d.Y != nil {
			ropt.Outputs = d.LabelNames[:1]
		}
		p, err := rank.FitPreference(x, edges, cost, ropt)
		if err != nil {
			return nil, err
		}
		return &trained{form: formOf(basis, k, x), solve: func(l float64) (solution, error) { return p.Solve(l) }}, nil
	}
	return nil, fmt.Errorf("--learner %q: unknown learner (want one of %v)", learner, learnerNames)
}

// formOf names the form the Auto rule picks (see factor.Build).
func formOf(basis []int, k kernel.Kernel, x mat.Matrix) string {
	m, d := x.Dims()
	lin, ok := k.(kernel.Linear)
	switch {
	case basis != nil:
		return "sparse"
	case ok && lin.Bias >= 0 && d+1 < m:
		return "linear"
	}
	return "dual"
}

// parseCost maps --cost to a preference cost.
func parseCost(s string) (rank.Cost, error) {
	switch s {
	case "unit":
		return rank.Unit, nil
	case "magnitude":
		return rank.Magnitude, nil
	case "inverse":
		return rank.Inverse, nil
	}
	return 0, fmt.Errorf("--cost %q: want unit, magnitude or inverse", s)
}
