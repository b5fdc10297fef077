package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/dataset"
)

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

// inputFlags are the data-reading flags fit and predict share.
type inputFlags struct {
	zeroBased string // auto, true, false; "" (predict): as the model records
	delimiter string // auto or one character
	labels    string // .npy data: the labels file
}

// addInputFlags registers --zero-based, --delimiter and --labels; predict
// reads svmlight indices as the model records by default.
func addInputFlags(fl *pflag.FlagSet, in *inputFlags, predict bool) {
	def, help := "auto", "svmlight feature indices: auto (0-based when the smallest index in the file is 0, as scikit-learn's load_svmlight_file decides; else 1-based), true (0-based, what scikit-learn's dump_svmlight_file writes) or false (1-based); the model records it for predict"
	if predict {
		def, help = "", "svmlight feature indices: auto, true (0-based) or false (1-based) (default: as the model's training data were read)"
	}
	fl.StringVar(&in.zeroBased, "zero-based", def, help)
	fl.StringVar(&in.delimiter, "delimiter", "auto", "CSV field delimiter: auto (comma, semicolon or tab, whichever splits the header into the most fields), or one character (',', ';', tab)")
	fl.StringVar(&in.labels, "labels", "", ".npy data: a .npy file of labels (1-D, or 2-D for several outputs), one per row of --data")
}

// base returns the svmlight index base the flags ask for; model is the base
// recorded in a model (predict), used when --zero-based is not given.
func (in inputFlags) base(model *bool) (dataset.IndexBase, error) {
	if in.zeroBased == "" {
		if model != nil && *model {
			return dataset.ZeroBased, nil
		}
		return dataset.OneBased, nil
	}
	b, err := dataset.ParseIndexBase(in.zeroBased)
	if err != nil {
		return 0, fmt.Errorf("--zero-based %q: want auto, true or false", in.zeroBased)
	}
	return b, nil
}

// comma returns the CSV delimiter (0: detect from the header).
func (in inputFlags) comma() (rune, error) {
	switch in.delimiter {
	case "", "auto":
		return 0, nil
	case "tab", `\t`:
		return '\t', nil
	}
	r := []rune(in.delimiter)
	if len(r) != 1 || r[0] == '"' || r[0] == '\n' || r[0] == '\r' {
		return 0, fmt.Errorf("--delimiter %q: want auto, tab or one character other than a quote or a line break", in.delimiter)
	}
	return r[0], nil
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

// readData reads a data file (or standard input for "-"). width > 0 fixes the
// number of svmlight features (prediction data for a model).
func readData(e *env, path, format, label, qid string, width int, in inputFlags) (*dataset.Data, error) {
	format, err := dataFormat(path, format)
	if err != nil {
		return nil, err
	}
	base, err := in.base(nil)
	if err != nil {
		return nil, err
	}
	comma, err := in.comma()
	if err != nil {
		return nil, err
	}
	csvOpt := dataset.CSVOptions{Labels: splitList(label), Qid: qid, Comma: comma}
	svmOpt := dataset.SVMLightOptions{Width: width, Base: base}
	return readFormat(e, path, format, csvOpt, svmOpt, in.labels)
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
	}
	if path != "-" {
		if format == "npy" {
			return dataset.ReadNpyFiles(path, labels)
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
		return d, nil
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
