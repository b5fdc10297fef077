package pairfit

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/summary"
)

// fitSVM trains the plan's learner of the squared hinge loss
// (learn.PairSquaredHinge: the Kronecker support vector machine; Airola &
// Pahikkala 2018) on complete or incomplete data at the plan's one λ and
// kernel setting: the two sides (standardized with o.Standardize),
// pairwise.FitKronSVM, then Solve with the plan's --tol for each Newton
// step's conjugate gradients, o.MaxIter as their per-step cap and
// the plan's --newton-steps Newton steps at most (pairwise.DefaultNewtonSteps
// when unset). A label other than −1
// or +1 is refused naming its pair. Cost: each Newton step's
// conjugate-gradient iterations, O(|S|·(m + q) + m·q) each for |S| pairs
// inside the margin (pairwise.KronSVM).
func fitSVM(p *plan.PairPlan, d Data, o Options, rows, cols mat.Matrix, r *Result) error {
	if i := p.Learner.Loss.BadLabel(d.Labels); i >= 0 {
		pr := d.Pairs[i]
		return fmt.Errorf("--pairs %s: pair %d (%d, %d) has label %v: --learner %s takes labels −1 and +1", d.PairsName, i, pr.Row, pr.Col, d.Labels[i], p.Learner.Name)
	}
	if o.Validation != nil {
		return fmt.Errorf("--validation-pairs %s: --learner %s has no early stopping", o.ValidationName, p.Learner.Name)
	}
	if len(p.Lambdas) != 1 || len(p.RowKernels) != 1 || len(p.ColKernels) != 1 {
		return fmt.Errorf("--learner %s trains one model: give one --lambda and one kernel setting per side", p.Learner.Name)
	}
	rs, err := newSide("--rows "+d.RowsName, rows, p.RowKernels[0], o.Standardize)
	if err != nil {
		return err
	}
	cs, err := newSide("--cols "+d.ColsName, cols, p.ColKernels[0], o.Standardize)
	if err != nil {
		return err
	}
	k, err := pairwise.FitKronSVM(rs, cs, d.Pairs, d.Labels)
	if err != nil {
		return fmt.Errorf("--pairs %s: %w", d.PairsName, err)
	}
	res, err := k.Solve(p.Lambdas[0], pairwise.SVMOptions{Tol: p.Tol, MaxIter: o.MaxIter, NewtonSteps: p.NewtonSteps, Progress: o.Progress})
	if err != nil {
		return fmt.Errorf("--learner %s: %w", p.Learner.Name, err)
	}
	summary.PairSupportVectorMachine(&r.Summary, res, p.RowKernels[0], p.ColKernels[0])
	r.SVM, r.Model = res, res
	return nil
}
