package mmc

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
)

// Name is the registry name of maximum margin clustering (--learner mmc).
const Name learn.Name = "mmc"

// ClassLabel names the predicted column of an MMC model: its outputs are
// the clusters 0 … c−1, recorded as the classes of a one-versus-all model,
// so predict prints each row's cluster (the argmax output).
const ClassLabel = "cluster"

// Learner holds unlabelled rows ready to cluster: the kernel matrix itself
// for the dual form (each λ is a Cholesky factorization: KernelR), or the
// factor of package factor for the linear and sparse forms. At(λ) clusters
// them at λ.
type Learner struct {
	meta  learn.Meta // Data: the factor, or for the dual form the kernel, rows and points (no factor)
	kmat  *mat.Dense // the dual form's m×m kernel matrix, else nil
	opt   Options
	steps []learn.Step // the interactive classifier's steps; nil for clustering
}

// Fit prepares the rows X (standardized when o says) for clustering with
// opt (Lambda is given to At): the dual form — o.Form Dual, or Auto
// without a basis for a kernel other than linear-with-few-features
// (factor.AutoForm) — computes the m×m kernel matrix, O(m²·d); the linear
// and sparse forms factor it (factor.Build: O(m·d²), O(m·n²)).
func Fit(x mat.Matrix, o learn.Options, opt Options) (*Learner, error) {
	if err := matrix.Check(x); err != nil {
		return nil, fmt.Errorf("mmc: %w: %w", learn.ErrShape, err)
	}
	if o.Kernel == nil {
		return nil, errors.New("mmc: no kernel given")
	}
	m, width := x.Dims()
	opt.Progress = o.Observe
	probe := opt
	probe.Lambda = 1
	if _, err := probe.Normalize(m); err != nil {
		return nil, err
	}
	dual := o.Form == learn.Dual || o.Form == learn.Auto && factor.AutoForm(x, o.Kernel, o.Basis) == factor.Dual
	if !dual {
		d, sc, err := o.Build(x)
		if err != nil {
			return nil, fmt.Errorf("mmc: %w", err)
		}
		return &Learner{meta: learn.Meta{Name: Name, Data: d, Scaler: sc}, opt: opt}, nil
	}
	if err := factor.CheckMemory(m, 4); err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	xs, sc, err := o.Prepare(x)
	if err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	points := o.Kernel.Points(xs)
	o.Observe.Report(factor.KernelPhase(m, m, width))
	k, err := o.Kernel.Block(xs, points)
	if err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	d := &factor.Data{Kernel: o.Kernel, X: xs, Points: points, Width: width}
	return &Learner{meta: learn.Meta{Name: Name, Data: d, Scaler: sc}, kmat: k, opt: opt}, nil
}

// Name is mmc.Name, or InteractiveName for a learner with steps.
func (l *Learner) Name() learn.Name { return l.meta.Name }

// WithSteps returns the learner that runs the interactive classifier's
// steps (Interactive.Apply) from opt.Init (nil: every row in class 0) at
// λ instead of clustering: the same rows and factor. Its Solution's Trace
// records each step.
func (l *Learner) WithSteps(steps []learn.Step) *Learner {
	out := *l
	out.steps = append([]learn.Step{}, steps...) // not nil: no steps keeps the initial labels
	out.meta.Name = InteractiveName
	return &out
}

// Labels is nil: clustering learns from no labels.
func (l *Learner) Labels() *mat.Dense { return nil }

// At clusters at λ: Solve as a learn.Solution.
func (l *Learner) At(lambda float64) (learn.Solution, error) { return l.Solve(lambda) }

// Solve clusters at λ — or, for a learner WithSteps, runs the steps — and
// fits the one-versus-all RLS model of the labelling found: for the dual
// form A = (K+λI)⁻¹Y = (Y − RY)/λ from the R of the search, O(m²·c); for
// the factors T diag(ψ) UᵀY, O(m·r·c) (ψ_k = s_k/(e_k+λ), as package rls).
// R is KernelR's (dual), or FactorR's when Cluster would store it.
func (l *Learner) Solve(lambda float64) (*Solution, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	opt := l.opt
	opt.Lambda = lambda
	var (
		u, rmat *mat.Dense
		g       []float64
		f       = l.meta.Data.Factor
		m       int
	)
	if l.kmat != nil {
		m, _ = l.kmat.Dims()
	} else {
		m = f.Rows()
	}
	opt, err := opt.Normalize(m)
	if err != nil {
		return nil, err
	}
	switch {
	case l.kmat != nil:
		if rmat, err = KernelR(l.kmat, lambda); err != nil {
			return nil, err
		}
	default:
		g = Gains(f.E, lambda)
		switch {
		case l.steps != nil: // the interactive steps evaluate few rows per move: W, not R
			u = f.U
		case m <= DenseLimit && opt.Dense == nil || opt.Dense != nil && *opt.Dense:
			rmat = FactorR(f, g)
		default:
			u = f.U
		}
	}
	sol := &Solution{Lambda: lambda, meta: l.meta}
	if l.steps == nil {
		sol.Result = search(u, g, rmat, opt)
	} else {
		init := opt.Init
		if init == nil {
			init = make([]int, m)
		}
		in := newInteractive(u, g, rmat, init, opt.Clusters)
		for k, st := range l.steps {
			moved, err := in.Apply(st)
			if err != nil {
				return nil, fmt.Errorf("step %d (%s): %w", k+1, st.Op, err)
			}
			sol.Trace = append(sol.Trace, StepResult{Op: st.Op, Moved: moved, Objective: in.Objective(), Labels: slices.Clone(in.Labels())})
		}
		sol.Result = &Result{Labels: in.st.y, Counts: in.st.counts, Objective: in.Objective()}
	}
	y := OneVsAll(sol.Labels, opt.Clusters)
	if l.kmat != nil {
		sol.Coef = linalg.Mul(false, false, rmat, y)
		sol.Coef.Sub(y, sol.Coef)
		sol.Coef.Scale(1/lambda, sol.Coef)
	} else {
		psi := make([]float64, f.Rank())
		for k, e := range f.E {
			psi[k] = f.S[k] / (e + lambda)
		}
		sol.Coef = linalg.Mul(false, false, f.T, linalg.ScaleRows(linalg.Mul(true, false, f.U, y), psi))
	}
	return sol, nil
}

// StepResult records one step of the interactive classifier: the rows it
// moved, J after it and the labels after it.
type StepResult struct {
	Op        string  `json:"op"`
	Moved     int     `json:"moved"`
	Objective float64 `json:"objective"`
	Labels    []int   `json:"labels"`
}

// OneVsAll returns the m×c one-versus-all coding of labels: +1 in the
// row's cluster, −1 elsewhere. O(m·c).
func OneVsAll(labels []int, c int) *mat.Dense {
	y := mat.NewDense(len(labels), c, nil)
	for i, a := range labels {
		row := y.RawRowView(i)
		for b := range row {
			row[b] = -1
		}
		row[a] = 1
	}
	return y
}

// Solution is the clustering at one λ with its RLS model.
type Solution struct {
	*Result
	// Trace records the steps of a learner WithSteps; nil for clustering.
	Trace  []StepResult
	Lambda float64
	// Coef holds the model's coefficients: one row per training row (dual),
	// per basis vector (sparse), or the primal weights with the bias
	// weight last (linear); one column per cluster.
	Coef *mat.Dense
	meta learn.Meta
}

// Predictor returns the RLS model of the labelling: one output per cluster
// (named 0 … c−1, recorded as the classes of the column ClassLabel), so a
// new row's cluster is its argmax output. See model.New for the cost.
func (s *Solution) Predictor() *model.Predictor {
	_, c := s.Coef.Dims()
	outs := make([]string, c)
	classes := make([]float64, c)
	for b := range classes {
		outs[b], classes[b] = strconv.Itoa(b), float64(b)
	}
	d := s.meta.Data
	var p *model.Predictor
	if d.Factor == nil { // dual: an expansion over the training points
		p = model.New(model.Expansion{Learner: string(s.meta.Name), Kernel: d.Kernel, Lambda: s.Lambda, Width: d.Width,
			Outputs: outs, Scaler: s.meta.Scaler, Coef: s.Coef, Points: d.Points})
	} else {
		meta := s.meta
		meta.Outputs = outs
		p = meta.Predictor(s.Coef, s.Lambda)
	}
	p.Classes, p.ClassLabel = classes, ClassLabel
	return p
}

// Descriptor describes MMC to the learner registry (learn.Register): it
// learns from the rows alone (no Needs), takes the number of clusters, the
// restarts, the seed and an initial labelling (learn.ParamClusters:
// Input.Clusters, Restarts, Seed, Init), every kernel and the dual, linear
// and sparse forms, standardizes its rows itself when Input.Standardize is
// set (SelfScaling: the scaler is recorded in its model), and declares no
// capability: a clustering has no cross-validation shortcut (its labels are
// its output).
func Descriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:        Name,
		Summary:     "mmc (maximum margin clustering by RLS, --clusters K)",
		Params:      []learn.Param{learn.ParamClusters, learn.ParamBasis},
		Loss:        learn.NoLoss,
		Bias:        1,
		Measure:     func(string) string { return "none" },
		SelfScaling: true,
		New:         newMethod,
	}
}

// InteractiveName is the registry name of the interactive RLS classifier
// (--learner interactive).
const InteractiveName learn.Name = "interactive"

// InteractiveDescriptor describes the interactive RLS classifier
// (Interactive) to the learner registry: it takes the number of classes,
// the initial labels and the steps (learn.ParamClusters, learn.ParamSteps:
// Input.Clusters, Init, Steps), every kernel and form, and declares no
// capability. Its method trains a Learner WithSteps.
func InteractiveDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:        InteractiveName,
		Summary:     "interactive (the interactive RLS classifier: --clusters K, --steps FILE)",
		Params:      []learn.Param{learn.ParamClusters, learn.ParamSteps, learn.ParamBasis},
		Loss:        learn.NoLoss,
		Bias:        1,
		Measure:     func(string) string { return "none" },
		SelfScaling: true,
		New: func(in *learn.Input) (learn.Method, error) {
			if in != nil && in.Restarts != 0 {
				return nil, fmt.Errorf("mmc: the interactive classifier runs its steps from one labelling: %d restarts", in.Restarts)
			}
			if in != nil && in.Fixed != nil {
				return nil, errors.New("mmc: the interactive classifier takes no fixed rows: its working sets say which rows may change")
			}
			method, err := newMethod(in)
			if err != nil {
				return nil, err
			}
			steps := slices.Clone(in.Steps)
			return func(s learn.Setting) (learn.Learner, error) {
				l, err := method(s)
				if err != nil {
					return nil, err
				}
				return l.(*Learner).WithSteps(steps), nil
			}, nil
		},
	}
}

func init() {
	learn.Register(Descriptor())
	learn.Register(InteractiveDescriptor())
}

// newMethod checks the input — rows, the number of clusters, restarts and
// initial labelling against them — and returns the method. O(m).
func newMethod(in *learn.Input) (learn.Method, error) {
	if err := in.Check(); err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	if in.Form == learn.Iterative {
		return nil, errors.New("mmc: the search needs a factor of the kernel matrix (dual, linear or sparse form), not the conjugate-gradient form")
	}
	opt := Options{Clusters: in.Clusters, Restarts: in.Restarts, Seed: in.Seed, Init: in.Init, Fixed: in.Fixed, Lambda: 1}
	if _, err := opt.Normalize(in.Rows()); err != nil {
		return nil, err
	}
	opt.Lambda = 0
	return learn.RowMethod(in, func(x mat.Matrix, o learn.Options) (learn.Learner, error) {
		o.Standardize = in.Standardize
		return Fit(x, o, opt)
	}), nil
}

var _ learn.Learner = (*Learner)(nil)

// Run trains the registered learner le (one that takes learn.ParamClusters:
// mmc, interactive) on the input at one kernel setting and λ — what every
// front end does for it: the descriptor's method, then the learner at λ.
// Errors name the learner (and λ). Cost: the learner's (Fit, then Solve).
func Run(le *learn.Descriptor, in *learn.Input, spec kernel.Spec, lambda float64) (*Solution, error) {
	k, err := kernel.New(spec)
	if err != nil {
		return nil, fmt.Errorf("--kernel %s: %w", spec, err)
	}
	method, err := le.New(in)
	if err != nil {
		return nil, fmt.Errorf("--learner %s: %w", le.Name, err)
	}
	l, err := method(learn.Setting{Kernel: k})
	if err != nil {
		return nil, fmt.Errorf("--learner %s: %w", le.Name, err)
	}
	s, err := l.At(lambda)
	if err != nil {
		return nil, fmt.Errorf("--learner %s --lambda %g: %w", le.Name, lambda, err)
	}
	sol, ok := s.(*Solution)
	if !ok {
		return nil, fmt.Errorf("--learner %s: its solution is not a labelling of the rows", le.Name)
	}
	return sol, nil
}
