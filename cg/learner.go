package cg

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// Learner is conjugate-gradient training as a learn.Learner: nothing is
// factored, and At(λ) runs Solve at λ from w = 0 — O(t·iterations·(nnz(X) +
// m + d)) per λ, O(m + d) memory besides the data. It has no cross-validation
// shortcut (a search through it fits one λ without cross-validation); its
// solution is the *Result, whose Iterations, Converged and Residual say how
// each output's iteration ended.
type Learner struct {
	p   Problem
	opt Options
}

// NewLearner checks the problem and options (at λ = 1; At checks its own λ)
// and returns the learner.
func NewLearner(p Problem, opt Options) (*Learner, error) {
	o := opt
	o.Lambda = 1
	if err := check(&p, &o); err != nil {
		return nil, err
	}
	return &Learner{p: p, opt: opt}, nil
}

// Name is the learner the loss trains (Problem.Learner).
func (l *Learner) Name() learn.Name { return learnerName(l.p) }

// Labels returns the m×t labels (shared; do not modify).
func (l *Learner) Labels() *mat.Dense { return l.p.Y }

// At solves at λ: the learn.Learner contract.
func (l *Learner) At(lambda float64) (learn.Solution, error) {
	o := l.opt
	o.Lambda = lambda
	return Solve(l.p, o)
}

// Method is the learn.Method of a registered learner on rows whose loss
// trains by conjugate gradients (learn.CanCG), for an Input whose Form is
// learn.Iterative: the linear kernel's bias is the bias feature, Input.Tol
// and Input.MaxIter the stopping rule (0: the defaults), Input.Groups the
// queries of learn.QueryPairs. Any other kernel is an error.
func Method(in *learn.Input, loss learn.Loss, name learn.Name) learn.Method {
	return func(s learn.Setting) (learn.Learner, error) {
		lin, ok := s.Kernel.(kernel.Linear)
		if !ok {
			return nil, fmt.Errorf("%w: conjugate gradients train the linear kernel, not %s", ErrInput, s.Kernel.Spec().Name)
		}
		p := Problem{X: in.X, Y: in.Y, Loss: loss, Learner: name, Queries: in.Groups, Bias: lin.Bias, Outputs: in.Outputs}
		return NewLearner(p, Options{Tol: in.Tol, MaxIter: in.MaxIter})
	}
}

var _ learn.Solution = (*Result)(nil)
