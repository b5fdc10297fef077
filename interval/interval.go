// Package interval builds the jackknife+ and CV+ prediction intervals of
// Barber, Candès, Ramdas & Tibshirani (2021), "Predictive inference with
// the jackknife+", Ann. Statist. 49(1), 486–507, from a learner's exact
// hold-out models — with no refit.
//
// The jackknife+ needs the n leave-one-out models μ_{−i} and residuals R_i =
// |y_i − μ_{−i}(x_i)|; CV+ the K models μ_{−S_k} of a partition of the rows
// into folds and the residuals R_i = |y_i − μ_{−S_k(i)}(x_i)|. A solution
// with the HoldOutModeler capability (rls) gives each of those models from
// its factorization, and New stores their parameters, each row's fold and
// residual in a model.Interval; model.Predictor.PredictInterval then takes
// the intervals' order statistics for new rows. Nothing here names a
// learner: it reads the capability and the model's layout.
package interval

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// HoldOutModeler is a solution that gives, exactly and without refitting,
// the model retrained without the training rows H — its predictor, in the
// solution's own predictor's layout — and that model's predictions for
// the rows H (|H|×t, those of learn.HoldOuter).
type HoldOutModeler interface {
	HoldOutModel(rows []int) (*model.Predictor, *mat.Dense, error)
}

// MaxNumbers bounds the numbers an Interval may hold in its hold-out
// models (K models of (d+1)·t or n·t numbers each): 2²⁶, 512 MiB in
// memory. New refuses more, naming the sizes.
const MaxNumbers = 1 << 26

// ErrKernelJackknife is returned by New for the jackknife+ of a kernel
// expansion over every training row (the dual form): its n leave-one-out
// models are n coefficient vectors of n values each — an n×n·t matrix in
// the model, and O(n²·t) per test point. CV+ with K folds stores K·n·t
// numbers and costs O(n·d + K·n·t) per test point instead. A sparse model
// over a basis of b < n points stores n·b·t (O(b·d + n·b·t) per point).
var ErrKernelJackknife = errors.New("interval: the jackknife+ of a kernel expansion over the n training rows would store n leave-one-out models of n coefficients each (n×n); use CV+ with k-fold cross-validation")

// New returns the interval of the given method (model.JackknifePlus or
// model.CVPlus) for the predictor p of the solution sol trained on the
// labels y (m×t, as given: unweighted). The jackknife+ uses the m
// singleton folds (folds must be nil); CV+ the folds given, which must
// partition the rows 0..m−1 into K ≥ 2 non-empty folds. For each fold S_k
// it asks sol for the model retrained without S_k (HoldOutModeler) and
// stores its parameters (model.Interval), and for each row i ∈ S_k the
// residual |y_i − μ_{−S_k}(x_i)|.
//
// Cost: K hold-out models (rls: HoldOut's cost, O(|S|²r + |S|³), plus
// O(n·r·t) each, n the coefficients' count: O(m³/K + K·m·r·t) for the dual
// form), and model size K·(d+1)·t (linear predictor) or K·n·t (kernel
// expansion) numbers plus m·(t+1). The jackknife+ of a kernel expansion
// over every training row (dual form) is refused (ErrKernelJackknife), as
// is a model whose hold-out models would hold more than MaxNumbers
// numbers. NewFromCV skips the hold-out solves
// when the cross-validation's predictions are at hand.
func New(p *model.Predictor, sol learn.Solution, y *mat.Dense, method string, folds [][]int) (*model.Interval, error) {
	hm, ok := sol.(HoldOutModeler)
	if !ok {
		return nil, fmt.Errorf("%w: %s intervals need the model retrained without each fold, which the %s solution does not give", learn.ErrCapability, method, p.Learner)
	}
	folds, fold, err := prepare(p, y, method, folds)
	if err != nil {
		return nil, err
	}
	return build(p, y, method, folds, fold, hm.HoldOutModel)
}

// GivenHoldOutModeler is a solution that gives the models retrained
// without each fold from the hold-out predictions cv (m×t) of the rows of
// every fold — those of a cross-validation already run — with no hold-out
// solve (rls: O(m·r·t + n·r·K·t), one product for all K).
type GivenHoldOutModeler interface {
	HoldOutModelsGiven(folds [][]int, cv *mat.Dense) ([]*model.Predictor, error)
}

// NewFromCV is New given cv (m×t), the hold-out prediction of every
// training row that the cross-validation at this solution's λ computed —
// the leave-one-out predictions for the jackknife+, each row's fold's for
// CV+ — so that no hold-out is solved again: for rls the K models cost
// O(m·r·t + n·r·K·t) in all, one product, instead of New's O(m³/K) more
// (dual form). The solution checks cv (GivenHoldOutModeler; rls bounds
// each fold's error from the residual of its hold-out system); when it
// cannot confirm them — predictions of another λ, or a solution without
// the capability — NewFromCV falls back to New. The residuals are then
// |y_i − cv_i|.
func NewFromCV(p *model.Predictor, sol learn.Solution, y *mat.Dense, method string, folds [][]int, cv *mat.Dense) (*model.Interval, error) {
	g, ok := sol.(GivenHoldOutModeler)
	if !ok || cv == nil {
		return New(p, sol, y, method, folds)
	}
	folds2, fold, err := prepare(p, y, method, folds)
	if err != nil {
		return nil, err
	}
	models, err := g.HoldOutModelsGiven(folds2, cv)
	if err != nil {
		return New(p, sol, y, method, folds)
	}
	k := 0
	return build(p, y, method, folds2, fold, func(s []int) (*model.Predictor, *mat.Dense, error) {
		pred := mat.NewDense(len(s), y.RawMatrix().Cols, nil)
		for a, i := range s {
			copy(pred.RawRowView(a), cv.RawRowView(i))
		}
		k++
		return models[k-1], pred, nil
	})
}

// prepare checks the method and folds (the jackknife+'s singletons made
// here), the partition and the size bound, and returns the folds and each
// row's fold.
func prepare(p *model.Predictor, y *mat.Dense, method string, folds [][]int) ([][]int, []int, error) {
	m, t := y.Dims()
	if len(p.Outputs) != t {
		return nil, nil, fmt.Errorf("interval: %d label columns for a model of %d outputs", t, len(p.Outputs))
	}
	switch method {
	case model.JackknifePlus:
		if folds != nil {
			return nil, nil, errors.New("interval: the jackknife+ leaves out one row at a time: give no folds")
		}
		if !p.IsLinear() {
			if n, _ := p.A.Dims(); n >= m {
				return nil, nil, ErrKernelJackknife
			}
		}
		folds = make([][]int, m)
		for i := range folds {
			folds[i] = []int{i}
		}
	case model.CVPlus:
		if len(folds) < 2 {
			return nil, nil, fmt.Errorf("interval: CV+ needs at least 2 folds, got %d", len(folds))
		}
	default:
		return nil, nil, fmt.Errorf("interval: method %q, want %q or %q", method, model.JackknifePlus, model.CVPlus)
	}
	fold, err := partition(folds, m)
	if err != nil {
		return nil, nil, err
	}
	var per int
	if p.IsLinear() {
		r, _ := p.W.Dims()
		per = (r + 1) * t
	} else {
		r, _ := p.A.Dims()
		per = r * t
	}
	if float64(len(folds))*float64(per) > MaxNumbers {
		return nil, nil, fmt.Errorf("interval: %s would store %d models of %d numbers (more than %d): use fewer folds", method, len(folds), per, MaxNumbers)
	}
	return folds, fold, nil
}

// build forms the interval from each fold's hold-out model and
// predictions (holdOut).
func build(p *model.Predictor, y *mat.Dense, method string, folds [][]int, fold []int, holdOut func([]int) (*model.Predictor, *mat.Dense, error)) (*model.Interval, error) {
	m, t := y.Dims()
	iv := &model.Interval{Method: method, Fold: fold, Residuals: mat.NewDense(m, t, nil), B: make([][]float64, len(folds))}
	for k, s := range folds {
		q, pred, err := holdOut(s)
		if err != nil {
			return nil, fmt.Errorf("interval: fold %d of %d rows: %w", k+1, len(s), err)
		}
		if err := model.CheckIntervalLayout(p, q); err != nil {
			return nil, fmt.Errorf("interval: fold %d: %w", k+1, err)
		}
		if q.IsLinear() {
			iv.W = append(iv.W, q.W)
		} else {
			iv.A = append(iv.A, q.A)
		}
		iv.B[k] = q.B
		for a, i := range s {
			for c := 0; c < t; c++ {
				r := math.Abs(y.At(i, c) - pred.At(a, c))
				if math.IsNaN(r) || math.IsInf(r, 0) {
					return nil, fmt.Errorf("interval: fold %d: the hold-out residual of row %d is %v", k+1, i+1, r)
				}
				iv.Residuals.Set(i, c, r)
			}
		}
	}
	return iv, nil
}

// partition checks that folds partition 0..m−1 into non-empty folds and
// returns each row's fold.
func partition(folds [][]int, m int) ([]int, error) {
	fold := make([]int, m)
	for i := range fold {
		fold[i] = -1
	}
	for k, s := range folds {
		if len(s) == 0 {
			return nil, fmt.Errorf("interval: fold %d is empty", k+1)
		}
		for _, i := range s {
			if i < 0 || i >= m {
				return nil, fmt.Errorf("interval: fold %d: row %d outside 0..%d", k+1, i, m-1)
			}
			if fold[i] >= 0 {
				return nil, fmt.Errorf("interval: row %d is in folds %d and %d: the folds of CV+ must partition the rows", i, fold[i]+1, k+1)
			}
			fold[i] = k
		}
	}
	for i, k := range fold {
		if k < 0 {
			return nil, fmt.Errorf("interval: row %d is in no fold: the folds of CV+ must partition the rows", i)
		}
	}
	return fold, nil
}
