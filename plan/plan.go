package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/selection"
)

// Plan is what the flags of a fit resolve to: typed and checked, alone and in
// combination, before any data is read.
type Plan struct {
	// Learner is the registered descriptor of --learner.
	Learner *learn.Descriptor
	// Kernels are the kernel settings searched (--kernel and its grids).
	Kernels []kernel.Spec
	// GammaScale is --gamma scale: the Gamma of Kernels are multiples of
	// scikit-learn's gamma="scale", resolved on the data by selection.Search
	// (Settings.GammaScale).
	GammaScale bool
	// Lambdas is the λ grid (one value for --lambda).
	Lambdas []float64
	// CVSpec is the scheme spec ("loo", "kfold:10", "folds", …), CVKind its
	// kind word (selection.ParseSpec) and KFoldK its K (0 unless kfold).
	CVSpec, CVKind string
	KFoldK         int
	// Measure is the measure the search minimizes or maximizes.
	Measure measure.Measure
	// Policy is the basis policy of sparse hold-outs (--basis-holdout).
	Policy learn.Policy
	// Sparse says the model has a basis (--basis, --basis-rows, --basis-select per-group).
	Sparse bool
	// Pairwise is the plan of a learner of pairs (learn.NeedsPairs); the
	// fields above but Learner are then unset.
	Pairwise *PairPlan

	flags *Flags
}

// New checks every flag of a fit, and their combinations, before any work:
// changed reports whether a flag was given on the command line. It fills in
// the defaults of f that depend on the learner (Bias — 0 with --intercept —,
// BasisHoldOut). Every error it returns is a usage error.
func New(f *Flags, changed func(string) bool) (*Plan, error) {
	le, lookupErr := LookupLearner(f.Learner)
	if lookupErr == nil {
		if err := checkIntercept(le, changed); err != nil {
			return nil, err
		}
		if err := planROC(f, le); err != nil {
			return nil, err
		}
		if changed("weights") && !le.Takes(learn.ParamWeights) {
			return nil, fmt.Errorf("--weights goes with --learner %s, not %s",
				strings.Join(learnerNames(func(d *learn.Descriptor) bool { return d.Takes(learn.ParamWeights) }), ", "), le.Name)
		}
	}
	if f.GammaText == "scale" && (lookupErr == nil && le.Needs.Has(learn.NeedsPairs) || f.Stream) {
		return nil, fmt.Errorf("--gamma scale is resolved on the rows of one data set in memory: not with --learner %s or --stream; give a number", f.Learner)
	}
	if lookupErr == nil && le.Needs.Has(learn.NeedsPairs) && (f.Choose != "best" && f.Choose != "" || f.LambdaPerOutput) {
		return nil, fmt.Errorf("--choose %s / --lambda-per-output: the CV curves of a learner of pairs (--learner %s) have no per-fold standard errors or per-output λ; drop them", f.Choose, le.Name)
	}
	if lookupErr == nil && le.Needs.Has(learn.NeedsPairs) {
		pp, err := planPairwise(f, le, changed)
		if err != nil {
			return nil, err
		}
		if err := planPairInterval(f, pp); err != nil {
			return nil, err
		}
		if err := planOuterPairs(f, pp, changed); err != nil {
			return nil, err
		}
		return &Plan{Learner: le, Pairwise: pp, flags: f}, nil
	}
	if err := noPairwiseFlags(f.Learner, changed); err != nil {
		return nil, err
	}
	if f.Data == "" {
		return nil, errors.New("--data is required")
	}
	if lookupErr != nil {
		return nil, lookupErr
	}
	if !changed("bias") {
		f.Bias = le.Bias
		if f.Intercept { // the bias feature is redundant next to an unpenalized intercept
			f.Bias = 0
		}
	}
	if err := checkParams(le, changed); err != nil {
		return nil, err
	}
	if p, err := planCluster(f, le, changed); p != nil || err != nil {
		return p, err
	}
	if le.Takes(learn.ParamCost) {
		if _, err := rank.ParseCost(f.Cost); err != nil {
			return nil, fmt.Errorf("--cost: %w", err)
		}
	}
	if graph := le.Needs.Has(learn.NeedsGraph); (f.Preferences != "") != graph {
		if graph {
			return nil, fmt.Errorf("--learner %s learns from a preference graph: give --preferences FILE", le.Name)
		}
		return nil, fmt.Errorf("--preferences is the graph of a learner that learns from one, not --learner %s", le.Name)
	}
	specs, err := kernelGrid(f, changed)
	if err != nil {
		return nil, err
	}
	grid, err := lambdaGrid(f, changed)
	if err != nil {
		return nil, err
	}
	cvName := f.CV
	if f.Folds != "" {
		if cvName != "" && cvName != "folds" {
			return nil, fmt.Errorf("--folds %s and --cv %s: give one of them", f.Folds, cvName)
		}
		cvName = "folds"
	}
	if cvName == "" {
		cvName = "loo"
	}
	if cvName == "folds" && f.Folds == "" {
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
	measName := f.Measure
	if measName == "" {
		measName = le.Measure(cvKind)
		if f.OneVsAll {
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
	if f.CVPredictions != "" && cvName == "none" {
		return nil, errors.New("--cv-predictions needs cross-validation (--cv is none)")
	}
	if f.Basis < 0 {
		return nil, fmt.Errorf("--basis %d: must be positive", f.Basis)
	}
	sparse := f.Basis > 0 || f.BasisRows != "" || f.BasisSelect == "per-group"
	switch f.BasisSelect {
	case "random", BasisGreedy:
	case "per-group":
		if f.Basis > 0 || f.BasisRows != "" {
			return nil, errors.New("--basis-select per-group picks one row per group: give no --basis or --basis-rows")
		}
	default:
		return nil, fmt.Errorf("--basis-select %q: want random, greedy or per-group", f.BasisSelect)
	}
	if changed("basis-select") && f.BasisSelect != "per-group" && f.Basis == 0 {
		return nil, errors.New("--basis-select needs --basis N")
	}
	switch f.BasisHoldOut {
	case "":
		if sparse && cvName != "loo" && le.Can(learn.CanHoldOutBasis) {
			f.BasisHoldOut = "remove"
		} else if sparse {
			f.BasisHoldOut = "keep"
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
		return nil, fmt.Errorf("--basis-holdout %q: want remove, keep or skip", f.BasisHoldOut)
	}
	if f.BasisHoldOut != "" && !le.Can(learn.CanHoldOutBasis) && f.BasisHoldOut != "keep" {
		return nil, fmt.Errorf("--basis-holdout %s: --learner %s keeps its basis in hold-outs (use keep)", f.BasisHoldOut, le.Name)
	}
	if err := planInterval(f, le, cvName, cvKind); err != nil {
		return nil, err
	}
	if f.BasisDesign != 0 {
		if f.BasisDesign < 1 || f.BasisDesign > 3 {
			return nil, fmt.Errorf("--basis-design %d: want 1, 2 or 3", f.BasisDesign)
		}
		if kfoldK == 0 || !le.Can(learn.CanHoldOutBasis) || le.Loss != learn.Squared || f.Basis == 0 || f.BasisSelect != "random" || f.Kernel == "precomputed" {
			return nil, errors.New("--basis-design goes with a regression learner whose hold-outs remove basis vectors (rls), --cv kfold:K, a random --basis N and a kernel on features")
		}
	}
	if f.Report != "" && (cvName == "none" || f.Solver != "direct") {
		return nil, errors.New("--report shows a cross-validation: give a --cv other than none (direct solver)")
	}
	if f.Permutations < 0 {
		return nil, fmt.Errorf("--permutations %d: must be ≥ 0", f.Permutations)
	}
	if f.Permutations > 0 && (cvName == "none" || f.BasisDesign == 3 || f.Solver != "direct") {
		return nil, errors.New("--permutations needs cross-validation with the direct solver (not --basis-design 3)")
	}
	switch f.Solver {
	case "direct":
		if changed("max-iter") || changed("tol") {
			return nil, errors.New("--max-iter and --tol apply to --solver cg")
		}
	case "cg":
		switch {
		case f.Kernel != "linear":
			return nil, fmt.Errorf("--solver cg trains the linear kernel, not %s", f.Kernel)
		case !le.Can(learn.CanCG):
			return nil, fmt.Errorf("--solver cg does not train --learner %s (its loss has no conjugate-gradient form)", le.Name)
		case f.Basis > 0 || f.BasisRows != "":
			return nil, errors.New("--solver cg works on the features; --basis does not apply")
		case cvName != "none" || len(grid) != 1:
			return nil, errors.New("--solver cg fits one model: give --lambda L and --cv none")
		case f.MaxIter < 1 || !(f.Tol > 0):
			return nil, fmt.Errorf("--max-iter %d / --tol %g: need at least 1 iteration and a tolerance > 0", f.MaxIter, f.Tol)
		}
	default:
		return nil, fmt.Errorf("--solver %q: want direct or cg", f.Solver)
	}
	if f.Basis > 0 && f.BasisRows != "" {
		return nil, errors.New("--basis and --basis-rows: give one of them")
	}

	if f.QueryNormalize && f.Solver == "cg" {
		return nil, errors.New("--query-normalize applies to --learner queryrank with the direct solver")
	}
	if err := planChoose(f, le, cvName, cvKind, meas); err != nil {
		return nil, err
	}
	switch f.FoldScore {
	case "pooled":
	case "mean":
		switch cvKind {
		case "kfold", "stratified-kfold", "repeated-kfold", "group-kfold", "lgo", "lqo", "folds":
		default:
			return nil, fmt.Errorf("--fold-score mean averages over folds: it needs --cv kfold:K (or its stratified, repeated or group form), lgo, lqo or --folds, not %s", cvName)
		}
		if f.BasisDesign == 3 || f.Permutations > 0 {
			return nil, errors.New("--fold-score mean goes with the exact shortcuts: not with --basis-design 3 or --permutations")
		}
	default:
		return nil, fmt.Errorf("--fold-score %q: want pooled or mean", f.FoldScore)
	}
	if f.Intercept {
		switch { // --stream takes it: every training set's intercept from its own sums (stream.Options.Intercept)
		case f.Solver != "direct":
			return nil, fmt.Errorf("--intercept with --solver %s: conjugate gradients fit no unpenalized intercept; use --solver direct", f.Solver)
		case f.BasisDesign == 3:
			return nil, errors.New("--intercept with --basis-design 3: the retraining per fold fits no intercept; use --basis-design 1 or 2")
		}
	}
	if f.Weights != "" {
		switch {
		case f.Stream:
			return nil, errors.New("--weights with --stream: the streamed statistics take no sample weights yet; drop one of them")
		case f.Solver != "direct":
			return nil, fmt.Errorf("--weights with --solver %s: conjugate gradients take no sample weights; use --solver direct", f.Solver)
		case sparse:
			return nil, errors.New("--weights with a sparse model (--basis, --basis-rows, --basis-select per-group): the sparse form takes no sample weights yet; drop the basis")
		}
	}
	if f.Stream {
		if err := planStream(f, changed, le, cvName); err != nil {
			return nil, err
		}
	}
	policy, err := learn.ParsePolicy(f.BasisHoldOut)
	if err != nil {
		return nil, fmt.Errorf("--basis-holdout: %w", err)
	}
	if f.OneVsAll && (le.Loss != learn.Squared || !le.Needs.Has(learn.NeedsLabels) || le.Takes(learn.ParamSelect)) {
		return nil, fmt.Errorf("--one-vs-all trains one regression output per class (rls), not --learner %s", le.Name)
	}
	if err := selection.Check(le, selection.Plan{Scheme: cvName, Policy: policy, Measure: meas,
		Kernel: specs[0].Name, Permutations: f.Permutations, Stream: f.Stream, CG: f.Solver == "cg"}); err != nil && !le.Takes(learn.ParamSelect) {
		return nil, fmt.Errorf("--learner %s: %w", le.Name, err)
	}
	if f.Standardize && specs[0].Name == "precomputed" {
		return nil, errors.New("--standardize with a precomputed kernel: the data are kernel values")
	}
	for flag, path := range map[string]string{"--model": f.Model, "--cv-predictions": f.CVPredictions, "--report": f.Report,
		"--lambda-grid": f.LambdaGrid, "--folds": f.Folds} {
		if changed(strings.TrimPrefix(flag, "--")) && path == "" {
			return nil, fmt.Errorf("%s \"\": give a value", flag)
		}
	}
	return &Plan{Learner: le, Kernels: specs, GammaScale: f.GammaScale, Lambdas: grid, CVSpec: cvName, CVKind: cvKind, KFoldK: kfoldK,
		Measure: meas, Policy: policy, Sparse: sparse, flags: f}, nil
}

// planChoose checks --choose and --lambda-per-output. --choose 1se needs
// the standard error of every curve point (selection.HasSE): a fold scheme,
// or loo with mse or mae, of the in-memory search (not --stream, greedy
// or --solver cg). --lambda-per-output needs a squared-loss learner of
// labels (rls), whose outputs are separate ridge problems sharing one
// factorization, cross-validated by loo or folds with a measure that scores
// each output alone (not multiclass-accuracy), in memory; the number of
// label columns is checked when the data are read.
func planChoose(f *Flags, le *learn.Descriptor, cvName, cvKind string, meas measure.Measure) error {
	switch f.Choose {
	case "best", "":
	case "1se":
		switch {
		case f.Stream:
			return errors.New("--choose 1se with --stream: the streamed CV curve has no per-fold standard errors; use --choose best")
		case le.Takes(learn.ParamSelect):
			return fmt.Errorf("--choose 1se with --learner %s: its selection has its own criterion; use --choose best", le.Name)
		case f.Solver == "cg":
			return errors.New("--choose 1se with --solver cg: there is no CV curve; use --solver direct")
		case !selection.HasSE(selection.Scheme{Kind: schemeKind(cvKind)}, meas):
			return fmt.Errorf("--choose 1se with --cv %s --measure %s: the rule needs the standard error of the CV curve — folds (kfold:K, stratified-kfold:K, repeated-kfold:KxR, group-kfold:K, lgo, lqo, --folds), or loo with --measure mse or mae", cvName, meas.Name)
		}
	default:
		return fmt.Errorf("--choose %q: want best or 1se", f.Choose)
	}
	if !f.LambdaPerOutput {
		return nil
	}
	switch k := schemeKind(cvKind); {
	case le.Loss != learn.Squared || !le.Needs.Has(learn.NeedsLabels) || le.Takes(learn.ParamSelect):
		return fmt.Errorf("--lambda-per-output chooses a λ for each label column of a ridge regression (rls), not --learner %s", le.Name)
	case f.Stream || f.Solver == "cg":
		return errors.New("--lambda-per-output works on the in-memory direct solution: not with --stream or --solver cg")
	case k != selection.LOO && k != selection.Folds:
		return fmt.Errorf("--lambda-per-output with --cv %s: each output's curve comes from leave-one-out or folds (loo, kfold:K and its kinds, lgo, lqo, --folds)", cvName)
	case f.OneVsAll:
		return errors.New("--lambda-per-output with --one-vs-all: the class scores are compared with each other, so they share one λ")
	case meas.Multiclass:
		return fmt.Errorf("--lambda-per-output with --measure %s: that measure scores the outputs together; use a measure of one output (mse, mae, r2, auc, …)", meas.Name)
	case f.BasisDesign == 3 || f.Permutations > 0:
		return errors.New("--lambda-per-output goes with the exact shortcuts and several labels: not with --basis-design 3 or --permutations")
	case f.Choose == "1se":
		return errors.New("--lambda-per-output with --choose 1se: each output takes its best λ; use --choose best")
	case f.Interval != "":
		return fmt.Errorf("--lambda-per-output with --interval %s: the interval is built from one λ's model and CV predictions, not yet each output's", f.Interval)
	}
	return nil
}

// schemeKind is the selection.Kind of a scheme word of ParseSpec.
func schemeKind(cvKind string) selection.Kind {
	switch cvKind {
	case "loo":
		return selection.LOO
	case "kfold", "stratified-kfold", "repeated-kfold", "group-kfold", "lgo", "lqo", "folds":
		return selection.Folds
	}
	return selection.Kind(cvKind)
}

// LookupLearner looks up --learner in the registry; the error names the flag
// and the registered learners.
func LookupLearner(name string) (*learn.Descriptor, error) {
	d, err := learn.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--learner %q: %w", name, err)
	}
	return d, nil
}

// paramFlags are the flags of the learner parameters: a flag given to a
// learner that does not take its parameter is refused.
var paramFlags = map[learn.Param]string{
	learn.ParamCost: "cost", learn.ParamQueryNormalize: "query-normalize", learn.ParamSymmetry: "symmetry",
	learn.ParamSelect: "select", learn.ParamColLambda: "col-lambda", learn.ParamIntercept: "intercept",
}

// checkIntercept refuses --intercept for a learner that does not take
// learn.ParamIntercept — every learner, those of pairs included — saying why
// for the rankers, whose pairwise loss cannot see a constant.
func checkIntercept(le *learn.Descriptor, changed func(string) bool) error {
	if !changed("intercept") || le.Takes(learn.ParamIntercept) {
		return nil
	}
	why := ""
	switch le.Loss {
	case learn.AllPairs, learn.QueryPairs, learn.GraphPairs:
		why = ": its pairwise loss cancels any constant, so there is no intercept to learn"
	}
	return fmt.Errorf("--intercept goes with --learner %s, not %s%s",
		strings.Join(learnerNames(func(d *learn.Descriptor) bool { return d.Takes(learn.ParamIntercept) }), ", "), le.Name, why)
}

// checkParams refuses the flags of parameters the learner does not take.
func checkParams(le *learn.Descriptor, changed func(string) bool) error {
	for p, flag := range paramFlags {
		if changed(flag) && !le.Takes(p) {
			return fmt.Errorf("--%s goes with --learner %s, not %s", flag, strings.Join(learnerNames(func(d *learn.Descriptor) bool { return d.Takes(p) }), ", "), le.Name)
		}
	}
	return nil
}

// learnerNames lists the registered learners for which keep holds, sorted by name.
func learnerNames(keep func(*learn.Descriptor) bool) []string {
	var out []string
	for _, d := range learn.Descriptors() {
		if keep(d) {
			out = append(out, string(d.Name))
		}
	}
	return out
}

// planGreedy checks the flags of a learner that selects features (one that
// takes learn.ParamSelect: greedy forward selection on the linear kernel by
// an exact LOO or hold-out criterion), and refuses its flags for the others.
func planGreedy(f *Flags, isGreedy bool, cvName string, changed func(string) bool) error {
	if err := planOuter(f, isGreedy, cvName, changed); err != nil {
		return err
	}
	if !isGreedy {
		if changed("select") {
			return errors.New("--select goes with --learner greedy")
		}
		return nil
	}
	switch {
	case !changed("select"):
		return errors.New("--learner greedy needs --select K, the number of features to select")
	case f.Select < 1:
		return fmt.Errorf("--select %d: %w (want at least 1)", f.Select, greedy.ErrSelect)
	case f.Kernel != "linear":
		return fmt.Errorf("--learner greedy selects features of the linear kernel, not --kernel %s", f.Kernel)
	case cvName == "lpo" || cvName == "none":
		return fmt.Errorf("--learner greedy selects by a leave-one-out or hold-out criterion: --cv loo, kfold:K, lgo or --folds, not %s", cvName)
	case strings.HasPrefix(cvName, "repeated-kfold"):
		return fmt.Errorf("--learner greedy selects by one partition of the rows: --cv %s repeats k-fold, which its criterion has no form for (use kfold:K or stratified-kfold:K)", cvName)
	case f.Basis > 0 || f.BasisRows != "" || changed("basis-select") || changed("basis-holdout") || f.BasisDesign != 0:
		return errors.New("--learner greedy works on the features: the --basis flags do not apply")
	case f.Solver != "direct":
		return errors.New("--learner greedy has its own solver: --solver does not apply")
	case f.Permutations > 0:
		return errors.New("--permutations does not apply to --learner greedy (use --outer-folds for an honest estimate)")
	case f.OneVsAll:
		return errors.New("--one-vs-all does not apply to --learner greedy (give the ±1 label columns with --label)")
	case f.FoldScore != "pooled":
		return errors.New("--learner greedy scores the pooled hold-out predictions: --fold-score mean does not apply")
	}
	return nil
}

// planOuterPairs checks --outer-folds for a learner of pairs: the nested
// cross-validation of its search (selection.NestedDesign) takes K outer
// folds (no file) of the objects the --cv setting holds out — rows, cols,
// or both (K × K blocks of a row fold and a column fold) — on two sets of
// objects, without --standardize (its sides scale themselves on all
// objects) or --solver cg.
func planOuterPairs(f *Flags, pp *PairPlan, changed func(string) bool) error {
	if !changed("outer-folds") {
		return nil
	}
	arg := strings.TrimSpace(f.OuterFoldsArg)
	k, err := strconv.Atoi(arg)
	switch setting := string(pp.Setting); {
	case err != nil:
		return fmt.Errorf("--outer-folds %s: --learner %s takes K, a number of outer folds of objects, not a file", arg, f.Learner)
	case k < 2:
		return fmt.Errorf("--outer-folds %d: want at least 2", k)
	case setting != "rows" && setting != "cols" && setting != "both":
		return fmt.Errorf("--outer-folds %d: nested cross-validation of --learner %s holds out objects: --cv rows, cols or both (with :K), not %s", k, f.Learner, pp.CVSpec)
	case pp.Homogeneous:
		return fmt.Errorf("--outer-folds %d: nested cross-validation of pairs needs two sets of objects, not --cols same", k)
	case f.Standardize:
		return fmt.Errorf("--outer-folds %d: a learner of pairs standardizes its objects on all of them; nested cross-validation of pairs runs without --standardize", k)
	case pp.ForceCG:
		return fmt.Errorf("--outer-folds %d: nested cross-validation of pairs uses the closed forms' hold-outs, not --solver cg", k)
	}
	f.OuterFolds = k
	return nil
}

// planOuter checks --outer-folds: an integer K ≥ 2 (OuterFolds) or a file
// of folds (OuterFoldsFile, not for greedy). Besides greedy, it is the
// nested cross-validation of the kernel × λ search (selection.Nested),
// which needs an inner scheme of leave-one-out or folds cross-validated by
// the learner's hold-outs in memory: not lpo, none or repeated k-fold, not
// --stream, --solver cg, --basis-holdout skip or --basis-design 3.
func planOuter(f *Flags, isGreedy bool, cvName string, changed func(string) bool) error {
	if !changed("outer-folds") {
		return nil
	}
	arg := strings.TrimSpace(f.OuterFoldsArg)
	if k, err := strconv.Atoi(arg); err == nil {
		if k < 2 {
			return fmt.Errorf("--outer-folds %d: want at least 2", k)
		}
		f.OuterFolds = k
	} else if arg == "" {
		return errors.New("--outer-folds: give K, the number of outer folds, or a file of folds")
	} else if isGreedy {
		return fmt.Errorf("--outer-folds %s: --learner greedy takes K, a number of outer folds, not a file", arg)
	} else {
		f.OuterFoldsFile = arg
	}
	if isGreedy {
		return nil
	}
	switch {
	case cvName == "lpo" || cvName == "none" || strings.HasPrefix(cvName, "repeated-kfold"):
		return fmt.Errorf("--outer-folds %s: the inner cross-validation of a nested CV is leave-one-out or folds (--cv loo, kfold:K, stratified-kfold:K, group-kfold:K, lgo, lqo or --folds), not --cv %s", arg, cvName)
	case f.Stream:
		return fmt.Errorf("--outer-folds %s: nested cross-validation needs the data in memory, not --stream", arg)
	case f.Solver == "cg":
		return fmt.Errorf("--outer-folds %s: nested cross-validation uses the factorization's hold-outs, not --solver cg", arg)
	case f.BasisHoldOut == "skip":
		return fmt.Errorf("--outer-folds %s: --basis-holdout skip predicts no basis row: use keep or remove", arg)
	case f.BasisDesign == 3:
		return fmt.Errorf("--outer-folds %s: --basis-design 3 retrains per fold: nested cross-validation uses the hold-outs of one basis", arg)
	case f.LambdaPerOutput:
		return fmt.Errorf("--outer-folds %s: nested cross-validation estimates the search with one λ for all outputs, not --lambda-per-output", arg)
	}
	return nil
}

// kernelGrid expands --kernel and its parameters (and their grids) into
// kernel specs; changed reports whether a flag was given.
func kernelGrid(f *Flags, changed func(string) bool) ([]kernel.Spec, error) {
	if err := parseGamma(f); err != nil {
		return nil, err
	}
	base := kernel.Defaults(f.Kernel)
	switch f.Kernel {
	case "linear":
		base.Bias = f.Bias
	case "gaussian":
		base.Gamma = f.Gamma
	case "polynomial":
		base.Gamma, base.Coef0, base.Degree = f.Gamma, f.Coef0, f.Degree
	}
	uses := map[string]map[string]bool{
		"linear":      {"bias": true},
		"gaussian":    {"gamma": true},
		"polynomial":  {"gamma": true, "coef0": true, "degree": true},
		"precomputed": {},
	}[f.Kernel]
	if uses == nil {
		_, err := kernel.New(base)
		return nil, fmt.Errorf("--kernel: %w", err)
	}
	for _, p := range []string{"gamma", "bias", "coef0", "degree"} {
		for _, flag := range []string{p, p + "-grid"} {
			if changed(flag) && !uses[p] {
				return nil, fmt.Errorf("--%s does not apply to the %s kernel: %s", flag, f.Kernel, paramKernels[p])
			}
		}
	}
	gammas, err := floatGrid("gamma-grid", f.GammaGrid, base.Gamma, true)
	if err != nil {
		return nil, err
	}
	coef0s, err := floatGrid("coef0-grid", f.Coef0Grid, base.Coef0, false)
	if err != nil {
		return nil, err
	}
	degrees := []int{base.Degree}
	if f.DegreeGrid != "" {
		degrees = nil
		for _, s := range strings.Split(f.DegreeGrid, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || v < 1 {
				return nil, fmt.Errorf("--degree-grid %q: %q is not an integer ≥ 1", f.DegreeGrid, s)
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
					return nil, fmt.Errorf("--kernel %s: %w", f.Kernel, err)
				}
				specs = append(specs, s)
			}
		}
	}
	return specs, nil
}

// paramKernels says which kernels take a parameter, for the refusal of its
// flags with another kernel.
var paramKernels = map[string]string{
	"gamma":  "gamma is a parameter of --kernel gaussian (exp(−γ‖x − z‖²)) and polynomial",
	"bias":   "bias is a parameter of --kernel linear",
	"coef0":  "coef0 is a parameter of --kernel polynomial",
	"degree": "degree is a parameter of --kernel polynomial",
}

// parseGamma sets f.Gamma and f.GammaScale from the text of --gamma (kept
// when f.GammaText is empty): a finite number, or "scale" (then Gamma is 1,
// the multiple of the scale value).
func parseGamma(f *Flags) error {
	switch f.GammaText {
	case "":
		return nil
	case "scale":
		f.Gamma, f.GammaScale = 1, true
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(f.GammaText), 64)
	if err != nil {
		return fmt.Errorf("--gamma %q: want a number > 0 or scale (scikit-learn's gamma=\"scale\", 1/(d·Var X))", f.GammaText)
	}
	f.Gamma, f.GammaScale = v, false
	return nil
}

// floatGrid parses the grid SPEC of a flag; "" is the one default value.
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

// lambdaGrid is the λ grid of --lambda or --lambda-grid (default
// selection.DefaultGrid); changed reports whether a flag was given.
func lambdaGrid(f *Flags, changed func(string) bool) ([]float64, error) {
	switch {
	case changed("lambda") && f.LambdaGrid != "":
		return nil, errors.New("--lambda and --lambda-grid: give one of them")
	case changed("lambda"):
		if err := learn.CheckLambda(f.Lambda); err != nil {
			return nil, fmt.Errorf("--lambda: %w", err)
		}
		return []float64{f.Lambda}, nil
	case f.LambdaGrid != "":
		g, err := selection.ParseGrid(f.LambdaGrid, true)
		if err != nil {
			return nil, fmt.Errorf("--lambda-grid: %w", err)
		}
		return g, nil
	}
	return selection.DefaultGrid(), nil
}

// BasisGreedy is --basis-select greedy: the basis vectors of a sparse model
// chosen by greedy selection per kernel setting (a strategy of the basis,
// not a learner).
const BasisGreedy = "greedy"
