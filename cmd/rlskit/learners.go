package main

import (
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
)

// trainInput is what a learner's method is built from: the data read, the
// basis (fixed, or chosen greedily per kernel setting) and the preference graph.
type trainInput struct {
	d      *dataset.Data
	basis  []int
	greedy *greedyBasis // nil: basis as given
	edges  []rank.Edge
	cost   rank.Cost
	// normalized weighs each query's pairs by 1/n_q (RLScore's convention).
	normalized bool
	// observe is told of each factorization phase (progress).
	observe func(factor.Phase)
}

// greedyBasis asks for n basis vectors chosen by the randomized greedy
// selection (Pahikkala, Suominen & Boberg 2012, Algorithm 1) per kernel setting.
type greedyBasis struct {
	n      int
	lambda float64
	seed   uint64
}

// options returns the learners' options for one kernel setting on X.
func (in *trainInput) options(x mat.Matrix, k kernel.Kernel) (learn.Options, error) {
	opt := learn.Options{Kernel: k, Basis: in.basis, Outputs: in.d.LabelNames, Observe: in.observe}
	if in.greedy != nil {
		b, err := basis.Greedy(x, in.d.Y, k, in.greedy.n, basis.GreedyOptions{Lambda: in.greedy.lambda, Seed: in.greedy.seed})
		if err != nil {
			return opt, fmt.Errorf("--basis-select greedy: %w", err)
		}
		slices.Sort(b)
		opt.Basis = b
	}
	return opt, nil
}

// learnerEntry registers a learner with the command line: a new learner is one
// entry here plus its flags.
type learnerEntry struct {
	name learn.Name
	help string
	// bias is the default bias of the linear kernel (a ranking loss cannot see a constant shift).
	bias float64
	// measure is the default measure for a --cv spec.
	measure func(cv string) string
	// queries says the learner needs query ids; graph that it learns from --preferences.
	queries, graph bool
	// cg is the conjugate-gradient loss (nil: no --solver cg).
	cg *cg.Loss
	// method trains the learner for one kernel setting.
	method func(in *trainInput) selection.Method
}

func lossOf(l cg.Loss) *cg.Loss { return &l }

// withOptions makes a learner's method from its fit function: the learners'
// options (kernel, basis — greedy per kernel setting — and output names) are
// built for each kernel setting.
func withOptions(fit func(in *trainInput, x mat.Matrix, opt learn.Options) (learn.Learner, error)) func(in *trainInput) selection.Method {
	return func(in *trainInput) selection.Method {
		return func(x mat.Matrix, k kernel.Kernel) (learn.Learner, error) {
			opt, err := in.options(x, k)
			if err != nil {
				return nil, err
			}
			return fit(in, x, opt)
		}
	}
}

// learners is the table of --learner values.
var learners = []learnerEntry{
	{
		name: learn.RLS, help: "rls (regression)", bias: 1, cg: lossOf(cg.Regression),
		measure: func(cv string) string { return pick(cv == "lpo", "auc", "mse") },
		method: withOptions(func(in *trainInput, x mat.Matrix, opt learn.Options) (learn.Learner, error) {
			return rls.Fit(x, in.d.Y, opt)
		}),
	},
	{
		name: learn.GlobalRank, help: "globalrank (all pairs of the scores)", cg: lossOf(cg.GlobalRank),
		measure: func(string) string { return "cindex" },
		method: withOptions(func(in *trainInput, x mat.Matrix, opt learn.Options) (learn.Learner, error) {
			return rank.FitGlobal(x, in.d.Y, opt)
		}),
	},
	{
		name: learn.QueryRank, help: "queryrank (pairs within queries)", queries: true, cg: lossOf(cg.QueryRank),
		measure: func(cv string) string { return pick(cv == "lpo", "cindex", "disagreement") },
		method: withOptions(func(in *trainInput, x mat.Matrix, opt learn.Options) (learn.Learner, error) {
			if in.normalized {
				return rank.FitQueryNormalized(x, in.d.Y, in.d.Queries, opt)
			}
			return rank.FitQuery(x, in.d.Y, in.d.Queries, opt)
		}),
	},
	{
		name: learn.PrefRank, help: "prefrank (a preference graph)", graph: true,
		measure: func(string) string { return "cindex" },
		method: withOptions(func(in *trainInput, x mat.Matrix, opt learn.Options) (learn.Learner, error) {
			opt.Outputs = []string{"score"}
			if in.d.Y != nil {
				opt.Outputs = in.d.LabelNames[:1]
			}
			return rank.FitPreference(x, in.edges, in.cost, opt)
		}),
	},
	{
		// greedy forward feature selection (package greedy): its own flow,
		// runGreedy in greedy.go, called before the kernel search
		name: greedy.Name, help: "greedy (forward feature selection for rls, --select K)", bias: 1,
		measure: func(string) string { return "mse" },
	},
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// learnerByName looks up --learner.
func learnerByName(name string) (*learnerEntry, error) {
	var names []string
	for i := range learners {
		if string(learners[i].name) == name {
			return &learners[i], nil
		}
		names = append(names, string(learners[i].name))
	}
	for _, l := range pairwiseLearners {
		names = append(names, string(l.name))
	}
	return nil, fmt.Errorf("--learner %q: unknown learner (want one of [%s])", name, strings.Join(names, " "))
}

// learnerHelp is the --learner flag's help.
func learnerHelp() string {
	var parts []string
	for _, l := range append(learners[:len(learners):len(learners)], pairwiseLearners...) {
		parts = append(parts, l.help)
	}
	return "learner: " + strings.Join(parts, ", ")
}

// parseCost maps --cost to a preference cost.
func parseCost(s string) (rank.Cost, error) {
	switch s {
	case "unit":
		return rank.Unit, nil
	case "magnitude":
		return rank.Magnitude, nil
	case "inverse":
		return rank.Inverse, nil
	}
	return 0, fmt.Errorf("--cost %q: want unit, magnitude or inverse", s)
}
