// Package pairfit is the one pairwise fit the front ends share — rlskit fit
// and the C ABI of cmd/librlskit (the Python package) — so that neither
// holds the logic: given the plan of a learner of pairs (plan.PairPlan), the
// row and column objects, the labelled pairs and, for a k-fold setting, the
// object folds, Fit checks the pairs (pairwise.CheckPairs) and trains
//
//   - on complete data (a label for every row × column pair) through the one
//     search, selection.Search with the registered learner (Kronecker RLS,
//     two-step RLS): each side factored once per kernel setting, the object
//     design of the plan's setting (A–D, vertices) cross-validated along the
//     λ grid(s) exactly, the one tie rule choosing the point;
//   - on incomplete data, or with --solver cg, Kronecker RLS by conjugate
//     gradients (pairwise.FitKronCG; Airola & Pahikkala 2018) at the plan's
//     one λ and kernel setting, optionally stopped early on validation pairs.
//   - for the squared hinge loss (learn.PairSquaredHinge: the Kronecker
//     support vector machine), on complete or incomplete data, by truncated
//     Newton steps (pairwise.FitKronSVM; Airola & Pahikkala 2018) at the
//     plan's one λ and kernel setting, labels −1 and +1.
//
// It returns the model (model.PairPredictor through Solution), the summary
// rlskit fit prints (summary.Pair), the CV predictions at the chosen point
// and what a front end needs for its extras (nested CV, intervals). Its
// errors name the flags of rlskit fit (and Data's names for the inputs).
//
// Cost: the search's — O(m³ + q³) for the two eigendecompositions per
// kernel setting, then O(m·q·(m + q)) per λ point of the CV path — or the
// conjugate gradients', O(n·(m + q)) per iteration for n observed pairs.
package pairfit

import (
	"errors"
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairkernel"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// Solution is a trained model of pairs, whichever learner or solver.
type Solution interface {
	PairModel() *model.PairPredictor
}

// Data are the inputs of a pairwise fit.
type Data struct {
	// Rows are the m row objects (features, or an m×m kernel matrix for the
	// precomputed kernel); Cols the q column objects (ignored for a
	// homogeneous network, whose columns are its rows).
	Rows, Cols mat.Matrix
	// Pairs are the labelled (row, column) pairs, 0-based, and Labels their
	// labels (one per pair).
	Pairs  []pairwise.Pair
	Labels []float64
	// RowsName, ColsName and PairsName name the inputs in messages (rlskit
	// fit: their files; "--rows NAME: …", "--pairs NAME: …").
	RowsName, ColsName, PairsName string
}

// Options are the settings of a fit beyond the plan.
type Options struct {
	// Standardize scales each side's features (--standardize).
	Standardize bool
	// Seed draws the object folds of rows:K, cols:K, both:K, vertices:K.
	Seed uint64
	// MaxIter bounds the conjugate gradients' iterations (--max-iter).
	MaxIter int
	// Progress is told the search's events (unless Quiet) and every
	// conjugate-gradient iteration; nil: nothing is told.
	Progress progress.Observer
	// Quiet: the search reports no progress events (their factorization
	// phases time a calibration); the conjugate gradients still do.
	Quiet bool
	// Grid, when set, is told the search's settings just before it starts
	// (a progress display sizes its grid from them).
	Grid func(st *selection.Settings)
	// ObjectFolds, when set, gives the explicit row and column object folds
	// (--folds, --col-folds; nil for drawn folds) of m row and q column
	// objects. It is called only for a cross-validated setting, after the
	// pairs are checked. FoldsName names the row folds in the scheme.
	ObjectFolds func(m, q int) (rowFolds, colFolds [][]int, err error)
	FoldsName   string
	// Validation, when set, gives the validation pairs that stop the
	// conjugate gradients early (--validation-pairs, named ValidationName);
	// called once the problem is built. Complete data trained in closed form
	// refuse it.
	Validation     func(m, q int) (*pairwise.Validation, error)
	ValidationName string
}

// Result is a fitted model of pairs with its summary.
type Result struct {
	// Summary is the JSON summary rlskit fit prints (its Timing is the
	// front end's to fill).
	Summary summary.Pair
	// Model is the model at the chosen point (or the CG solution).
	Model Solution
	// Search is the search on complete data (nil for CG); Best its chosen
	// curve's result (Best.Predictions are the CV predictions, n×1).
	Search *selection.SearchResult
	Best   *selection.Result
	// Input and Settings are the search's problem and settings (a nested
	// cross-validation or an interval of the same search reuses them).
	Input    *learn.Input
	Settings selection.Settings
	// CG is the conjugate gradients' result (nil on complete data in
	// closed form).
	CG *pairwise.CGResult
	// SVM is the support vector machine's result (the learner of
	// learn.PairSquaredHinge; nil for the others).
	SVM *pairwise.SVMResult
	// PairKernel is the model of --pair-kernel (plan.PairPlan.PairKernel),
	// trained by conjugate gradients; Model, Search and CG are then nil.
	PairKernel *pairkernel.Predictor
	// CVPredictions are the CV predictions at the chosen point, one per
	// pair in Data.Pairs' order (nil without cross-validation).
	CVPredictions []float64
	// Rows and Cols are m and q.
	Rows, Cols int
	// Train and CV are the search's training and CV times (CG: Train is
	// the whole fit).
	Train, CV time.Duration
}

// Fit trains the plan's learner on d: closed form with the plan's
// cross-validation on complete data, conjugate gradients on incomplete data
// or with --solver cg (which p.CheckIncomplete must allow; it clears
// p.Setting). See the package doc for the cost.
func Fit(p *plan.PairPlan, d Data, o Options) (*Result, error) {
	start := time.Now()
	rows, cols := d.Rows, d.Cols
	if p.Homogeneous || cols == nil {
		cols = rows
	}
	if rows == nil {
		return nil, fmt.Errorf("--rows %s: no row objects", d.RowsName)
	}
	if err := checkSquare(p, rows, cols, d); err != nil {
		return nil, err
	}
	m, _ := rows.Dims()
	q, _ := cols.Dims()
	r := &Result{Rows: m, Cols: q}
	r.Summary = summary.Pair{Learner: string(p.Learner.Name), NTrain: len(d.Pairs), Rows: m, Cols: q, Pairs: len(d.Pairs),
		Backend: linalg.Backend(), Setting: summary.Setting(p.Setting)}
	if p.PairKernel != "" {
		if err := fitPairKernel(p, d, o, rows, cols, r); err != nil {
			return nil, err
		}
		r.Train = time.Since(start)
		return r, nil
	}
	if p.Homogeneous {
		r.Summary.Symmetry = p.Symmetry.String()
	}
	complete, nobs, err := pairwise.CheckPairs(m, q, d.Pairs, d.Labels, p.Symmetry)
	if err != nil {
		return nil, fmt.Errorf("--pairs %s: %w", d.PairsName, err)
	}
	r.Summary.Complete = complete
	if p.Learner.Loss == learn.PairSquaredHinge { // one model by Newton steps, complete or not
		if err := fitSVM(p, d, o, rows, cols, r); err != nil {
			return nil, err
		}
		r.Train = time.Since(start)
		return r, nil
	}
	if !complete || p.ForceCG {
		if err := p.CheckIncomplete(len(d.Pairs), nobs, m, q); err != nil {
			return nil, err
		}
		if err := fitCG(p, d, o, rows, cols, r); err != nil {
			return nil, err
		}
		r.Train = time.Since(start)
		return r, nil
	}
	if o.Validation != nil {
		return nil, fmt.Errorf("--validation-pairs %s stops conjugate-gradient training early, but the data are complete and --learner %s trains in closed form: give --solver cg, or no --validation-pairs", o.ValidationName, p.Learner.Name)
	}
	if err := fitComplete(p, d, o, rows, cols, r); err != nil {
		return nil, err
	}
	return r, nil
}

// checkSquare refuses a precomputed kernel matrix that is not square, on
// either side.
func checkSquare(p *plan.PairPlan, rows, cols mat.Matrix, d Data) error {
	check := func(flag, name string, x mat.Matrix, spec kernel.Spec) error {
		if r, c := x.Dims(); spec.Name == "precomputed" && r != c {
			return fmt.Errorf("%s %s: a precomputed kernel matrix must be square, got %d rows and %d columns", flag, name, r, c)
		}
		return nil
	}
	if err := check("--rows", d.RowsName, rows, p.RowKernels[0]); err != nil {
		return err
	}
	if p.Homogeneous || len(p.ColKernels) == 0 {
		return nil
	}
	return check("--cols", d.ColsName, cols, p.ColKernels[0])
}

// fitCG trains Kronecker RLS by conjugate gradients at the plan's one λ and
// kernel setting.
func fitCG(p *plan.PairPlan, d Data, o Options, rows, cols mat.Matrix, r *Result) error {
	rs, err := newSide("--rows "+d.RowsName, rows, p.RowKernels[0], o.Standardize)
	if err != nil {
		return err
	}
	cs := rs
	if !p.Homogeneous {
		if cs, err = newSide("--cols "+d.ColsName, cols, p.ColKernels[0], o.Standardize); err != nil {
			return err
		}
	}
	k, err := pairwise.FitKronCG(rs, cs, d.Pairs, d.Labels, pairwise.Options{Symmetry: p.Symmetry})
	if err != nil {
		return fmt.Errorf("--pairs %s: %w", d.PairsName, err)
	}
	opt := pairwise.CGOptions{Tol: p.Tol, MaxIter: o.MaxIter, Patience: p.Patience, Progress: o.Progress}
	if o.Validation != nil {
		if opt.Validation, err = o.Validation(r.Rows, r.Cols); err != nil {
			return err
		}
	}
	res, err := k.Solve(p.Lambdas[0], opt)
	if err != nil && opt.Validation != nil && errors.Is(err, pairwise.ErrPair) {
		return fmt.Errorf("--validation-pairs %s: %w", o.ValidationName, err)
	} else if err != nil {
		return fmt.Errorf("conjugate gradients: %w", err)
	}
	var col *kernel.Spec
	if !p.Homogeneous {
		col = &p.ColKernels[0]
	}
	summary.PairConjugateGradients(&r.Summary, res, p.RowKernels[0], col, o.Validation != nil)
	r.CG, r.Model = res, res
	return nil
}

// newSide computes one side's kernel matrix (its eigendecomposition is made
// on first need). what names the side in messages.
func newSide(what string, x mat.Matrix, spec kernel.Spec, standardize bool) (*pairwise.Side, error) {
	k, err := kernel.New(spec)
	if err != nil {
		return nil, err
	}
	s, err := pairwise.NewSide(x, k, standardize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return s, nil
}

// fitComplete trains on complete data through the one search
// (selection.Search with the registered learner): per kernel setting one
// learner (each side factored once per distinct kernel), cross-validated by
// the plan's object design along the λ grid(s) with the one tie rule.
func fitComplete(p *plan.PairPlan, d Data, o Options, rows, cols mat.Matrix, r *Result) error {
	le := p.Learner
	in := &learn.Input{X: rows, Y: mat.NewDense(len(d.Labels), 1, d.Labels), Outputs: []string{"y"},
		Pairs: make([]learn.ObjectPair, len(d.Pairs))}
	for i, pr := range d.Pairs {
		in.Pairs[i] = learn.ObjectPair{Row: pr.Row, Col: pr.Col}
	}
	// the solution's PairModel is the model: no Predictor formed
	st := selection.Settings{Kernels: p.RowKernels, Lambdas: p.Lambdas, Measure: p.Measure, SolutionOnly: true,
		Scheme: selection.Scheme{Kind: selection.None, Name: "none"}}
	if !o.Quiet {
		st.Progress = o.Progress
	}
	if p.Homogeneous {
		in.Symmetry = p.Symmetry.String()
	} else {
		in.Cols, st.ColKernels = cols, p.ColKernels
	}
	if le.Can(learn.CanColLambda) {
		st.ColLambdas = p.ColLambdas
	}
	if p.Setting != "" {
		so := selection.SchemeOptions{RowObjects: r.Rows, ColObjects: r.Cols, Seed: o.Seed, FoldsName: o.FoldsName}
		if o.ObjectFolds != nil {
			var err error
			if so.Folds, so.ColFolds, err = o.ObjectFolds(r.Rows, r.Cols); err != nil {
				return err
			}
		}
		var err error
		if st.Scheme, err = selection.NewScheme(p.CVSpec, so); err != nil {
			return fmt.Errorf("--cv %s: %w", p.CVSpec, err)
		}
		st.Scheme.Name = p.CVSpec
	}
	if o.Grid != nil {
		o.Grid(&st)
	}
	res, err := selection.Search(selection.Problem{Learner: le, Input: in, Standardize: o.Standardize}, st)
	if err != nil {
		return fmt.Errorf("--pairs %s: %w", d.PairsName, err)
	}
	sol, ok := res.Solution.(Solution)
	if !ok {
		return fmt.Errorf("--learner %s: its model is not a model of pairs", le.Name)
	}
	strategy := "" // no cross-validation
	if p.Setting != "" {
		strategy = p.CVSpec
	}
	summary.PairSearch(&r.Summary, res, strategy, p.Measure)
	r.Model, r.Search, r.Input, r.Settings = sol, res, in, st
	r.Best = res.Curves[res.Best].Result
	if r.Best.Predictions != nil {
		r.CVPredictions = mat.Col(nil, 0, r.Best.Predictions)
	}
	r.Train, r.CV = res.Train, res.CV
	return nil
}
