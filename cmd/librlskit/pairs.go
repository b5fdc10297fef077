package main

/*
#include <stdint.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/pairfit"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/summary"
)

// acceptedPairFlags are the flags of rlskit fit that rlskit_fit_pairs takes
// as settings: the learner, each side's kernel and grid, the λ grids, the
// setting (--cv pairs, rows[:K], cols[:K], both[:K], vertices[:K], none),
// the measure, standardization, the symmetry of a homogeneous network and
// the conjugate-gradient solver's settings. The objects, pairs and folds
// come as arrays; --validation-pairs, --interval and --outer-folds are not
// taken yet.
var acceptedPairFlags = map[string]bool{
	"learner": true, "kernel": true, "gamma": true, "bias": true, "coef0": true, "degree": true,
	"gamma-grid": true, "degree-grid": true, "coef0-grid": true, "lambda": true, "lambda-grid": true,
	"col-kernel": true, "col-gamma": true, "col-bias": true, "col-coef0": true, "col-degree": true, "col-gamma-grid": true,
	"col-lambda": true, "col-lambda-grid": true, "cv": true, "measure": true, "seed": true, "standardize": true,
	"symmetry": true, "solver": true, "tol": true, "max-iter": true,
}

// The names the arrays of rlskit_fit_pairs take in messages, where rlskit
// fit names its files.
const (
	rowsArray     = "(rows array)"
	colsArray     = "(cols array)"
	pairsArray    = "(pairs array)"
	rowFoldsArray = "(row folds array)"
	colFoldsArray = "(col folds array)"
)

// pairResult is the JSON document of rlskit_result after rlskit_fit_pairs.
type pairResult struct {
	// Summary is rlskit fit's JSON output for the same fit of pairs.
	Summary *summary.Pair `json:"summary"`
	// BestIndex indexes summary.cv.curve at the chosen point.
	BestIndex int `json:"best_index"`
	// Measure and HigherIsBetter as in result.
	Measure        string `json:"measure"`
	HigherIsBetter bool   `json:"higher_is_better"`
	// HasCVPredictions says rlskit_cv_predictions has the n×1 CV
	// predictions of the pairs at the chosen point.
	HasCVPredictions bool `json:"has_cv_predictions"`
	// Homogeneous: the columns are the rows (a network of one set).
	Homogeneous bool `json:"homogeneous"`
}

// rlskit_fit_pairs fits the learner of pairs the settings name (a learner
// that declares learn.NeedsPairs: kronrls, twostep) as rlskit fit does,
// through pairfit.Fit: the m row objects (m×d at rows, row stride rstride;
// features, or a kernel matrix for the precomputed kernel), the q column
// objects (q×e at cols, or cols NULL for a homogeneous network, whose
// columns are its rows), n pairs (0-based row and column indices prow, pcol)
// with labels y, and optional object folds: rowFolds (m fold numbers, -1
// for an object in no fold) and colFolds (q), the folds of --folds and
// --col-folds. Complete data train in closed form with the settings' "cv"
// (pairs, rows[:K], cols[:K], both[:K], vertices[:K], none); incomplete
// data, or "solver": "cg", Kronecker RLS by conjugate gradients. The
// objects and labels are copied (O(m·d + q·e + n): the model keeps the
// objects it expands over), the pair indices converted to Go ints. Cost:
// pairfit.Fit's.
//
//export rlskit_fit_pairs
func rlskit_fit_pairs(h C.uintptr_t, settings *C.char, rows *C.double, m, d, rstride C.int64_t,
	cols *C.double, q, e, cstride C.int64_t, prow, pcol *C.int64_t, n C.int64_t, y *C.double,
	rowFolds, colFolds *C.int64_t) C.int {
	return call(h, func(s *session) error {
		defer s.cancelled.Store(false)
		s.fitG.Store(goid())
		if s.cancelled.Load() {
			return errCancelled
		}
		return s.fitPairs(C.GoString(settings), rows, m, d, rstride, cols, q, e, cstride, prow, pcol, n, y, rowFolds, colFolds)
	})
}

// fitPairs is rlskit_fit_pairs under the lock.
func (s *session) fitPairs(settings string, rp *C.double, m, d, rstride C.int64_t, cp *C.double, q, e, cstride C.int64_t,
	prow, pcol *C.int64_t, n C.int64_t, yp *C.double, rf, cf *C.int64_t) error {
	start := time.Now()
	s.pred, s.pairPred, s.result, s.cvPred = nil, nil, nil, nil
	f, given, err := parseSettingsFor(settings, acceptedPairFlags, "rlskit_fit_pairs")
	if err != nil {
		return err
	}
	le, err := plan.LookupLearner(f.Learner)
	if err != nil {
		return err
	}
	if !le.Needs.Has(learn.NeedsPairs) {
		return fmt.Errorf("--learner %s learns on rows, not pairs: fit it with rlskit_fit", le.Name)
	}
	rv, err := dense(rp, m, d, rstride, "rows")
	if err != nil {
		return err
	}
	rowsX := mat.DenseCopyOf(rv) // the model expands over its training objects; the handle outlives the caller's
	var colsX *mat.Dense
	f.Rows, f.Pairs, f.Cols = rowsArray, pairsArray, "same"
	if cp != nil {
		cv, err := dense(cp, q, e, cstride, "cols")
		if err != nil {
			return err
		}
		colsX, f.Cols = mat.DenseCopyOf(cv), colsArray
	} else if rf == nil && cf != nil {
		return errors.New("col folds: a homogeneous network (no cols) has vertex folds: pass them as row folds")
	}
	if n < 1 || prow == nil || pcol == nil || yp == nil {
		return fmt.Errorf("pairs: %d pairs: want at least one, with row and column indices and labels", n)
	}
	np := int(n)
	pairs := make([]pairwise.Pair, np)
	pr := unsafe.Slice((*int64)(unsafe.Pointer(prow)), np)
	pc := unsafe.Slice((*int64)(unsafe.Pointer(pcol)), np)
	nCols := int64(m)
	if colsX != nil {
		nCols = int64(q)
	}
	for i := range pairs {
		if pr[i] < 0 || pr[i] >= int64(m) || pc[i] < 0 || pc[i] >= nCols {
			return fmt.Errorf("pairs: pair %d is (%d, %d): want a row index in 0..%d and a column index in 0..%d", i, pr[i], pc[i], m-1, nCols-1)
		}
		pairs[i] = pairwise.Pair{Row: int(pr[i]), Col: int(pc[i])}
	}
	labels := append([]float64(nil), unsafe.Slice((*float64)(unsafe.Pointer(yp)), np)...)
	var rowF, colF [][]int
	if rf != nil {
		if rowF, err = foldsOf(unsafe.Slice((*int64)(unsafe.Pointer(rf)), int(m))); err != nil {
			return fmt.Errorf("row %w", err)
		}
		f.Folds = rowFoldsArray
	}
	if cf != nil {
		if colsX == nil {
			return errors.New("col folds: a homogeneous network has one set of objects: pass its folds as row folds")
		}
		if colF, err = foldsOf(unsafe.Slice((*int64)(unsafe.Pointer(cf)), int(q))); err != nil {
			return fmt.Errorf("col %w", err)
		}
		f.ColFolds = colFoldsArray
	}
	p, err := plan.New(f, func(name string) bool {
		return given[name] || name == "folds" && rf != nil || name == "col-folds" && cf != nil
	})
	if err != nil {
		return err
	}
	pp := p.Pairwise
	data := pairfit.Data{Rows: rowsX, Pairs: pairs, Labels: labels, RowsName: rowsArray, ColsName: colsArray, PairsName: pairsArray}
	if colsX != nil {
		data.Cols = colsX
	}
	fit, err := pairfit.Fit(pp, data, pairfit.Options{Standardize: f.Standardize, Seed: f.Seed, MaxIter: f.MaxIter,
		Progress: s.observer(), FoldsName: f.Folds,
		ObjectFolds: func(int, int) ([][]int, [][]int, error) { return rowF, colF, nil }})
	if err != nil {
		return err
	}
	out := fit.Summary
	out.Timing = summary.Timing{Train: fit.Train.Seconds(), CV: fit.CV.Seconds(), Total: time.Since(start).Seconds()}
	doc := pairResult{Summary: &out, Measure: pp.Measure.Name, HigherIsBetter: pp.Measure.HigherIsBetter, Homogeneous: pp.Homogeneous}
	if fit.Search != nil && out.CV != nil {
		doc.BestIndex = fit.Best.BestIndex
		for _, c := range fit.Search.Curves[:fit.Search.Best] {
			doc.BestIndex += len(c.Curve)
		}
	}
	if fit.CVPredictions != nil {
		s.cvPred, doc.HasCVPredictions = mat.NewDense(len(fit.CVPredictions), 1, fit.CVPredictions), true
	}
	if s.result, err = json.Marshal(doc); err != nil {
		return err
	}
	s.pairPred = fit.Model.PairModel()
	return nil
}

// rlskit_predict_pairs writes to out the predictions of h's model of pairs
// for n pairs (row and column indices prow, pcol) of new objects — rows
// (m×d, row stride rstride) and cols (q×e, cstride), read in place, given
// as the sides' kernels take them — or of the training objects where rows
// (cols) is NULL; for a homogeneous network the new rows are also the
// columns. As rlskit predict --pairs does (model.PairPredictor.Predict):
// O(m'·m·(d + q) + n·q) for m' distinct row objects asked.
//
//export rlskit_predict_pairs
func rlskit_predict_pairs(h C.uintptr_t, rows *C.double, m, d, rstride C.int64_t, cols *C.double, q, e, cstride C.int64_t,
	prow, pcol *C.int64_t, n C.int64_t, out *C.double) C.int {
	return call(h, func(s *session) error {
		pm := s.pairPred
		if pm == nil {
			return errors.New("rlskit: no model of pairs on this handle: fit or load one first")
		}
		if n < 0 || n > 0 && (prow == nil || pcol == nil || out == nil) {
			return fmt.Errorf("pairs: %d pairs without their indices or an output buffer", n)
		}
		var rx, cx mat.Matrix
		if rows != nil {
			x, err := dense(rows, m, d, rstride, "rows")
			if err != nil {
				return err
			}
			rx = x
			if pm.Homogeneous() {
				cx = x
			}
		}
		if cols != nil {
			if pm.Homogeneous() {
				return errors.New("cols: the model is a homogeneous network; new rows give its new vertices")
			}
			x, err := dense(cols, q, e, cstride, "cols")
			if err != nil {
				return err
			}
			cx = x
		}
		if n == 0 {
			return nil
		}
		ri, ci := make([]int, int(n)), make([]int, int(n))
		for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(prow)), int(n)) {
			ri[i] = int(v)
		}
		for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(pcol)), int(n)) {
			ci[i] = int(v)
		}
		pred, err := pm.Predict(rx, cx, ri, ci)
		if err != nil {
			return fmt.Errorf("pairs: %w", err)
		}
		copy(unsafe.Slice((*float64)(unsafe.Pointer(out)), int(n)), pred)
		return nil
	})
}
