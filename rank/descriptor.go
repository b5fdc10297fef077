package rank

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/learn"
)

// GlobalDescriptor describes global RankRLS (all pairs of the scores) to
// the learner registry: labels in, every hold-out shortcut of a learner on
// rows, relabelling and the perturbed twin; its loss also trains by
// conjugate gradients and from streamed statistics.
func GlobalDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:    learn.GlobalRank,
		Summary: "globalrank (all pairs of the scores)",
		Needs:   learn.NeedsLabels,
		Caps: []learn.Capability{learn.CanLeaveOneOut, learn.CanHoldOut, learn.CanLeavePairOut,
			learn.CanRelabel, learn.CanPerturb, learn.CanStream, learn.CanCG},
		Params:  []learn.Param{learn.ParamBasis},
		Loss:    learn.AllPairs,
		Measure: func(string) string { return "cindex" },
		New: func(in *learn.Input) (learn.Method, error) {
			if err := in.Check(); err != nil {
				return nil, err
			}
			if in.Form == learn.Iterative {
				return cg.Method(in, learn.AllPairs, learn.GlobalRank), nil
			}
			return learn.RowMethod(in, func(x mat.Matrix, opt learn.Options) (learn.Learner, error) {
				return FitGlobal(x, in.Y, opt)
			}), nil
		},
	}
}

// QueryDescriptor describes query RankRLS (pairs inside queries, optionally
// each query's pairs weighed by 1/n_q) to the learner registry.
func QueryDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:    learn.QueryRank,
		Summary: "queryrank (pairs within queries)",
		Needs:   learn.NeedsLabels | learn.NeedsGroups,
		Caps: []learn.Capability{learn.CanLeaveOneOut, learn.CanHoldOut, learn.CanLeavePairOut,
			learn.CanRelabel, learn.CanPerturb, learn.CanStream, learn.CanCG},
		Params: []learn.Param{learn.ParamBasis, learn.ParamQueryNormalize},
		Loss:   learn.QueryPairs,
		Measure: func(scheme string) string {
			if scheme == "lpo" {
				return "cindex"
			}
			return "disagreement"
		},
		New: func(in *learn.Input) (learn.Method, error) {
			if err := in.Check(); err != nil {
				return nil, err
			}
			if in.Groups == nil {
				return nil, errors.New("queryrank needs query ids")
			}
			if in.Form == learn.Iterative {
				if in.QueryNormalize {
					return nil, errors.New("queryrank: conjugate gradients weigh every pair alike (no query normalization)")
				}
				return cg.Method(in, learn.QueryPairs, learn.QueryRank), nil
			}
			return learn.RowMethod(in, func(x mat.Matrix, opt learn.Options) (learn.Learner, error) {
				if in.QueryNormalize {
					return FitQueryNormalized(x, in.Y, in.Groups, opt)
				}
				return FitQuery(x, in.Y, in.Groups, opt)
			}), nil
		},
	}
}

// PreferenceDescriptor describes RankRLS on a preference graph to the
// learner registry: it learns from the graph (labels, when given, only
// score its cross-validation), with the graph's cost.
func PreferenceDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:    learn.PrefRank,
		Summary: "prefrank (a preference graph)",
		Needs:   learn.NeedsGraph,
		Caps:    []learn.Capability{learn.CanLeaveOneOut, learn.CanHoldOut, learn.CanLeavePairOut, learn.CanPerturb},
		Params:  []learn.Param{learn.ParamBasis, learn.ParamCost},
		Loss:    learn.GraphPairs,
		Measure: func(string) string { return "cindex" },
		New: func(in *learn.Input) (learn.Method, error) {
			if err := in.Check(); err != nil {
				return nil, err
			}
			cost, err := ParseCost(in.Cost)
			if err != nil {
				return nil, err
			}
			return learn.RowMethod(in, func(x mat.Matrix, opt learn.Options) (learn.Learner, error) {
				opt.Outputs = []string{"score"}
				if in.Y != nil && len(in.Outputs) > 0 {
					opt.Outputs = in.Outputs[:1]
				}
				return FitPreference(x, in.Graph, cost, opt)
			}), nil
		},
	}
}

// ParseCost maps "unit" (or ""), "magnitude" and "inverse" to a Cost.
func ParseCost(s string) (Cost, error) {
	switch s {
	case "", "unit":
		return Unit, nil
	case "magnitude":
		return Magnitude, nil
	case "inverse":
		return Inverse, nil
	}
	return 0, fmt.Errorf("cost %q: want unit, magnitude or inverse", s)
}

func init() {
	learn.Register(GlobalDescriptor())
	learn.Register(QueryDescriptor())
	learn.Register(PreferenceDescriptor())
}
