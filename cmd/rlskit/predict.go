package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/plan"
)

type predictFlags struct {
	modelPath, data, format, out string
	measure, label, qid          string
	scores, quiet                bool
	coverage                     float64 // --coverage: the interval's level (coverageSet: given)
	coverageSet                  bool
	pairs, rows, cols            string          // pairwise models (pairwise.go)
	in                           plan.InputFlags // --zero-based, --delimiter, --labels
	inputs                       []string        // every input file flag's value (inputFiles)
}

func newPredict(e *env) *cobra.Command {
	f := &predictFlags{}
	cmd := &cobra.Command{
		Use:   "predict --model MODEL --data FILE [--out FILE] [--measure NAME]",
		Short: "Predict with a saved model",
		Long: `predict writes one line per data row (outputs tab-separated) to --out or stdout.
With --measure it also scores the predictions against the labels and prints
{"measure": NAME, "value": V} — to stdout when --out is given, else to stderr.
CSV labels are the columns named by --label, or else the model's output names
when the header has them; the features are the columns the model records, by
name wherever they stand (--features and --ignore, given, must agree). svmlight indices are
read as the model's training data were (0-based for a model trained on 0-based
data, as scikit-learn writes them) unless --zero-based says otherwise.
With --coverage C a model fit with --interval writes, per output, three
tab-separated columns — prediction, lower, upper — the jackknife+ or CV+
interval at coverage C (docs/cli.md, Prediction intervals); with --measure
the predictions are scored and "covered" is the share of labels inside
their intervals.`,
		Example: `  rlskit predict --model m.json --data test.csv --out pred.txt
  rlskit predict --model m.json --data test.svm --measure mse      # score against the file's labels
  rlskit predict --model classes.json --data new.csv --scores       # one-vs-all: class, then per-class outputs
  rlskit predict --model kron.json --pairs new-pairs.txt --rows new-drugs.csv`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.inputs, f.coverageSet = inputFiles(cmd), cmd.Flags().Changed("coverage")
			return runPredict(e, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.modelPath, "model", "", "model file written by fit --model")
	fl.StringVar(&f.data, "data", "", "data file (svmlight, CSV, .npy, .npz or Parquet, any of them gzipped; - for standard input)")
	fl.StringVar(&f.format, "format", "", "data format: svmlight, csv, npy, npz or parquet (default: from the file name, .csv/.tsv, .npy, .npz, .parquet/.pq, else svmlight; .gz looked through)")
	plan.DefineInput(fl, &f.in, true)
	fl.StringVar(&f.out, "out", "", "write predictions to this file instead of stdout")
	fl.StringVar(&f.measure, "measure", "", "score the predictions: "+strings.Join(measure.Names(), ", "))
	fl.StringVar(&f.label, "label", "", "CSV label column(s) (default: the model's outputs, when present)")
	fl.StringVar(&f.qid, "qid", "", "CSV query column (for --measure disagreement)")
	fl.Float64Var(&f.coverage, "coverage", 0, "a model fit with --interval: write per output three tab-separated columns, prediction, lower, upper, the jackknife+ or CV+ interval at this coverage level in (0, 1) (e.g. 0.9; ±Inf when the level exceeds n/(n+1))")
	fl.BoolVar(&f.scores, "scores", false, "one-vs-all models: print the per-class outputs after the predicted class")
	fl.BoolVar(&f.quiet, "quiet", false, "no notices on stderr (as fit --quiet: warnings and errors still print)")
	fl.StringVar(&f.pairs, "pairs", "", "pairwise models: the pairs to predict, \"row col [label]\" per line (0-based; the training objects, or those of --rows and --cols)")
	fl.StringVar(&f.rows, "rows", "", "pairwise models: new row objects the pairs index (default: the training rows)")
	fl.StringVar(&f.cols, "cols", "", "pairwise models: new column objects the pairs index (default: the training columns)")
	completeValues(cmd, map[string][]string{"measure": measureValues(), "format": plan.FormatValues,
		"zero-based": plan.ZeroBasedValues, "delimiter": plan.DelimiterValues})
	markFiles(cmd, "model", "data", "labels", "out", "pairs", "rows", "cols")
	return cmd
}

func runPredict(e *env, f *predictFlags) error {
	if err := checkCoverageFlag(f); err != nil {
		return err
	}
	if f.pairs != "" || f.rows != "" || f.cols != "" {
		return runPredictPairs(e, f)
	}
	if f.modelPath == "" || f.data == "" {
		return usage(errors.New("--model and --data are required"))
	}
	meas, err := predictMeasure(f.measure, false)
	if err != nil {
		return err
	}
	format, err := dataFormat(f.data, stdinFormat(e, f.data, f.format))
	if err != nil {
		return usage(err)
	}
	isCSV := format == "csv"
	if (format == "svmlight" || format == "npy") && (f.label != "" || f.qid != "") {
		return usage(fmt.Errorf("%s: --label and --qid apply to CSV, npz and Parquet data; svmlight files carry their labels and qid: fields, .npy data take --labels FILE", f.data))
	}
	comma, err := f.in.Comma()
	if err != nil {
		return usage(err)
	}

	// The output is checked before any work and written whole at the end.
	var (
		outs    = dataset.Outputs{Stdout: e.stdout}
		write   func(w io.Writer) error // set once the predictions can be written
		workErr error                   // an error of the work done inside write (streaming)
	)
	outs.Add("--out", f.out, func(w io.Writer) error { return write(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.inputs...); err != nil {
		return err
	}
	commit := func() error {
		if f.out == "" {
			return write(e.stdout)
		}
		if err := outs.Commit(); err != nil {
			if workErr != nil {
				return workErr // the data, not --out, failed
			}
			return err
		}
		return nil
	}

	p, err := readFile(f.modelPath, model.Load)
	if err != nil {
		return fmt.Errorf("--model %s: %w", f.modelPath, pairwiseHint(f.modelPath, err))
	}
	ova := oneVsAllClasses(p)
	if f.scores && ova == nil {
		return errors.New("--scores applies to one-vs-all models")
	}
	if err := checkCoverage(f, p); err != nil {
		return err
	}
	base, err := f.in.Base(&p.ZeroBased)
	if err != nil {
		return err
	}
	in, name := e.stdin, "<stdin>"
	if f.data != "-" && (format == "csv" || format == "svmlight") {
		fh, err := os.Open(f.data)
		if err != nil {
			return err
		}
		defer fh.Close()
		in, name = fh, f.data
	}
	csvOpt := dataset.CSVOptions{Labels: splitList(f.label), Qid: f.qid, Comma: comma}
	// a model's class labels may be names: read them as written
	csvOpt.ClassLabels = (ova != nil || p.Positive != "") && len(csvOpt.Labels) <= 1
	if csvOpt.Columns, err = predictColumns(p, f.data, format, f.in); err != nil {
		return err
	}
	if (isCSV || format == "npz" || format == "parquet") && f.label == "" {
		// The model's outputs are the labels when the header names them all.
		csvOpt.LabelsFromHeader = func(header []string) []string {
			switch {
			case (ova != nil || p.Positive != "") && containsAll(header, []string{p.ClassLabel}):
				return []string{p.ClassLabel}
			case ova == nil && p.Positive == "" && containsAll(header, p.Outputs):
				return slices.Clone(p.Outputs)
			}
			return nil
		}
	}
	svmOpt := dataset.SVMLightOptions{Width: p.Width, Base: base}

	if f.measure == "" && (format == "csv" || format == "svmlight") {
		// Stream: chunk by chunk, memory independent of the number of rows.
		write = func(w io.Writer) error {
			rw := &recordWriter{w: w}
			w = rw
			err := dataset.ReadChunks(in, name, format, csvOpt, svmOpt, 4096, func(d *dataset.Data, offset int) error {
				if offset == 0 && p.Features != nil && d.FeatureNames != nil {
					if err := sameFeatures(d.FeatureNames, p.Features); err != nil {
						return fmt.Errorf("%s: %w", f.data, err)
					}
				}
				pred, err := predictRows(p, d.X, f.coverage)
				if err != nil {
					return fmt.Errorf("%s: %w", f.data, shiftRows(err, offset))
				}
				if ova != nil {
					return writeClasses(w, ova.Names, pred, f.scores)
				}
				return dataset.WritePredictions(w, pred)
			})
			if err != nil && rw.err == nil {
				workErr = err // reading or predicting failed, not writing
			}
			return err
		}
		return commit()
	}

	var d *dataset.Data
	switch format {
	case "csv":
		d, err = dataset.ReadCSV(in, name, csvOpt)
	case "svmlight":
		d, err = dataset.ReadSVMLight(in, name, svmOpt)
	default: // npy, npz, parquet: read whole
		d, err = readFormat(e, f.data, format, csvOpt, svmOpt, f.in.Labels)
	}
	if err != nil {
		return err
	}
	if p.Features != nil && d.FeatureNames != nil {
		if err := sameFeatures(d.FeatureNames, p.Features); err != nil {
			return fmt.Errorf("%s: %w", f.data, err)
		}
	}
	pred, err := predictRows(p, d.X, f.coverage)
	if err != nil {
		return fmt.Errorf("%s: %w", f.data, err)
	}
	if meas.Name == "" {
		// a format read whole, predictions only
		write = func(w io.Writer) error { return dataset.WritePredictions(w, pred) }
		if ova != nil {
			write = func(w io.Writer) error { return writeClasses(w, ova.Names, pred, f.scores) }
		}
		return commit()
	}
	if (ova != nil || p.Positive != "") && d.Y != nil {
		if _, t := d.Y.Dims(); t != 1 {
			return fmt.Errorf("%s: a model of classes takes one class-label column, got %d", f.data, t)
		}
		if d.Y, err = encodeClasses(p, ova, d); err != nil {
			return fmt.Errorf("%s: label %q: %w", f.data, p.ClassLabel, err)
		}
	}
	if d.Y == nil {
		return fmt.Errorf("--measure %s: %s has no labels (%s)", meas.Name, f.data, labelHint(f.data, f.format))
	}
	if _, t := d.Y.Dims(); t != len(p.Outputs) {
		return fmt.Errorf("--measure %s: %d label columns for a model of %d outputs", meas.Name, t, len(p.Outputs))
	}
	score, err := meas.Score(d.Y, predictionColumns(pred, f.coverageSet), d.Queries)
	if err != nil {
		return fmt.Errorf("--measure %s: %w", meas.Name, err)
	}
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return fmt.Errorf("--measure %s: the value is %v (nothing written)", meas.Name, score)
	}
	write = func(w io.Writer) error { return dataset.WritePredictions(w, pred) }
	if ova != nil {
		write = func(w io.Writer) error { return writeClasses(w, ova.Names, pred, f.scores) }
	}
	if err := commit(); err != nil {
		return err
	}
	report := e.stderr
	if f.out != "" {
		report = e.stdout
	}
	result := map[string]any{"measure": meas.Name, "value": score}
	if f.coverageSet { // the share of labels inside their intervals
		result["coverage"], result["covered"] = f.coverage, coveredShare(pred, d.Y)
	}
	return json.NewEncoder(report).Encode(result)
}

// recordWriter remembers the first write error, to tell an output's failure
// from the input's.
type recordWriter struct {
	w   io.Writer
	err error
}

func (r *recordWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// shiftRows makes the row of a prediction error count from the start of the
// file rather than of its chunk.
func shiftRows(err error, offset int) error {
	var ve *kernel.ValueError
	var oe *model.OverflowError
	switch {
	case errors.As(err, &ve):
		ve.Row += offset
	case errors.As(err, &oe):
		oe.Row += offset
	}
	return err
}

// splitList splits a comma-separated flag value, trimming spaces; nil for "".
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// oneVsAllClasses returns the classes of a one-vs-all model (numeric, or by
// name), nil for any other model.
func oneVsAllClasses(p *model.Predictor) *dataset.ClassSet {
	switch {
	case p.Classes != nil:
		return &dataset.ClassSet{Names: dataset.ClassNames(p.Classes), Values: p.Classes}
	case p.ClassNames != nil && p.Positive == "":
		return &dataset.ClassSet{Names: p.ClassNames}
	}
	return nil
}

// encodeClasses turns the class-label column of d into the model's outputs:
// one ±1 column per class of a one-vs-all model (ova), or +1 for the
// positive class of a binary model and -1 for the other. A label that is
// not one of the model's classes is an error naming its row.
func encodeClasses(p *model.Predictor, ova *dataset.ClassSet, d *dataset.Data) (*mat.Dense, error) {
	tokens, codes, err := dataset.ClassLabelsOf(d)
	if err != nil {
		return nil, err
	}
	set := ova
	if set == nil {
		set = dataset.NamedClasses(p.ClassNames)
	}
	index, err := set.Encode(tokens, codes)
	if err != nil {
		return nil, err
	}
	if ova != nil {
		return dataset.OneVsAllMatrix(index, len(ova.Names)), nil
	}
	return dataset.BinaryLabels(index, slices.Index(p.ClassNames, p.Positive)), nil
}

// writeClasses writes the predicted class (the argmax output) per row, with the
// per-class outputs after it when scores is set.
func writeClasses(w io.Writer, names []string, pred *mat.Dense, scores bool) error {
	lw := newLineWriter(w)
	r, _ := pred.Dims()
	for i := 0; i < r; i++ {
		row := pred.RawRowView(i)
		lw.printf("%s", names[measure.Argmax(row)])
		if scores {
			for _, v := range row {
				lw.printf("\t%s", ftoa(v))
			}
		}
		lw.printf("\n")
	}
	return lw.flush()
}

func containsAll(have, want []string) bool {
	set := make(map[string]bool, len(have))
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return len(want) > 0
}

func sameFeatures(got, want []string) error {
	if len(got) != len(want) {
		return fmt.Errorf("%w: data has %d feature columns, the model was trained on %d (%s)", model.ErrWidth, len(got), len(want), strings.Join(want, ","))
	}
	for j := range got {
		if got[j] != want[j] {
			return fmt.Errorf("feature column %d is %q, the model expects %q", j+1, got[j], want[j])
		}
	}
	return nil
}

// predictMeasure parses predict's --measure ("" is none); pairs have one
// label, so a multi-class measure is refused for them. Errors are usage errors.
func predictMeasure(name string, pairs bool) (measure.Measure, error) {
	if name == "" {
		return measure.Measure{}, nil
	}
	meas, err := measure.ByName(name)
	if err != nil {
		return meas, usage(fmt.Errorf("--measure: %w", err))
	}
	if pairs && meas.Multiclass {
		return meas, usage(fmt.Errorf("--measure %s needs one output per class; pairs have one label", meas.Name))
	}
	return meas, nil
}
