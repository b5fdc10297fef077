package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

type predictFlags struct {
	modelPath, data, format, out string
	measure, label, qid          string
	scores                       bool
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
when the header has them; every other column is a feature.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runPredict(e, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.modelPath, "model", "", "model file written by fit --model")
	fl.StringVar(&f.data, "data", "", "data file (svmlight or CSV; - for standard input)")
	fl.StringVar(&f.format, "format", "", "data format: svmlight or csv (default: from the file extension)")
	fl.StringVar(&f.out, "out", "", "write predictions to this file instead of stdout")
	fl.StringVar(&f.measure, "measure", "", "score the predictions: "+strings.Join(measure.Names(), ", "))
	fl.StringVar(&f.label, "label", "", "CSV label column(s) (default: the model's outputs, when present)")
	fl.StringVar(&f.qid, "qid", "", "CSV query column (for --measure disagreement)")
	fl.BoolVar(&f.scores, "scores", false, "one-vs-all models: print the per-class outputs after the predicted class")
	return cmd
}

func runPredict(e *env, f *predictFlags) error {
	if f.modelPath == "" || f.data == "" {
		return errors.New("--model and --data are required")
	}
	var meas measure.Measure
	if f.measure != "" {
		var err error
		if meas, err = measure.ByName(f.measure); err != nil {
			return fmt.Errorf("--measure: %w", err)
		}
	}
	p, err := readFile(f.modelPath, model.Load)
	if err != nil {
		return fmt.Errorf("--model %s: %w", f.modelPath, err)
	}
	label := f.label
	isCSV := f.format == "csv" || (f.format == "" && strings.HasSuffix(strings.ToLower(f.data), ".csv"))
	in := e.stdin
	if f.data != "-" {
		fh, err := os.Open(f.data)
		if err != nil {
			return err
		}
		defer fh.Close()
		in = fh
	}
	br := bufio.NewReader(in)
	if isCSV && label == "" {
		// Use the model's outputs as labels when the header names them all.
		header, err := peekCSVHeader(br)
		if err != nil {
			return fmt.Errorf("%s: %w", f.data, err)
		}
		switch {
		case p.Classes != nil && containsAll(header, []string{p.ClassLabel}):
			label = p.ClassLabel
		case p.Classes == nil && containsAll(header, p.Outputs):
			label = strings.Join(p.Outputs, ",")
		}
	}
	width := 0
	if !isCSV {
		width = p.Width
	}
	if f.scores && p.Classes == nil {
		return errors.New("--scores applies to one-vs-all models")
	}
	if f.measure == "" {
		return streamPredict(e, f, p, br, isCSV, label, width)
	}
	d, err := readData(&env{stdin: br}, "-", formatOf(isCSV), label, f.qid, width)
	if err != nil {
		return relabel(err, f.data)
	}
	if p.Features != nil && d.FeatureNames != nil {
		if err := sameFeatures(d.FeatureNames, p.Features); err != nil {
			return fmt.Errorf("%s: %w", f.data, err)
		}
	}
	pred, err := p.Predict(d.X)
	if err != nil {
		return fmt.Errorf("%s: %w", f.data, err)
	}
	if p.Classes != nil && d.Y != nil {
		if _, t := d.Y.Dims(); t != 1 {
			return fmt.Errorf("%s: a one-vs-all model takes one class-label column, got %d", f.data, t)
		}
		if d.Y, err = dataset.EncodeClasses(mat.Col(nil, 0, d.Y), p.Classes); err != nil {
			return fmt.Errorf("%s: %w", f.data, err)
		}
	}
	var score *float64
	if f.measure != "" {
		if d.Y == nil {
			return fmt.Errorf("--measure %s: %s has no labels (name them with --label)", meas.Name, f.data)
		}
		if _, t := d.Y.Dims(); t != len(p.Outputs) {
			return fmt.Errorf("--measure %s: %d label columns for a model of %d outputs", meas.Name, t, len(p.Outputs))
		}
		v, err := meas.Score(d.Y, pred, d.Queries)
		if err != nil {
			return fmt.Errorf("--measure %s: %w", meas.Name, err)
		}
		score = &v
	}
	write := func(w io.Writer) error { return dataset.WritePredictions(w, pred) }
	if p.Classes != nil {
		write = func(w io.Writer) error { return writeClasses(w, p.Classes, pred, f.scores) }
	}
	report := e.stderr
	if f.out != "" {
		if err := dataset.WriteFileAtomic(f.out, write); err != nil {
			return fmt.Errorf("--out %s: %w", f.out, err)
		}
		report = e.stdout
	} else if err := write(e.stdout); err != nil {
		return err
	}
	if score != nil {
		return json.NewEncoder(report).Encode(map[string]any{"measure": meas.Name, "value": *score})
	}
	return nil
}

// streamPredict predicts chunk by chunk — memory independent of the number of
// rows — writing to --out (atomically) or stdout. Used when no measure is asked.
func streamPredict(e *env, f *predictFlags, p *model.Predictor, r io.Reader, isCSV bool, label string, width int) error {
	var labels []string
	if label != "" {
		for _, l := range strings.Split(label, ",") {
			labels = append(labels, strings.TrimSpace(l))
		}
	}
	name := f.data
	if name == "-" {
		name = "<stdin>"
	}
	write := func(w io.Writer) error {
		return dataset.ReadChunks(r, name, formatOf(isCSV), dataset.CSVOptions{Labels: labels, Qid: f.qid},
			dataset.SVMLightOptions{Width: width}, 4096, func(d *dataset.Data, offset int) error {
				if offset == 0 && p.Features != nil && d.FeatureNames != nil {
					if err := sameFeatures(d.FeatureNames, p.Features); err != nil {
						return fmt.Errorf("%s: %w", f.data, err)
					}
				}
				pred, err := p.Predict(d.X)
				if err != nil {
					return fmt.Errorf("%s: rows from %d: %w", f.data, offset, err)
				}
				if p.Classes != nil {
					return writeClasses(w, p.Classes, pred, f.scores)
				}
				return dataset.WritePredictions(w, pred)
			})
	}
	if f.out != "" {
		if err := dataset.WriteFileAtomic(f.out, write); err != nil {
			return fmt.Errorf("--out %s: %w", f.out, err)
		}
		return nil
	}
	return write(e.stdout)
}

// writeClasses writes the predicted class (the argmax output) per row, with the
// per-class outputs after it when scores is set.
func writeClasses(w io.Writer, classes []float64, pred *mat.Dense, scores bool) error {
	lw := newLineWriter(w)
	names := dataset.ClassNames(classes)
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

func formatOf(isCSV bool) string {
	if isCSV {
		return "csv"
	}
	return "svmlight"
}

// relabel puts the real file name into errors from reading "-".
func relabel(err error, name string) error {
	var pe *dataset.ParseError
	if errors.As(err, &pe) && name != "-" {
		pe.File = name
	}
	return err
}

// peekCSVHeader returns the header fields without consuming them.
func peekCSVHeader(br *bufio.Reader) ([]string, error) {
	for n := 4096; ; n *= 2 {
		buf, err := br.Peek(n)
		if i := strings.IndexByte(string(buf), '\n'); i >= 0 || err != nil {
			line := string(buf)
			if i >= 0 {
				line = line[:i]
			}
			rec, cerr := csv.NewReader(strings.NewReader(strings.TrimPrefix(line, "\ufeff"))).Read()
			if cerr != nil {
				return nil, fmt.Errorf("line 1: header: %w", cerr)
			}
			for k := range rec {
				rec[k] = strings.TrimSpace(rec[k])
			}
			return rec, nil
		}
		if n > 1<<26 {
			return nil, errors.New("line 1: header longer than 64 MiB")
		}
	}
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
