package measure

import (
	"errors"
	"fmt"
)

// RowAveragedCIndex is the concordance index computed within each row
// object's pairs and averaged over the row objects — the per-drug c-index
// that drug–target interaction papers report next to the pooled one
// (Pahikkala et al. 2015):
//
//	C_row = (1/|R|) Σ_{r∈R} CIndex(y_r, p_r),
//
// where y_r, p_r are the labels and predictions of the pairs whose row is r
// (rows[i] names the row object of example i) and R are the rows with at
// least one pair of different labels; rows without one are skipped. It
// returns an error wrapping ErrShape for lengths that differ and ErrUndefined
// when no row has two different labels or a value is NaN. Time O(n log n),
// O(n) extra space.
//
// As the named measure "cindex-row" (ByName) it takes the row ids as its
// query ids: score pairwise predictions with each pair's row object as its
// query (or, say, its column object for the per-column c-index), and any
// learner's with its query ids for the c-index averaged over queries.
func RowAveragedCIndex(y, p []float64, rows []int) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return 0, err
	}
	if len(rows) != len(y) {
		return 0, fmt.Errorf("%w: %d labels, %d row ids", ErrShape, len(y), len(rows))
	}
	if err := checkNaN(y, p); err != nil {
		return 0, err
	}
	idx := map[int]int{}
	var ys, ps [][]float64
	for i, r := range rows {
		g, ok := idx[r]
		if !ok {
			g = len(ys)
			idx[r] = g
			ys, ps = append(ys, nil), append(ps, nil)
		}
		ys[g], ps[g] = append(ys[g], y[i]), append(ps[g], p[i])
	}
	sum, n := 0.0, 0
	for g := range ys {
		c, err := CIndex(ys[g], ps[g])
		if errors.Is(err, ErrUndefined) {
			continue
		}
		if err != nil {
			return 0, err
		}
		sum += c
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: no row object has two pairs with different labels", ErrUndefined)
	}
	return sum / float64(n), nil
}
