// Package plan owns the flags of a fit — rlskit fit, and rlskit-beam, which
// takes the same flags — and what they resolve to: a Plan, typed and checked
// alone and in combination before any data is read.
//
// A front end defines the flags on its flag set (Define: the standard
// library's *flag.FlagSet or a *pflag.FlagSet), parses its command line, and
// calls New with the set of flags given. Every error New returns is a usage
// error: the command line cannot run as given. New reads the learner's
// descriptor from the registry (package learn) — its needs, capabilities,
// parameters, loss, default bias and measure — and never compares a
// learner's name.
//
//	f := &plan.Flags{}
//	plan.Define(fs, f)
//	// … parse …
//	p, err := plan.New(f, changed)
//
// A streaming fit (fit --stream, rlskit-beam) gets its stream.Options and
// stream.Source from the plan (Plan.StreamOptions, Plan.StreamSource).
package plan

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	_ "github.com/rlskit/rlskit/learners" // every learner of the module registers itself
	"github.com/rlskit/rlskit/measure"
)

// Flags are the flags of a fit, as parsed. New fills in defaults that depend
// on the learner (Bias, BasisHoldOut).
type Flags struct {
	// Data is --data, Format --format, Label --label, Qid --qid.
	Data, Format, Label, Qid string
	// Learner is --learner, Kernel --kernel.
	Learner, Kernel string
	// Gamma, Bias and Coef0 are --gamma, --bias and --coef0. New sets
	// Gamma from GammaText, the text of --gamma, when that is not empty.
	Gamma, Bias, Coef0 float64
	// GammaText is --gamma as given: a number, or "scale" (GammaScale).
	GammaText string
	// GammaScale is --gamma scale: γ is scikit-learn's gamma="scale",
	// 1/(d·Var X) of the training rows after --standardize, resolved by
	// selection.Search; Gamma (1) and the --gamma-grid values multiply it.
	GammaScale bool
	// Degree is --degree.
	Degree int
	// GammaGrid, DegreeGrid and Coef0Grid are --gamma-grid, --degree-grid and --coef0-grid.
	GammaGrid, DegreeGrid, Coef0Grid string
	// Basis is --basis, BasisRows --basis-rows.
	Basis     int
	BasisRows string
	// Seed is --seed.
	Seed uint64
	// Lambda is --lambda, LambdaGrid --lambda-grid.
	Lambda     float64
	LambdaGrid string
	// CV is --cv, Folds --folds, Measure --measure.
	CV, Folds, Measure string
	// Preferences is --preferences, Cost --cost.
	Preferences, Cost string
	// Solver is --solver.
	Solver string
	// BasisSelect is --basis-select, BasisHoldOut --basis-holdout.
	BasisSelect, BasisHoldOut string
	// BasisDesign is --basis-design.
	BasisDesign int
	// Permutations is --permutations.
	Permutations int
	// OneVsAll is --one-vs-all.
	OneVsAll bool
	// Positive is --positive: the class that is +1 of a two-class label.
	Positive string
	// Report is --report.
	Report string
	// GreedyLambda is --greedy-lambda.
	GreedyLambda float64
	// MaxIter is --max-iter, Tol --tol.
	MaxIter int
	Tol     float64
	// NewtonSteps is --newton-steps (kronsvm's cap on its Newton steps).
	NewtonSteps int
	// Model is --model, CVPredictions --cv-predictions.
	Model, CVPredictions string
	// Curves is --curves: the CV curve as a table.
	Curves string
	// Interval is --interval: jackknife+ or cv+ prediction intervals
	// recorded in the model (planInterval).
	Interval string
	// ROC is --roc: tlpo, a tournament leave-pair-out ROC analysis at the
	// chosen λ (planROC).
	ROC string
	// Standardize is --standardize, Quiet --quiet.
	Standardize, Quiet bool
	// QueryNormalize is --query-normalize.
	QueryNormalize bool
	// FoldScore is --fold-score.
	FoldScore string
	// Choose is --choose (best or 1se); LambdaPerOutput is --lambda-per-output.
	Choose          string
	LambdaPerOutput bool
	// Select is --select.
	Select int
	// Clusters, Restarts and Init are --clusters, --restarts and --init
	// (mmc: plan/cluster.go).
	Clusters, Restarts int
	Init               string
	// Steps is --steps (interactive: plan/cluster.go).
	Steps string
	// Fixed is --fixed (mmc: rows whose --init cluster never changes).
	Fixed string
	// OuterFoldsArg is --outer-folds as given: an integer K ≥ 2 — New
	// sets OuterFolds to it — or a file of folds, one per line as --folds
	// (OuterFoldsFile; not for greedy).
	OuterFoldsArg  string
	OuterFolds     int
	OuterFoldsFile string
	// Stream is --stream.
	Stream bool
	// Intercept is --intercept.
	Intercept bool
	// Weights is --weights: a file of sample weights, one per line.
	Weights string
	// In holds --zero-based, --delimiter and --labels.
	In InputFlags
	// Rows, Cols, Pairs and ColKernel are --rows, --cols, --pairs and
	// --col-kernel (learners of pairs).
	Rows, Cols, Pairs, ColKernel string
	// ColGamma, ColBias and ColCoef0 are --col-gamma, --col-bias and --col-coef0.
	ColGamma, ColBias, ColCoef0 float64
	// ColDegree is --col-degree, Patience --patience.
	ColDegree, Patience int
	// ColGammaGrid is --col-gamma-grid, ColLambdaGrid --col-lambda-grid.
	ColGammaGrid, ColLambdaGrid string
	// ColLambda is --col-lambda.
	ColLambda float64
	// ColFolds is --col-folds, ValidationPairs --validation-pairs.
	ColFolds, ValidationPairs string
	// Symmetry is --symmetry.
	Symmetry string
	// PairKernel is --pair-kernel (a pairwise kernel of package pairkernel),
	// PairKernelWeights --pair-kernel-weights (the sum kernel's weights).
	PairKernel, PairKernelWeights string
}

// FlagSet is what Define needs of a flag set: both the standard library's
// *flag.FlagSet and *pflag.FlagSet have these methods.
type FlagSet interface {
	StringVar(p *string, name, value, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
	IntVar(p *int, name string, value int, usage string)
	Float64Var(p *float64, name string, value float64, usage string)
	Uint64Var(p *uint64, name string, value uint64, usage string)
}

// Define defines every flag of a fit on fs, storing the values in f, with
// their defaults and help texts. The help of --bias states its default (one
// per learner) as text.
func Define(fs FlagSet, f *Flags) {
	fs.StringVar(&f.Data, "data", "", "training data file (svmlight, CSV, .npy, .npz or Parquet, any of them gzipped; - for standard input)")
	fs.StringVar(&f.Format, "format", "", "data format: svmlight, csv, npy, npz or parquet (default: from the file name, .csv/.tsv, .npy, .npz, .parquet/.pq, else svmlight; .gz looked through; standard input by its first bytes: NumPy, Parquet and zip magic, CSV when the first line splits into fields at commas, semicolons or tabs with no index:value field, else svmlight)")
	DefineInput(fs, &f.In, false)
	fs.StringVar(&f.Label, "label", "", "CSV or Parquet label column(s), or .npz label array(s) (default y), comma-separated (several give a multi-output model)")
	fs.StringVar(&f.Qid, "qid", "", "CSV or Parquet query/group column, or .npz array")
	fs.StringVar(&f.Learner, "learner", "rls", learnerHelp())
	fs.StringVar(&f.Preferences, "preferences", "", "prefrank: file of preferences \"i j [magnitude [weight]]\", 0-based rows, i preferred over j")
	fs.StringVar(&f.Cost, "cost", "magnitude", "prefrank cost: unit (20), magnitude (21) or inverse (22)")
	fs.StringVar(&f.Kernel, "kernel", "linear", "kernel: linear, gaussian, polynomial or precomputed")
	fs.StringVar(&f.GammaText, "gamma", "1", "gamma of the gaussian and polynomial kernels: a number > 0, or scale for scikit-learn's gamma=\"scale\", "+
		"1/(d·Var X) over every entry of the training data (after --standardize; 1 when Var X = 0), resolved on the data and reported in the summary; "+
		"with scale the --gamma-grid values are multiples of it")
	setValue(fs, "gamma", gammaValue{&f.GammaText}) // typed float|scale, not a string (a file name) for completion and help
	fs.Float64Var(&f.Bias, "bias", 1, "bias of the linear kernel, k(x,z) = x·z + bias")
	setDefValue(fs, "bias", "1 for rls and greedy, 0 for the rankers") // one default, stated once
	fs.BoolVar(&f.Intercept, "intercept", false, "rls: fit an unpenalized intercept b, f(x) + b with b left out of the penalty and refit inside every CV hold-out (exact), in memory and with --stream; "+
		"with --kernel linear this is scikit-learn's Ridge/RidgeCV(fit_intercept=True) with alpha = λ, the bias feature (--bias) then 0 unless given (it is redundant next to b). "+
		"Off by default for every learner: rls keeps RLScore's convention, a penalized bias feature, so its numbers match RLScore's; "+
		"the rankers' pairwise losses cancel any constant, so they have no intercept to learn")
	fs.StringVar(&f.Weights, "weights", "", "rls: sample weights, a file (one number > 0 per line for each training row in order) or, when no such file exists, a column of the CSV or Parquet --data (not a feature): the loss Σ w_i (y_i − f(x_i))² + λ‖f‖², "+
		"scikit-learn's Ridge(sample_weight=w); every CV hold-out is refit with the weights of the rows it keeps (exact); the CV measure is not weighted; dual and linear forms (no --basis, --stream or --solver cg)")
	fs.Float64Var(&f.Coef0, "coef0", 0, "coef0 of the polynomial kernel")
	fs.IntVar(&f.Degree, "degree", 2, "degree of the polynomial kernel")
	fs.StringVar(&f.GammaGrid, "gamma-grid", "", "grid SPEC of gamma values searched with λ")
	fs.StringVar(&f.DegreeGrid, "degree-grid", "", "grid of polynomial degrees searched with λ")
	fs.StringVar(&f.Coef0Grid, "coef0-grid", "", "grid SPEC of coef0 values searched with λ")
	fs.IntVar(&f.Basis, "basis", 0, "sparse model: number of basis vectors drawn at random (seeded by --seed)")
	fs.StringVar(&f.BasisRows, "basis-rows", "", "sparse model: file of 0-based basis row indices")
	fs.StringVar(&f.BasisSelect, "basis-select", "random", "how --basis N vectors are chosen: random, greedy (Pahikkala, Suominen & Boberg 2012, Algorithm 1) or per-group (one per query/group; no N)")
	fs.Float64Var(&f.GreedyLambda, "greedy-lambda", 1, "λ at which greedy basis selection measures the training error")
	fs.StringVar(&f.BasisHoldOut, "basis-holdout", "", "sparse models: held-out basis vectors are removed from the basis (remove, default for folds where the learner can), kept (keep, default for loo and for learners that cannot remove), or for loo skipped (skip)")
	fs.IntVar(&f.BasisDesign, "basis-design", 0, "sparse k-fold design of Pahikkala, Suominen & Boberg 2012 sect. 6.2: 1 spreads the basis over the folds, 2 keeps it out of every fold, 3 draws a new random basis per fold (retrains)")
	fs.Uint64Var(&f.Seed, "seed", 1, "random seed (folds, basis)")
	fs.Float64Var(&f.Lambda, "lambda", 0, "regularization parameter λ")
	fs.StringVar(&f.LambdaGrid, "lambda-grid", "", "grid SPEC of λ values (default 2^-15..2^15)")
	fs.StringVar(&f.CV, "cv", "", "cross-validation: none, loo, kfold:K, stratified-kfold:K (every class's share in every fold; a class label), "+
		"repeated-kfold:KxR (R reshuffled kfold:K; the value is the mean over the R repetitions, --cv-predictions the first's), "+
		"group-kfold:K (whole --qid groups per fold), lgo/lqo (leave-group/query-out) or lpo (leave-pair-out); folds drawn with --seed, "+
		"or given with --folds (default loo; learners of pairs: pairs, rows, cols, both or vertices, each but pairs with :K)")
	fs.StringVar(&f.Folds, "folds", "", "file of folds, one per line (0-based row indices)")
	fs.StringVar(&f.Measure, "measure", "", "measure: "+strings.Join(measure.Names(), ", ")+" (default: rls mse, auc with lpo; queryrank disagreement; other rankers cindex)")
	fs.StringVar(&f.Model, "model", "", "write the model selected to this file (JSON)")
	fs.StringVar(&f.CVPredictions, "cv-predictions", "", "write the CV predictions at the best λ to this file")
	fs.StringVar(&f.Interval, "interval", "", "rls: record in the model what prediction intervals need — jackknife+ (with --cv loo; linear kernel or sparse models: the m leave-one-out models) or cv+ (with --cv kfold:K, stratified-kfold:K, group-kfold:K, lgo, lqo or --folds FILE: the K fold models; with --stream, kfold:K: from the fold statistics, one more pass for the residuals; jackknife+ with --stream --cv loo likewise), "+
		"from the exact hold-outs, no refit (Barber, Candès, Ramdas & Tibshirani 2021); then predict --coverage 0.9 writes prediction, lower, upper per output. "+
		"kronrls, twostep: cv+ with --cv rows[:K] (new rows), cols[:K] (new columns) or both[:K] (new rows and columns) on complete data (not --cv pairs: no pair is new there)")
	fs.StringVar(&f.ROC, "roc", "", "tlpo: tournament leave-pair-out ROC analysis at the chosen λ (Montoya Perez et al. 2019) — every pair of rows held out (m(m−1)/2 pairs, O(m²) memory), each row scored by its wins; "+
		"JSON roc: auc of the tournament curve, lpo_auc, DeLong intervals at level 0.95, points; a binary label and a learner with leave-pair-out over the whole data set (rls, globalrank)")
	fs.StringVar(&f.Curves, "curves", "", "write every point of the CV curve(s) to this file as a tab-separated table with a header: the kernel parameters searched (gamma, degree, coef0; col_… for the column kernel), lambda (col_lambda), value, indistinguishable (1 or 0); greedy: lambda, features, feature, name, value, indistinguishable")
	fs.BoolVar(&f.Standardize, "standardize", false, "standardize features: dense data (CSV, NumPy, Parquet, and svmlight whose rows store at least half of all features) to mean 0 and sd 1 per feature; sparser svmlight data divided by each feature's root mean square, not centred (keeps the zeros); stored in the model (scaler.centered)")
	fs.StringVar(&f.Solver, "solver", "direct", "direct (factor once: exact λ path and CV) or cg (matrix-free conjugate gradient for the linear kernel on large sparse data; --cv none, one --lambda)")
	fs.IntVar(&f.MaxIter, "max-iter", 1000, "cg: iteration cap (kronsvm: per Newton step)")
	fs.IntVar(&f.NewtonSteps, "newton-steps", 100, "kronsvm: the cap on its truncated Newton steps (RLScore's maxiter)")
	fs.Float64Var(&f.Tol, "tol", 1e-6, "cg: relative residual at which to stop (learners of pairs: default 1e-10; kronsvm: each Newton step's)")
	fs.IntVar(&f.Permutations, "permutations", 0, "permutation test: learn P label permutations as extra outputs of the same model and cross-validate them in the same pass (seeded by --seed)")
	fs.BoolVar(&f.OneVsAll, "one-vs-all", false, "multi-class: turn the class-label column (integers, or any names: sorted numerically, or by bytes) into one ±1 output per class, learned together (default measure multiclass-accuracy); at most 50 classes, integers or names (a continuous label is refused)")
	fs.StringVar(&f.Positive, "positive", "", "a two-class label (names or integers): the class that is +1, the other -1 (scikit-learn's pos_label); the model records both")
	fs.StringVar(&f.Report, "report", "", "write an HTML report (CV curve, predictions or ROC, per-query disagreement, summary) to this file")
	fs.BoolVar(&f.Quiet, "quiet", false, "no progress or notices on stderr (warnings and errors still print)")
	fs.BoolVar(&f.QueryNormalize, "query-normalize", false, "queryrank: weigh each query's pairs by 1/(its size), RLScore's convention (default: every pair weighs 1)")
	fs.IntVar(&f.Select, "select", 0, "greedy: the number K of features to select forward (the model keeps the best k ≤ K by the CV criterion)")
	fs.IntVar(&f.Clusters, "clusters", 2, "mmc: the number K of clusters, 2 ≤ K ≤ rows")
	fs.IntVar(&f.Restarts, "restarts", 0, "mmc: the number of starts from random balanced labellings seeded by --seed, after the --init start when given (without --init at least 1); the lowest objective is kept")
	fs.StringVar(&f.Init, "init", "", "mmc: a file of initial cluster indices 0 … K-1, one per row (the first start); interactive: the initial labels (default all 0)")
	fs.StringVar(&f.Fixed, "fixed", "", "mmc: a file of 0-based rows whose --init cluster the search never changes (RLScore's fixed_indices)")
	fs.StringVar(&f.Steps, "steps", "", "interactive: a file of steps, one per line — ws ROWS (0-based, commas, ranges a-b, or all), claim N CLASS, all CLASS, descend [LIMIT]; the JSON records the labels after each")
	fs.StringVar(&f.OuterFoldsArg, "outer-folds", "", "estimate the whole selection by an outer cross-validation: K folds drawn with --seed (whole queries for queryrank), or FILE, one fold per line as --folds (not greedy). "+
		"rls, globalrank, queryrank, prefrank: nested CV of the kernel × λ search, exact from one factorization per kernel setting (one per outer fold with --standardize or --gamma scale); "+
		"kronrls, twostep (K only, --cv rows, cols or both, no --standardize): K folds of the objects the setting holds out (both: K × K blocks); "+
		"JSON outer: value, se, interval at level 0.9 (mse, mae: Bates, Hastie & Tibshirani 2024; other measures: the folds' standard error), per_fold. greedy: the whole selection per outer fold")
	fs.BoolVar(&f.Stream, "stream", false, "larger than memory: read the data in passes (--data may be a pattern of gzip or plain shards, 'dir/part-*.svm.gz') and cross-validate from additive statistics; rls, globalrank and queryrank with the linear kernel or a fixed basis; cv none, loo, kfold:K, lgo or lqo")
	fs.StringVar(&f.FoldScore, "fold-score", "pooled", "k-fold and group CV: score the pooled predictions of all folds (pooled) or average the folds' scores (mean, as RLScore does)")
	fs.StringVar(&f.Choose, "choose", "best", "the rule that picks λ on the best kernel setting's curve: best (its best CV value) or 1se, the one-standard-error rule (glmnet's lambda.1se): the largest λ whose mean of per-fold values is within one standard error (sd/√K across the K folds) of the best mean; 1se needs folds (kfold:K and its kinds, lgo, lqo, --folds) or loo with mse or mae")
	fs.BoolVar(&f.LambdaPerOutput, "lambda-per-output", false, "rls with several label columns: each output gets the λ of its own CV curve (the measure on that output alone), all from one factorization, as scikit-learn's RidgeCV(alpha_per_target=True); the model holds each output's coefficients at its λ; JSON cv.best_per_output")
	fs.StringVar(&f.Rows, "rows", "", "kronrls, twostep, kronrank, kronsvm: the row objects (CSV with a header and no label column, svmlight with labels ignored, or with --kernel precomputed their kernel matrix)")
	fs.StringVar(&f.Cols, "cols", "", "kronrls, twostep, kronrank, kronsvm: the column objects, like --rows; same: the rows (a homogeneous network; not kronrank, kronsvm)")
	fs.StringVar(&f.Pairs, "pairs", "", "kronrls, twostep, kronrank, kronsvm: labelled pairs, one \"row col label\" per line (0-based indices into --rows and --cols; kronsvm: labels −1 and +1)")
	fs.StringVar(&f.ColKernel, "col-kernel", "", "kernel of the column objects (default: --kernel)")
	fs.Float64Var(&f.ColGamma, "col-gamma", 1, "gamma of the column kernel")
	fs.Float64Var(&f.ColBias, "col-bias", 1, "bias of the linear column kernel")
	fs.Float64Var(&f.ColCoef0, "col-coef0", 0, "coef0 of the polynomial column kernel")
	fs.IntVar(&f.ColDegree, "col-degree", 2, "degree of the polynomial column kernel")
	fs.StringVar(&f.ColGammaGrid, "col-gamma-grid", "", "grid SPEC of column-kernel gamma values searched with λ")
	fs.Float64Var(&f.ColLambda, "col-lambda", 0, "twostep: λ of the column step")
	fs.StringVar(&f.ColLambdaGrid, "col-lambda-grid", "", "twostep: grid SPEC of column λ values, searched jointly with --lambda-grid (default 2^-15..2^15)")
	fs.StringVar(&f.ColFolds, "col-folds", "", "kronrls, twostep: file of column folds (--cv cols or both)")
	fs.StringVar(&f.ValidationPairs, "validation-pairs", "", "kronrls on incomplete data: labelled pairs scored during conjugate gradients; the best iterate is kept and training stops when --patience iterations bring no improvement")
	fs.IntVar(&f.Patience, "patience", 30, "iterations without improvement on --validation-pairs before stopping")
	fs.StringVar(&f.Symmetry, "symmetry", "", "--cols same: symmetric (default) or antisymmetric Kronecker kernel")
	fs.StringVar(&f.PairKernel, "pair-kernel", "", "kronrls by conjugate gradients with a pairwise kernel: kronecker, cartesian, symmetric, antisymmetric, ranking (these three: --cols same) or sum (one λ, --cv none)")
	fs.StringVar(&f.PairKernelWeights, "pair-kernel-weights", "", "--pair-kernel sum: weights w1,w2,… ≥ 0 of the terms k_i⊗g_i, the kernels of the --kernel and --col-kernel grids in order (a side with one kernel shares it); several vectors w1,w2,…:w1',w2',… are a grid chosen by --cv rows[:K] or cols[:K]")
}

// gammaValue is the value of --gamma: its text, a number or scale, checked
// by New (parseGamma). Its type names the two forms in the help.
type gammaValue struct{ p *string }

// String returns the text of --gamma.
func (g gammaValue) String() string {
	if g.p == nil {
		return ""
	}
	return *g.p
}

// Set stores the text; New checks it.
func (g gammaValue) Set(s string) error { *g.p = s; return nil }

// Type names the value's forms in pflag's help.
func (gammaValue) Type() string { return "float|scale" }

// setValue replaces the Value of the flag fs.Lookup(name) returns (*flag.Flag
// and *pflag.Flag both have one; v satisfies both interfaces). A flag set
// without Lookup, or without the flag, is left alone.
func setValue(fs FlagSet, name string, v gammaValue) {
	lookup := reflect.ValueOf(fs).MethodByName("Lookup")
	if !lookup.IsValid() || lookup.Type().NumIn() != 1 || lookup.Type().NumOut() != 1 {
		return
	}
	fl := lookup.Call([]reflect.Value{reflect.ValueOf(name)})[0]
	if fl.Kind() != reflect.Pointer || fl.IsNil() || fl.Elem().Kind() != reflect.Struct {
		return
	}
	if d := fl.Elem().FieldByName("Value"); d.IsValid() && d.CanSet() && reflect.TypeOf(v).Implements(d.Type()) {
		d.Set(reflect.ValueOf(v))
	}
}

// setDefValue replaces the default a flag's help states: the DefValue field
// of the flag fs.Lookup(name) returns (*flag.Flag and *pflag.Flag both have
// it). A flag set without Lookup, or without the flag, is left alone.
func setDefValue(fs FlagSet, name, text string) {
	lookup := reflect.ValueOf(fs).MethodByName("Lookup")
	if !lookup.IsValid() || lookup.Type().NumIn() != 1 || lookup.Type().NumOut() != 1 {
		return
	}
	fl := lookup.Call([]reflect.Value{reflect.ValueOf(name)})[0]
	if fl.Kind() != reflect.Pointer || fl.IsNil() || fl.Elem().Kind() != reflect.Struct {
		return
	}
	if d := fl.Elem().FieldByName("DefValue"); d.IsValid() && d.CanSet() && d.Kind() == reflect.String {
		d.SetString(text)
	}
}

// InputFlags are the data-reading flags fit and predict share: --zero-based,
// --delimiter, --labels, --features and --ignore.
type InputFlags struct {
	// ZeroBased is auto, true or false; "" (predict): as the model records.
	ZeroBased string
	// Delimiter is auto or one character.
	Delimiter string
	// Labels is the labels file of .npy data.
	Labels string
	// Features and Ignore are --features and --ignore: comma-separated
	// column names, 1-based numbers, ranges and globs (dataset.Columns).
	Features, Ignore string
	// Classes reads the one label column as class labels
	// (dataset.CSVOptions.ClassLabels): set by --one-vs-all and --positive,
	// and by predict for a model with classes; not a flag.
	Classes bool
}

// Columns returns the feature columns --features and --ignore choose.
func (in InputFlags) Columns() dataset.Columns {
	return dataset.Columns{Features: splitColumns(in.Features), Ignore: splitColumns(in.Ignore)}
}

// splitColumns splits a comma-separated list of columns; nil for "". The
// items are kept as given (dataset.Columns trims them and refuses empty
// ones).
func splitColumns(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// columnsHelp is the help of --features; --ignore's refers to it.
const columnsHelp = "CSV, Parquet and NumPy data: the only feature columns, comma-separated: names, 1-based numbers, ranges (3-7) or globs (px_*; path.Match syntax); " +
	"NumPy arrays (.npz X, .npy) by number and range only; the label and --qid columns are never features; the model records the columns for predict"

// DefineInput defines --zero-based, --delimiter, --labels, --features and
// --ignore on fs; predict reads svmlight indices as the model records by
// default, and the feature columns the model records.
func DefineInput(fs FlagSet, in *InputFlags, predict bool) {
	def, help := "auto", "svmlight feature indices: auto (0-based when the smallest index in the file is 0, as scikit-learn's load_svmlight_file decides; else 1-based), true (0-based, what scikit-learn's dump_svmlight_file writes) or false (1-based); the model records it for predict"
	if predict {
		def, help = "", "svmlight feature indices: auto, true (0-based) or false (1-based) (default: as the model's training data were read)"
	}
	fs.StringVar(&in.ZeroBased, "zero-based", def, help)
	fs.StringVar(&in.Delimiter, "delimiter", "auto", "CSV field delimiter: auto (comma, semicolon or tab, whichever splits the header into the most fields), or one character (',', ';', tab)")
	fs.StringVar(&in.Labels, "labels", "", ".npy data: a .npy file of labels (1-D, or 2-D for several outputs), one per row of --data")
	features, ignore := columnsHelp, "columns that are not features, in the forms of --features (--ignore 1 drops the index column pandas' to_csv writes); with --features: its columns minus these"
	if predict {
		features = "feature columns, as for fit (default: those the model records, by name wherever they stand in the file; given, they must select the same columns)"
		ignore = "columns that are not features, as for fit (default: every column the model does not record)"
	}
	fs.StringVar(&in.Features, "features", "", features)
	fs.StringVar(&in.Ignore, "ignore", "", ignore)
}

// Base returns the svmlight index base the flags ask for; model is the base
// recorded in a model (predict), used when --zero-based is not given.
func (in InputFlags) Base(model *bool) (dataset.IndexBase, error) {
	if in.ZeroBased == "" {
		if model != nil && *model {
			return dataset.ZeroBased, nil
		}
		return dataset.OneBased, nil
	}
	b, err := dataset.ParseIndexBase(in.ZeroBased)
	if err != nil {
		return 0, fmt.Errorf("--zero-based %q: want auto, true or false", in.ZeroBased)
	}
	return b, nil
}

// Comma returns the CSV delimiter (0: detect from the header).
func (in InputFlags) Comma() (rune, error) {
	switch in.Delimiter {
	case "", "auto":
		return 0, nil
	case "tab", `\t`:
		return '\t', nil
	}
	r := []rune(in.Delimiter)
	if len(r) != 1 || r[0] == '"' || r[0] == '\n' || r[0] == '\r' {
		return 0, fmt.Errorf("--delimiter %q: want auto, tab or one character other than a quote or a line break", in.Delimiter)
	}
	return r[0], nil
}

// The value sets completed for the input flags fit and predict share.
var (
	// FormatValues completes --format.
	FormatValues = []string{"svmlight", "csv", "npy", "npz", "parquet"}
	// ZeroBasedValues completes --zero-based.
	ZeroBasedValues = []string{"auto", "true", "false"}
	// DelimiterValues completes --delimiter.
	DelimiterValues = []string{"auto", ",", ";", "tab"}
)

// Completions returns the values completed for the flags of a fit that take
// one of a few words, by flag name.
func Completions() map[string][]string {
	return map[string][]string{
		"learner": learnerValues(), "kernel": kernel.Names(), "gamma": {"scale"}, "col-kernel": kernel.Names(), "measure": measure.Names(),
		"cv":     {"none", "loo", "kfold:5", "kfold:10", "stratified-kfold:5", "repeated-kfold:5x3", "group-kfold:5", "lgo", "lqo", "lpo", "rows", "cols", "both", "vertices"},
		"format": FormatValues, "zero-based": ZeroBasedValues, "delimiter": DelimiterValues,
		"cost": {"unit", "magnitude", "inverse"}, "solver": {"direct", "cg"},
		"basis-select": {"random", "greedy", "per-group"}, "basis-holdout": {"remove", "keep", "skip"},
		"basis-design": {"1", "2", "3"}, "fold-score": {"pooled", "mean"}, "choose": {"best", "1se"}, "symmetry": {"symmetric", "antisymmetric"}, "interval": IntervalValues,
		"pair-kernel": pairKernelNames(),
	}
}

// FileFlags are the flags of a fit (Define) whose values are file names.
var FileFlags = []string{"data", "labels", "folds", "basis-rows", "preferences", "weights", "model", "cv-predictions", "report", "curves",
	"rows", "cols", "pairs", "col-folds", "validation-pairs", "outer-folds", "init", "steps", "fixed"}

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
