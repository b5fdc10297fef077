package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/pairkernel"
	"github.com/rlskit/rlskit/pairwise"
)

// pairwiseOnly are the flags of the learners of pairs alone.
var pairwiseOnly = []string{"rows", "cols", "pairs", "col-kernel", "col-gamma", "col-bias", "col-coef0", "col-degree",
	"col-gamma-grid", "col-lambda", "col-lambda-grid", "col-folds", "validation-pairs", "patience", "symmetry",
	"pair-kernel", "pair-kernel-weights", "newton-steps"}

// noPairwiseFlags refuses the flags of the learners of pairs with another learner.
func noPairwiseFlags(learner string, changed func(string) bool) error {
	for _, fl := range pairwiseOnly {
		if changed(fl) {
			names := learnerNames(func(d *learn.Descriptor) bool { return d.Needs.Has(learn.NeedsPairs) })
			list := "of pairs"
			if len(names) > 0 {
				list = names[len(names)-1]
			}
			if len(names) > 1 {
				list = strings.Join(names[:len(names)-1], ", ") + " and " + list
			}
			return fmt.Errorf("--%s applies to --learner %s, not %s", fl, list, learner)
		}
	}
	return nil
}

// kronCG reports whether the conjugate-gradient solver of pairs
// (pairwise.FitKronCG: the Kronecker product kernel at one λ, on complete or
// incomplete data) trains the learner's model: a learner of pairs that
// declares learn.CanCG.
func kronCG(d *learn.Descriptor) bool {
	return d.Needs.Has(learn.NeedsPairs) && d.Can(learn.CanCG)
}

// kronCGNames names the learners kronCG holds for: "kronrls".
func kronCGNames() string { return strings.Join(learnerNames(kronCG), " or ") }

// PairPlan is what the flags of a fit resolve to for a learner of pairs
// (learn.NeedsPairs).
type PairPlan struct {
	// Learner is the registered descriptor of --learner.
	Learner *learn.Descriptor
	// RowKernels and ColKernels are the kernel settings of the row and
	// column objects (ColKernels is one zero Spec for a homogeneous network,
	// whose columns are its rows).
	RowKernels, ColKernels []kernel.Spec
	// Lambdas is the λ grid; ColLambdas the column λ grid of a learner with
	// a second λ (nil otherwise).
	Lambdas, ColLambdas []float64
	// Setting is the object design cross-validated ("" for --cv none, or for
	// incomplete data: see CheckIncomplete).
	Setting pairwise.Setting
	// CVSpec is --cv ("pairs" by default); CVGiven says --cv was given.
	CVSpec  string
	CVGiven bool
	// RowK and ColK are the K of rows:K, cols:K, both:K and vertices:K (0:
	// one object per fold, or the folds of --folds and --col-folds).
	RowK, ColK int
	// Measure is the measure (mse by default).
	Measure measure.Measure
	// Homogeneous says --cols same: the rows are also the columns.
	Homogeneous bool
	// Symmetry is a homogeneous network's symmetry.
	Symmetry pairwise.Symmetry
	// NewtonSteps is --newton-steps, the support vector machine's cap on
	// its Newton steps (0 for the other learners).
	NewtonSteps int
	// ForceCG says --solver cg: conjugate gradients even on complete data.
	ForceCG bool
	// Tol is the conjugate gradients' relative residual (--tol, default 1e-10).
	Tol float64
	// Patience is --patience.
	Patience int
	// PairKernel is --pair-kernel ("" without it): the pairwise kernel that
	// conjugate gradients train with (package pairkernel), PairWeights the
	// sum's weights, PairRowKernels and PairColKernels its object kernels as
	// pairkernel.Train takes them (see planPairKernel).
	PairKernel  pairkernel.Kind
	PairWeights []float64
	// PairWeightGrid is a grid of sum weights (two or more vectors) to
	// choose from by cross-validation over Setting's object folds; nil
	// with one vector (PairWeights).
	PairWeightGrid                 [][]float64
	PairRowKernels, PairColKernels []kernel.Spec

	flags *Flags
}

// planPairwise checks the flags of a fit for a learner of pairs.
func planPairwise(f *Flags, le *learn.Descriptor, changed func(string) bool) (*PairPlan, error) {
	p := &PairPlan{Learner: le, Patience: f.Patience, flags: f}
	if f.Data != "" {
		return nil, fmt.Errorf("--learner %s reads --rows, --cols and --pairs, not --data", f.Learner)
	}
	for _, fl := range []string{"label", "qid", "preferences", "cost", "basis", "basis-rows", "basis-select", "basis-holdout",
		"basis-design", "greedy-lambda", "permutations", "one-vs-all", "report", "query-normalize", "fold-score", "features", "ignore"} {
		if changed(fl) {
			return nil, fmt.Errorf("--%s does not apply to --learner %s", fl, f.Learner)
		}
	}
	for flag, v := range map[string]string{"--rows": f.Rows, "--pairs": f.Pairs} {
		if v == "" {
			return nil, fmt.Errorf("%s FILE is required with --learner %s", flag, f.Learner)
		}
	}
	if f.Cols == "" {
		return nil, fmt.Errorf("--cols FILE is required with --learner %s (--cols same: the rows are also the columns, a homogeneous network)", f.Learner)
	}
	p.Homogeneous = f.Cols == "same"
	if p.Homogeneous && le.Loss == learn.RowPairs {
		return nil, fmt.Errorf("--cols same: --learner %s ranks the column objects inside each row: give them with --cols FILE (a homogeneous network is not taken)", le.Name)
	}
	if changed("symmetry") && !p.Homogeneous {
		return nil, errors.New("--symmetry applies to homogeneous networks (--cols same)")
	}
	if p.Homogeneous {
		sym := f.Symmetry
		if sym == "" || sym == "none" {
			sym = "symmetric"
			if changed("symmetry") {
				return nil, errors.New("--symmetry none: a homogeneous network (--cols same) is symmetric or antisymmetric")
			}
		}
		var err error
		if p.Symmetry, err = pairwise.ParseSymmetry(sym); err != nil {
			return nil, fmt.Errorf("--symmetry: %w", err)
		}
		for _, fl := range []string{"col-kernel", "col-gamma", "col-bias", "col-coef0", "col-degree", "col-gamma-grid"} {
			if changed(fl) {
				return nil, fmt.Errorf("--%s: a homogeneous network (--cols same) has one kernel: use --kernel and its flags", fl)
			}
		}
	}
	var err error
	if p.RowKernels, err = kernelGrid(f, changed); err != nil {
		return nil, err
	}
	if p.Homogeneous {
		p.ColKernels = []kernel.Spec{{}}
	} else if p.ColKernels, err = colKernelGrid(f, changed); err != nil {
		return nil, err
	}
	if p.Lambdas, err = lambdaGrid(f, changed); err != nil {
		return nil, err
	}
	if !le.Takes(learn.ParamColLambda) {
		for _, fl := range []string{"col-lambda", "col-lambda-grid"} {
			if changed(fl) {
				return nil, fmt.Errorf("--%s applies to --learner %s; %s has one λ (--lambda, --lambda-grid)", fl,
					strings.Join(learnerNames(func(d *learn.Descriptor) bool { return d.Takes(learn.ParamColLambda) }), ", "), le.Name)
			}
		}
		p.ColLambdas = nil
	} else if p.ColLambdas, err = colLambdaGrid(f, changed); err != nil {
		return nil, err
	}
	if hinge(le) { // the support vector machine: one model, no cross-validation
		if err := planHinge(f, p, changed); err != nil {
			return nil, err
		}
	} else if changed("newton-steps") {
		return nil, fmt.Errorf("--newton-steps %d: only --learner kronsvm trains by Newton steps, not %s", f.NewtonSteps, le.Name)
	} else if err := p.planCV(f); err != nil {
		return nil, err
	}
	measName := f.Measure
	if measName == "" {
		measName = le.Measure(string(p.Setting)) // mse; cindex-row for conditional ranking
	}
	if p.Measure, err = measure.ByName(measName); err != nil {
		return nil, fmt.Errorf("--measure: %w", err)
	}
	if p.Measure.Multiclass {
		return nil, fmt.Errorf("--measure %s needs one output per class; pairs have one label", p.Measure.Name)
	}
	switch f.Solver {
	case "direct":
	case "cg":
		if !kronCG(le) {
			return nil, fmt.Errorf("--solver cg trains --learner %s, not %s", kronCGNames(), f.Learner)
		}
		p.ForceCG = true
	default:
		return nil, fmt.Errorf("--solver %q: want direct or cg", f.Solver)
	}
	if f.ValidationPairs != "" && !kronCG(le) {
		return nil, fmt.Errorf("--validation-pairs stops conjugate-gradient training early: --learner %s on incomplete data", kronCGNames())
	}
	if changed("patience") && f.ValidationPairs == "" {
		return nil, errors.New("--patience goes with --validation-pairs")
	}
	if f.Patience < 1 {
		return nil, fmt.Errorf("--patience %d: must be ≥ 1", f.Patience)
	}
	p.Tol = 1e-10
	if changed("tol") {
		if !(f.Tol > 0) {
			return nil, fmt.Errorf("--tol %g: must be > 0", f.Tol)
		}
		p.Tol = f.Tol
	}
	if f.MaxIter < 1 {
		return nil, fmt.Errorf("--max-iter %d: need at least 1 iteration", f.MaxIter)
	}
	if f.Standardize && p.RowKernels[0].Name == "precomputed" {
		return nil, errors.New("--standardize with a precomputed kernel: the data are kernel values")
	}
	if err := planPairKernel(f, p, changed); err != nil {
		return nil, err
	}
	if f.CVPredictions != "" && p.Setting == "" {
		return nil, errors.New("--cv-predictions needs cross-validation (--cv is none)")
	}
	return p, nil
}

// planCV parses --cv (pairs, rows, cols, both, vertices, each but pairs with
// :K, or none) with --folds and --col-folds.
func (p *PairPlan) planCV(f *Flags) error {
	spec := f.CV
	p.CVGiven = spec != ""
	rowsOnly := p.Learner.Loss == learn.RowPairs // conditional ranking: a row's centering is over all its columns
	switch {
	case spec == "" && rowsOnly:
		spec = "rows"
	case spec == "":
		spec = "pairs"
		if f.Folds != "" || f.ColFolds != "" {
			return errors.New("--folds and --col-folds go with --cv rows, cols, both or vertices")
		}
	}
	if name, _, _ := strings.Cut(spec, ":"); rowsOnly && name != "rows" && name != "none" {
		return fmt.Errorf("--cv %s: --learner %s cross-validates new row objects only (--cv rows[:K], or none): leaving pairs or columns out of a row changes the centering of that row's ranking loss, which has no exact shortcut", spec, p.Learner.Name)
	}
	p.CVSpec = spec
	name, k, hasK := strings.Cut(spec, ":")
	kv := 0
	if hasK {
		v, err := strconv.Atoi(k)
		if err != nil || v < 2 {
			return fmt.Errorf("--cv %s: K must be an integer ≥ 2", spec)
		}
		kv = v
	}
	switch name {
	case "none":
		if hasK {
			return fmt.Errorf("--cv %s: none takes no K", spec)
		}
		sum := f.PairKernel == string(pairkernel.Sum) // its kernel lists are terms, not a grid
		if len(p.Lambdas) > 1 || len(p.ColLambdas) > 1 || !sum && (len(p.RowKernels) > 1 || len(p.ColKernels) > 1) {
			return fmt.Errorf("--cv none with a grid: a grid needs cross-validation to choose from it")
		}
		if f.Folds != "" || f.ColFolds != "" {
			return errors.New("--folds and --col-folds need cross-validation (--cv is none)")
		}
		return nil
	case "pairs":
		if hasK {
			return fmt.Errorf("--cv %s: setting pairs leaves each pair out alone (no K)", spec)
		}
		if f.Folds != "" || f.ColFolds != "" {
			return errors.New("--folds and --col-folds go with --cv rows, cols, both or vertices, not pairs")
		}
	case "rows", "cols", "both", "vertices":
	default:
		return fmt.Errorf("--cv %q: want pairs, rows, cols, both (with :K for folds), vertices for --cols same, or none", spec)
	}
	p.Setting = pairwise.Setting(name)
	if p.Homogeneous && (name == "rows" || name == "cols" || name == "both") {
		return fmt.Errorf("--cv %s: a homogeneous network (--cols same) is cross-validated by pairs or vertices", spec)
	}
	if !p.Homogeneous && name == "vertices" {
		return errors.New("--cv vertices is leave-vertex-out for homogeneous networks (--cols same)")
	}
	if f.Folds != "" && (hasK || name == "cols") {
		if name == "cols" {
			return errors.New("--folds holds row folds; column folds go in --col-folds")
		}
		return fmt.Errorf("--folds %s and --cv %s: give the folds one way", f.Folds, spec)
	}
	if f.ColFolds != "" && (hasK || (name != "cols" && name != "both")) {
		if hasK {
			return fmt.Errorf("--col-folds %s and --cv %s: give the folds one way", f.ColFolds, spec)
		}
		return fmt.Errorf("--col-folds goes with --cv cols or both, not %s", name)
	}
	switch name {
	case "rows", "vertices":
		p.RowK = kv
	case "cols":
		p.ColK = kv
	case "both":
		p.RowK, p.ColK = kv, kv
	}
	return nil
}

// colKernelGrid is kernelGrid for the column flags (--col-kernel, default
// the row kernel; --col-gamma, …).
func colKernelGrid(f *Flags, changed func(string) bool) ([]kernel.Spec, error) {
	name := f.ColKernel
	if name == "" {
		name = f.Kernel
	}
	cf := &Flags{Kernel: name, Gamma: f.ColGamma, Bias: f.ColBias, Coef0: f.ColCoef0, Degree: f.ColDegree, GammaGrid: f.ColGammaGrid}
	specs, err := kernelGrid(cf, func(p string) bool { return changed("col-" + p) })
	if err != nil {
		return nil, errors.New(strings.ReplaceAll(err.Error(), "--", "--col-"))
	}
	return specs, nil
}

// colLambdaGrid is lambdaGrid for --col-lambda / --col-lambda-grid.
func colLambdaGrid(f *Flags, changed func(string) bool) ([]float64, error) {
	cf := &Flags{Lambda: f.ColLambda, LambdaGrid: f.ColLambdaGrid}
	g, err := lambdaGrid(cf, func(p string) bool { return changed("col-" + p) })
	if err != nil {
		return nil, errors.New(strings.ReplaceAll(err.Error(), "--", "--col-"))
	}
	return g, nil
}

// CheckIncomplete checks what incomplete data — n labelled pairs (nobs
// ordered pairs with their mirrors, for a homogeneous network) of m row and q
// column objects — or --solver cg allows: the conjugate-gradient solver of
// pairs at one λ and one kernel setting, without cross-validation. It clears
// Setting. Its errors are failures of the data, not usage errors.
func (p *PairPlan) CheckIncomplete(n, nobs, m, q int) error {
	f := p.flags
	what := fmt.Sprintf("%s labels %d of the %d×%d pairs", f.Pairs, n, m, q)
	if p.Homogeneous {
		what = fmt.Sprintf("%s labels %d pairs of a %d-vertex network (%d of the %d ordered pairs with their mirrors)", f.Pairs, n, m, nobs, m*q)
	}
	if p.ForceCG {
		what = "--solver cg"
	}
	switch {
	case !kronCG(p.Learner):
		return fmt.Errorf("--learner %s needs complete data (a label for every row × column pair); %s: use --learner %s", p.Learner.Name, what, kronCGNames())
	case p.CVGiven && p.Setting != "":
		return fmt.Errorf("--cv %s needs complete data; %s: conjugate-gradient training takes --cv none (optionally --validation-pairs FILE for early stopping)", p.CVSpec, what)
	case len(p.Lambdas) != 1 || len(p.RowKernels) != 1 || len(p.ColKernels) != 1:
		return fmt.Errorf("%s: conjugate-gradient training fits one model: give one --lambda and one kernel setting", what)
	}
	p.Setting = ""
	if f.CVPredictions != "" {
		return errors.New("--cv-predictions needs cross-validation, which incomplete data does not have")
	}
	return nil
}
