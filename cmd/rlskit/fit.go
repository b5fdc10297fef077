package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
)

type fitFlags struct {
	data, format, label, qid   string
	learner, kernel            string
	gamma, bias, coef0         float64
	degree                     int
	gammaGrid, degreeGrid      string
	coef0Grid                  string
	basis                      int
	basisRows                  string
	seed                       uint64
	lambda                     float64
	lambdaGrid                 string
	cv, folds, measure         string
	preferences, cost          string
	solver                     string
	basisSelect, basisHoldOut  string
	basisDesign                int
	permutations               int
	oneVsAll                   bool
	reportOut                  string
	greedyLambda               float64
	maxIter                    int
	tol                        float64
	modelOut, cvPredictionsOut string
	standardize, quiet         bool
}

func newFit(e *env) *cobra.Command {
	f := &fitFlags{}
	cmd := &cobra.Command{
		Use:   "fit --data FILE --learner rls --kernel KERNEL (--lambda L | --lambda-grid SPEC) [flags]",
		Short: "Train a model and select λ (and kernel parameters) by exact cross-validation",
		Long: `fit trains a regularized least-squares model and cross-validates it along a λ grid
with the exact shortcuts: one factorization, then every λ and every fold is cheap.

It prints one JSON object: learner, kernel, lambda, n_train and
cv: {strategy, measure, curve: [{lambda, value}], best: {lambda, value}}.

SPEC is comma-separated values (0.1,1,10) or a base-2 range 2^a..2^b.
--cv is none, loo, kfold:K (seeded by --seed), lgo (leave-group-out over the
query/group ids) or lpo (leave-pair-out: positive–negative pairs for auc, all
pairs with different labels for cindex); --folds FILE reads one fold per line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runFit(cmd, e, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.data, "data", "", "training data file (svmlight or CSV; - for standard input)")
	fl.StringVar(&f.format, "format", "", "data format: svmlight or csv (default: from the file extension)")
	fl.StringVar(&f.label, "label", "", "CSV label column(s), comma-separated (several give a multi-output model)")
	fl.StringVar(&f.qid, "qid", "", "CSV query/group column")
	fl.StringVar(&f.learner, "learner", "rls", "learner: rls, globalrank (all pairs of the scores), queryrank (pairs within queries), prefrank (a preference graph)")
	fl.StringVar(&f.preferences, "preferences", "", "prefrank: file of preferences \"i j [magnitude [weight]]\", 0-based rows, i preferred over j")
	fl.StringVar(&f.cost, "cost", "magnitude", "prefrank cost: unit (20), magnitude (21) or inverse (22)")
	fl.StringVar(&f.kernel, "kernel", "linear", "kernel: linear, gaussian, polynomial or precomputed")
	fl.Float64Var(&f.gamma, "gamma", 1, "gamma of the gaussian and polynomial kernels")
	fl.Float64Var(&f.bias, "bias", 1, "bias of the linear kernel, k(x,z) = x·z + bias (default 1 for rls, 0 for the rankers)")
	fl.Float64Var(&f.coef0, "coef0", 0, "coef0 of the polynomial kernel")
	fl.IntVar(&f.degree, "degree", 2, "degree of the polynomial kernel")
	fl.StringVar(&f.gammaGrid, "gamma-grid", "", "grid SPEC of gamma values searched with λ")
	fl.StringVar(&f.degreeGrid, "degree-grid", "", "grid of polynomial degrees searched with λ")
	fl.StringVar(&f.coef0Grid, "coef0-grid", "", "grid SPEC of coef0 values searched with λ")
	fl.IntVar(&f.basis, "basis", 0, "sparse model: number of basis vectors drawn at random (seeded by --seed)")
	fl.StringVar(&f.basisRows, "basis-rows", "", "sparse model: file of 0-based basis row indices")
	fl.StringVar(&f.basisSelect, "basis-select", "random", "how --basis N vectors are chosen: random, greedy (paper 004, Algorithm 1) or per-group (one per query/group; no N)")
	fl.Float64Var(&f.greedyLambda, "greedy-lambda", 1, "λ at which greedy basis selection measures the training error")
	fl.StringVar(&f.basisHoldOut, "basis-holdout", "", "sparse models: held-out basis vectors are removed from the basis (remove, default for folds), kept (keep, default for loo), or for loo skipped (skip)")
	fl.IntVar(&f.basisDesign, "basis-design", 0, "sparse k-fold design of paper 004 sect. 6.2: 1 spreads the basis over the folds, 2 keeps it out of every fold, 3 draws a new random basis per fold (retrains)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed (folds, basis)")
	fl.Float64Var(&f.lambda, "lambda", 0, "regularization parameter λ")
	fl.StringVar(&f.lambdaGrid, "lambda-grid", "", "grid SPEC of λ values (default 2^-15..2^15)")
	fl.StringVar(&f.cv, "cv", "", "cross-validation: none, loo, kfold:K, lgo/lqo (leave-group/query-out) or lpo (default loo)")
	fl.StringVar(&f.folds, "folds", "", "file of folds, one per line (0-based row indices)")
	fl.StringVar(&f.measure, "measure", "", "measure: "+strings.Join(measure.Names(), ", ")+" (default: rls mse, auc with lpo; queryrank disagreement; other rankers cindex)")
	fl.StringVar(&f.modelOut, "model", "", "write the model selected to this file (JSON)")
	fl.StringVar(&f.cvPredictionsOut, "cv-predictions", "", "write the CV predictions at the best λ to this file")
	fl.BoolVar(&f.standardize, "standardize", false, "standardize features (mean 0, sd 1; sparse data: scale only); stored in the model")
	fl.StringVar(&f.solver, "solver", "direct", "direct (factor once: exact λ path and CV) or cg (matrix-free conjugate gradient for the linear kernel on large sparse data; --cv none, one --lambda)")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "cg: iteration cap")
	fl.Float64Var(&f.tol, "tol", 1e-6, "cg: relative residual at which to stop")
	fl.IntVar(&f.permutations, "permutations", 0, "permutation test: learn P label permutations as extra outputs of the same model and cross-validate them in the same pass (seeded by --seed)")
	fl.BoolVar(&f.oneVsAll, "one-vs-all", false, "multi-class: turn the class-label column into one ±1 output per class, learned together (default measure multiclass-accuracy)")
	fl.StringVar(&f.reportOut, "report", "", "write an HTML report (CV curve, predictions or ROC, per-query disagreement, summary) to this file")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	return cmd
}

// fitOutput is the JSON printed by fit (the CLI contract).
type fitOutput struct {
	Learner   string      `json:"learner"`
	Kernel    kernel.Spec `json:"kernel"`
	Form      string      `json:"form"`
	Lambda    float64     `json:"lambda"`
	NTrain    int         `json:"n_train"`
	NFeatures int         `json:"n_features"`
	Outputs   []string    `json:"outputs"`
	NBasis    int         `json:"n_basis,omitempty"`
	CG        *cgOutput   `json:"cg,omitempty"`
	Perm      *permOutput `json:"permutation,omitempty"`
	Queries   *queryInfo  `json:"queries,omitempty"`
	CV        *cvOutput   `json:"cv"`
	Timing    timing      `json:"timing"`
	Backend   string      `json:"backend"`
}

// queryInfo reports the queries; those with a single row have no pairs.
type queryInfo struct {
	Count        int `json:"count"`
	WithoutPairs int `json:"without_pairs"`
}

func queryStats(d *dataset.Data) *queryInfo {
	size := map[int]int{}
	for _, q := range d.Queries {
		size[q]++
	}
	info := &queryInfo{Count: len(size)}
	for _, n := range size {
		if n < 2 {
			info.WithoutPairs++
		}
	}
	return info
}

// permOutput reports a permutation test.
type permOutput struct {
	Permutations int     `json:"permutations"`
	PValue       float64 `json:"p_value"`
	Real         float64 `json:"real"`
	NullMean     float64 `json:"null_mean"`
	NullSD       float64 `json:"null_sd"`
}

// cgOutput reports the conjugate-gradient solver per output.
type cgOutput struct {
	Iterations []int     `json:"iterations"`
	Converged  []bool    `json:"converged"`
	Residual   []float64 `json:"residual"`
}

type cvOutput struct {
	Strategy string       `json:"strategy"`
	Measure  string       `json:"measure"`
	Curve    []curvePoint `json:"curve"`
	Best     curvePoint   `json:"best"`
	// BasisHoldOut is the sparse models' basis policy in hold-outs.
	BasisHoldOut string `json:"basis_holdout,omitempty"`
}

type curvePoint struct {
	Lambda float64  `json:"lambda"`
	Value  float64  `json:"value"`
	Gamma  *float64 `json:"gamma,omitempty"`
	Degree *int     `json:"degree,omitempty"`
	Coef0  *float64 `json:"coef0,omitempty"`
}

type timing struct {
	Load  float64 `json:"load_s"`
	Train float64 `json:"train_s"`
	CV    float64 `json:"cv_s"`
	Total float64 `json:"total_s"`
}

// fitPlan is what the flags of fit resolve to, checked before any data is read.
type fitPlan struct {
	cost   rank.Cost
	specs  []kernel.Spec
	grid   []float64
	cvName string
	kfoldK int
	meas   measure.Measure
}

// planFit checks every flag of fit, and their combinations, before any work.
func planFit(f *fitFlags, changed func(string) bool) (*fitPlan, error) {
	if f.data == "" {
		return nil, errors.New("--data is required")
	}
	if !slices.Contains(learnerNames, f.learner) {
		return nil, fmt.Errorf("--learner %q: unknown learner (want one of %v)", f.learner, learnerNames)
	}
	if f.learner != "rls" && !changed("bias") {
		f.bias = 0 // a ranking loss cannot see a constant shift
	}
	cost, err := parseCost(f.cost)
	if err != nil {
		return nil, err
	}
	if (f.preferences != "") != (f.learner == "prefrank") {
		return nil, errors.New("--preferences goes with --learner prefrank, and prefrank needs it")
	}
	if changed("cost") && f.learner != "prefrank" {
		return nil, errors.New("--cost applies to --learner prefrank")
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
	kfoldK, err := parseCV(cvName)
	if err != nil {
		return nil, err
	}
	if cvName == "none" && len(grid) > 1 {
		return nil, fmt.Errorf("--cv none with %d λ values: a grid needs cross-validation to choose from it", len(grid))
	}
	measName := f.measure
	if measName == "" {
		switch {
		case f.oneVsAll:
			measName = "multiclass-accuracy"
		case f.learner == "queryrank" && cvName != "lpo":
			measName = "disagreement"
		case f.learner != "rls":
			measName = "cindex"
		case cvName == "lpo":
			measName = "auc"
		default:
			measName = "mse"
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
		if sparse && cvName != "loo" && f.learner == "rls" {
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
	if f.basisHoldOut != "" && f.learner != "rls" && f.basisHoldOut != "keep" {
		return nil, fmt.Errorf("--basis-holdout %s: the rankers keep their basis (use keep)", f.basisHoldOut)
	}
	if f.basisDesign != 0 {
		if f.basisDesign < 1 || f.basisDesign > 3 {
			return nil, fmt.Errorf("--basis-design %d: want 1, 2 or 3", f.basisDesign)
		}
		if kfoldK == 0 || f.learner != "rls" || f.basis == 0 || f.basisSelect != "random" || f.kernel == "precomputed" {
			return nil, errors.New("--basis-design goes with --learner rls, --cv kfold:K, a random --basis N and a kernel on features")
		}
	}
	if f.reportOut != "" && (cvName == "none" || f.solver != "direct") {
		return nil, errors.New("--report shows a cross-validation: give a --cv other than none (direct solver)")
	}
	if f.permutations < 0 {
		return nil, fmt.Errorf("--permutations %d: must be ≥ 0", f.permutations)
	}
	if f.permutations > 0 && (cvName == "none" || f.learner == "prefrank" || f.basisDesign == 3 || f.solver != "direct") {
		return nil, errors.New("--permutations needs cross-validation with the direct solver and a learner trained on the labels (not prefrank, not --basis-design 3)")
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
		case f.learner == "prefrank":
			return nil, errors.New("--solver cg covers rls, globalrank and queryrank")
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

	return &fitPlan{cost: cost, specs: specs, grid: grid, cvName: cvName, kfoldK: kfoldK, meas: meas}, nil
}

func runFit(cmd *cobra.Command, e *env, f *fitFlags) error {
	start := time.Now()
	changed := cmd.Flags().Changed
	p, err := planFit(f, changed)
	if err != nil {
		return err
	}
	cost, specs, grid, cvName, kfoldK, meas := p.cost, p.specs, p.grid, p.cvName, p.kfoldK, p.meas

	// Data.
	d, err := readData(e, f.data, f.format, f.label, f.qid, 0)
	if err != nil {
		return err
	}
	if d.Y == nil && (f.learner != "prefrank" || cvName != "none") {
		return fmt.Errorf("%s: no labels (name the label column(s) with --label)", f.data)
	}
	var classes []float64
	var classLabel string
	if f.oneVsAll {
		if f.learner != "rls" {
			return errors.New("--one-vs-all trains rls on one output per class")
		}
		if _, t := d.Y.Dims(); t != 1 {
			return fmt.Errorf("--one-vs-all takes one class-label column, %s has %d", f.data, t)
		}
		y, cl, err := dataset.OneVsAll(mat.Col(nil, 0, d.Y))
		if err != nil {
			return fmt.Errorf("--one-vs-all: %w", err)
		}
		classes, classLabel = cl, d.LabelNames[0]
		d.Y, d.LabelNames = y, dataset.ClassNames(cl)
	}
	if f.learner == "queryrank" && d.Queries == nil {
		return fmt.Errorf("--learner queryrank needs query ids (qid: in svmlight, --qid in CSV)")
	}
	var edges []rank.Edge
	if f.learner == "prefrank" {
		prefs, err := readFile(f.preferences, func(r io.Reader) ([]dataset.Preference, error) {
			return dataset.ReadPreferences(r, f.preferences, d.Rows())
		})
		if err != nil {
			return err
		}
		for _, p := range prefs {
			edges = append(edges, rank.Edge{I: p.I, J: p.J, Magnitude: p.Magnitude, Weight: p.Weight})
		}
		if d.Y != nil {
			if _, t := d.Y.Dims(); t != 1 {
				return fmt.Errorf("--learner prefrank has one output; %s has %d label columns", f.data, t)
			}
		}
	}
	x := d.X
	m, width := x.Dims()
	var scaler *model.Scaler
	if f.standardize {
		if specs[0].Name == "precomputed" {
			return errors.New("--standardize with a precomputed kernel: the data are kernel values")
		}
		scaler = model.FitScaler(x)
		if x, err = scaler.Transform(x); err != nil {
			return err
		}
	}
	if specs[0].Name == "precomputed" && m != width {
		return fmt.Errorf("%s: a precomputed kernel matrix must be square, got %d rows and %d columns", f.data, m, width)
	}
	basis, err := chooseBasis(f, d, m)
	if err != nil {
		return err
	}
	scheme, err := makeScheme(cvName, kfoldK, f, d, m, meas)
	if err != nil {
		return err
	}
	scheme.Basis = selection.BasisPolicy(f.basisHoldOut)
	switch f.basisDesign {
	case 1:
		if scheme.Folds, err = cv.BasisFolds(m, basis, kfoldK, f.seed); err != nil {
			return err
		}
		scheme.Name += ",basis-design:1"
	case 2:
		if scheme.Folds, err = cv.FoldsExcluding(m, basis, kfoldK, f.seed); err != nil {
			return err
		}
		scheme.Name += ",basis-design:2"
	case 3:
		scheme.Name += ",basis-design:3"
	}
	if meas.NeedsQueries && d.Queries == nil {
		return fmt.Errorf("--measure %s needs query ids (qid: in svmlight, --qid in CSV)", meas.Name)
	}
	loaded := time.Now()
	if f.solver == "cg" {
		return runCG(e, f, x, d, width, scaler, grid[0], start, loaded)
	}

	// Train and cross-validate every kernel setting.
	prog := newProgress(e.stderr, f.quiet)
	defer prog.done()
	out := fitOutput{Learner: f.learner, NTrain: m, NFeatures: width, Outputs: d.LabelNames, Backend: linalg.Backend}
	var (
		best                 *selection.Result
		bestModel            *trained
		bestSpec             kernel.Spec
		bestBasis            []int
		specCurves           []specCurve
		bestCurve            int
		trainTime, totalTime time.Duration
		curve                []curvePoint
	)
	steps := len(specs) * len(grid)
	for n, spec := range specs {
		k, err := kernel.New(spec)
		if err != nil {
			return err
		}
		t0 := time.Now()
		if f.basisSelect == "greedy" {
			prog.step("greedy basis selection for "+spec.String(), n, len(specs))
			if basis, err = greedyBasis(x, d, k, f); err != nil {
				return err
			}
		}
		r, err := train(f.learner, x, d, k, basis, edges, cost)
		if err != nil {
			return fmt.Errorf("training with %s: %w", spec, err)
		}
		trainTime += time.Since(t0)
		prog.step("trained "+spec.String()+"; λ", n*len(grid), steps)
		var res *selection.Result
		if cvName == "none" {
			if _, err := r.solve(grid[0]); err != nil {
				return err
			}
			res = &selection.Result{Best: selection.Point{Lambda: grid[0], Value: math.NaN()}}
		} else if f.basisDesign == 3 {
			res, err = selection.SelectRetrain(reselectPerFold(x, d, k, f), d.Y, grid, scheme.Folds, scheme.Name, meas,
				selection.Options{Queries: d.Queries, Progress: func(done, total int) { prog.step("retraining fold", done, total) }})
			if err != nil {
				return fmt.Errorf("cross-validation with %s: %w", spec, err)
			}
		} else {
			res, err = selection.Select(r.solve, d.Y, grid, scheme, meas, selection.Options{
				Queries:  d.Queries,
				Progress: func(done, total int) { prog.step("cross-validating λ", n*len(grid)+done, steps) },
			})
			if err != nil {
				return fmt.Errorf("cross-validation with %s: %w", spec, err)
			}
		}
		for _, p := range res.Curve {
			curve = append(curve, point(p, spec, len(specs) > 1))
		}
		specCurves = append(specCurves, specCurve{spec: spec, points: res.Curve})
		if best == nil || meas.Better(res.Best.Value, best.Best.Value) {
			bestCurve = n
			best, bestModel, bestSpec, bestBasis = res, r, spec, basis
		}
		totalTime = time.Since(t0) + totalTime
	}
	if f.permutations > 0 {
		if _, t := d.Y.Dims(); t != 1 {
			return fmt.Errorf("--permutations takes one label column, %s has %d", f.data, t)
		}
		fit := func(y *mat.Dense) (func(float64) (solution, error), error) {
			r, err := bestModel.withLabels(y) // the factorization is shared: no second O(m³)
			if err != nil {
				return nil, err
			}
			return r.solve, nil
		}
		pr, err := selection.PermutationTest(fit, d.Y, grid, scheme, meas, f.permutations, f.seed, selection.Options{
			Queries: d.Queries, Progress: func(done, total int) { prog.step("permutation test, λ", done, total) }})
		if err != nil {
			return fmt.Errorf("permutation test: %w", err)
		}
		out.Perm = &permOutput{Permutations: pr.Permutations, PValue: pr.PValue, Real: pr.Real, NullMean: pr.NullMean, NullSD: pr.NullSD}
	}
	sol, err := bestModel.solve(best.Best.Lambda)
	if err != nil {
		return err
	}
	pred := sol.Predictor()
	pred.Scaler = scaler
	pred.Features = d.FeatureNames
	pred.Classes, pred.ClassLabel = classes, classLabel
	out.Kernel, out.Form, out.Lambda = bestSpec, bestModel.form, best.Best.Lambda
	if d.Queries != nil {
		out.Queries = queryStats(d)
	}
	if cvName != "none" {
		out.CV = &cvOutput{Strategy: scheme.Name, Measure: meas.Name, Curve: curve, Best: point(best.Best, bestSpec, len(specs) > 1),
			BasisHoldOut: f.basisHoldOut}
	}
	out.NBasis = len(bestBasis)

	// Outputs: each file written whole or not at all.
	if f.modelOut != "" {
		if err := dataset.WriteFileAtomic(f.modelOut, pred.Save); err != nil {
			return fmt.Errorf("--model %s: %w", f.modelOut, err)
		}
	}
	if f.cvPredictionsOut != "" {
		if err := dataset.WriteFileAtomic(f.cvPredictionsOut, func(w io.Writer) error {
			return writeCVPredictions(w, best, d.Y)
		}); err != nil {
			return fmt.Errorf("--cv-predictions %s: %w", f.cvPredictionsOut, err)
		}
	}
	out.Timing = timing{Load: loaded.Sub(start).Seconds(), Train: trainTime.Seconds(),
		CV: (totalTime - trainTime).Seconds(), Total: time.Since(start).Seconds()}
	if f.reportOut != "" {
		rd := reportData(f, d, &out, meas, specCurves, bestCurve, best)
		if err := dataset.WriteFileAtomic(f.reportOut, func(w io.Writer) error { return report.Write(w, rd) }); err != nil {
			return fmt.Errorf("--report %s: %w", f.reportOut, err)
		}
	}
	prog.done()
	enc := json.NewEncoder(e.stdout)
	return enc.Encode(out)
}

func point(p selection.Point, spec kernel.Spec, withKernel bool) curvePoint {
	c := curvePoint{Lambda: p.Lambda, Value: p.Value}
	if withKernel {
		switch spec.Name {
		case "gaussian":
			c.Gamma = &spec.Gamma
		case "polynomial":
			c.Gamma, c.Degree, c.Coef0 = &spec.Gamma, &spec.Degree, &spec.Coef0
		}
	}
	return c
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
		if err := rls.CheckLambda(f.lambda); err != nil {
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

// parseCV checks --cv and returns K for kfold:K.
func parseCV(s string) (int, error) {
	switch s {
	case "none", "loo", "lpo", "lgo", "lqo", "folds":
		return 0, nil
	}
	if k, ok := strings.CutPrefix(s, "kfold:"); ok {
		v, err := strconv.Atoi(k)
		if err != nil || v < 2 {
			return 0, fmt.Errorf("--cv %s: K must be an integer ≥ 2", s)
		}
		return v, nil
	}
	return 0, fmt.Errorf("--cv %q: want none, loo, kfold:K, lgo, lqo or lpo", s)
}

func makeScheme(name string, k int, f *fitFlags, d *dataset.Data, m int, meas measure.Measure) (selection.Scheme, error) {
	switch {
	case name == "none":
		return selection.Scheme{Kind: "none", Name: "none"}, nil
	case name == "loo":
		return selection.Scheme{Kind: selection.LOO, Name: "loo"}, nil
	case name == "lpo":
		sc := selection.Scheme{Kind: selection.LPO, Name: "lpo"}
		if f.learner == "queryrank" && d.Y != nil {
			// pairs inside queries only
			if _, t := d.Y.Dims(); t > 1 {
				return selection.Scheme{}, errors.New("--cv lpo with queryrank takes one label column")
			}
			pairs, err := cv.PairsWithinGroups(mat.Col(nil, 0, d.Y), d.Queries)
			if err != nil {
				return selection.Scheme{}, err
			}
			sc.Pairs = pairs
		}
		return sc, nil
	case name == "lgo" || name == "lqo":
		if d.Queries == nil {
			return selection.Scheme{}, fmt.Errorf("--cv %s needs group ids (qid: in svmlight, --qid in CSV)", name)
		}
		folds, err := cv.LeaveGroupOut(d.Queries)
		if err != nil {
			return selection.Scheme{}, fmt.Errorf("--cv %s: %w", name, err)
		}
		usable := 0
		for _, fold := range folds {
			if len(fold) > 1 {
				usable++
			}
		}
		if name == "lqo" && usable < 2 {
			return selection.Scheme{}, fmt.Errorf("--cv lqo: %d queries with two or more rows; leaving queries out needs 2", usable)
		}
		return selection.Scheme{Kind: selection.Folds, Name: name, Folds: folds}, nil
	case name == "folds":
		folds, err := readFile(f.folds, func(r io.Reader) ([][]int, error) { return dataset.ReadFolds(r, f.folds, m) })
		if err != nil {
			return selection.Scheme{}, err
		}
		if err := cv.Check(folds, m); err != nil {
			return selection.Scheme{}, fmt.Errorf("--folds %s: %w", f.folds, err)
		}
		return selection.Scheme{Kind: selection.Folds, Name: "folds:" + f.folds, Folds: folds}, nil
	}
	if k > m {
		return selection.Scheme{}, fmt.Errorf("--cv kfold:%d with %d rows", k, m)
	}
	folds, err := cv.KFold(m, k, f.seed)
	if err != nil {
		return selection.Scheme{}, err
	}
	return selection.Scheme{Kind: selection.Folds, Name: fmt.Sprintf("kfold:%d", k), Folds: folds}, nil
}

func chooseBasis(f *fitFlags, d *dataset.Data, m int) ([]int, error) {
	switch {
	case f.basisRows != "":
		b, err := readFile(f.basisRows, func(r io.Reader) ([]int, error) { return dataset.ReadIndices(r, f.basisRows, m) })
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, fmt.Errorf("--basis-rows %s: no rows", f.basisRows)
		}
		return b, nil
	case f.basisSelect == "per-group":
		if d.Queries == nil {
			return nil, errors.New("--basis-select per-group needs group ids (qid: in svmlight, --qid in CSV)")
		}
		b, err := basis.PerGroup(d.Queries, f.seed)
		if err != nil {
			return nil, fmt.Errorf("--basis-select per-group: %w", err)
		}
		return b, nil
	case f.basis > 0:
		if f.basis > m {
			return nil, fmt.Errorf("--basis %d: more basis vectors than the %d training rows", f.basis, m)
		}
		if f.basisSelect == "greedy" {
			return nil, nil // chosen per kernel setting
		}
		return basis.Random(m, f.basis, f.seed)
	}
	return nil, nil
}

// greedyBasis runs the randomized greedy selection (paper 004, Algorithm 1).
func greedyBasis(x mat.Matrix, d *dataset.Data, k kernel.Kernel, f *fitFlags) ([]int, error) {
	b, err := basis.Greedy(x, d.Y, k, f.basis, basis.GreedyOptions{Lambda: f.greedyLambda, Seed: f.seed})
	if err != nil {
		return nil, fmt.Errorf("--basis-select greedy: %w", err)
	}
	slices.Sort(b)
	return b, nil
}

// reselectPerFold trains, for each fold, a sparse RLS model on the fold's
// training rows with --basis N basis vectors drawn afresh among them
// (paper 004, sect. 6.2, Approach 3).
func reselectPerFold(x mat.Matrix, d *dataset.Data, k kernel.Kernel, f *fitFlags) selection.Retrainer {
	fold := uint64(0)
	return func(train, test []int) (func(float64) (*mat.Dense, error), error) {
		fold++
		if f.basis > len(train) {
			return nil, fmt.Errorf("--basis %d: more basis vectors than the %d training rows of a fold", f.basis, len(train))
		}
		b, err := basis.Random(len(train), f.basis, f.seed+fold)
		if err != nil {
			return nil, err
		}
		xt := kernel.Rows(x, train)
		r, err := rls.Fit(xt, kernel.Rows(d.Y, train).(*mat.Dense), rls.Options{Kernel: k, Basis: b})
		if err != nil {
			return nil, err
		}
		xs := kernel.Rows(x, test)
		return func(l float64) (*mat.Dense, error) {
			s, err := r.Solve(l)
			if err != nil {
				return nil, err
			}
			return s.Predictor().Predict(xs)
		}, nil
	}
}

func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	fh, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer fh.Close()
	return read(fh)
}

// readData reads a data file (or standard input for "-"). width > 0 fixes the
// number of svmlight features (prediction data for a model).
func readData(e *env, path, format, label, qid string, width int) (*dataset.Data, error) {
	var labels []string
	if label != "" {
		for _, l := range strings.Split(label, ",") {
			labels = append(labels, strings.TrimSpace(l))
		}
	}
	csvOpt := dataset.CSVOptions{Labels: labels, Qid: qid}
	svmOpt := dataset.SVMLightOptions{Width: width}
	if format != "" && format != "csv" && format != "svmlight" {
		return nil, fmt.Errorf("--format %q: want svmlight or csv", format)
	}
	isCSV := format == "csv" || (format == "" && strings.HasSuffix(strings.ToLower(path), ".csv"))
	if !isCSV && (label != "" || qid != "") {
		return nil, fmt.Errorf("%s: --label and --qid apply to CSV data; svmlight files carry their labels and qid: fields", path)
	}
	if path == "-" {
		if isCSV {
			return dataset.ReadCSV(e.stdin, "<stdin>", csvOpt)
		}
		return dataset.ReadSVMLight(e.stdin, "<stdin>", svmOpt)
	}
	if isCSV {
		format = "csv"
	} else {
		format = "svmlight"
	}
	return dataset.ReadFile(path, format, csvOpt, svmOpt)
}

// writeCVPredictions writes one line per training row (outputs tab-separated;
// NaN for rows in no fold), or for leave-pair-out one line per pair "i j p_i p_j"
// (with the output index first when there are several outputs).
func writeCVPredictions(w io.Writer, res *selection.Result, y *mat.Dense) error {
	if res.Predictions != nil {
		return dataset.WritePredictions(w, res.Predictions)
	}
	_, t := y.Dims()
	bw := newLineWriter(w)
	for _, p := range res.PairPredictions {
		if t > 1 {
			bw.printf("%d\t", p.Output)
		}
		bw.printf("%d\t%d\t%s\t%s\n", p.I, p.J, ftoa(p.PI), ftoa(p.PJ))
	}
	return bw.flush()
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
