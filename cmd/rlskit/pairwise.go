package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/pairfit"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairkernel"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// pairInputs are the data of a pairwise fit.
type pairInputs struct {
	rows, cols *dataset.Data
	pairs      *dataset.Pairs
}

// readObjects reads a --rows or --cols file: features (CSV with a header and
// no label column, or svmlight with its labels ignored), or a kernel matrix.
// in gives --zero-based (fit: auto by default); modelZero is the base a
// model's side records (predict), used when --zero-based is not given.
func readObjects(e *env, flag, path, format string, width int, in plan.InputFlags, modelZero *bool) (*dataset.Data, error) {
	if path != "-" {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, path, err)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s %s: is a directory, not a data file", flag, path)
		}
	}
	if in.ZeroBased == "" && modelZero != nil && *modelZero {
		in.ZeroBased = "true"
	}
	d, err := readData(e, path, format, "", "", width, plan.InputFlags{ZeroBased: in.ZeroBased, Delimiter: in.Delimiter})
	if errors.Is(err, dataset.ErrIndexColumn) {
		// the reader's hint names --ignore, which the learners of pairs do not take
		return nil, fmt.Errorf("%s %s: a column without a name or a pandas index (the learners of pairs read every column of their object files as features; --ignore does not apply to them): write the file with index=False and a name for every column: %w", flag, path, dataset.ErrIndexColumn)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return d, nil
}

// readPairsFile reads --pairs (or --validation-pairs) against m rows and q columns.
func readPairsFile(flag, path string, m, q int, unlabelled bool) (*dataset.Pairs, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	defer fh.Close()
	p, err := dataset.ReadPairs(fh, path, dataset.PairsOptions{Rows: m, Cols: q, Unlabelled: unlabelled})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return p, nil
}

func toPairs(p *dataset.Pairs) []pairwise.Pair {
	out := make([]pairwise.Pair, p.Len())
	for i := range out {
		out[i] = pairwise.Pair{Row: p.Rows[i], Col: p.Cols[i]}
	}
	return out
}

// pairSolution is the model at the chosen point, whichever learner.
type pairSolution = pairfit.Solution

// runPairwise is fit for the pairwise learners: read → train per kernel
// setting → cross-validate along the λ grid(s) → write.
func runPairwise(e *env, f *fitFlags, p *plan.PairPlan, start time.Time) error {
	var (
		out       summary.Pair
		best      pairSolution
		bestCV    []float64
		bestPairs []pairwise.Pair
		outs      = dataset.Outputs{Stdout: e.stdout}
	)
	var pk *pairkernel.Predictor // the model of --pair-kernel, in its own file format
	outs.Add("--model", f.Model, func(w io.Writer) error {
		if pk != nil {
			return pk.Save(w)
		}
		return best.PairModel().Save(w)
	})
	outs.Add("--cv-predictions", f.CVPredictions, func(w io.Writer) error {
		lw := newLineWriter(w)
		lw.printf("row\tcol\tprediction\n")
		for i, pr := range bestPairs {
			lw.printf("%d\t%d\t%s\n", pr.Row, pr.Col, ftoa(bestCV[i]))
		}
		return lw.flush()
	})
	outs.Add("--curves", f.Curves, func(w io.Writer) error {
		if out.PairKernel != nil && out.PairKernel.Search != nil {
			return weightSearchTable(out.PairKernel.Search).write(w)
		}
		if out.CV == nil {
			return (*curveTable)(nil).write(w)
		}
		return pairCurveTable(&out).write(w)
	})
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.inputs...); err != nil { // --cols same names no file: it resolves to none
		return err
	}
	rows, err := readObjects(e, "--rows", f.Rows, f.Format, 0, f.In, nil)
	if err != nil {
		return err
	}
	cols := rows
	if !p.Homogeneous {
		if cols, err = readObjects(e, "--cols", f.Cols, f.Format, 0, f.In, nil); err != nil {
			return err
		}
	}
	m, _ := rows.X.Dims()
	q, _ := cols.X.Dims()
	for flag, d := range map[string]*dataset.Data{"--rows " + f.Rows: rows, "--cols " + f.Cols: cols} {
		if r, c := d.X.Dims(); p.RowKernels[0].Name == "precomputed" && r != c {
			return fmt.Errorf("%s: a precomputed kernel matrix must be square, got %d rows and %d columns", flag, r, c)
		}
	}
	if !p.Homogeneous && len(p.ColKernels) > 0 && p.ColKernels[0].Name == "precomputed" {
		if r, c := cols.X.Dims(); r != c {
			return fmt.Errorf("--cols %s: a precomputed kernel matrix must be square, got %d rows and %d columns", f.Cols, r, c)
		}
	}
	pf, err := readPairsFile("--pairs", f.Pairs, m, q, false)
	if err != nil {
		return err
	}
	if i := p.Learner.Loss.BadLabel(pf.Labels); i >= 0 { // the squared hinge loss: labels ±1
		return fmt.Errorf("--pairs %s:%d: label %v: --learner %s takes labels −1 and +1", f.Pairs, pf.Lines[i], pf.Labels[i], p.Learner.Name)
	}
	pairs := toPairs(pf)
	pf.Rows, pf.Cols, pf.Lines = nil, nil, nil // in pairs now: not kept twice while training
	bestPairs = pairs
	loaded := time.Now()

	prog := newProgress(e.stderr, f.Quiet)
	defer prog.done()

	// Complete or not decides the method (the closed forms, or CG): pairfit.Fit,
	// shared with the C ABI.
	o := pairfit.Options{Standardize: f.Standardize, Seed: f.Seed, MaxIter: f.MaxIter, Progress: prog.observe, Quiet: f.Quiet,
		Grid: func(st *selection.Settings) {
			prog.grid(st.Kernels, st.ColKernels, len(st.Lambdas), len(st.ColLambdas))
		},
		FoldsName: f.Folds,
		ObjectFolds: func(m, q int) ([][]int, [][]int, error) {
			rf, err := objectFolds("--folds", f.Folds, m)
			if err != nil {
				return nil, nil, err
			}
			cf, err := objectFolds("--col-folds", f.ColFolds, q)
			return rf, cf, err
		}}
	if f.ValidationPairs != "" {
		o.ValidationName = f.ValidationPairs
		o.Validation = func(m, q int) (*pairwise.Validation, error) {
			vp, err := readPairsFile("--validation-pairs", f.ValidationPairs, m, q, false)
			if err != nil {
				return nil, err
			}
			return &pairwise.Validation{Pairs: toPairs(vp), Labels: vp.Labels}, nil
		}
	}
	fit, err := pairfit.Fit(p, pairfit.Data{Rows: rows.X, Cols: cols.X, Pairs: pairs, Labels: pf.Labels,
		RowsName: f.Rows, ColsName: f.Cols, PairsName: f.Pairs}, o)
	if err != nil {
		return err
	}
	out = fit.Summary
	var train, cvTime time.Duration
	if pk = fit.PairKernel; pk != nil {
		train = time.Since(loaded)
		if !pk.Model.Converged {
			fmt.Fprintf(e.stderr, "rlskit: warning: conjugate gradients stopped after %d iterations at relative residual %.3g (--tol %g): raise --max-iter\n",
				pk.Model.Iterations, pk.Model.Residual, p.Tol)
		}
	} else if res := fit.CG; res != nil {
		train = time.Since(loaded)
		best = &namedModel{pairSolution: res, rows: rows, cols: cols}
		if !res.Converged && !res.EarlyStopped {
			fmt.Fprintf(e.stderr, "rlskit: warning: conjugate gradients stopped after %d iterations at relative residual %.3g (--tol %g): raise --max-iter\n",
				res.Iterations, res.Residual, p.Tol)
		}
	} else if res := fit.SVM; res != nil {
		train = time.Since(loaded)
		best = &namedModel{pairSolution: res, rows: rows, cols: cols}
		if !res.Converged {
			fmt.Fprintf(e.stderr, "rlskit: warning: the support vector machine stopped after %d Newton steps (at most %d) at relative optimality residual %.3g (--tol %g, --max-iter %d per step)\n",
				res.NewtonSteps, f.NewtonSteps, res.Residual, p.Tol, f.MaxIter)
		}
	} else {
		sol, err := runComplete(e, f, p, fit, rows, cols, prog, &out)
		if err != nil {
			return err
		}
		best, train, cvTime, bestCV = sol, fit.Train, fit.CV, fit.CVPredictions
	}
	out.Timing = summary.Timing{Load: loaded.Sub(start).Seconds(), Train: train.Seconds(), CV: cvTime.Seconds(), Total: time.Since(start).Seconds()}
	return finish(e, f, &outs, prog, out)
}

// runComplete adds to a fit on complete data (pairfit.Fit's search) what
// rlskit fit does beyond it: the nested cross-validation of --outer-folds,
// the warnings, the interval of --interval and the objects' feature names.
func runComplete(e *env, f *fitFlags, p *plan.PairPlan, fit *pairfit.Result, rows, cols *dataset.Data,
	prog *progressLine, out *summary.Pair) (pairSolution, error) {
	var err error
	if f.OuterFolds > 0 { // nested cross-validation of the same search
		if out.Outer, err = nestedPairs(f, p, fit.Input, fit.Settings, fit.Rows, fit.Cols, prog); err != nil {
			return nil, err
		}
	}
	best := fit.Best
	if out.CV != nil { // warnings print with --quiet too
		edgeWarnings(e, fit.Search.OnEdge)
		if best.Best.Indistinguishable {
			fmt.Fprintf(e.stderr, "rlskit: warning: at the chosen point the CV predictions are numerically indistinguishable — the kernels tell the pairs apart by rounding noise only; %s counts them as ties\n", p.Measure.Name)
		}
	}
	nm := &namedModel{pairSolution: fit.Model, rows: rows, cols: cols}
	if f.Interval != "" { // the plan checked cv+ and the setting (rows, cols or both)
		d := fit.Settings.Scheme.Design
		if nm.interval, err = interval.NewPairs(fit.Search.Solution, string(p.Setting), d.RowFolds, d.ColFolds); err != nil {
			return nil, fmt.Errorf("--interval %s (--cv %s): %w", f.Interval, p.CVSpec, err)
		}
	}
	return nm, nil
}

// objectFolds reads a file of object folds (nil without a file).
func objectFolds(flag, path string, n int) ([][]int, error) {
	if path == "" {
		return nil, nil
	}
	folds, err := readFile(path, func(r io.Reader) ([][]int, error) { return dataset.ReadFolds(r, path, n) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return folds, nil
}

// namedModel adds the objects' feature names to a solution's model.
type namedModel struct {
	pairSolution
	rows, cols *dataset.Data
	// interval is fit --interval cv+'s (nil without it).
	interval *model.PairInterval
}

func (n *namedModel) PairModel() *model.PairPredictor {
	pm := n.pairSolution.PairModel()
	pm.Interval = n.interval
	pm.Rows.ZeroBased, pm.Cols.ZeroBased = n.rows.ZeroBased, n.cols.ZeroBased
	if n.rows.FeatureNames != nil && len(n.rows.FeatureNames) == pm.Rows.Width {
		pm.Rows.Features = n.rows.FeatureNames
	}
	if !pm.Homogeneous() && n.cols.FeatureNames != nil && len(n.cols.FeatureNames) == pm.Cols.Width {
		pm.Cols.Features = n.cols.FeatureNames
	}
	return pm
}

// pairwiseHint turns model.Load's error on a pairwise model file into advice.
func pairwiseHint(path string, err error) error {
	fh, ferr := os.Open(path)
	if ferr != nil {
		return err
	}
	defer fh.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(fh, head)
	if model.IsPairwise(head[:n]) || bytes.Contains(head[:n], []byte(`"format":"`+pairkernel.Format+`"`)) {
		return errors.New("a pairwise model: predict the pairs of --pairs FILE (objects from --rows FILE and --cols FILE, or the training objects), not --data")
	}
	return err
}

// runPredictPairs is predict for pairwise models: --pairs lines "row col
// [label]" indexing the training objects, or with --rows/--cols new ones.
func runPredictPairs(e *env, f *predictFlags) error {
	switch {
	case f.modelPath == "":
		return usage(errors.New("--model is required"))
	case f.pairs == "":
		return usage(errors.New("--rows and --cols go with --pairs FILE (pairwise models)"))
	case f.data != "":
		return usage(errors.New("--data and --pairs: a pairwise model predicts the pairs of --pairs (objects from --rows and --cols)"))
	case f.label != "" || f.qid != "" || f.scores:
		return usage(errors.New("--label, --qid and --scores do not apply to pairwise models (labels are the third field of --pairs)"))
	}
	meas, err := predictMeasure(f.measure, true)
	if err != nil {
		return err
	}
	var pred, lo, hi []float64
	outs := dataset.Outputs{Stdout: e.stdout}
	outs.Add("--out", f.out, func(w io.Writer) error { return writePairValues(w, pred, lo, hi) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.inputs...); err != nil {
		return err
	}
	lm, err := readFile(f.modelPath, pairfit.LoadModel)
	if err != nil {
		return fmt.Errorf("--model %s: %w", f.modelPath, err)
	}
	var pf *dataset.Pairs
	if lm.Kernel != nil { // a model of --pair-kernel
		pred, pf, err = predictPairKernel(e, f, lm.Kernel)
	} else {
		pred, lo, hi, pf, err = predictPairModel(e, f, lm.Pair)
	}
	if err != nil {
		return err
	}
	var score *float64
	if f.measure != "" {
		if pf.Labels == nil {
			return fmt.Errorf("--measure %s: %s has no labels (lines \"row col label\")", meas.Name, f.pairs)
		}
		v, err := meas.Score(mat.NewDense(len(pred), 1, pf.Labels), mat.NewDense(len(pred), 1, pred), pf.Rows)
		if err != nil {
			return fmt.Errorf("--measure %s: %w", meas.Name, err)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("--measure %s: the value is %v", meas.Name, v)
		}
		score = &v
	}
	report := e.stderr
	if f.out != "" {
		if err := outs.Commit(); err != nil {
			return err
		}
		report = e.stdout
	} else if err := writePairValues(e.stdout, pred, lo, hi); err != nil {
		return err
	}
	if score != nil {
		result := map[string]any{"measure": meas.Name, "value": *score}
		if f.coverageSet { // the share of labels inside their intervals
			in := 0
			for i, v := range pf.Labels {
				if lo[i] <= v && v <= hi[i] {
					in++
				}
			}
			result["coverage"], result["covered"] = f.coverage, float64(in)/float64(len(pred))
		}
		return json.NewEncoder(report).Encode(result)
	}
	return nil
}

// predictPairModel predicts the pairs of --pairs with a model.PairPredictor
// (with --coverage, its intervals lo and hi too), the objects from --rows
// and --cols or the training ones.
func predictPairModel(e *env, f *predictFlags, pm *model.PairPredictor) (pred, lo, hi []float64, pf *dataset.Pairs, err error) {
	if f.coverageSet && pm.Interval == nil {
		return nil, nil, nil, nil, fmt.Errorf("--coverage %g: %s records no prediction interval: fit it with --interval cv+ --cv rows[:K], cols[:K] or both[:K]", f.coverage, f.modelPath)
	}
	if pm.Homogeneous() && f.cols != "" && f.cols != "same" {
		return nil, nil, nil, nil, fmt.Errorf("--cols %s: the model is a homogeneous network; --rows gives its new vertices", f.cols)
	}
	var rx, cx mat.Matrix
	m, q := pm.Rows.Len(), pm.Cols.Len()
	if f.rows != "" {
		d, err := readObjects(e, "--rows", f.rows, f.format, pm.Rows.Width, f.in, &pm.Rows.ZeroBased)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if err := sideFeatures(d, pm.Rows, "--rows "+f.rows); err != nil {
			return nil, nil, nil, nil, err
		}
		rx = d.X
		m, _ = d.X.Dims()
		if pm.Homogeneous() {
			cx, q = rx, m
		}
	}
	if f.cols != "" && !pm.Homogeneous() {
		d, err := readObjects(e, "--cols", f.cols, f.format, pm.Cols.Width, f.in, &pm.Cols.ZeroBased)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if err := sideFeatures(d, pm.Cols, "--cols "+f.cols); err != nil {
			return nil, nil, nil, nil, err
		}
		cx = d.X
		q, _ = d.X.Dims()
	}
	pf, err = readPairsFile("--pairs", f.pairs, m, q, true)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if f.coverageSet {
		pred, lo, hi, err = pm.PredictInterval(rx, cx, pf.Rows, pf.Cols, f.coverage)
	} else {
		pred, err = pm.Predict(rx, cx, pf.Rows, pf.Cols)
	}
	if err != nil {
		var oe *model.OverflowError
		if errors.As(err, &oe) && oe.Row < len(pf.Lines) {
			return nil, nil, nil, nil, fmt.Errorf("--pairs %s:%d: %w", f.pairs, pf.Lines[oe.Row], err)
		}
		return nil, nil, nil, nil, fmt.Errorf("--pairs %s: %w", f.pairs, err)
	}
	return pred, lo, hi, pf, nil
}

// writePairValues writes one prediction per line, or with intervals (lo
// and hi not nil) three tab-separated values: prediction, lower, upper.
func writePairValues(w io.Writer, v, lo, hi []float64) error {
	if lo == nil {
		return writeValues(w, v)
	}
	lw := newLineWriter(w)
	for i, x := range v {
		lw.printf("%s\t%s\t%s\n", ftoa(x), ftoa(lo[i]), ftoa(hi[i]))
	}
	return lw.flush()
}

// sideFeatures checks a CSV header against the model side's feature names.
func sideFeatures(d *dataset.Data, s *model.PairSide, what string) error {
	if s.Features != nil && d.FeatureNames != nil {
		if err := sameFeatures(d.FeatureNames, s.Features); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

// writeValues writes one value per line.
func writeValues(w io.Writer, v []float64) error {
	lw := newLineWriter(w)
	for _, x := range v {
		lw.printf("%s\n", ftoa(x))
	}
	return lw.flush()
}
