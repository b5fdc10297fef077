package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// fitFlags are fit's flags: those of package plan (every learner's, shared
// with rlskit-beam) and the command line's own.
type fitFlags struct {
	plan.Flags
	// command is the command line as parsed (the flags given, sorted by
	// name), recorded in the report's provenance.
	command string
	// inputs are the values of every input file flag (inputFiles).
	inputs []string
	// pretty prints the summary as a table; prettySet says --pretty was given
	// (else the table is printed when standard output is a terminal).
	pretty, prettySet bool
	// weights are the sample weights read from the data's column that
	// --weights names (weightColumn); nil for a file of weights.
	weights []float64
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

SPEC is comma-separated values (0.1,1,10, powers 2^e and 10^e allowed), a
power range 2^a..2^b or 10^a..10^b, or N log-spaced points a..b:N.
--cv is none, loo, kfold:K, stratified-kfold:K, repeated-kfold:KxR,
group-kfold:K (the k-fold kinds seeded by --seed; groups from --qid), lgo or
lqo (leave-group-out over the --qid groups), lpo (leave-pair-out:
positive–negative pairs for auc, all pairs with different labels for cindex),
or for learners of pairs rows, cols, both, pairs (settings A–D) and vertices;
--folds FILE reads one fold per line. --outer-folds K (or FILE) adds a
nested cross-validation of the whole search: JSON outer: {value, se, interval}.`,
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
  rlskit fit --learner kronrls --rows drugs.csv --cols targets.csv --pairs pairs.txt --kernel gaussian
  rlskit fit --learner kronsvm --rows drugs.csv --cols targets.csv --pairs binding.txt --lambda 0.1 --model svm.json

  # no labels: maximum margin clustering into 3 clusters (best of 5 starts); an interactive
  # labelling session, its steps in a file (docs/clustering.md)
  rlskit fit --data d.csv --learner mmc --kernel gaussian --clusters 3 --restarts 5 --model clusters.json
  rlskit fit --data d.csv --learner interactive --clusters 2 --steps steps.txt`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runFit(cmd, e, f) },
	}
	fl := cmd.Flags()
	plan.Define(fl, &f.Flags)
	fl.BoolVar(&f.pretty, "pretty", false, "print the summary as a table for people instead of JSON (--pretty=false forces JSON)")
	fl.Lookup("pretty").DefValue = "true on a terminal, else false"
	completeValues(cmd, plan.Completions())
	markFiles(cmd, plan.FileFlags...)
	return cmd
}

// runFit orchestrates fit: plan (flags) → read → search → write.
func runFit(cmd *cobra.Command, e *env, f *fitFlags) error {
	start := time.Now()
	f.command = commandLine(cmd)
	f.inputs = inputFiles(cmd)
	f.prettySet = cmd.Flags().Changed("pretty")
	p, err := plan.New(&f.Flags, cmd.Flags().Changed)
	if err != nil {
		return usage(err) // every error of plan.New is a usage error
	}
	if err := checkCurves(f, p); err != nil {
		return usage(err)
	}
	if f.Positive != "" && (p.Pairwise != nil || f.Stream || p.Learner.Takes(learn.ParamSelect)) {
		return usage(fmt.Errorf("--positive %s applies to a label read whole by fit (not --stream, --learner greedy or a pairwise learner)", f.Positive))
	}
	if p.Pairwise != nil {
		return runPairwise(e, f, p.Pairwise, start)
	}
	if p.Learner.Takes(learn.ParamSelect) { // greedy forward selection: its own search
		return runGreedy(e, f, p, start)
	}
	if p.Learner.Takes(learn.ParamClusters) { // clustering: no labels, no search
		return runCluster(e, f, p, start)
	}
	if f.Stream {
		return runStream(e, f, p, start)
	}
	// Outputs are checked before any work and committed together after it.
	var (
		res  *selection.SearchResult
		rd   report.Data
		outs = dataset.Outputs{Stdout: e.stdout}
	)
	outs.Add("--model", f.Model, func(w io.Writer) error { return res.Predictor.Save(w) })
	outs.Add("--cv-predictions", f.CVPredictions, func(w io.Writer) error {
		return writeCVPredictions(w, chosenResult(res), res.Learner.Labels(), outputColumns(res.Predictor))
	})
	outs.Add("--report", f.Report, func(w io.Writer) error { return report.Write(w, rd) })
	var curves *curveTable
	outs.Add("--curves", f.Curves, func(w io.Writer) error { return curves.write(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.inputs...); err != nil {
		return err
	}
	f.In.Classes = f.OneVsAll || f.Positive != ""
	wcol, err := weightColumn(f)
	if err != nil {
		return err
	}
	dataIn := f.In
	if wcol != "" { // the weight column is not a feature
		if strings.TrimSpace(dataIn.Ignore) != "" {
			dataIn.Ignore += ","
		}
		dataIn.Ignore += wcol
	}
	d, err := readData(e, f.Data, f.Format, f.Label, f.Qid, 0, dataIn)
	if err != nil {
		if wcol != "" && errors.Is(err, dataset.ErrUnknownColumn) && strings.Contains(err.Error(), strconv.Quote(wcol)) {
			return fmt.Errorf("--weights %s: no such file, nor a column of %s: %w", wcol, f.Data, err)
		}
		return err
	}
	if wcol != "" {
		if f.weights, err = readWeightColumn(f, wcol, d.Rows()); err != nil {
			return err
		}
	}
	in, classes, err := trainingInput(f, p, d)
	if err != nil {
		return err
	}
	if f.ROC != "" { // the label and the memory, before the search
		if _, err := checkROC(f.ROC, f.Data, d.Y); err != nil {
			return err
		}
	}
	if _, t := d.Y.Dims(); f.LambdaPerOutput && t < 2 {
		return fmt.Errorf("--lambda-per-output chooses a λ for each of several label columns: %s has %d", f.Data, t)
	}
	scheme, err := fitScheme(f, p, d, in.Basis)
	if err != nil {
		return err
	}
	loaded := time.Now()
	if f.Solver == "cg" {
		return runCG(e, f, p, d, in, start, loaded)
	}

	prog := newProgress(e.stderr, f.Quiet)
	defer prog.done()
	prog.grid(p.Kernels, nil, len(p.Lambdas), 0)
	if !f.Quiet { // the phases' estimates cost a calibration run: only when shown
		in.Observe = prog.observe
	}
	prob := selection.Problem{Learner: p.Learner, Input: in, Standardize: f.Standardize}
	if f.BasisDesign == 3 {
		prob.Retrain = func(x mat.Matrix, k kernel.Kernel) selection.Retrainer {
			return selection.RandomBasisPerFold(x, d.Y, k, f.Basis, f.Seed)
		}
	}
	res, err = selection.Search(prob, selection.Settings{Kernels: p.Kernels, GammaScale: p.GammaScale, Lambdas: p.Lambdas, Scheme: scheme, Measure: p.Measure,
		Choose: f.Choose, LambdaPerOutput: f.LambdaPerOutput,
		Options: selection.Options{Queries: d.Queries}, Permutations: f.Permutations, Seed: f.Seed, Progress: prog.observe})
	if err != nil {
		return err
	}
	best := res.Curves[res.Best].Result
	if best.Best.Indistinguishable { // warnings print with --quiet too
		fmt.Fprintf(e.stderr, "rlskit: warning: at the chosen point (%s, λ = %g) the CV predictions are numerically indistinguishable — the kernel tells the rows apart by rounding noise only; %s counts them as ties\n",
			res.Kernel, res.Lambda, p.Measure.Name)
	}
	if res.Degenerate != kernel.NotDegenerate { // printed with --quiet too
		fmt.Fprintln(e.stderr, degenerateWarning(res.Kernel, res.Degenerate))
	}
	pred := res.Predictor
	pred.Features, pred.FeatureColumns, pred.ZeroBased = d.FeatureNames, arrayColumns(d), d.ZeroBased
	if f.Interval != "" {
		if err := interval.FromSearch(f.Interval, pred, res, scheme); err != nil {
			return err
		}
	}
	if classes != nil {
		classes.record(pred)
	}

	out := summary.Search(string(p.Learner.Name), d, res, scheme, p.Measure, f.BasisHoldOut)
	if f.ROC != "" { // tournament leave-pair-out at the chosen λ
		if out.ROC, err = tournamentROC(f.ROC, f.Data, res); err != nil {
			return err
		}
	}
	if f.OuterFoldsArg != "" { // nested cross-validation of the same search
		if out.Outer, err = nestedOuter(f, p, d, prob, scheme, res, prog); err != nil {
			return err
		}
	}
	if out.CV != nil {
		curves = fitCurveTable(out.CV, out.Kernel)
	}
	if out.CV != nil { // warnings print with --quiet too
		edgeWarnings(e, res.OnEdge)
	}
	out.Timing = summary.Timing{Load: loaded.Sub(start).Seconds(), Train: res.Train.Seconds(), CV: res.CV.Seconds(),
		Total: time.Since(start).Seconds()}
	if f.Report != "" {
		rd = report.Search(out, res, d, scheme, p.Measure, reportOptions(f, "rlskit fit: ", classes.oneVsAll()))
	}
	return finish(e, f, &outs, prog, out)
}

// chosenResult is the best kernel setting's curve with the CV predictions
// of the model chosen (selection.SearchResult.ChosenPredictions: --choose
// 1se, --lambda-per-output) in place of those at its best point.
func chosenResult(res *selection.SearchResult) *selection.Result {
	r := res.Curves[res.Best].Result
	if res.ChosenPredictions == nil {
		return r
	}
	c := *r
	c.Predictions, c.Tolerance = res.ChosenPredictions, res.ChosenTolerance
	return &c
}

// degenerateWarning says that the chosen kernel's matrix is numerically the
// identity or a constant (selection.SearchResult.Degenerate) and what to
// change: the kernel's scale, not λ.
func degenerateWarning(spec kernel.Spec, d kernel.Degeneracy) string {
	what, fix := "the identity (K ≈ I: each training row is similar only to itself, so predictions away from them are about 0)", "smaller"
	if d == kernel.Constant {
		what, fix = "a constant (K ≈ c·11ᵀ: the kernel sees no difference between the training rows)", "larger"
	}
	hint := "give --standardize"
	if spec.Name == "gaussian" || spec.Name == "polynomial" {
		hint = fmt.Sprintf("gamma = %g does not suit the data's scale: give --standardize, --gamma scale (1/(d·Var X)) or a --gamma-grid of %s values", spec.Gamma, fix)
	}
	return fmt.Sprintf("rlskit: warning: the chosen kernel %s is numerically %s; %s", spec, what, hint)
}

// finish commits the outputs and prints the summary — JSON, or with --pretty
// (the default when it goes to a terminal) a table — on standard output, or on
// stderr when an output file is written to standard output ("-").
func finish(e *env, f *fitFlags, outs *dataset.Outputs, prog *progressLine, out any) error {
	if err := outs.Commit(); err != nil {
		return err
	}
	prog.done()
	w := e.stdout
	if f.Model == "-" || f.CVPredictions == "-" || f.Report == "-" || f.Curves == "-" {
		w = e.stderr
	}
	if prettyChoice(f.prettySet, f.pretty, w) {
		return summary.WriteTable(w, out)
	}
	return json.NewEncoder(w).Encode(out)
}

// checkCurves refuses --curves for a fit without a CV curve: --cv none and
// --solver cg.
func checkCurves(f *fitFlags, p *plan.Plan) error {
	if f.Curves == "" {
		return nil
	}
	switch {
	case f.Solver == "cg":
		return fmt.Errorf("--curves %s: --solver cg has no CV curve (no cross-validation)", f.Curves)
	case p.Pairwise != nil && p.Pairwise.Setting == "", p.Pairwise == nil && p.CVSpec == "none":
		return fmt.Errorf("--curves %s needs cross-validation (--cv is none)", f.Curves)
	}
	return nil
}

// outputColumns names the CV prediction columns: the outputs, and for a
// one-vs-all model "label=class" (the one-vs-rest score of each class).
func outputColumns(p *model.Predictor) []string {
	if p.ClassLabel == "" || p.Positive != "" {
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
	if path == "-" && format == "" { // read as its first bytes showed
		return "name the label column(s) of CSV, npz or Parquet data with --label; an svmlight line starts with its label"
	}
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

// classInfo records the classes of a one-vs-all model, or of a binary one
// learned with --positive.
type classInfo struct {
	set      *dataset.ClassSet
	column   string
	positive string // --positive: the +1 class; "" for one-vs-all
}

// oneVsAll returns c for a one-vs-all model, nil otherwise.
func (c *classInfo) oneVsAll() *classInfo {
	if c == nil || c.positive != "" {
		return nil
	}
	return c
}

// record stores the classes in the model: numeric one-vs-all classes as
// numbers (classes), string ones and a binary model's two by name.
func (c *classInfo) record(p *model.Predictor) {
	p.ClassLabel = c.column
	switch {
	case c.positive != "":
		p.ClassNames, p.Positive = c.set.Names, c.positive
	case c.set.Values != nil:
		p.Classes = c.set.Values
	default:
		p.ClassNames = c.set.Names
	}
}

// classLabels turns the one label column of d into class outputs: one ±1
// column per class (--one-vs-all), or +1 for the --positive class and -1
// for the other of a two-class label.
func classLabels(f *fitFlags, d *dataset.Data) (*classInfo, error) {
	flag := "--one-vs-all"
	if !f.OneVsAll {
		flag = "--positive " + f.Positive
	}
	if f.OneVsAll && f.Positive != "" {
		return nil, fmt.Errorf("--positive %s applies to a two-class label, --one-vs-all to several: give one", f.Positive)
	}
	if _, t := d.Y.Dims(); t != 1 {
		return nil, fmt.Errorf("%s takes one class-label column, %s has %d", flag, f.Data, t)
	}
	tokens, codes, err := dataset.ClassLabelsOf(d)
	if err == nil {
		var set *dataset.ClassSet
		var index []int
		if set, index, err = dataset.LabelClasses(tokens, codes); err == nil {
			info := &classInfo{set: set, column: d.LabelNames[0]}
			if f.OneVsAll {
				d.Y, d.LabelNames = dataset.OneVsAllMatrix(index, len(set.Names)), set.Names
				return info, nil
			}
			if len(set.Names) != 2 {
				return nil, fmt.Errorf("%s: label %q has %d classes (%q); --positive takes a two-class label (several: --one-vs-all)", flag, info.column, len(set.Names), set.Names)
			}
			k, ok := set.Find(f.Positive)
			if !ok {
				return nil, fmt.Errorf("%s: not a class of label %q (classes %q)", flag, info.column, set.Names)
			}
			info.positive = set.Names[k]
			d.Y = dataset.BinaryLabels(index, k)
			return info, nil
		}
	}
	return nil, fmt.Errorf("%s: label %q: %w", flag, d.LabelNames[0], err)
}

// trainingInput checks the data against the plan and gathers what the
// learner's method needs: labels (one ±1 output per class with --one-vs-all),
// queries, the preference graph and the basis.
func trainingInput(f *fitFlags, p *plan.Plan, d *dataset.Data) (*learn.Input, *classInfo, error) {
	le := p.Learner
	graph := le.Needs.Has(learn.NeedsGraph)
	if d.Y == nil && (!graph || p.CVSpec != "none") {
		return nil, nil, fmt.Errorf("%s: no labels (%s)", f.Data, labelHint(f.Data, f.Format))
	}
	var classes *classInfo
	if f.OneVsAll || f.Positive != "" {
		var err error
		if classes, err = classLabels(f, d); err != nil {
			return nil, nil, err
		}
	}
	if le.Needs.Has(learn.NeedsGroups) && d.Queries == nil {
		return nil, nil, fmt.Errorf("--learner %s needs query ids (qid: in svmlight, --qid in CSV)", le.Name)
	}
	if p.Measure.NeedsQueries && d.Queries == nil {
		return nil, nil, fmt.Errorf("--measure %s needs query ids (qid: in svmlight, --qid in CSV)", p.Measure.Name)
	}
	if f.Permutations > 0 {
		if _, t := d.Y.Dims(); t != 1 {
			return nil, nil, fmt.Errorf("--permutations takes one label column, %s has %d", f.Data, t)
		}
		if mp := selection.MaxPermutations(d.Rows()); f.Permutations > mp {
			return nil, nil, fmt.Errorf("--permutations %d: at most %d for %d rows (every permutation is an output held in memory)", f.Permutations, mp, d.Rows())
		}
	}
	in := &learn.Input{X: d.X, Y: d.Y, Outputs: d.LabelNames, Groups: d.Queries}
	if le.Takes(learn.ParamCost) {
		in.Cost = f.Cost
	}
	if le.Takes(learn.ParamQueryNormalize) {
		in.QueryNormalize = f.QueryNormalize
	}
	if le.Takes(learn.ParamSelect) {
		in.Select = f.Select
	}
	if le.Takes(learn.ParamIntercept) {
		in.Intercept = f.Intercept
	}
	switch {
	case f.weights != nil: // --weights named a column of the data
		in.Weights = f.weights
	case f.Weights != "": // plan.New refused it for a learner without learn.ParamWeights
		if slices.Contains(d.FeatureNames, f.Weights) {
			return nil, nil, fmt.Errorf("--weights %s is a file and a feature column of %s: rename the file, or give it as ./%s", f.Weights, f.Data, f.Weights)
		}
		w, err := readFile(f.Weights, func(r io.Reader) ([]float64, error) { return readWeights(r, f.Weights, d.Rows()) })
		if err != nil {
			return nil, nil, err
		}
		in.Weights = w
	}
	if graph {
		prefs, err := readFile(f.Preferences, func(r io.Reader) ([]dataset.Preference, error) {
			return dataset.ReadPreferences(r, f.Preferences, d.Rows())
		})
		if err != nil {
			return nil, nil, err
		}
		for _, pr := range prefs {
			in.Graph = append(in.Graph, learn.Edge{I: pr.I, J: pr.J, Magnitude: pr.Magnitude, Weight: pr.Weight})
		}
		if d.Y != nil {
			if _, t := d.Y.Dims(); t != 1 {
				return nil, nil, fmt.Errorf("--learner %s has one output; %s has %d label columns", le.Name, f.Data, t)
			}
		}
	}
	m, width := d.X.Dims()
	if p.Kernels[0].Name == "precomputed" && m != width {
		return nil, nil, fmt.Errorf("%s: a precomputed kernel matrix must be square, got %d rows and %d columns", f.Data, m, width)
	}
	var err error
	if in.Basis, err = chooseBasis(f, d, m); err != nil {
		return nil, nil, err
	}
	if f.BasisSelect == plan.BasisGreedy {
		in.ChooseBasis = greedyBasis(d.Y, f.Basis, f.GreedyLambda, f.Seed)
	}
	return in, classes, nil
}

// fitScheme builds the cross-validation scheme of the plan for the data.
func fitScheme(f *fitFlags, p *plan.Plan, d *dataset.Data, basis []int) (selection.Scheme, error) {
	o := selection.SchemeOptions{Rows: d.Rows(), Seed: f.Seed, Groups: d.Queries, Labels: d.Y, Basis: basis,
		Design: f.BasisDesign, Policy: p.Policy, PairsWithinGroups: p.Learner.Needs.Has(learn.NeedsGroups) && d.Y != nil, FoldMean: f.FoldScore == "mean"}
	if p.CVKind == "folds" {
		folds, err := readFile(f.Folds, func(r io.Reader) ([][]int, error) { return dataset.ReadFolds(r, f.Folds, d.Rows()) })
		if err != nil {
			return selection.Scheme{}, err
		}
		o.Folds, o.FoldsName = folds, f.Folds
	}
	sc, err := selection.NewScheme(p.CVSpec, o)
	if err != nil {
		flag := "--cv " + p.CVSpec
		if p.CVKind == "folds" {
			flag = "--folds " + f.Folds
		}
		return sc, fmt.Errorf("%s: %w", flag, err)
	}
	return sc, nil
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
