package pairwise

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// KronSVMDescriptor describes the Kronecker support vector machine (KronSVM:
// squared hinge loss, dual form, complete or incomplete data of two sets of
// objects) to the learner registry: it learns from labelled (row object,
// column object) pairs with labels −1 and +1, declares no exact
// cross-validation (a support vector machine has none), and its method
// builds the two sides (NewSide, standardized when Input.Standardize is set)
// and trains at each λ by KronSVM.Solve with Input.Tol and Input.MaxIter
// (the conjugate gradients' tolerance and per-step iteration cap; 0: the
// defaults). Its default measure is accuracy. Loss: learn.PairSquaredHinge,
// on which the front ends (plan, internal/pairfit) dispatch: one λ, no
// cross-validation, labels ±1.
func KronSVMDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:        KronSVMName,
		Summary:     "kronsvm (Kronecker SVM, squared hinge loss, on pairs: --rows, --cols, --pairs with labels ±1; one --lambda, no CV)",
		Needs:       learn.NeedsPairs | learn.NeedsLabels,
		Loss:        learn.PairSquaredHinge,
		Bias:        1,
		Measure:     func(string) string { return "accuracy" },
		SelfScaling: true,
		New:         newSVMMethod,
	}
}

func init() {
	learn.Register(KronSVMDescriptor())
}

// newSVMMethod checks the input — row objects X, column objects Cols (a
// homogeneous network is refused), one label per pair, each −1 or +1 — and
// returns the method that fits KronSVM for a kernel setting. O(n) for the
// checks (the pairs themselves are checked by FitKronSVM).
func newSVMMethod(in *learn.Input) (learn.Method, error) {
	name := KronSVMName
	if in == nil || in.X == nil {
		return nil, fmt.Errorf("%s: %w: no row objects (X)", name, learnErrShape)
	}
	if in.Cols == nil || (in.Symmetry != "" && in.Symmetry != "none") {
		return nil, fmt.Errorf("%s: %w: a support vector machine on pairs of two sets of objects: give column objects (a homogeneous network is not taken)", name, learnErrShape)
	}
	if in.Y == nil || in.Y.IsEmpty() {
		return nil, fmt.Errorf("%s: %w: no labels", name, learnErrShape)
	}
	n, t := in.Y.Dims()
	if t != 1 || len(in.Pairs) != n {
		return nil, fmt.Errorf("%s: %w: %d pairs, %d×%d labels: want one label per pair", name, learnErrShape, len(in.Pairs), n, t)
	}
	pairs, y := make([]Pair, n), make([]float64, n)
	for i, p := range in.Pairs {
		pairs[i], y[i] = Pair{Row: p.Row, Col: p.Col}, in.Y.At(i, 0)
	}
	if err := checkSVMLabels(pairs, y); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	opt := SVMOptions{Tol: in.Tol, MaxIter: in.MaxIter}
	return func(s learn.Setting) (learn.Learner, error) {
		if s.Kernel == nil || s.ColKernel == nil {
			return nil, fmt.Errorf("%s: a row and a column kernel are needed", name)
		}
		rows, err := NewSide(in.X, s.Kernel, in.Standardize)
		if err != nil {
			return nil, fmt.Errorf("%s: row objects with %s: %w", name, s.Kernel.Spec(), err)
		}
		cols, err := NewSide(in.Cols, s.ColKernel, in.Standardize)
		if err != nil {
			return nil, fmt.Errorf("%s: column objects with %s: %w", name, s.ColKernel.Spec(), err)
		}
		k, err := FitKronSVM(rows, cols, pairs, y)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &SVMLearner{KronSVM: k, Options: opt}, nil
	}, nil
}

// SVMLearner is KronSVM as a learn.Learner: At(λ) solves with Options.
type SVMLearner struct {
	*KronSVM
	Options SVMOptions
}

// Name is KronSVMName.
func (l *SVMLearner) Name() learn.Name { return KronSVMName }

// Labels returns the n×1 labels in the order of the pairs given.
func (l *SVMLearner) Labels() *mat.Dense { return l.lab.vector() }

// At trains at λ (KronSVM.Solve): the learn.Learner contract.
func (l *SVMLearner) At(lambda float64) (learn.Solution, error) {
	r, err := l.Solve(lambda, l.Options)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Predictor returns the dual model as a kernel expansion over the labelled
// pairs in the pairwise kernel (as the other learners of pairs do), nil for
// the primal form (use W). O(n).
func (r *SVMResult) Predictor() *model.Predictor {
	if r.k == nil {
		return nil
	}
	lab := r.k.lab
	a := mat.NewDense(lab.m, lab.q, nil)
	for i, p := range lab.obs {
		a.Set(p.Row, p.Col, r.Coef[i])
	}
	return pairExpansion(KronSVMName, lab, a, r.Lambda)
}
