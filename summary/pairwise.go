package summary

import (
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/selection"
)

// Pair is the JSON summary of a fit of a learner of pairs: its kernels and
// λ (two of each with two sets of objects), the objects and pairs, whether
// every pair was labelled, the cross-validation setting and curve, or the
// conjugate gradients of an incomplete fit.
type Pair struct {
	Learner   string       `json:"learner"`
	Kernel    kernel.Spec  `json:"kernel"`
	ColKernel *kernel.Spec `json:"col_kernel,omitempty"`
	Form      string       `json:"form"`
	Lambda    float64      `json:"lambda"`
	ColLambda float64      `json:"col_lambda,omitempty"`
	NTrain    int          `json:"n_train"`
	Rows      int          `json:"rows"`
	Cols      int          `json:"cols"`
	Pairs     int          `json:"pairs"`
	Complete  bool         `json:"complete"`
	Symmetry  string       `json:"symmetry,omitempty"`
	Setting   string       `json:"setting"`
	CV        *PairCV      `json:"cv"`
	CG        *PairCG      `json:"cg,omitempty"`
	SVM       *PairSVM     `json:"svm,omitempty"`
	// PairKernel is the pairwise kernel of --pair-kernel (nil without it).
	PairKernel *PairKernel `json:"pair_kernel,omitempty"`
	Outer      *Outer      `json:"outer,omitempty"`
	Timing     Timing      `json:"timing"`
	Backend    string      `json:"backend"`
}

// PairKernel is the pairwise kernel a fit of pairs trained with
// (package pairkernel): its kind, the sum's weights and the object kernels
// of its terms (no column kernels for symmetric, antisymmetric and ranking).
type PairKernel struct {
	Kind       string        `json:"kind"`
	Weights    []float64     `json:"weights,omitempty"`
	RowKernels []kernel.Spec `json:"row_kernels"`
	ColKernels []kernel.Spec `json:"col_kernels,omitempty"`
	// Search is the weight grid's cross-validation when the weights were
	// chosen from one (Weights are then the best point's).
	Search *WeightSearch `json:"weight_search,omitempty"`
}

// WeightSearch is the cross-validation of a sum kernel's weight grid:
// Strategy the folds (the --cv spec), Folds their number, every grid
// point's mean squared error over the held-out pairs and the best point's
// index (the first of least error).
type WeightSearch struct {
	Strategy string        `json:"strategy"`
	Folds    int           `json:"folds"`
	Grid     []WeightPoint `json:"grid"`
	Best     int           `json:"best"`
}

// WeightPoint is one weight vector of a search with its cross-validated
// mean squared error.
type WeightPoint struct {
	Weights []float64 `json:"weights"`
	MSE     float64   `json:"mse"`
}

// PairCV is the cross-validation of a fit of pairs: every kernel setting's
// points and the best one.
type PairCV struct {
	Strategy string      `json:"strategy"`
	Measure  string      `json:"measure"`
	Curve    []PairPoint `json:"curve"`
	Best     PairPoint   `json:"best"`
}

// PairPoint is a point of a fit of pairs' CV curve: its λ (and second λ),
// the CV value and, when several kernel settings were searched, its kernels.
type PairPoint struct {
	Lambda            float64          `json:"lambda"`
	ColLambda         float64          `json:"col_lambda,omitempty"`
	Value             float64          `json:"value"`
	Kernel            *kernel.Spec     `json:"kernel,omitempty"`
	ColKernel         *kernel.Spec     `json:"col_kernel,omitempty"`
	Indistinguishable bool             `json:"indistinguishable,omitempty"`
	OnEdge            []selection.Edge `json:"on_edge,omitempty"`
}

// PairCG reports the conjugate gradients of a fit of pairs on incomplete
// data (pairwise.CGResult), with the early stop of a validation set.
type PairCG struct {
	Iterations    int      `json:"iterations"`
	Converged     bool     `json:"converged"`
	Residual      float64  `json:"residual"`
	EarlyStopped  bool     `json:"early_stopped,omitempty"`
	BestIteration int      `json:"best_iteration,omitempty"`
	ValidationMSE *float64 `json:"validation_mse,omitempty"`
}

// Setting names a cross-validation setting of pairs ("none" for none).
func Setting(s pairwise.Setting) string {
	switch s {
	case pairwise.Pairs:
		return "A (pairs)"
	case pairwise.Rows:
		return "B (rows)"
	case pairwise.Cols:
		return "C (cols)"
	case pairwise.Both:
		return "D (both)"
	case pairwise.Vertices:
		return "vertices"
	}
	return "none"
}

// PairSearch records in p the search of a learner of pairs on complete
// data: the eigen form, the chosen kernels and λs and, when strategy names
// a cross-validation ("" for none), the curve of every kernel setting (each
// point with its kernels when there are several) and the best point with
// its edges.
func PairSearch(p *Pair, res *selection.SearchResult, strategy string, meas measure.Measure) {
	p.Form, p.Kernel, p.ColKernel, p.Lambda, p.ColLambda = "eigen", res.Kernel, res.ColKernel, res.Lambda, res.ColLambda
	if strategy == "" {
		return
	}
	multi := len(res.Curves) > 1
	point := func(c selection.Curve, pt selection.Point) PairPoint {
		pp := PairPoint{Lambda: pt.Lambda, ColLambda: pt.ColLambda, Value: pt.Value, Indistinguishable: pt.Indistinguishable}
		if multi {
			k := c.Kernel
			pp.Kernel, pp.ColKernel = &k, c.ColKernel
		}
		return pp
	}
	p.CV = &PairCV{Strategy: strategy, Measure: meas.Name, Best: point(res.Curves[res.Best], res.Curves[res.Best].Best)}
	for _, c := range res.Curves {
		for _, pt := range c.Curve {
			p.CV.Curve = append(p.CV.Curve, point(c, pt))
		}
	}
	p.CV.Best.OnEdge = res.OnEdge
}

// PairConjugateGradients records in p a fit of pairs by conjugate gradients
// (res) with kernels row and col (nil for one set of objects): form "cg",
// its λ, no cross-validation setting, and the solver's iterations; with
// validation, the early stop's best iteration and its validation error.
func PairConjugateGradients(p *Pair, res *pairwise.CGResult, row kernel.Spec, col *kernel.Spec, validation bool) {
	p.Form, p.Kernel, p.ColKernel, p.Lambda, p.Setting = "cg", row, col, res.Lambda, Setting("")
	p.CG = &PairCG{Iterations: res.Iterations, Converged: res.Converged, Residual: res.Residual, EarlyStopped: res.EarlyStopped}
	if validation {
		p.CG.BestIteration, p.CG.ValidationMSE = res.BestIteration, &res.ValidationMSE
	}
}
