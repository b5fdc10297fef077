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
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/summary"
)

// acceptedPairFlags are the flags of rlskit fit that rlskit_fit_pairs takes
// as settings: the learner, each side's kernel and grid, the λ grids, the
// setting (--cv pairs, rows[:K], cols[:K], both[:K], vertices[:K], none),
// the measure, standardization, the symmetry of a homogeneous network, the
// conjugate-gradient solver's settings, --interval cv+ (settings rows,
// cols and both) and the pairwise kernels (--pair-kernel,
// --pair-kernel-weights). The objects, pairs and folds come as arrays;
// --validation-pairs and --outer-folds are not taken yet.
var acceptedPairFlags = map[string]bool{
	"learner": true, "kernel": true, "gamma": true, "bias": true, "coef0": true, "degree": true,
	"gamma-grid": true, "degree-grid": true, "coef0-grid": true, "lambda": true, "lambda-grid": true,
	"col-kernel": true, "col-gamma": true, "col-bias": true, "col-coef0": true, "col-degree": true, "col-gamma-grid": true,
	"col-lambda": true, "col-lambda-grid": true, "cv": true, "measure": true, "seed": true, "standardize": true,
	"symmetry": true, "solver": true, "tol": true, "max-iter": true, "interval": true,
	"pair-kernel": true, "pair-kernel-weights": true, "newton-steps": true,
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
// data, or "solver": "cg", Kronecker RLS by conjugate gradients. With the
// setting "interval": "cv+" (and "cv" rows[:K], cols[:K] or both[:K]) the
// model records the CV+ interval over the folds of objects the setting
// holds out, as rlskit fit --interval cv+ does (interval.NewPairs: the
// models retrained without each fold and every pair's hold-out residual;
// K·m·q numbers for rows or cols, K·L·m·q for both), read by
// rlskit_predict_pairs_interval. The
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
	s.pred, s.pairPred, s.pairKernel, s.result, s.cvPred = nil, nil, nil, nil, nil
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
	var iv *model.PairInterval
	if f.Interval != "" { // plan.New checked cv+ and the setting (rows, cols or both)
		if fit.Search == nil {
			return fmt.Errorf("--interval %s: needs the closed form on complete data (every row × column pair labelled), not conjugate gradients", f.Interval)
		}
		d := fit.Settings.Scheme.Design
		if iv, err = interval.NewPairs(fit.Search.Solution, string(pp.Setting), d.RowFolds, d.ColFolds); err != nil {
			return fmt.Errorf("--interval %s (--cv %s): %w", f.Interval, pp.CVSpec, err)
		}
	}
	if fit.PairKernel != nil { // --pair-kernel: its own model (no interval: plan.New refused one)
		s.pairKernel = fit.PairKernel
		return nil
	}
	s.pairPred = fit.Model.PairModel()
	s.pairPred.Interval = iv
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
		if s.pairKernel != nil {
			return s.predictPairKernel(rows, m, d, rstride, cols, q, e, cstride, prow, pcol, n, out)
		}
		pm, rx, cx, ri, ci, err := s.pairQuery(rows, m, d, rstride, cols, q, e, cstride, prow, pcol, n, out)
		if err != nil || n == 0 {
			return err
		}
		pred, err := pm.Predict(rx, cx, ri, ci)
		if err != nil {
			return fmt.Errorf("pairs: %w", err)
		}
		copy(unsafe.Slice((*float64)(unsafe.Pointer(out)), int(n)), pred)
		return nil
	})
}

// rlskit_predict_pairs_interval writes, for n pairs given as to
// rlskit_predict_pairs and a model fitted with the setting "interval":
// "cv+", the prediction and the lower and upper ends of the CV+ interval of
// the given coverage into pred, lo and hi (n values each), as rlskit
// predict --pairs --coverage does (model.PairPredictor.PredictInterval;
// Barber et al. 2021 over folds of objects). The pairs take the kind of
// new object the fit's setting held out: new rows against the training
// columns (rows), training rows against new columns (cols), new rows with
// new columns (both). Cost: the hold-out models' predictions, F times the
// model's (F = K folds, or K·L for both), plus the order statistics per
// pair (model.PairPredictor.PredictInterval states them).
//
//export rlskit_predict_pairs_interval
func rlskit_predict_pairs_interval(h C.uintptr_t, rows *C.double, m, d, rstride C.int64_t, cols *C.double, q, e, cstride C.int64_t,
	prow, pcol *C.int64_t, n C.int64_t, coverage C.double, pred, lo, hi *C.double) C.int {
	return call(h, func(s *session) error {
		if s.pairKernel != nil {
			return fmt.Errorf("--coverage %g: the model of --pair-kernel %s records no prediction interval", float64(coverage), s.pairKernel.Kind)
		}
		pm, rx, cx, ri, ci, err := s.pairQuery(rows, m, d, rstride, cols, q, e, cstride, prow, pcol, n, pred)
		if err != nil {
			return err
		}
		if pm.Interval == nil {
			return fmt.Errorf("--coverage %g: the model records no prediction interval: fit it with the settings \"interval\": \"cv+\" and \"cv\": rows[:K], cols[:K] or both[:K]", float64(coverage))
		}
		if n > 0 && (lo == nil || hi == nil) {
			return fmt.Errorf("pairs: %d pairs without the interval's output buffers", n)
		}
		p, l, u, err := pm.PredictInterval(rx, cx, ri, ci, float64(coverage))
		if err != nil {
			return fmt.Errorf("--coverage %g: %w", float64(coverage), err)
		}
		for _, o := range []struct {
			src []float64
			dst *C.double
		}{{p, pred}, {l, lo}, {u, hi}} {
			if n > 0 {
				copy(unsafe.Slice((*float64)(unsafe.Pointer(o.dst)), int(n)), o.src)
			}
		}
		return nil
	})
}

// pairQuery reads the arguments of a prediction of pairs: h's model of
// pairs, the new row and column objects (nil: the training ones; a
// homogeneous network's new rows are its new columns, read in place) and
// the n pairs' indices (converted to Go ints, O(n)).
func (s *session) pairQuery(rows *C.double, m, d, rstride C.int64_t, cols *C.double, q, e, cstride C.int64_t,
	prow, pcol *C.int64_t, n C.int64_t, out *C.double) (pm *model.PairPredictor, rx, cx mat.Matrix, ri, ci []int, err error) {
	pm = s.pairPred
	if pm == nil {
		return nil, nil, nil, nil, nil, errors.New("rlskit: no model of pairs on this handle: fit or load one first")
	}
	if n < 0 || n > 0 && (prow == nil || pcol == nil || out == nil) {
		return nil, nil, nil, nil, nil, fmt.Errorf("pairs: %d pairs without their indices or an output buffer", n)
	}
	if rows != nil {
		x, err := dense(rows, m, d, rstride, "rows")
		if err != nil {
			return nil, nil, nil, nil, nil, err
		}
		rx = x
		if pm.Homogeneous() {
			cx = x
		}
	}
	if cols != nil {
		if pm.Homogeneous() {
			return nil, nil, nil, nil, nil, errors.New("cols: the model is a homogeneous network; new rows give its new vertices")
		}
		x, err := dense(cols, q, e, cstride, "cols")
		if err != nil {
			return nil, nil, nil, nil, nil, err
		}
		cx = x
	}
	ri, ci = make([]int, int(n)), make([]int, int(n))
	if n > 0 {
		for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(prow)), int(n)) {
			ri[i] = int(v)
		}
		for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(pcol)), int(n)) {
			ci[i] = int(v)
		}
	}
	return pm, rx, cx, ri, ci, nil
}
