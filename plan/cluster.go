package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/mmc"
)

// clusterFlags are the flags of a learner that clusters (one that takes
// learn.ParamClusters).
var clusterFlags = []string{"clusters", "restarts", "init", "fixed"}

// notForClusters are the flags of a supervised fit that a clustering has
// no use for: it has no labels, no cross-validation and one (kernel, λ).
var notForClusters = []string{"label", "labels", "qid", "cv", "folds", "measure", "cv-predictions", "report", "curves",
	"permutations", "one-vs-all", "positive", "outer-folds", "interval", "roc", "choose", "lambda-per-output",
	"lambda-grid", "gamma-grid", "degree-grid", "coef0-grid", "basis-holdout", "basis-design", "stream", "fold-score", "preferences"}

// planCluster checks the flags of a fit of a learner that clusters or labels
// unlabelled rows (learn.ParamClusters: mmc, and with learn.ParamSteps
// interactive, which needs --steps and takes no --restarts) and returns its plan — one kernel, one λ (--lambda,
// default 1 as RLScore's) — or nil for the other learners, whose
// --clusters, --restarts and --init it refuses. Every error names the flag
// and its value.
func planCluster(f *Flags, le *learn.Descriptor, changed func(string) bool) (*Plan, error) {
	if !le.Takes(learn.ParamClusters) {
		for _, fl := range append(clusterFlags, "steps") {
			if changed(fl) {
				p := learn.ParamClusters
				if fl == "steps" {
					p = learn.ParamSteps
				}
				return nil, fmt.Errorf("--%s goes with --learner %s, not %s", fl,
					strings.Join(learnerNames(func(d *learn.Descriptor) bool { return d.Takes(p) }), ", "), le.Name)
			}
		}
		return nil, nil
	}
	for _, fl := range notForClusters {
		if changed(fl) {
			return nil, fmt.Errorf("--%s does not apply to --learner %s: it labels unlabelled rows at one kernel and λ (no labels, no cross-validation)", fl, le.Name)
		}
	}
	steps := le.Takes(learn.ParamSteps)
	switch {
	case steps && f.Steps == "":
		return nil, fmt.Errorf("--learner %s runs the steps of --steps FILE: give it", le.Name)
	case !steps && changed("steps"):
		return nil, fmt.Errorf("--steps goes with --learner %s, not %s",
			strings.Join(learnerNames(func(d *learn.Descriptor) bool { return d.Takes(learn.ParamSteps) }), ", "), le.Name)
	case steps && changed("restarts"):
		return nil, fmt.Errorf("--restarts does not apply to --learner %s: its steps run from one labelling (--init)", le.Name)
	case steps && changed("fixed"):
		return nil, fmt.Errorf("--fixed does not apply to --learner %s: its working sets (ws in --steps) say which rows may change", le.Name)
	case changed("fixed") && f.Init == "":
		return nil, fmt.Errorf("--fixed %s: the fixed rows keep their clusters of --init FILE: give it", f.Fixed)
	case changed("fixed") && f.Fixed == "":
		return nil, errors.New("--fixed \"\": give a file")
	}
	switch {
	case f.Stream: // rlskit-beam sets it without the flag
		return nil, fmt.Errorf("--learner %s holds its rows and their kernel matrix in memory: it does not stream", le.Name)
	case f.Clusters < 2:
		return nil, fmt.Errorf("--clusters %d: %w (want at least 2)", f.Clusters, mmc.ErrClusters)
	case f.Restarts < 0:
		return nil, fmt.Errorf("--restarts %d: %w (want ≥ 0)", f.Restarts, mmc.ErrRestarts)
	case changed("init") && f.Init == "":
		return nil, errors.New("--init \"\": give a file")
	case f.Solver != "direct":
		return nil, fmt.Errorf("--solver %s: --learner %s searches on a factor of the kernel matrix (the direct solver)", f.Solver, le.Name)
	case f.Basis < 0:
		return nil, fmt.Errorf("--basis %d: must be positive", f.Basis)
	case f.Basis > 0 && f.BasisRows != "":
		return nil, errors.New("--basis and --basis-rows: give one of them")
	case f.BasisSelect != "random":
		return nil, fmt.Errorf("--basis-select %s: --learner %s takes a random --basis N or --basis-rows", f.BasisSelect, le.Name)
	}
	specs, err := kernelGrid(f, changed)
	if err != nil {
		return nil, err
	}
	if len(specs) != 1 {
		return nil, fmt.Errorf("--learner %s clusters at one kernel setting: give --gamma (--degree, --coef0), not a grid", le.Name)
	}
	if f.Standardize && specs[0].Name == "precomputed" {
		return nil, errors.New("--standardize with a precomputed kernel: the data are kernel values")
	}
	lambda := 1.0
	if changed("lambda") {
		if err := learn.CheckLambda(f.Lambda); err != nil {
			return nil, fmt.Errorf("--lambda %v: %w", f.Lambda, err)
		}
		lambda = f.Lambda
	}
	if changed("model") && f.Model == "" {
		return nil, errors.New("--model \"\": give a value")
	}
	return &Plan{Learner: le, Kernels: specs, Lambdas: []float64{lambda}, CVSpec: "none", CVKind: "none",
		Sparse: f.Basis > 0 || f.BasisRows != "", flags: f}, nil
}
