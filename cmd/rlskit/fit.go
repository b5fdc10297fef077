package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/report"
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
	queryNormalize             bool
	foldScore                  string
	selectK, outerFolds        int
	stream                     bool       // cmd/rlskit/stream.go
	in                         inputFlags // --zero-based, --delimiter, --labels (input.go)
	// pairwise learners (cmd/rlskit/pairwise.go)
	rows, cols, pairs, colKernel string
	colGamma, colBias, colCoef0  float64
	colDegree, patience          int
	colGammaGrid, colLambdaGrid  string
	colLambda                    float64
	colFolds, validationPairs    string
	symmetry                     string
	// command is the command line as parsed (the flags given, sorted by
	// name), recorded in the report's provenance.
	command string
	// pretty prints the summary as a table; prettySet says --pretty was given
	// (else the table is printed when standard output is a terminal).
	pretty, prettySet bool
}

func newFit(e *env) *cobra.Command {
	f := &fitFlags{}
	cmd := &cobra.Command{
		Use:   "fit --data FILE --learner rls --kernel KERNEL (--lambda L | --lambda-grid SPEC) [flags]",
		Short: "Train a model and select λ (and kernel parameters) by exact cross-validation",
		Long: `fit trains a regularized least-squares model and cross-validates it along a λ grid
with the exact shortcuts: one factorization, then every λ and every fold is cheap.

It prints one JSON object: learner, kernel, lambda, n_train and
cv: {strategy, measure, curve: [{lambda, value}], best: {lambda, value, on_edge}}
— as a table instead with --pretty, the default when standard output is a
terminal. Progress goes to stderr by phases (kernel matrix, eigendecomposition,
λ path and CV) with an ETA. Exit status 2 for a usage error, 1 for a failure.

SPEC is comma-separated values (0.1,1,10) or a base-2 range 2^a..2^b.
--cv is none, loo, kfold:K (seeded by --seed), lgo (leave-group-out over the
query/group ids) or lpo (leave-pair-out: positive–negative pairs for auc, all
pairs with different labels for cindex); --folds FILE reads one fold per line.`,
		Example: `  # gaussian kernel ridge regression: γ and λ by exact leave-one-out, model and report
  rlskit fit --data train.csv --label y --kernel gaussian --gamma-grid 2^-12..2^-2 \
      --lambda-grid 2^-10..2^10 --cv loo --standardize --model m.json --report r.html

  # learning to rank within queries (svmlight qid:), leave-query-out
  rlskit fit --data letor.svm.gz --learner queryrank --cv lqo

  # AUC by leave-pair-out, 10-fold as RLScore scores it, multi-class one-vs-all
  rlskit fit --data d.csv --label cls --cv lpo --measure auc
  rlskit fit --data d.csv --label y --cv kfold:10 --fold-score mean
  rlskit fit --data iris.csv --label species --one-vs-all --kernel gaussian --gamma 0.5

  # larger than memory, greedy feature selection, pairwise (Kronecker) learning
  rlskit fit --stream --data 'shards/part-*.svm.gz' --cv kfold:10
  rlskit fit --data d.csv --label y --learner greedy --select 20
  rlskit fit --learner kronrls --rows drugs.csv --cols targets.csv --pairs pairs.txt --kernel gaussian`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runFit(cmd, e, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.data, "data", "", "training data file (svmlight, CSV, .npy, .npz or Parquet, any of them gzipped; - for standard input)")
	fl.StringVar(&f.format, "format", "", "data format: svmlight, csv, npy, npz or parquet (default: from the file name, .csv/.tsv, .npy, .npz, .parquet/.pq, else svmlight; .gz looked through)")
	addInputFlags(fl, &f.in, false)
	fl.StringVar(&f.label, "label", "", "CSV or Parquet label column(s), or .npz label array(s) (default y), comma-separated (several give a multi-output model)")
	fl.StringVar(&f.qid, "qid", "", "CSV or Parquet query/group column, or .npz array")
	fl.StringVar(&f.learner, "learner", "rls", learnerHelp())
	fl.StringVar(&f.preferences, "preferences", "", "prefrank: file of preferences \"i j [magnitude [weight]]\", 0-based rows, i preferred over j")
	fl.StringVar(&f.cost, "cost", "magnitude", "prefrank cost: unit (20), magnitude (21) or inverse (22)")
	fl.StringVar(&f.kernel, "kernel", "linear", "kernel: linear, gaussian, polynomial or precomputed")
	fl.Float64Var(&f.gamma, "gamma", 1, "gamma of the gaussian and polynomial kernels")
	fl.Float64Var(&f.bias, "bias", 1, "bias of the linear kernel, k(x,z) = x·z + bias")
	fl.Lookup("bias").DefValue = "1 for rls and greedy, 0 for the rankers" // one default, stated once
	fl.Float64Var(&f.coef0, "coef0", 0, "coef0 of the polynomial kernel")
	fl.IntVar(&f.degree, "degree", 2, "degree of the polynomial kernel")
	fl.StringVar(&f.gammaGrid, "gamma-grid", "", "grid SPEC of gamma values searched with λ")
	fl.StringVar(&f.degreeGrid, "degree-grid", "", "grid of polynomial degrees searched with λ")
	fl.StringVar(&f.coef0Grid, "coef0-grid", "", "grid SPEC of coef0 values searched with λ")
	fl.IntVar(&f.basis, "basis", 0, "sparse model: number of basis vectors drawn at random (seeded by --seed)")
	fl.StringVar(&f.basisRows, "basis-rows", "", "sparse model: file of 0-based basis row indices")
	fl.StringVar(&f.basisSelect, "basis-select", "random", "how --basis N vectors are chosen: random, greedy (Pahikkala, Suominen & Boberg 2012, Algorithm 1) or per-group (one per query/group; no N)")
	fl.Float64Var(&f.greedyLambda, "greedy-lambda", 1, "λ at which greedy basis selection measures the training error")
	fl.StringVar(&f.basisHoldOut, "basis-holdout", "", "sparse models: held-out basis vectors are removed from the basis (remove, default for folds), kept (keep, default for loo), or for loo skipped (skip)")
	fl.IntVar(&f.basisDesign, "basis-design", 0, "sparse k-fold design of Pahikkala, Suominen & Boberg 2012 sect. 6.2: 1 spreads the basis over the folds, 2 keeps it out of every fold, 3 draws a new random basis per fold (retrains)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed (folds, basis)")
	fl.Float64Var(&f.lambda, "lambda", 0, "regularization parameter λ")
	fl.StringVar(&f.lambdaGrid, "lambda-grid", "", "grid SPEC of λ values (default 2^-15..2^15)")
	fl.StringVar(&f.cv, "cv", "", "cross-validation: none, loo, kfold:K, lgo/lqo (leave-group/query-out) or lpo (default loo)")
	fl.StringVar(&f.folds, "folds", "", "file of folds, one per line (0-based row indices)")
	fl.StringVar(&f.measure, "measure", "", "measure: "+strings.Join(measure.Names(), ", ")+" (default: rls mse, auc with lpo; queryrank disagreement; other rankers cindex)")
	fl.StringVar(&f.modelOut, "model", "", "write the model selected to this file (JSON)")
	fl.StringVar(&f.cvPredictionsOut, "cv-predictions", "", "write the CV predictions at the best λ to this file")
	fl.BoolVar(&f.standardize, "standardize", false, "standardize features: dense data (CSV, NumPy, Parquet, and svmlight whose rows store at least half of all features) to mean 0 and sd 1 per feature; sparser svmlight data divided by each feature's root mean square, not centred (keeps the zeros); stored in the model (scaler.centered)")
	fl.StringVar(&f.solver, "solver", "direct", "direct (factor once: exact λ path and CV) or cg (matrix-free conjugate gradient for the linear kernel on large sparse data; --cv none, one --lambda)")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "cg: iteration cap")
	fl.Float64Var(&f.tol, "tol", 1e-6, "cg: relative residual at which to stop")
	fl.IntVar(&f.permutations, "permutations", 0, "permutation test: learn P label permutations as extra outputs of the same model and cross-validate them in the same pass (seeded by --seed)")
	fl.BoolVar(&f.oneVsAll, "one-vs-all", false, "multi-class: turn the class-label column into one ±1 output per class, learned together (default measure multiclass-accuracy)")
	fl.StringVar(&f.reportOut, "report", "", "write an HTML report (CV curve, predictions or ROC, per-query disagreement, summary) to this file")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fl.BoolVar(&f.pretty, "pretty", false, "print the summary as a table for people instead of JSON (--pretty=false forces JSON)")
	fl.Lookup("pretty").DefValue = "true on a terminal, else false"
	fl.BoolVar(&f.queryNormalize, "query-normalize", false, "queryrank: weigh each query's pairs by 1/(its size), RLScore's convention (default: every pair weighs 1)")
	fl.IntVar(&f.selectK, "select", 0, "greedy: the number K of features to select forward (the model keeps the best k ≤ K by the CV criterion)")
	fl.IntVar(&f.outerFolds, "outer-folds", 0, "greedy: estimate the whole selection by an outer K-fold cross-validation (seeded by --seed)")
	fl.BoolVar(&f.stream, "stream", false, "larger than memory: read the data in passes (--data may be a pattern of gzip or plain shards, 'dir/part-*.svm.gz') and cross-validate from additive statistics; rls, globalrank and queryrank with the linear kernel or a fixed basis; cv none, loo, kfold:K, lgo or lqo")
	fl.StringVar(&f.foldScore, "fold-score", "pooled", "k-fold and group CV: score the pooled predictions of all folds (pooled) or average the folds' scores (mean, as RLScore does)")
	fl.StringVar(&f.rows, "rows", "", "kronrls, twostep: the row objects (CSV with a header and no label column, svmlight with labels ignored, or with --kernel precomputed their kernel matrix)")
	fl.StringVar(&f.cols, "cols", "", "kronrls, twostep: the column objects, like --rows; same: the rows (a homogeneous network)")
	fl.StringVar(&f.pairs, "pairs", "", "kronrls, twostep: labelled pairs, one \"row col label\" per line (0-based indices into --rows and --cols)")
	fl.StringVar(&f.colKernel, "col-kernel", "", "kernel of the column objects (default: --kernel)")
	fl.Float64Var(&f.colGamma, "col-gamma", 1, "gamma of the column kernel")
	fl.Float64Var(&f.colBias, "col-bias", 1, "bias of the linear column kernel")
	fl.Float64Var(&f.colCoef0, "col-coef0", 0, "coef0 of the polynomial column kernel")
	fl.IntVar(&f.colDegree, "col-degree", 2, "degree of the polynomial column kernel")
	fl.StringVar(&f.colGammaGrid, "col-gamma-grid", "", "grid SPEC of column-kernel gamma values searched with λ")
	fl.Float64Var(&f.colLambda, "col-lambda", 0, "twostep: λ of the column step")
	fl.StringVar(&f.colLambdaGrid, "col-lambda-grid", "", "twostep: grid SPEC of column λ values, searched jointly with --lambda-grid (default 2^-15..2^15)")
	fl.StringVar(&f.colFolds, "col-folds", "", "kronrls, twostep: file of column folds (--cv cols or both)")
	fl.StringVar(&f.validationPairs, "validation-pairs", "", "kronrls on incomplete data: labelled pairs scored during conjugate gradients; the best iterate is kept and training stops when --patience iterations bring no improvement")
	fl.IntVar(&f.patience, "patience", 30, "iterations without improvement on --validation-pairs before stopping")
	fl.StringVar(&f.symmetry, "symmetry", "", "--cols same: symmetric (default) or antisymmetric Kronecker kernel")
	completeValues(cmd, map[string][]string{
		"learner": learnerValues(), "kernel": kernelValues(), "col-kernel": kernelValues(), "measure": measureValues(),
		"cv":     {"none", "loo", "kfold:5", "kfold:10", "lgo", "lqo", "lpo", "rows", "cols", "both", "vertices"},
		"format": formatValues, "zero-based": zeroBasedValues, "delimiter": delimiterValues,
		"cost": {"unit", "magnitude", "inverse"}, "solver": {"direct", "cg"},
		"basis-select": {"random", "greedy", "per-group"}, "basis-holdout": {"remove", "keep", "skip"},
		"basis-design": {"1", "2", "3"}, "fold-score": {"pooled", "mean"}, "symmetry": {"symmetric", "antisymmetric"},
	})
	markFiles(cmd, "data", "labels", "folds", "basis-rows", "preferences", "model", "cv-predictions", "report",
		"rows", "cols", "pairs", "col-folds", "validation-pairs")
	return cmd
}

// runFit orchestrates fit: plan (flags) → read → search → write.
func runFit(cmd *cobra.Command, e *env, f *fitFlags) error {
	start := time.Now()
	f.command = commandLine(cmd)
	f.prettySet = cmd.Flags().Changed("pretty")
	p, err := planFit(f, cmd.Flags().Changed)
	if err != nil {
		return usage(err)
	}
	if p.pairwise != nil {
		return runPairwise(e, f, p.pairwise, start)
	}
	if p.learner.name == greedy.Name {
		return runGreedy(e, f, p, start)
	}
	if f.stream {
		return runStream(e, f, p, start)
	}
	// Outputs are checked before any work and committed together after it.
	var (
		out  fitOutput
		res  *selection.SearchResult
		rd   report.Data
		outs = dataset.Outputs{Stdout: e.stdout}
	)
	outs.Add("--model", f.modelOut, func(w io.Writer) error { return res.Predictor.Save(w) })
	outs.Add("--cv-predictions", f.cvPredictionsOut, func(w io.Writer) error {
		return writeCVPredictions(w, res.Curves[res.Best].Result, res.Learner.Labels(), outputColumns(res.Predictor))
	})
	outs.Add("--report", f.reportOut, func(w io.Writer) error { return report.Write(w, rd) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.data, f.folds, f.basisRows, f.preferences); err != nil {
		return err
	}
	d, err := readData(e, f.data, f.format, f.label, f.qid, 0, f.in)
	if err != nil {
		return err
	}
	in, classes, err := trainingInput(f, p, d)
	if err != nil {
		return err
	}
	m, width := d.X.Dims()
	scheme, err := fitScheme(f, p, d, in.Basis)
	if err != nil {
		return err
	}
	loaded := time.Now()
	if f.solver == "cg" {
		return runCG(e, f, p, d, start, loaded)
	}

	prog := newProgress(e.stderr, f.quiet)
	defer prog.done()
	if !f.quiet { // the phases' estimates cost a calibration run: only when shown
		in.Observe = prog.phase
	}
	prob := selection.Problem{Learner: p.learner.Descriptor, Input: in, Standardize: f.standardize}
	if f.basisDesign == 3 {
		prob.Retrain = func(x mat.Matrix, k kernel.Kernel) selection.Retrainer {
			return selection.RandomBasisPerFold(x, d.Y, k, f.basis, f.seed)
		}
	}
	res, err = selection.Search(prob, selection.Settings{Kernels: p.specs, Lambdas: p.grid, Scheme: scheme, Measure: p.meas,
		Options: selection.Options{Queries: d.Queries}, Permutations: f.permutations, Seed: f.seed, Progress: prog.step})
	if err != nil {
		return err
	}
	best := res.Curves[res.Best].Result
	if best.Best.Indistinguishable && !f.quiet {
		fmt.Fprintf(e.stderr, "rlskit: warning: at the chosen point (%s, λ = %g) the CV predictions are numerically indistinguishable — the kernel tells the rows apart by rounding noise only; %s counts them as ties\n",
			res.Kernel, res.Lambda, p.meas.Name)
	}
	pred := res.Predictor
	pred.Features, pred.ZeroBased = d.FeatureNames, d.ZeroBased
	if classes != nil {
		pred.Classes, pred.ClassLabel = classes.labels, classes.column
	}

	out = fitOutput{Learner: string(p.learner.name), Kernel: res.Kernel, Form: formOf(res.Learner), Lambda: res.Lambda,
		NTrain: m, NFeatures: width, Outputs: d.LabelNames, NBasis: len(basisOf(res.Learner)), Backend: linalg.Backend()}
	if d.Queries != nil {
		out.Queries = queryStats(d)
	}
	if pr := res.Permutation; pr != nil {
		out.Perm = &permOutput{Permutations: pr.Permutations, PValue: pr.PValue, Real: pr.Real, NullMean: pr.NullMean, NullSD: pr.NullSD}
	}
	var curves []curvePoint
	for _, c := range res.Curves {
		for _, pt := range c.Curve {
			curves = append(curves, point(pt, c.Kernel, len(res.Curves) > 1))
		}
	}
	if scheme.Kind != selection.None {
		out.CV = &cvOutput{Strategy: scheme.Name, Measure: p.meas.Name, Curve: curves,
			Best: point(best.Best, res.Kernel, len(res.Curves) > 1), BasisHoldOut: f.basisHoldOut}
		out.CV.Best.OnEdge = res.OnEdge
		for _, edge := range res.OnEdge {
			if !f.quiet {
				fmt.Fprintf(e.stderr, "rlskit: warning: the chosen %s is the %s end of its grid; the best value may lie beyond it: widen the grid\n",
					edge.Parameter, map[string]string{"low": "lower", "high": "upper"}[edge.Side])
			}
		}
	}
	out.Timing = timing{Load: loaded.Sub(start).Seconds(), Train: res.Train.Seconds(), CV: res.CV.Seconds(),
		Total: time.Since(start).Seconds()}

	if f.reportOut != "" {
		rd = reportData(f, d, &out, p.meas, res, scheme, classes)
	}
	return finish(e, f, &outs, prog, out)
}

// finish commits the outputs and prints the summary — JSON, or with --pretty
// (the default when it goes to a terminal) a table — on standard output, or on
// stderr when an output file is written to standard output ("-").
func finish(e *env, f *fitFlags, outs *dataset.Outputs, prog *progress, summary any) error {
	if err := outs.Commit(); err != nil {
		return err
	}
	prog.done()
	w := e.stdout
	if f.modelOut == "-" || f.cvPredictionsOut == "-" || f.reportOut == "-" {
		w = e.stderr
	}
	if prettyChoice(f.prettySet, f.pretty, w) {
		return writeTable(w, summary)
	}
	return json.NewEncoder(w).Encode(summary)
}

// outputColumns names the CV prediction columns: the outputs, and for a
// one-vs-all model "label=class" (the one-vs-rest score of each class).
func outputColumns(p *model.Predictor) []string {
	if p.ClassLabel == "" {
		return p.Outputs
	}
	out := make([]string, len(p.Outputs))
	for i, o := range p.Outputs {
		out[i] = p.ClassLabel + "=" + o
	}
	return out
}

// labelHint says how to give labels for data in this format.
func labelHint(path, format string) string {
	switch fm, _ := dataFormat(path, format); fm {
	case "npy":
		return "give them as a .npy file with --labels y.npy"
	case "npz":
		return "name the label array(s) with --label, or give --labels y.npy"
	case "svmlight":
		return "an svmlight line starts with its label"
	}
	return "name the label column(s) with --label"
}

// classInfo records a one-vs-all model's classes.
type classInfo struct {
	labels []float64
	column string
}

// trainingInput checks the data against the plan and gathers what the
// learner's method needs: labels (one ±1 output per class with --one-vs-all),
// queries, the preference graph and the basis.
func trainingInput(f *fitFlags, p *fitPlan, d *dataset.Data) (*learn.Input, *classInfo, error) {
	le := p.learner
	graph := le.Needs.Has(learn.NeedsGraph)
	if d.Y == nil && (!graph || p.cvSpec != "none") {
		return nil, nil, fmt.Errorf("%s: no labels (%s)", f.data, labelHint(f.data, f.format))
	}
	var classes *classInfo
	if f.oneVsAll {
		if _, t := d.Y.Dims(); t != 1 {
			return nil, nil, fmt.Errorf("--one-vs-all takes one class-label column, %s has %d", f.data, t)
		}
		y, cl, err := dataset.OneVsAll(mat.Col(nil, 0, d.Y))
		if err != nil {
			return nil, nil, fmt.Errorf("--one-vs-all: %w", err)
		}
		classes = &classInfo{labels: cl, column: d.LabelNames[0]}
		d.Y, d.LabelNames = y, dataset.ClassNames(cl)
	}
	if le.Needs.Has(learn.NeedsGroups) && d.Queries == nil {
		return nil, nil, fmt.Errorf("--learner %s needs query ids (qid: in svmlight, --qid in CSV)", le.name)
	}
	if p.meas.NeedsQueries && d.Queries == nil {
		return nil, nil, fmt.Errorf("--measure %s needs query ids (qid: in svmlight, --qid in CSV)", p.meas.Name)
	}
	if f.permutations > 0 {
		if _, t := d.Y.Dims(); t != 1 {
			return nil, nil, fmt.Errorf("--permutations takes one label column, %s has %d", f.data, t)
		}
		if mp := selection.MaxPermutations(d.Rows()); f.permutations > mp {
			return nil, nil, fmt.Errorf("--permutations %d: at most %d for %d rows (every permutation is an output held in memory)", f.permutations, mp, d.Rows())
		}
	}
	in := &learn.Input{X: d.X, Y: d.Y, Outputs: d.LabelNames, Groups: d.Queries}
	if le.Takes(learn.ParamCost) {
		in.Cost = f.cost
	}
	if le.Takes(learn.ParamQueryNormalize) {
		in.QueryNormalize = f.queryNormalize
	}
	if le.Takes(learn.ParamSelect) {
		in.Select = f.selectK
	}
	if graph {
		prefs, err := readFile(f.preferences, func(r io.Reader) ([]dataset.Preference, error) {
			return dataset.ReadPreferences(r, f.preferences, d.Rows())
		})
		if err != nil {
			return nil, nil, err
		}
		for _, pr := range prefs {
			in.Graph = append(in.Graph, learn.Edge{I: pr.I, J: pr.J, Magnitude: pr.Magnitude, Weight: pr.Weight})
		}
		if d.Y != nil {
			if _, t := d.Y.Dims(); t != 1 {
				return nil, nil, fmt.Errorf("--learner %s has one output; %s has %d label columns", le.name, f.data, t)
			}
		}
	}
	m, width := d.X.Dims()
	if p.specs[0].Name == "precomputed" && m != width {
		return nil, nil, fmt.Errorf("%s: a precomputed kernel matrix must be square, got %d rows and %d columns", f.data, m, width)
	}
	var err error
	if in.Basis, err = chooseBasis(f, d, m); err != nil {
		return nil, nil, err
	}
	if f.basisSelect == "greedy" {
		in.ChooseBasis = greedyBasis(d.Y, f.basis, f.greedyLambda, f.seed)
	}
	return in, classes, nil
}

// fitScheme builds the cross-validation scheme of the plan for the data.
func fitScheme(f *fitFlags, p *fitPlan, d *dataset.Data, basis []int) (selection.Scheme, error) {
	o := selection.SchemeOptions{Rows: d.Rows(), Seed: f.seed, Groups: d.Queries, Labels: d.Y, Basis: basis,
		Design: f.basisDesign, Policy: p.policy, PairsWithinGroups: p.learner.Needs.Has(learn.NeedsGroups) && d.Y != nil, FoldMean: f.foldScore == "mean"}
	if p.cvKind == "folds" {
		folds, err := readFile(f.folds, func(r io.Reader) ([][]int, error) { return dataset.ReadFolds(r, f.folds, d.Rows()) })
		if err != nil {
			return selection.Scheme{}, err
		}
		o.Folds, o.FoldsName = folds, f.folds
	}
	sc, err := selection.NewScheme(p.cvSpec, o)
	if err != nil {
		flag := "--cv " + p.cvSpec
		if p.cvKind == "folds" {
			flag = "--folds " + f.folds
		}
		return sc, fmt.Errorf("%s: %w", flag, err)
	}
	return sc, nil
}

// formOf names the form the learner factored its kernel matrix in.
func formOf(l any) string {
	if f, ok := l.(interface{ Form() factor.Form }); ok {
		return f.Form().String()
	}
	return ""
}

// basisOf returns the basis rows of a sparse learner (nil otherwise).
func basisOf(l any) []int {
	if b, ok := l.(interface{ Basis() []int }); ok {
		return b.Basis()
	}
	return nil
}

// commandLine renders the command as parsed: its path and every flag given
// (sorted by name, values shell-quoted where needed): the same command again.
func commandLine(cmd *cobra.Command) string {
	parts := []string{cmd.CommandPath()}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		switch v := fl.Value.String(); {
		case fl.Value.Type() == "bool" && v == "true":
			parts = append(parts, "--"+fl.Name)
		case fl.Value.Type() == "bool":
			parts = append(parts, "--"+fl.Name+"="+v)
		default:
			parts = append(parts, "--"+fl.Name, shellQuote(v))
		}
	})
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell unless it needs no quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,^=+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
