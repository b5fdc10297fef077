package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	_ "github.com/rlskit/rlskit/learners" // every learner of the module registers itself
)

// learnerEntry is a registered learner as the command line sees it: its
// descriptor (package learn's registry), whose declared needs, capabilities
// and parameters every plan check reads.
type learnerEntry struct {
	*learn.Descriptor
	name learn.Name
}

// learnerByName looks up --learner in the registry.
func learnerByName(name string) (*learnerEntry, error) {
	d, err := learn.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--learner %q: %w", name, err)
	}
	return &learnerEntry{Descriptor: d, name: d.Name}, nil
}

// learnerHelp is the --learner flag's help: every registered learner's summary.
func learnerHelp() string {
	var parts []string
	for _, d := range learn.Descriptors() {
		parts = append(parts, d.Summary)
	}
	return "learner: " + strings.Join(parts, ", ")
}

// learnerValues completes --learner.
func learnerValues() []string {
	var out []string
	for _, n := range learn.Names() {
		out = append(out, string(n))
	}
	return out
}

// cgLoss maps a declared loss to the conjugate-gradient solver's.
func cgLoss(l learn.Loss) (cg.Loss, error) {
	switch l {
	case learn.Squared:
		return cg.Regression, nil
	case learn.AllPairs:
		return cg.GlobalRank, nil
	case learn.QueryPairs:
		return cg.QueryRank, nil
	}
	return 0, fmt.Errorf("--solver cg has no loss %d", l)
}

// greedyBasis is --basis-select greedy: n basis vectors chosen by the
// randomized greedy selection (Pahikkala, Suominen & Boberg 2012,
// Algorithm 1) anew for each kernel setting.
func greedyBasis(y *mat.Dense, n int, lambda float64, seed uint64) func(x mat.Matrix, k kernel.Kernel) ([]int, error) {
	return func(x mat.Matrix, k kernel.Kernel) ([]int, error) {
		b, err := basis.Greedy(x, y, k, n, basis.GreedyOptions{Lambda: lambda, Seed: seed})
		if err != nil {
			return nil, fmt.Errorf("--basis-select greedy: %w", err)
		}
		slices.Sort(b)
		return b, nil
	}
}

// paramFlags are the flags of the learner parameters: a flag given to a
// learner that does not take its parameter is refused.
var paramFlags = map[learn.Param]string{
	learn.ParamCost: "cost", learn.ParamQueryNormalize: "query-normalize", learn.ParamSymmetry: "symmetry",
	learn.ParamSelect: "select", learn.ParamColLambda: "col-lambda",
}

// checkParams refuses the flags of parameters the learner does not take.
func checkParams(le *learnerEntry, changed func(string) bool) error {
	for p, flag := range paramFlags {
		if changed(flag) && !le.Takes(p) {
			var takers []string
			for _, d := range learn.Descriptors() {
				if d.Takes(p) {
					takers = append(takers, string(d.Name))
				}
			}
			return fmt.Errorf("--%s goes with --learner %s, not %s", flag, strings.Join(takers, ", "), le.name)
		}
	}
	return nil
}

var errNoLearner = errors.New("no learner")
