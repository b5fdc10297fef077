// Package learn is the vocabulary every rlskit learner shares, the contract
// it implements, and the registry front ends find learners in. The learners
// (rls, rank, pairwise, greedy, and those to come) are siblings over it;
// cross-validation and selection (packages cv and selection) work through
// it and never name a learner.
//
// # The contract
//
// A learner is trained once — it factors its kernel matrix, which does not
// depend on the regularization parameter λ — and then gives the model at any λ
// cheaply:
//
//	Learner   Name, Labels, At(λ) → Solution          (required)
//	Solution  Predictor                               (required)
//
// Everything else is a capability, found by interface assertion, in the style
// of io.WriterTo or http.Flusher:
//
//	on a Solution  LeaveOneOuter     exact leave-one-out predictions
//	               HoldOuter         exact predictions for held-out rows (k-fold, groups, queries)
//	               PairHoldOuter     exact leave-pair-out predictions
//	               BasisHoldOuter    sparse hold-outs that also remove held-out basis vectors
//	on a Learner   Relabeler         the same factorization for other labels (permutation tests)
//	               Perturber         a twin within rounding of it (the forward-error tie rule)
//	               DesignValidator   a learner of pairs' object designs (settings A–D, vertices)
//	               ColLambdaLearner  a second λ, of the columns (two-step RLS)
//
// Each shortcut equals retraining on the reduced data, to rounding.
//
// # The registry
//
// Each learner package exports a Descriptor and registers it in an init
// function, as a database/sql driver does:
//
//	func init() { learn.Register(rls.Descriptor()) }
//
// A Descriptor declares, before any training, what the learner learns from
// (Needs: labels, groups, a preference graph, pairs of objects), the
// capabilities above that its learners and solutions have (Caps), the
// solvers that can minimize its loss (CanStream, CanCG), its parameters
// beyond kernel and λ (Params), its loss, its kernels, its default bias and
// measures, and New, which checks an Input and returns the Method that
// trains it for one kernel Setting. Front ends — the command line,
// rlskit-beam, the Python bindings — import package learners (every learner
// of the module registers itself), find a learner with Lookup, check a plan
// against its declared capabilities (selection.Check), build an Input from
// the data they read, and hand both to selection.Search:
//
//	d, err := learn.Lookup("rls")
//	res, err := selection.Search(selection.Problem{Learner: d, Input: &learn.Input{X: x, Y: y}, Standardize: true},
//		selection.Settings{Kernels: specs, Lambdas: selection.DefaultGrid(), Measure: mse,
//			Scheme: selection.Scheme{Kind: selection.LOO, Name: "loo"}})
//
// None of them names a learner: a check reads Descriptor.Can, Needs and
// Takes. Descriptors lists what is registered, for help texts and
// completion.
//
// # Adding a learner
//
// A new learner lives in its own package: it takes Options (or an Input),
// validates with the Check functions here, builds its predictor with
// Meta.Predictor, implements Learner plus whichever capabilities it can
// compute exactly (each with a brute-force test), and registers a
// Descriptor that declares exactly those capabilities. One import in
// package learners makes it reachable from every front end; its search,
// tie handling and permutation tests come from package selection. A test of
// the command line (cmd/rlskit/toy_learner_test.go) registers a toy learner
// in a test file and gets all of that with no other change.
package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
)

var (
	// ErrLambda is returned for λ ≤ 0, NaN or ±Inf.
	ErrLambda = errors.New("lambda must be a finite number > 0")
	// ErrShape is returned when X and Y do not fit together or are empty.
	ErrShape = errors.New("dimension mismatch")
	// ErrHoldOut is returned for an invalid hold-out set or pair.
	ErrHoldOut = errors.New("invalid hold-out set")
	// ErrBasis is returned for an invalid basis.
	ErrBasis = factor.ErrBasis
	// ErrIndefinite is returned when K̃ + λI is not positive definite (an indefinite precomputed kernel).
	ErrIndefinite = errors.New("kernel matrix plus lambda·I is not positive definite")
	// ErrCapability is returned when a learner lacks a capability a computation needs.
	ErrCapability = errors.New("learner lacks a capability")
)

// Name names a learner; it is recorded in model files and in fit's JSON.
type Name string

// The learners of this module.
const (
	RLS        Name = "rls"        // regularized least squares (kernel ridge regression), package rls
	GlobalRank Name = "globalrank" // RankRLS over all pairs of a scoring, package rank
	QueryRank  Name = "queryrank"  // RankRLS over pairs inside queries, package rank
	PrefRank   Name = "prefrank"   // RankRLS over a preference graph, package rank
	KronRLS    Name = "kronrls"    // Kronecker RLS on pairs of objects, package pairwise
	TwoStep    Name = "twostep"    // two-step RLS on pairs of objects, package pairwise
	KronRank   Name = "kronrank"   // Kronecker RankRLS, conditional ranking of the columns of each row, package pairwise
)

// Learner is a trained factorization: it does not depend on λ.
type Learner interface {
	// Name names the learner.
	Name() Name
	// Labels returns the m×t labels it was trained on (shared; do not
	// modify), or nil when it learns from something else (a preference graph).
	Labels() *mat.Dense
	// At returns the model at λ without refactoring.
	At(lambda float64) (Solution, error)
}

// Solution is a learner's model at one λ.
type Solution interface {
	// Predictor returns the trained predictor (carrying the scaler when the
	// learner standardized its data).
	Predictor() *model.Predictor
}

// LeaveOneOuter is a solution with exact leave-one-out predictions (m×t).
type LeaveOneOuter interface {
	LeaveOneOut() (*mat.Dense, error)
}

// HoldOuter is a solution with exact predictions for the held-out rows, in the
// given order (|rows|×t), of the model retrained without them.
type HoldOuter interface {
	HoldOut(rows []int) (*mat.Dense, error)
}

// PairHoldOuter is a solution with exact leave-pair-out predictions: for each
// pair, the predictions for both rows of the model retrained without them.
type PairHoldOuter interface {
	LeavePairOut(pairs []Pair) (pi, pj *mat.Dense, err error)
}

// BasisHoldOuter is a sparse solution whose hold-outs can also remove held-out
// basis vectors (Pahikkala, Suominen & Boberg 2012).
type BasisHoldOuter interface {
	HoldOutBasis(rows []int, p Policy) (*mat.Dense, error)
	// LeaveOneOutSkip is leave-one-out for the rows that are not basis
	// vectors; basis rows get NaN.
	LeaveOneOutSkip() (*mat.Dense, error)
}

// Perturber is a learner that gives a twin of itself: the model of its labels
// multiplied by s (a preference graph's targets), on its factorization with
// every eigenvalue moved up by its rounding error (about r·ε·e_max), sharing
// everything else: O(m·r·t). In exact arithmetic, and without that
// perturbation, the twin's CV predictions are s times the learner's; package
// selection compares the two to measure the forward error of the CV
// predictions — the shortcut's own rounding and its sensitivity to the
// factorization's — and counts predictions closer than that as ties in ordinal
// measures, so a kernel that carries no information cannot score by noise.
type Perturber interface {
	Perturbed(s float64) (Learner, error)
}

// Design is a cross-validation design over the objects of a learner of
// pairs (Stock et al. 2018, sect. 4; Pahikkala et al. 2015): Setting "pairs"
// leaves each labelled pair out (A), "rows" the row objects of each row fold
// with all their pairs (B), "cols" the column objects (C), "both" a row fold
// and a column fold together, predicting the pairs of both (D), and
// "vertices" the vertices of a homogeneous network. Nil folds mean one
// object per fold.
type Design struct {
	Setting            string
	RowFolds, ColFolds [][]int
}

// DesignValidator is a learner of pairs that cross-validates a Design along
// λ grids at once (per-fold work shared by every λ): visit receives, for
// lambdas[i] and colLambdas[j], the n×1 CV predictions of the labelled pairs
// in their given order (NaN for a pair no fold predicts), valid during the
// call only. colLambdas is nil for a learner with one λ (visit gets j = 0).
type DesignValidator interface {
	CrossValidateDesign(d Design, lambdas, colLambdas []float64, visit func(i, j int, p *mat.Dense) error) error
}

// ColLambdaLearner is a learner with a second regularization parameter, of
// its columns (two-step RLS): AtBoth solves at (λ, λ_c) without refactoring.
type ColLambdaLearner interface {
	AtBoth(lambda, colLambda float64) (Solution, error)
}

// Relabeler is a learner that reuses its factorization for other labels Y
// (m×t'): no second O(m³). outputs may be nil.
type Relabeler interface {
	Relabel(y *mat.Dense, outputs []string) (Learner, error)
}

// Capability names one of the capability interfaces.
type Capability string

// The capabilities.
const (
	CanLeaveOneOut  Capability = "leave-one-out"
	CanHoldOut      Capability = "hold-out"
	CanLeavePairOut Capability = "leave-pair-out"
	CanHoldOutBasis Capability = "basis hold-out"
	CanRelabel      Capability = "relabel"
	CanPerturb      Capability = "perturb"
	// CanHoldOutObjects: a learner of pairs that cross-validates a Design —
	// single pairs, row objects, column objects, both, or vertices — along
	// its λ grid(s) (DesignValidator).
	CanHoldOutObjects Capability = "object hold-out"
	// CanColLambda: a learner with a second λ, of the columns (ColLambdaLearner).
	CanColLambda Capability = "column lambda"
	// CanStream: the loss can be minimized from additive statistics in
	// passes over data larger than memory (package stream).
	CanStream Capability = "stream"
	// CanCG: the loss can be minimized by conjugate gradients — on the
	// features for a learner on rows (package cg, Input.Form Iterative), by
	// the generalized vec trick for a learner of pairs (pairwise.FitKronCG,
	// incomplete data too).
	CanCG Capability = "conjugate gradients"
)

// Has reports whether v (a Solution, or a Learner for CanRelabel) has the capability.
func Has(v any, c Capability) bool {
	var ok bool
	switch c {
	case CanLeaveOneOut:
		_, ok = v.(LeaveOneOuter)
	case CanHoldOut:
		_, ok = v.(HoldOuter)
	case CanLeavePairOut:
		_, ok = v.(PairHoldOuter)
	case CanHoldOutBasis:
		_, ok = v.(BasisHoldOuter)
	case CanRelabel:
		_, ok = v.(Relabeler)
	case CanPerturb:
		_, ok = v.(Perturber)
	case CanHoldOutObjects:
		_, ok = v.(DesignValidator)
	case CanColLambda:
		_, ok = v.(ColLambdaLearner)
	}
	return ok
}

// Require returns an error wrapping ErrCapability naming the learner and the
// first capability v lacks.
func Require(name Name, v any, caps ...Capability) error {
	for _, c := range caps {
		if !Has(v, c) {
			return fmt.Errorf("%w: learner %s has no %s", ErrCapability, name, c)
		}
	}
	return nil
}

// Form selects how the kernel matrix is factored.
type Form int

const (
	// Auto picks Sparse when a basis is given, Linear for the linear kernel when
	// the data has fewer features than rows, and Dual otherwise.
	Auto Form = iota
	// Dual eigendecomposes the m×m kernel matrix: O(m³).
	Dual
	// Linear takes the thin SVD of the data with a bias feature: O(m·d²). Linear kernel only.
	Linear
	// Sparse uses the subset-of-regressors approximation over Options.Basis: O(m·n²).
	Sparse
	// Iterative factors nothing: a learner whose loss trains by conjugate
	// gradients (CanCG) solves each λ iteratively on the features (linear
	// kernel; Input.Tol, Input.MaxIter), without cross-validation shortcuts.
	Iterative
)

// Request is the factor request for this form and basis.
func (f Form) Request(basis []int) (factor.Request, error) {
	req := factor.Request{Basis: basis}
	switch f {
	case Auto:
		req.Auto = true
	case Dual:
		req.Form = factor.Dual
	case Linear:
		req.Form = factor.Linear
	case Sparse:
		req.Form = factor.Sparse
	case Iterative:
		return req, fmt.Errorf("form %d (iterative) factors nothing: its learner trains by conjugate gradients", int(f))
	default:
		return req, fmt.Errorf("unknown form %d", int(f))
	}
	return req, nil
}

// Options configure a learner's training.
type Options struct {
	// Kernel is required.
	Kernel kernel.Kernel
	// Form defaults to Auto.
	Form Form
	// Basis lists the training rows that are basis vectors (sparse form).
	Basis []int
	// Outputs names the columns of Y (optional; used by predictors).
	Outputs []string
	// Intercept fits an unpenalized intercept b per output: the loss is
	// ‖Y − f(X) − 1bᵀ‖² + λ‖f‖² with b free. Only a learner whose
	// descriptor takes ParamIntercept (rls) reads it; front ends refuse it
	// for the others.
	Intercept bool
	// Weights, when not nil, holds a sample weight w_i > 0 per training
	// row: the loss is Σ_i w_i‖y_i − f(x_i)‖² + λ‖f‖² (one weight per
	// row, shared by the outputs). Only a learner whose descriptor takes
	// ParamWeights (rls) reads it; front ends refuse it for the others.
	Weights []float64
	// Standardize scales every feature to mean 0 and standard deviation 1
	// (sparse data: root mean square 1, no centring) before training; the
	// predictor applies the same scaling to new data.
	Standardize bool
	// Observe, when set, is told of each long step of training before it
	// starts (kernel matrix, eigendecomposition, …), for progress reports.
	Observe progress.Observer
}

// Build standardizes X when asked and factors its kernel matrix as Options
// say: the factor plus the scaler to record in predictors (nil without
// standardization). Cost: O(m·d) for the scaling plus factor.Build's.
func (o Options) Build(x mat.Matrix) (*factor.Data, *model.Scaler, error) {
	if o.Kernel == nil {
		return nil, nil, errors.New("no kernel given")
	}
	req, err := o.Form.Request(o.Basis)
	if err != nil {
		return nil, nil, err
	}
	req.Observe = o.Observe
	x, sc, err := o.Prepare(x)
	if err != nil {
		return nil, nil, err
	}
	d, err := factor.Build(x, o.Kernel, req)
	if err != nil {
		return nil, nil, err
	}
	return d, sc, nil
}

// Prepare returns X standardized when Options.Standardize is set (and the
// scaler), else X itself and nil. O(m·d).
func (o Options) Prepare(x mat.Matrix) (mat.Matrix, *model.Scaler, error) {
	if !o.Standardize {
		return x, nil, nil
	}
	sc := model.FitScaler(x)
	xs, err := sc.Transform(x)
	if err != nil {
		return nil, nil, err
	}
	return xs, sc, nil
}

// Pair is a pair of training rows held out together.
type Pair struct{ I, J int }

// Policy is what a hold-out does with held-out rows that are basis vectors of a
// sparse model (Pahikkala, Suominen & Boberg 2012, sect. 6.4).
type Policy string

const (
	// Keep leaves the basis as it is; held-out rows only leave the loss.
	Keep Policy = "keep"
	// Remove takes the held-out basis vectors out of the basis: what retraining
	// on the other rows alone gives.
	Remove Policy = "remove"
	// Skip (leave-one-out only) predicts only the rows that are not basis vectors.
	Skip Policy = "skip"
)

// ParsePolicy parses "keep", "remove" or "skip"; "" is Keep.
func ParsePolicy(s string) (Policy, error) {
	switch Policy(s) {
	case "", Keep:
		return Keep, nil
	case Remove, Skip:
		return Policy(s), nil
	}
	return "", fmt.Errorf("basis policy %q: want keep, remove or skip", s)
}

// CheckLambda returns an error wrapping ErrLambda unless λ is finite and > 0.
func CheckLambda(lambda float64) error {
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return fmt.Errorf("%w: got %v", ErrLambda, lambda)
	}
	return nil
}

// CheckLabels validates the labels Y against m rows — present, m×t, finite —
// and returns the output names (y0, y1, … when names is nil).
func CheckLabels(y *mat.Dense, m int, names []string) ([]string, error) {
	if y == nil || y.IsEmpty() {
		return nil, fmt.Errorf("%w: no labels", ErrShape)
	}
	ym, t := y.Dims()
	if ym != m {
		return nil, fmt.Errorf("%w: X has %d rows, Y has %d", ErrShape, m, ym)
	}
	for i := 0; i < m; i++ {
		for c, v := range y.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: label [%d,%d] = %v", ErrShape, i, c, v)
			}
		}
	}
	if names == nil {
		for c := 0; c < t; c++ {
			names = append(names, fmt.Sprintf("y%d", c))
		}
	}
	if len(names) != t {
		return nil, fmt.Errorf("%w: %d output names for %d outputs", ErrShape, len(names), t)
	}
	return names, nil
}

// CheckWeights returns an error wrapping ErrShape unless w holds m sample
// weights, each finite and > 0 (a zero weight would drop the row from the
// loss but not from the kernel: leave the row out instead). O(m).
func CheckWeights(w []float64, m int) error {
	if len(w) != m {
		return fmt.Errorf("%w: %d sample weights for %d rows", ErrShape, len(w), m)
	}
	for i, v := range w {
		if !(v > 0) || math.IsInf(v, 1) {
			return fmt.Errorf("%w: sample weight of row %d is %v, want a finite number > 0", ErrShape, i, v)
		}
	}
	return nil
}

// CheckHoldOut returns an error wrapping ErrHoldOut unless h is a non-empty set
// of distinct rows of 0..m-1 that leaves at least one row to train on.
func CheckHoldOut(h []int, m int) error {
	if len(h) == 0 {
		return fmt.Errorf("%w: empty", ErrHoldOut)
	}
	if len(h) >= m {
		return fmt.Errorf("%w: %d of %d rows held out, nothing left to train on", ErrHoldOut, len(h), m)
	}
	seen := make(map[int]bool, len(h))
	for _, i := range h {
		if i < 0 || i >= m {
			return fmt.Errorf("%w: row %d outside [0,%d)", ErrHoldOut, i, m)
		}
		if seen[i] {
			return fmt.Errorf("%w: row %d held out twice", ErrHoldOut, i)
		}
		seen[i] = true
	}
	return nil
}

// CheckPairs returns an error wrapping ErrHoldOut unless there is at least one
// pair, every pair holds two distinct rows of 0..m-1, and m ≥ minRows.
func CheckPairs(pairs []Pair, m, minRows int) error {
	if len(pairs) == 0 {
		return fmt.Errorf("%w: no pairs", ErrHoldOut)
	}
	if m < minRows {
		return fmt.Errorf("%w: leave-pair-out needs at least %d rows, have %d", ErrHoldOut, minRows, m)
	}
	for _, p := range pairs {
		if p.I < 0 || p.I >= m || p.J < 0 || p.J >= m || p.I == p.J {
			return fmt.Errorf("%w: pair (%d, %d) with %d rows", ErrHoldOut, p.I, p.J, m)
		}
	}
	return nil
}

// Meta is what every learner records for its predictors: its name, the factor
// (kernel, expansion points, bias), the output names and the scaler.
type Meta struct {
	Name    Name
	Data    *factor.Data
	Outputs []string
	Scaler  *model.Scaler
}

// Perturbed returns the metadata with a copy of the factor data whose
// eigenvalues are perturbed by factor.Factor.Perturbed (for learn.Perturber).
func (m Meta) Perturbed() Meta {
	d := *m.Data
	d.Factor = d.Factor.Perturbed()
	m.Data = &d
	return m
}

// Predictor turns coefficients at λ into a predictor: coef holds one row per
// expansion point (Dual, Sparse) or the primal weights with the bias weight
// last (Linear). See model.New for the cost.
func (m Meta) Predictor(coef *mat.Dense, lambda float64) *model.Predictor {
	d := m.Data
	e := model.Expansion{
		Learner: string(m.Name), Kernel: d.Kernel, Lambda: lambda, Width: d.Width,
		Outputs: m.Outputs, Scaler: m.Scaler, Coef: coef,
	}
	if d.Form == factor.Linear {
		e.Primal, e.Bias = true, d.Bias
	} else {
		e.Points = d.Points
	}
	return model.New(e)
}
