package main

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/pairkernel"
)

// predictPairKernel predicts the pairs of --pairs with a model of
// --pair-kernel (pairkernel.Predictor): the objects from --rows and --cols
// (new objects, never the same as a training one), or the training objects
// when a flag is not given; for symmetric, antisymmetric and ranking (one
// object set) both indices of a pair refer to --rows' objects, and --cols
// same gives --rows' objects as the columns of the other kinds. It records no
// interval, so --coverage is refused. Cost: pairkernel.Predictor.Predict's.
func predictPairKernel(e *env, f *predictFlags, pk *pairkernel.Predictor) ([]float64, *dataset.Pairs, error) {
	if f.coverageSet {
		return nil, nil, fmt.Errorf("--coverage %g: %s is a model of --pair-kernel %s, which records no prediction interval", f.coverage, f.modelPath, pk.Kind)
	}
	one := pk.Kind.Homogeneous()
	if one && f.cols != "" && f.cols != "same" {
		return nil, nil, fmt.Errorf("--cols %s: the model's --pair-kernel %s pairs objects of one set; --rows gives its new objects", f.cols, pk.Kind)
	}
	read := func(flag, path string, train *mat.Dense) (*mat.Dense, int, error) {
		if path == "" {
			return nil, train.RawMatrix().Rows, nil
		}
		d, err := readObjects(e, flag, path, f.format, train.RawMatrix().Cols, f.in, nil)
		if err != nil {
			return nil, 0, err
		}
		x := mat.DenseCopyOf(d.X)
		return x, x.RawMatrix().Rows, nil
	}
	rx, m, err := read("--rows", f.rows, pk.Rows)
	if err != nil {
		return nil, nil, err
	}
	var cx *mat.Dense
	q := m
	switch {
	case one:
	case f.cols == "same":
		if f.rows == "" {
			return nil, nil, fmt.Errorf("--cols same: the columns are the new objects of --rows FILE; without --rows the pairs index the training objects (give no --cols)")
		}
		cx = rx
	default:
		if cx, q, err = read("--cols", f.cols, pk.Cols); err != nil {
			return nil, nil, err
		}
	}
	pf, err := readPairsFile("--pairs", f.pairs, m, q, true)
	if err != nil {
		return nil, nil, err
	}
	pred, err := pk.Predict(rx, cx, pairkernel.Pairs{Rows: pf.Rows, Cols: pf.Cols})
	if err != nil {
		return nil, nil, fmt.Errorf("--pairs %s: %w", f.pairs, err)
	}
	return pred, pf, nil
}
