package main

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
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
	// withLabels returns the same factorization for other labels (nil for prefrank).
	withLabels func(y *mat.Dense) (*trained, error)
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
		return rlsTrained(r), nil
	case "globalrank":
		g, err := rank.FitGlobal(x, d.Y, ropt)
		if err != nil {
			return nil, err
		}
		return globalTrained(g, formOf(basis, k, x)), nil
	case "queryrank":
		q, err := rank.FitQuery(x, d.Y, d.Queries, ropt)
		if err != nil {
			return nil, err
		}
		return queryTrained(q, formOf(basis, k, x)), nil
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

func rlsTrained(r *rls.RLS) *trained {
	return &trained{form: r.Form().String(), solve: func(l float64) (solution, error) { return r.Solve(l) },
		withLabels: func(y *mat.Dense) (*trained, error) {
			r2, err := r.WithLabels(y, nil)
			if err != nil {
				return nil, err
			}
			return rlsTrained(r2), nil
		}}
}

func globalTrained(g *rank.Global, form string) *trained {
	return &trained{form: form, solve: func(l float64) (solution, error) { return g.Solve(l) },
		withLabels: func(y *mat.Dense) (*trained, error) {
			g2, err := g.WithLabels(y, nil)
			if err != nil {
				return nil, err
			}
			return globalTrained(g2, form), nil
		}}
}

func queryTrained(q *rank.Query, form string) *trained {
	return &trained{form: form, solve: func(l float64) (solution, error) { return q.Solve(l) },
		withLabels: func(y *mat.Dense) (*trained, error) {
			q2, err := q.WithLabels(y, nil)
			if err != nil {
				return nil, err
			}
			return queryTrained(q2, form), nil
		}}
}

// formOf names the form the Auto rule picks (see factor.Build).
func formOf(basis []int, k kernel.Kernel, x mat.Matrix) string {
	return factor.AutoForm(x, k, basis).String()
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
