package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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
	if path != "-" {
		if st, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("--data %s: %w", path, err)
		} else if st.IsDir() {
			return nil, fmt.Errorf("--data %s: is a directory, not a data file", path)
		}
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
