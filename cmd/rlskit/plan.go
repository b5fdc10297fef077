package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/selection"
)

// fitPlan is what the flags of fit resolve to: typed and checked, alone and in
// combination, before any data is read.
type fitPlan struct {
	learner *learnerEntry
	specs   []kernel.Spec
	grid    []float64
	// cvSpec is the scheme spec ("loo", "kfold:10", "folds", …), cvKind its kind word, kfoldK its K.
	cvSpec, cvKind string
	kfoldK         int
	meas           measure.Measure
	policy         learn.Policy
	sparse         bool
	// pairwise is the plan of --learner kronrls or twostep (the rest is unset).
	pairwise *pairPlan
}

// planFit checks every flag of fit, and their combinations, before any work.
func planFit(f *fitFlags, changed func(string) bool) (*fitPlan, error) {
	if isPairwise(f.learner) {
		pp, err := planPairwise(f, changed)
		if err != nil {
			return nil, err
		}
		return &fitPlan{pairwise: pp}, nil
	}
	if err := noPairwiseFlags(f.learner, changed); err != nil {
		return nil, err
	}
	if f.data == "" {
		return nil, errors.New("--data is required")
	}
	le, err := learnerByName(f.learner)
	if err != nil {
		return nil, err
	}
	if !changed("bias") {
		f.bias = le.Bias
	}
	if err := checkParams(le, changed); err != nil {
		return nil, err
	}
	if le.Takes(learn.ParamCost) {
		if _, err := rank.ParseCost(f.cost); err != nil {
			return nil, fmt.Errorf("--cost: %w", err)
		}
	}
	if graph := le.Needs.Has(learn.NeedsGraph); (f.preferences != "") != graph {
		if graph {
			return nil, fmt.Errorf("--learner %s learns from a preference graph: give --preferences FILE", le.name)
		}
		return nil, fmt.Errorf("--preferences is the graph of a learner that learns from one, not --learner %s", le.name)
	}
	specs, err := kernelGrid(f, changed)
	if err != nil {
		return nil, err
	}
	grid, err := lambdaGrid(f, changed)
	if err != nil {
		return nil, err
	}
	cvName := f.cv
	if f.folds != "" {
		if cvName != "" && cvName != "folds" {
			return nil, fmt.Errorf("--folds %s and --cv %s: give one of them", f.folds, cvName)
		}
		cvName = "folds"
	}
	if cvName == "" {
		cvName = "loo"
	}
	if cvName == "folds" && f.folds == "" {
		return nil, errors.New("--cv folds reads its folds from --folds FILE: give --folds")
	}
	cvKind, kfoldK, err := selection.ParseSpec(cvName)
	if err != nil {
		return nil, fmt.Errorf("--cv: %w", err)
	}
	if err := planGreedy(f, le.Takes(learn.ParamSelect), cvName, changed); err != nil {
		return nil, err
	}
	if cvName == "none" && len(grid) > 1 {
		return nil, fmt.Errorf("--cv none with %d λ values: a grid needs cross-validation to choose from it", len(grid))
	}
	measName := f.measure
	if measName == "" {
		measName = le.Measure(cvKind)
		if f.oneVsAll {
			measName = "multiclass-accuracy"
		}
	}
	meas, err := measure.ByName(measName)
	if err != nil {
		return nil, fmt.Errorf("--measure: %w", err)
	}
	if cvName == "lpo" && !meas.Pairwise {
		return nil, fmt.Errorf("--cv lpo needs a pairwise measure (auc, cindex), not --measure %s", meas.Name)
	}
	if f.cvPredictionsOut != "" && cvName == "none" {
		return nil, errors.New("--cv-predictions needs cross-validation (--cv is none)")
	}
	if f.basis < 0 {
		return nil, fmt.Errorf("--basis %d: must be positive", f.basis)
	}
	sparse := f.basis > 0 || f.basisRows != "" || f.basisSelect == "per-group"
	switch f.basisSelect {
	case "random", "greedy":
	case "per-group":
		if f.basis > 0 || f.basisRows != "" {
			return nil, errors.New("--basis-select per-group picks one row per group: give no --basis or --basis-rows")
		}
	default:
		return nil, fmt.Errorf("--basis-select %q: want random, greedy or per-group", f.basisSelect)
	}
	if changed("basis-select") && f.basisSelect != "per-group" && f.basis == 0 {
		return nil, errors.New("--basis-select needs --basis N")
	}
	switch f.basisHoldOut {
	case "":
		if sparse && cvName != "loo" && le.Can(learn.CanHoldOutBasis) {
			f.basisHoldOut = "remove"
		} else if sparse {
			f.basisHoldOut = "keep"
		}
	case "remove", "keep":
		if !sparse {
			return nil, errors.New("--basis-holdout applies to sparse models (--basis, --basis-rows, --basis-select per-group)")
		}
	case "skip":
		if !sparse || cvName != "loo" {
			return nil, errors.New("--basis-holdout skip is a leave-one-out design for sparse models")
		}
	default:
		return nil, fmt.Errorf("--basis-holdout %q: want remove, keep or skip", f.basisHoldOut)
	}
	if f.basisHoldOut != "" && !le.Can(learn.CanHoldOutBasis) && f.basisHoldOut != "keep" {
		return nil, fmt.Errorf("--basis-holdout %s: --learner %s keeps its basis in hold-outs (use keep)", f.basisHoldOut, le.name)
	}
	if f.basisDesign != 0 {
		if f.basisDesign < 1 || f.basisDesign > 3 {
			return nil, fmt.Errorf("--basis-design %d: want 1, 2 or 3", f.basisDesign)
		}
		if kfoldK == 0 || !le.Can(learn.CanHoldOutBasis) || le.Loss != learn.Squared || f.basis == 0 || f.basisSelect != "random" || f.kernel == "precomputed" {
			return nil, errors.New("--basis-design goes with a regression learner whose hold-outs remove basis vectors (rls), --cv kfold:K, a random --basis N and a kernel on features")
		}
	}
	if f.reportOut != "" && (cvName == "none" || f.solver != "direct") {
		return nil, errors.New("--report shows a cross-validation: give a --cv other than none (direct solver)")
	}
	if f.permutations < 0 {
		return nil, fmt.Errorf("--permutations %d: must be ≥ 0", f.permutations)
	}
	if f.permutations > 0 && (cvName == "none" || f.basisDesign == 3 || f.solver != "direct") {
		return nil, errors.New("--permutations needs cross-validation with the direct solver (not --basis-design 3)")
	}
	switch f.solver {
	case "direct":
		if changed("max-iter") || changed("tol") {
			return nil, errors.New("--max-iter and --tol apply to --solver cg")
		}
	case "cg":
		switch {
		case f.kernel != "linear":
			return nil, fmt.Errorf("--solver cg trains the linear kernel, not %s", f.kernel)
		case !le.Can(learn.CanCG):
			return nil, fmt.Errorf("--solver cg does not train --learner %s (its loss has no conjugate-gradient form)", le.name)
		case f.basis > 0 || f.basisRows != "":
			return nil, errors.New("--solver cg works on the features; --basis does not apply")
		case cvName != "none" || len(grid) != 1:
			return nil, errors.New("--solver cg fits one model: give --lambda L and --cv none")
		case f.maxIter < 1 || !(f.tol > 0):
			return nil, fmt.Errorf("--max-iter %d / --tol %g: need at least 1 iteration and a tolerance > 0", f.maxIter, f.tol)
		}
	default:
		return nil, fmt.Errorf("--solver %q: want direct or cg", f.solver)
	}
	if f.basis > 0 && f.basisRows != "" {
		return nil, errors.New("--basis and --basis-rows: give one of them")
	}

	if f.queryNormalize && f.solver == "cg" {
		return nil, errors.New("--query-normalize applies to --learner queryrank with the direct solver")
	}
	switch f.foldScore {
	case "pooled":
	case "mean":
		if cvKind != "kfold" && cvKind != "lgo" && cvKind != "lqo" && cvKind != "folds" {
			return nil, fmt.Errorf("--fold-score mean averages over folds: it needs --cv kfold:K, lgo, lqo or --folds, not %s", cvName)
		}
		if f.basisDesign == 3 || f.permutations > 0 {
			return nil, errors.New("--fold-score mean goes with the exact shortcuts: not with --basis-design 3 or --permutations")
		}
	default:
		return nil, fmt.Errorf("--fold-score %q: want pooled or mean", f.foldScore)
	}
	if f.stream {
		if err := planStream(f, changed, le, cvName); err != nil {
			return nil, err
		}
	}
	policy, err := learn.ParsePolicy(f.basisHoldOut)
	if err != nil {
		return nil, fmt.Errorf("--basis-holdout: %w", err)
	}
	if f.oneVsAll && (le.Loss != learn.Squared || !le.Needs.Has(learn.NeedsLabels) || le.Takes(learn.ParamSelect)) {
		return nil, fmt.Errorf("--one-vs-all trains one regression output per class (rls), not --learner %s", le.name)
	}
	if err := selection.Check(le.Descriptor, selection.Plan{Scheme: cvName, Policy: policy, Measure: meas,
		Kernel: specs[0].Name, Permutations: f.permutations, Stream: f.stream, CG: f.solver == "cg"}); err != nil && !le.Takes(learn.ParamSelect) {
		return nil, fmt.Errorf("--learner %s: %w", le.name, err)
	}
	if f.standardize && specs[0].Name == "precomputed" {
		return nil, errors.New("--standardize with a precomputed kernel: the data are kernel values")
	}
	for flag, path := range map[string]string{"--model": f.modelOut, "--cv-predictions": f.cvPredictionsOut, "--report": f.reportOut,
		"--lambda-grid": f.lambdaGrid, "--folds": f.folds} {
		if changed(strings.TrimPrefix(flag, "--")) && path == "" {
			return nil, fmt.Errorf("%s \"\": give a value", flag)
		}
	}
	return &fitPlan{learner: le, specs: specs, grid: grid, cvSpec: cvName, cvKind: cvKind, kfoldK: kfoldK,
		meas: meas, policy: policy, sparse: sparse}, nil
}

// kernelGrid expands --kernel and its parameters (and their grids) into specs.
func kernelGrid(f *fitFlags, changed func(string) bool) ([]kernel.Spec, error) {
	base := kernel.Defaults(f.kernel)
	switch f.kernel {
	case "linear":
		base.Bias = f.bias
	case "gaussian":
		base.Gamma = f.gamma
	case "polynomial":
		base.Gamma, base.Coef0, base.Degree = f.gamma, f.coef0, f.degree
	}
	uses := map[string]map[string]bool{
		"linear":      {"bias": true},
		"gaussian":    {"gamma": true},
		"polynomial":  {"gamma": true, "coef0": true, "degree": true},
		"precomputed": {},
	}[f.kernel]
	if uses == nil {
		_, err := kernel.New(base)
		return nil, fmt.Errorf("--kernel: %w", err)
	}
	for _, p := range []string{"gamma", "bias", "coef0", "degree"} {
		if (changed(p) || changed(p+"-grid")) && !uses[p] {
			return nil, fmt.Errorf("--%s does not apply to the %s kernel", p, f.kernel)
		}
	}
	gammas, err := floatGrid("gamma-grid", f.gammaGrid, base.Gamma, true)
	if err != nil {
		return nil, err
	}
	coef0s, err := floatGrid("coef0-grid", f.coef0Grid, base.Coef0, false)
	if err != nil {
		return nil, err
	}
	degrees := []int{base.Degree}
	if f.degreeGrid != "" {
		degrees = nil
		for _, s := range strings.Split(f.degreeGrid, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || v < 1 {
				return nil, fmt.Errorf("--degree-grid %q: %q is not an integer ≥ 1", f.degreeGrid, s)
			}
			degrees = append(degrees, v)
		}
	}
	var specs []kernel.Spec
	for _, g := range gammas {
		for _, dg := range degrees {
			for _, c := range coef0s {
				s := base
				if uses["gamma"] {
					s.Gamma = g
				}
				if uses["degree"] {
					s.Degree = dg
				}
				if uses["coef0"] {
					s.Coef0 = c
				}
				if _, err := kernel.New(s); err != nil {
					return nil, fmt.Errorf("--kernel %s: %w", f.kernel, err)
				}
				specs = append(specs, s)
			}
		}
	}
	return specs, nil
}

func floatGrid(flag, spec string, def float64, positive bool) ([]float64, error) {
	if spec == "" {
		return []float64{def}, nil
	}
	g, err := selection.ParseGrid(spec, positive)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return g, nil
}

func lambdaGrid(f *fitFlags, changed func(string) bool) ([]float64, error) {
	switch {
	case changed("lambda") && f.lambdaGrid != "":
		return nil, errors.New("--lambda and --lambda-grid: give one of them")
	case changed("lambda"):
		if err := learn.CheckLambda(f.lambda); err != nil {
			return nil, fmt.Errorf("--lambda: %w", err)
		}
		return []float64{f.lambda}, nil
	case f.lambdaGrid != "":
		g, err := selection.ParseGrid(f.lambdaGrid, true)
		if err != nil {
			return nil, fmt.Errorf("--lambda-grid: %w", err)
		}
		return g, nil
	}
	return selection.DefaultGrid(), nil
}
