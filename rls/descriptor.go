package rls

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/learn"
)

// Descriptor describes RLS to the learner registry (learn.Register): it
// learns from labels, has every hold-out shortcut of a learner on rows
// (leave-one-out, hold-out sets, leave-pair-out, and for sparse models
// hold-outs that remove held-out basis vectors), relabels its factorization
// for permutation tests and gives a perturbed twin for the tie rule; its
// squared loss also trains by conjugate gradients (Input.Form
// learn.Iterative: package cg's learner) and from streamed statistics. It
// takes an unpenalized intercept (learn.ParamIntercept, Input.Intercept),
// exact under every hold-out above; the conjugate-gradient form refuses it.
// It takes sample weights (learn.ParamWeights, Input.Weights) in the dual
// and linear forms, exact under the same hold-outs.
func Descriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:    learn.RLS,
		Summary: "rls (regression)",
		Needs:   learn.NeedsLabels,
		Caps: []learn.Capability{learn.CanLeaveOneOut, learn.CanHoldOut, learn.CanLeavePairOut, learn.CanHoldOutBasis,
			learn.CanRelabel, learn.CanPerturb, learn.CanStream, learn.CanCG},
		Params: []learn.Param{learn.ParamBasis, learn.ParamIntercept, learn.ParamWeights},
		Loss:   learn.Squared,
		Bias:   1,
		Measure: func(scheme string) string {
			if scheme == "lpo" {
				return "auc"
			}
			return "mse"
		},
		New: func(in *learn.Input) (learn.Method, error) {
			if err := in.Check(); err != nil {
				return nil, err
			}
			if in.Form == learn.Iterative {
				if in.Intercept {
					return nil, fmt.Errorf("rls: the conjugate-gradient form has no unpenalized intercept (Input.Intercept); use a factored form")
				}
				if in.Weights != nil {
					return nil, fmt.Errorf("rls: the conjugate-gradient form takes no sample weights (Input.Weights); use the dual or linear form")
				}
				return cg.Method(in, learn.Squared, learn.RLS), nil
			}
			return learn.RowMethod(in, func(x mat.Matrix, opt learn.Options) (learn.Learner, error) {
				return Fit(x, in.Y, opt)
			}), nil
		},
	}
}

func init() { learn.Register(Descriptor()) }
