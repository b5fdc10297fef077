package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/plan"
)

func chooseBasis(f *fitFlags, d *dataset.Data, m int) ([]int, error) {
	switch {
	case f.BasisRows != "":
		b, err := readFile(f.BasisRows, func(r io.Reader) ([]int, error) { return dataset.ReadIndices(r, f.BasisRows, m) })
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, fmt.Errorf("--basis-rows %s: no rows", f.BasisRows)
		}
		return b, nil
	case f.BasisSelect == "per-group":
		if d.Queries == nil {
			return nil, errors.New("--basis-select per-group needs group ids (qid: in svmlight, --qid in CSV)")
		}
		b, err := basis.PerGroup(d.Queries, f.Seed)
		if err != nil {
			return nil, fmt.Errorf("--basis-select per-group: %w", err)
		}
		return b, nil
	case f.Basis > 0:
		if f.Basis > m {
			return nil, fmt.Errorf("--basis %d: more basis vectors than the %d training rows", f.Basis, m)
		}
		if f.BasisSelect == plan.BasisGreedy {
			return nil, nil // chosen per kernel setting
		}
		return basis.Random(m, f.Basis, f.Seed)
	}
	return nil, nil
}

// readFile opens path — gzip-compressed or plain, detected by content — and
// reads it with read.
func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	fh, err := dataset.OpenData(path)
	if err != nil {
		return zero, err
	}
	defer fh.Close()
	return read(fh)
}

// dataFormat returns the format of a data file: --format, or else by its name.
func dataFormat(path, format string) (string, error) {
	switch format {
	case "":
		return dataset.FormatOf(path), nil
	case "csv", "svmlight", "npy", "npz", "parquet":
		return format, nil
	}
	return "", fmt.Errorf("--format %q: want svmlight, csv, npy, npz or parquet", format)
}

// stdinFormat returns format, or for standard input ("-") without one the
// format its first bytes show (dataset.SniffFormat: CSV is not taken for
// svmlight); e.stdin then reads through the buffer that peeked at them.
func stdinFormat(e *env, path, format string) string {
	if path != "-" || format != "" || e.stdin == nil {
		return format
	}
	format, e.stdin = dataset.SniffFormat(e.stdin)
	return format
}

// readData reads a data file (or standard input for "-"). width > 0 fixes the
// number of svmlight features (prediction data for a model).
func readData(e *env, path, format, label, qid string, width int, in plan.InputFlags) (*dataset.Data, error) {
	format, err := dataFormat(path, stdinFormat(e, path, format))
	if err != nil {
		return nil, err
	}
	base, err := in.Base(nil)
	if err != nil {
		return nil, err
	}
	comma, err := in.Comma()
	if err != nil {
		return nil, err
	}
	csvOpt := dataset.CSVOptions{Labels: splitList(label), Qid: qid, Comma: comma, Columns: in.Columns()}
	csvOpt.ClassLabels = in.Classes && len(csvOpt.Labels) == 1
	svmOpt := dataset.SVMLightOptions{Width: width, Base: base}
	return readFormat(e, path, format, csvOpt, svmOpt, in.Labels)
}

// readFormat reads a data file of a known format with the readers' options.
func readFormat(e *env, path, format string, csvOpt dataset.CSVOptions, svmOpt dataset.SVMLightOptions, labels string) (*dataset.Data, error) {
	if path != "-" {
		if st, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("--data %s: %w", path, err)
		} else if st.IsDir() {
			return nil, fmt.Errorf("--data %s: is a directory, not a data file", path)
		}
	}
	named := csvOpt.Qid != "" || len(csvOpt.Labels) > 0
	switch {
	case format == "svmlight" && named:
		return nil, fmt.Errorf("%s: --label and --qid apply to CSV, npz and Parquet data; svmlight files carry their labels and qid: fields", path)
	case format == "npy" && named:
		return nil, fmt.Errorf("%s: --label and --qid apply to CSV, npz and Parquet data; give .npy labels with --labels FILE", path)
	case labels != "" && format != "npy":
		return nil, fmt.Errorf("--labels %s applies to .npy data (--data X.npy --labels y.npy), not %s data", labels, format)
	case format == "svmlight" && !csvOpt.Columns.IsZero():
		return nil, fmt.Errorf("%s: %s choose columns of CSV, Parquet and NumPy data; svmlight files have none to choose (their features are indices)", path, columnFlags(csvOpt.Columns))
	}
	if path != "-" {
		if format == "npy" {
			d, err := dataset.ReadNpyFiles(path, labels)
			if err != nil {
				return nil, err
			}
			return d, dataset.SelectArrayColumns(d, path, csvOpt.Columns)
		}
		return dataset.ReadFile(path, format, csvOpt, svmOpt)
	}
	switch format {
	case "csv":
		return dataset.ReadCSV(e.stdin, "<stdin>", csvOpt)
	case "svmlight":
		return dataset.ReadSVMLight(e.stdin, "<stdin>", svmOpt)
	case "npy":
		x, err := dataset.ReadNpy(e.stdin, "<stdin>", -1)
		if err != nil {
			return nil, err
		}
		d := &dataset.Data{X: x}
		if labels != "" {
			y, err := dataset.ReadNpyFiles(labels, "")
			if err != nil {
				return nil, err
			}
			if r, _ := y.X.Dims(); r != d.Rows() {
				return nil, fmt.Errorf("--labels %s: %d rows for the %d rows of <stdin>", labels, r, d.Rows())
			}
			d.Y = y.X.(*mat.Dense)
			_, t := d.Y.Dims()
			d.LabelNames = []string{"label"}
			if t > 1 {
				d.LabelNames = nil
				for k := 1; k <= t; k++ {
					d.LabelNames = append(d.LabelNames, fmt.Sprintf("label%d", k))
				}
			}
		}
		return d, dataset.SelectArrayColumns(d, "<stdin>", csvOpt.Columns)
	}
	b, err := io.ReadAll(e.stdin) // npz and Parquet need random access
	if err != nil {
		return nil, fmt.Errorf("<stdin>: %w", err)
	}
	br, err := dataset.Decompress(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("<stdin>: %w", err)
	}
	if b, err = io.ReadAll(br); err != nil {
		return nil, fmt.Errorf("<stdin>: %w", err)
	}
	if format == "npz" {
		return dataset.ReadNpz(bytes.NewReader(b), int64(len(b)), "<stdin>", csvOpt)
	}
	return dataset.ReadParquet(bytes.NewReader(b), int64(len(b)), "<stdin>", csvOpt)
}

// columnFlags names the flags that chose columns: "--features", "--ignore"
// or both.
func columnFlags(c dataset.Columns) string {
	switch {
	case len(c.Features) > 0 && len(c.Ignore) > 0:
		return "--features and --ignore"
	case len(c.Ignore) > 0:
		return "--ignore"
	}
	return "--features"
}

// arrayColumns returns the columns of an unnamed array (NumPy) the features
// of d were chosen from, which a model records (named columns are recorded
// by their names); nil when not chosen.
func arrayColumns(d *dataset.Data) []int {
	if d.FeatureNames != nil {
		return nil
	}
	return d.FeatureColumns
}

// predictColumns returns the columns predict reads the features from: those
// the model records — by name in CSV and Parquet data (wherever they stand;
// other columns are not read), by number in NumPy arrays — and --features
// and --ignore, which must then choose the same columns (dataset.Columns).
func predictColumns(p *model.Predictor, path, format string, in plan.InputFlags) (dataset.Columns, error) {
	c := in.Columns()
	switch format {
	case "csv", "parquet":
		if p.FeatureColumns != nil {
			return c, fmt.Errorf("%s: the model was trained on chosen columns of an unnamed NumPy array (feature_columns %v, 0-based): give the prediction data as .npz or .npy", path, p.FeatureColumns)
		}
		if p.Features != nil {
			c.Names = slices.Clone(p.Features)
		}
	case "npz", "npy":
		if p.FeatureColumns != nil {
			c.Positions = slices.Clone(p.FeatureColumns)
		}
	case "svmlight":
		if !c.IsZero() {
			return c, fmt.Errorf("%s: %s choose columns of CSV, Parquet and NumPy data; svmlight files have none to choose (their features are indices)", path, columnFlags(c))
		}
		if p.FeatureColumns != nil {
			return c, fmt.Errorf("%s: the model was trained on chosen columns of a NumPy array (feature_columns %v, 0-based): give the prediction data as .npz or .npy", path, p.FeatureColumns)
		}
	}
	return c, nil
}

// readWeights reads --weights: one sample weight per line for each of the
// rows training rows, in order (blank lines and surrounding blanks are
// skipped). A weight that is not a finite number > 0 is refused naming the
// file and line, and so is a count other than rows — read no further than
// one weight past it, so a huge file costs no memory. O(rows).
func readWeights(r io.Reader, path string, rows int) ([]float64, error) {
	sc := bufio.NewScanner(r)
	w := make([]float64, 0, min(rows, 1<<20))
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if len(w) == rows {
			return nil, fmt.Errorf("--weights %s:%d: more weights than the %d training rows", path, line, rows)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("--weights %s:%d: %q is not a number", path, line, s)
		}
		if !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("--weights %s:%d: weight %s: want a finite number > 0 (leave a row out rather than weigh it 0)", path, line, s)
		}
		w = append(w, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--weights %s: line %d: %w", path, line+1, err)
	}
	if len(w) != rows {
		return nil, fmt.Errorf("--weights %s: %d weights for %d training rows (one per row, in order)", path, len(w), rows)
	}
	return w, nil
}

// weightColumn returns the data column --weights names, or "" when it
// names a file of weights (or is not given). A value that is not a file is
// a column name when --data is a CSV or Parquet file (not standard input,
// which is read once); it must be a plain name, not a number, range or glob
// as --features takes.
func weightColumn(f *fitFlags) (string, error) {
	if f.Weights == "" {
		return "", nil
	}
	if _, err := os.Stat(f.Weights); err == nil || f.Weights == "-" {
		return "", nil
	}
	format, err := dataFormat(f.Data, f.Format)
	if err != nil {
		return "", err
	}
	switch {
	case f.Data == "-" || (format != "csv" && format != "parquet"):
		return "", fmt.Errorf("--weights %s: no such file (a column name takes CSV or Parquet --data read from a file)", f.Weights)
	case strings.ContainsAny(f.Weights, "*?[\\,") || strings.TrimLeft(f.Weights, "0123456789-") == "":
		return "", fmt.Errorf("--weights %s: no such file, and not a plain column name (no number, range, glob or comma)", f.Weights)
	}
	return f.Weights, nil
}

// readWeightColumn reads the sample weights of column col of --data: a
// second pass over the file reading that one column (dataset.Columns.Names),
// O(file) time and O(rows) memory. Each weight must be a finite number > 0,
// refused naming its row; rows is the count of training rows read.
func readWeightColumn(f *fitFlags, col string, rows int) ([]float64, error) {
	format, err := dataFormat(f.Data, f.Format)
	if err != nil {
		return nil, err
	}
	comma, err := f.In.Comma()
	if err != nil {
		return nil, err
	}
	opt := dataset.CSVOptions{Comma: comma, Columns: dataset.Columns{Names: []string{col}}}
	d, err := dataset.ReadFile(f.Data, format, opt, dataset.SVMLightOptions{})
	if err != nil {
		return nil, fmt.Errorf("--weights %s (no such file; as a column of --data): %w", col, err)
	}
	if d.Rows() != rows {
		return nil, fmt.Errorf("--weights %s: %d weights for %d training rows", col, d.Rows(), rows)
	}
	w := mat.Col(nil, 0, d.X)
	for i, v := range w {
		if !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("--weights %s: %s row %d: weight %v: want a finite number > 0 (leave a row out rather than weigh it 0)", col, f.Data, i+1, v)
		}
	}
	return w, nil
}
