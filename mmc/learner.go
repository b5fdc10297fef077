package mmc

import (
	"errors"
	"fmt"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
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

// Learner is a factored kernel matrix of unlabelled rows: At(λ) clusters
// them at λ (the factor does not depend on λ).
type Learner struct {
	meta learn.Meta
	opt  Options
}

// Fit factors the kernel matrix of X as o says (kernel, form, basis,
// standardization: learn.Options.Build) and returns the learner that
// clusters with opt (Lambda is given to At). Cost: factor.Build's (O(m³)
// dual, O(m·d²) linear, O(m·n²) sparse).
func Fit(x mat.Matrix, o learn.Options, opt Options) (*Learner, error) {
	if err := matrix.Check(x); err != nil {
		return nil, fmt.Errorf("mmc: %w: %w", learn.ErrShape, err)
	}
	m, _ := x.Dims()
	probe := opt
	probe.Lambda = 1
	if _, err := probe.Normalize(m); err != nil {
		return nil, err
	}
	d, sc, err := o.Build(x)
	if err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	return &Learner{meta: learn.Meta{Name: Name, Data: d, Scaler: sc}, opt: opt}, nil
}

// Name is mmc.Name.
func (l *Learner) Name() learn.Name { return Name }

// Labels is nil: clustering learns from no labels.
func (l *Learner) Labels() *mat.Dense { return nil }

// Factor returns the factor the search runs on.
func (l *Learner) Factor() *factor.Factor { return l.meta.Data.Factor }

// At clusters at λ: Solve as a learn.Solution.
func (l *Learner) At(lambda float64) (learn.Solution, error) { return l.Solve(lambda) }

// Solve runs Cluster at λ and builds the RLS model of the labelling found.
// Cost: Cluster's plus O(m·r·c) for the coefficients.
func (l *Learner) Solve(lambda float64) (*Solution, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	opt := l.opt
	opt.Lambda = lambda
	res, err := Cluster(l.meta.Data.Factor, opt)
	if err != nil {
		return nil, err
	}
	return &Solution{Result: res, Lambda: lambda, meta: l.meta}, nil
}

// Solution is the clustering at one λ with its model.
type Solution struct {
	*Result
	Lambda float64
	meta   learn.Meta
}

// Coefficients returns the coefficients of the one-versus-all RLS model of
// the labelling at λ: T diag(ψ) W with W = UᵀY kept by the search and ψ_k =
// 1/(e_k+λ) (dual) or s_k/(e_k+λ) (linear, sparse), as package rls solves.
// O(n·r·c).
func (s *Solution) Coefficients() *mat.Dense {
	f := s.meta.Data.Factor
	psi := make([]float64, f.Rank())
	for k, e := range f.E {
		if f.Form == factor.Dual {
			psi[k] = 1 / (e + s.Lambda)
		} else {
			psi[k] = f.S[k] / (e + s.Lambda)
		}
	}
	t := f.T
	if t == nil {
		t = f.U
	}
	return linalg.Mul(false, false, t, linalg.ScaleRows(s.W, psi))
}

// Predictor returns the RLS model of the labelling: one output per cluster
// (named 0 … c−1, recorded as the classes of the column ClassLabel), so a
// new row's cluster is its argmax output. See model.New for the cost.
func (s *Solution) Predictor() *model.Predictor {
	_, c := s.W.Dims()
	meta := s.meta
	meta.Outputs = make([]string, c)
	classes := make([]float64, c)
	for b := range classes {
		meta.Outputs[b], classes[b] = strconv.Itoa(b), float64(b)
	}
	p := meta.Predictor(s.Coefficients(), s.Lambda)
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

func init() { learn.Register(Descriptor()) }

// newMethod checks the input — rows, the number of clusters, restarts and
// initial labelling against them — and returns the method. O(m).
func newMethod(in *learn.Input) (learn.Method, error) {
	if err := in.Check(); err != nil {
		return nil, fmt.Errorf("mmc: %w", err)
	}
	if in.Form == learn.Iterative {
		return nil, errors.New("mmc: the search needs a factor of the kernel matrix (dual, linear or sparse form), not the conjugate-gradient form")
	}
	opt := Options{Clusters: in.Clusters, Restarts: in.Restarts, Seed: in.Seed, Init: in.Init, Lambda: 1}
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
