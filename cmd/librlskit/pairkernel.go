package main

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/pairkernel"
)

// predictPairKernel is rlskit_predict_pairs for a model of --pair-kernel
// (pairkernel.Predictor.Predict): the n pairs index the new objects rows
// (cols) — copied, O(m'·d) — or the training objects where NULL; for
// symmetric, antisymmetric and ranking (one object set) both indices refer
// to rows and cols must be NULL. Cost: the cross kernels, O(m'·m·d +
// q'·q·e), then O(n_train·(m' + q')) per term.
func (s *session) predictPairKernel(rows *C.double, m, d, rstride C.int64_t, cols *C.double, q, e, cstride C.int64_t,
	prow, pcol *C.int64_t, n C.int64_t, out *C.double) error {
	pk := s.pairKernel
	if n < 0 || n > 0 && (prow == nil || pcol == nil || out == nil) {
		return fmt.Errorf("pairs: %d pairs without their indices or an output buffer", n)
	}
	var rx, cx *mat.Dense
	if rows != nil {
		x, err := dense(rows, m, d, rstride, "rows")
		if err != nil {
			return err
		}
		rx = mat.DenseCopyOf(x)
	}
	if cols != nil {
		if pk.Kind.Homogeneous() {
			return fmt.Errorf("cols: the model's pair kernel %s pairs objects of one set; new rows give its new objects", pk.Kind)
		}
		x, err := dense(cols, q, e, cstride, "cols")
		if err != nil {
			return err
		}
		cx = mat.DenseCopyOf(x)
	}
	if n == 0 {
		return nil
	}
	test := pairkernel.Pairs{Rows: make([]int, int(n)), Cols: make([]int, int(n))}
	for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(prow)), int(n)) {
		test.Rows[i] = int(v)
	}
	for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(pcol)), int(n)) {
		test.Cols[i] = int(v)
	}
	pred, err := pk.Predict(rx, cx, test)
	if err != nil {
		return fmt.Errorf("pairs: %w", err)
	}
	copy(unsafe.Slice((*float64)(unsafe.Pointer(out)), int(n)), pred)
	return nil
}
