package model

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The cross-validation settings a pairwise interval is for (package
// pairwise's Design): new row objects against the training columns (B),
// new column objects against the training rows (C), or a new row object
// with a new column object (D).
const (
	PairSettingRows = "rows"
	PairSettingCols = "cols"
	PairSettingBoth = "both"
)

// PairInterval is what CV+ prediction intervals (Barber, Candès, Ramdas &
// Tibshirani 2021, sect. 4) for a pairwise model need beside the model: the
// hold-out models of a cross-validation design over objects, which fold left
// each training object out, and each training pair's hold-out residual.
//
// Setting "rows" (B, the interval of a new row object u paired with a
// training column c): K models A_{−k}, each trained without the row objects
// of row fold k; the exchangeable points are the row objects (each with its
// labels against the fixed training columns), so the interval for (u, c) is
// CV+ over the m training rows with the scores of column c:
//
//	μ_{−F(i)}(u, c) ∓ R_ic,   R_ic = |Y_ic − μ_{−F(i)}(u_i, c)|,   i = 1..m,
//
// which is Barber et al.'s CV+ for the row objects exactly (their Theorem 4
// holds: ≥ 1 − 2α − √(2/m)).
//
// Setting "cols" (C, the interval of a new column object v paired with a
// training row r) is its mirror: K models A_{−l}, each trained without the
// column objects of column fold l, and CV+ over the q training columns with
// the scores of row r,
//
//	μ_{−G(j)}(r, v) ∓ R_rj,   R_rj = |Y_rj − μ_{−G(j)}(u_r, v_j)|,   j = 1..q,
//
// Barber et al.'s CV+ for the column objects (≥ 1 − 2α − √(2/q)).
//
// Setting "both" (D, a new row u with a new column v): K·L models A_{−k,−l}
// (row fold k and column fold l left out together; model k·L + l), and the
// m·q training pairs each scored by the model that left out both its row
// and its column — the pair is then as new to it as (u, v) is to the
// others:
//
//	μ_{−F(i),−G(j)}(u, v) ∓ R_ij,   R_ij = |Y_ij − μ_{−F(i),−G(j)}(u_i, v_j)|.
//
// With rows and columns drawn independently, (u, v) is exchangeable with
// each training pair, but the m·q pairs share rows and columns and are not
// jointly exchangeable with it, so Barber et al.'s guarantee is not proven
// for the pooled set (an honest caveat: the coverage tests measure it).
//
// Models are m×q coefficient matrices over the training objects (f(u, v) =
// k(u)ᵀ A g(v)), zero in the rows and columns left out. Size: K·m·q (rows,
// cols) or K·L·m·q (both) numbers plus m·q residuals.
type PairInterval struct {
	Method  string
	Setting string
	// RowFold[i] ∈ [0, K) is the row fold of training row i (settings rows
	// and both); ColFold[j] ∈ [0, L) the column fold of column j (settings
	// cols and both).
	RowFold, ColFold []int
	Models           []*mat.Dense
	// Residuals is m×q: R_ij.
	Residuals *mat.Dense
}

// PredictInterval returns the predictions (Predict's) of the pairs (rows[k],
// cols[k]) and the lower and upper ends of their CV+ intervals at coverage
// 1 − α (see PairInterval): lower the ⌊α(n+1)⌋-th smallest of μ − R, upper
// the ⌈(1−α)(n+1)⌉-th smallest of μ + R (Ranks; ±Inf when α < 1/(n+1)),
// over the n = m residuals of the pair's column (rows), the n = q residuals
// of the pair's row (cols) or the n = m·q residuals of every training pair
// (both). Setting rows takes new row objects rowX and training columns
// (colX nil); setting cols training rows (rowX nil) and new columns colX;
// setting both new rows and new columns.
//
// Cost: the kernel rows of the m' distinct row objects and q' distinct
// column objects asked (O(m'·m·d + q'·q·d)), then per model O(m'·m·q + n'·q)
// for n' pairs — O(F·(m'·m·q + n'·q)) for F = K or K·L models — and per
// pair the two order statistics: O(m) (O(q)) expected (selectKth) for rows
// (cols); for
// both, the residuals sorted by block once per call (O(m·q·log(m·q))), then
// O(64·K·L·log(m·q)) per pair (kthShifted) instead of O(m·q). Memory: one
// model's m'×q product at a time, n'·F hold-out predictions and m·q.
func (p *PairPredictor) PredictInterval(rowX, colX mat.Matrix, rows, cols []int, coverage float64) (pred, lo, hi []float64, err error) {
	if p == nil || p.Interval == nil {
		return nil, nil, nil, ErrNoInterval
	}
	if err := checkCoverage(coverage); err != nil {
		return nil, nil, nil, err
	}
	iv := p.Interval
	switch iv.Setting {
	case PairSettingRows:
		if rowX == nil || colX != nil {
			return nil, nil, nil, fmt.Errorf("model: the interval is for new row objects against the training columns (setting rows): give new rows and training column indices")
		}
	case PairSettingCols:
		if rowX != nil || colX == nil {
			return nil, nil, nil, fmt.Errorf("model: the interval is for new column objects against the training rows (setting cols): give training row indices and new columns")
		}
	case PairSettingBoth:
		if rowX == nil || colX == nil {
			return nil, nil, nil, fmt.Errorf("model: the interval is for pairs of a new row object and a new column object (setting both): give both")
		}
	}
	if pred, err = p.Predict(rowX, colX, rows, cols); err != nil {
		return nil, nil, nil, err
	}
	kr, rmap, err := sideKernel(p.Rows, rowX, rows, "row")
	if err != nil {
		return nil, nil, nil, err
	}
	kc, cmap, err := sideKernel(p.Cols, colX, cols, "column")
	if err != nil {
		return nil, nil, nil, err
	}
	n := len(rows)
	lo, hi = make([]float64, n), make([]float64, n)
	if n == 0 {
		return pred, lo, hi, nil
	}
	f := len(iv.Models)
	mu := make([]float64, n*f) // pair k's model g at k·f + g
	var t mat.Dense
	for g, a := range iv.Models {
		t.Reset()
		t.Mul(kr, a)
		for k := range rows {
			tr, gr := t.RawRowView(rmap[rows[k]]), kc.RawRowView(cmap[cols[k]])
			s := 0.0
			for j, x := range tr {
				s += x * gr[j]
			}
			mu[k*f+g] = s
		}
	}
	m, q := iv.Residuals.Dims()
	res := iv.Residuals.RawMatrix()
	size := m
	switch iv.Setting {
	case PairSettingCols:
		size = q
	case PairSettingBoth:
		size = m * q
	}
	rLo, rHi := Ranks(coverage, size)
	var lov, hiv []float64 // one row's or column's shifted values (rows, cols)
	if iv.Setting != PairSettingBoth {
		lov, hiv = make([]float64, size), make([]float64, size)
	}
	nl := 0
	if iv.ColFold != nil {
		nl = slices.Max(iv.ColFold) + 1
	}
	var blocks [][]float64 // setting both: each block's residuals, sorted
	if iv.Setting == PairSettingBoth && rHi <= size {
		blocks = make([][]float64, f)
		for i, fo := range iv.RowFold {
			row := res.Data[i*res.Stride : i*res.Stride+q]
			for j, go_ := range iv.ColFold {
				blocks[fo*nl+go_] = append(blocks[fo*nl+go_], row[j])
			}
		}
		for _, b := range blocks {
			slices.Sort(b)
		}
	}
	for k := range rows {
		if rHi > size {
			lo[k], hi[k] = math.Inf(-1), math.Inf(1)
			continue
		}
		v := mu[k*f : k*f+f]
		if iv.Setting == PairSettingBoth {
			lo[k], hi[k] = kthShifted(blocks, v, -1, rLo), kthShifted(blocks, v, 1, rHi)
			continue
		}
		if iv.Setting == PairSettingCols {
			row := res.Data[rows[k]*res.Stride : rows[k]*res.Stride+q]
			for j, fo := range iv.ColFold {
				lov[j], hiv[j] = v[fo]-row[j], v[fo]+row[j]
			}
		} else {
			c := cols[k]
			for i, fo := range iv.RowFold {
				r := res.Data[i*res.Stride+c]
				lov[i], hiv[i] = v[fo]-r, v[fo]+r
			}
		}
		lo[k], hi[k] = selectKth(lov, rLo-1), selectKth(hiv, rHi-1)
	}
	return pred, lo, hi, nil
}

// kthShifted returns the r-th smallest (1-based) of the values μ_b + s·R
// (s = ±1, computed in floating point as the m·q-value selection would)
// over every block b and every residual R of blocks[b] (each sorted
// ascending): the smallest float v with at least r values ≤ v, found by
// bisection over the floats' order (at most 64 steps), each counting by a
// binary search per block — O(64·B·log n) for B blocks instead of O(n) per
// pair. The result is one of the values exactly.
func kthShifted(blocks [][]float64, mu []float64, s float64, r int) float64 {
	val := func(b, i int) float64 { return mu[b] + s*blocks[b][i] }
	count := func(v float64) int {
		c := 0
		for b, rs := range blocks {
			n := len(rs)
			if s > 0 { // ascending in i: the prefix ≤ v
				c += sortSearch(n, func(i int) bool { return val(b, i) > v })
			} else { // descending in i: the suffix ≤ v
				c += n - sortSearch(n, func(i int) bool { return val(b, i) <= v })
			}
		}
		return c
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for b, rs := range blocks {
		if len(rs) == 0 {
			continue
		}
		a, z := val(b, 0), val(b, len(rs)-1)
		lo, hi = min(lo, a, z), max(hi, a, z)
	}
	kl, kh := floatKey(lo), floatKey(hi)
	for kl < kh {
		mid := kl>>1 + kh>>1 + kl&kh&1 // ⌊(kl + kh)/2⌋ without overflow
		if count(keyFloat(mid)) >= r {
			kh = mid
		} else {
			kl = mid + 1
		}
	}
	return keyFloat(kl)
}

// sortSearch is sort.Search: the smallest i in [0, n) with pred(i), or n.
func sortSearch(n int, pred func(int) bool) int {
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if !pred(h) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// floatKey maps a float to an int64 in the same order (−0 and +0 to 0);
// keyFloat inverts it.
func floatKey(v float64) int64 {
	k := int64(math.Float64bits(v))
	if k < 0 {
		k = math.MinInt64 - k
	}
	return k
}

func keyFloat(k int64) float64 {
	if k < 0 {
		k = math.MinInt64 - k
	}
	return math.Float64frombits(uint64(k))
}

// pairIntervalFile is the JSON form of a PairInterval.
type pairIntervalFile struct {
	Method    string        `json:"method"`
	Setting   string        `json:"setting"`
	RowFold   []int         `json:"row_fold,omitempty"`
	ColFold   []int         `json:"col_fold,omitempty"`
	Models    [][][]float64 `json:"models"`
	Residuals [][]float64   `json:"residuals"`
}

func (iv *PairInterval) file() *pairIntervalFile {
	f := &pairIntervalFile{Method: iv.Method, Setting: iv.Setting, RowFold: iv.RowFold, ColFold: iv.ColFold, Residuals: rows(iv.Residuals)}
	for _, a := range iv.Models {
		f.Models = append(f.Models, rows(a))
	}
	return f
}

// foldsUsed checks that every entry of fold lies in [0, K) for K = its maximum
// + 1 and that every fold holds an object; it returns K.
func foldsUsed(fold []int, n int, what string) (int, error) {
	if len(fold) != n {
		return 0, fmt.Errorf("%d %s folds for %d objects", len(fold), what, n)
	}
	k := 0
	for i, v := range fold {
		if v < 0 || v >= n {
			return 0, fmt.Errorf("%s fold of object %d is %d, outside [0,%d)", what, i, v, n)
		}
		k = max(k, v+1)
	}
	used := make([]bool, k)
	for _, v := range fold {
		used[v] = true
	}
	if i := slices.Index(used, false); i >= 0 {
		return 0, fmt.Errorf("%s fold %d leaves no object out", what, i)
	}
	if k < 2 {
		return 0, fmt.Errorf("%d %s fold: CV+ needs at least 2", k, what)
	}
	return k, nil
}

// loadPairInterval checks an interval read from a pairwise model file of
// m×q coefficients: method cv+, a known setting, each training object's
// fold on the sides the setting holds out (and none on the other), the
// model count K (rows, cols) or K·L (both), every model m×q and finite,
// the residuals m×q in [0, MaxFloat64/16). Allocation is bounded by the
// file's content (fromRows).
func loadPairInterval(f *pairIntervalFile, m, q int) (*PairInterval, error) {
	if f.Method != CVPlus {
		return nil, fmt.Errorf("interval: method %q, want %q", f.Method, CVPlus)
	}
	var rowSide, colSide bool // which sides the setting holds out
	switch f.Setting {
	case PairSettingRows:
		rowSide = true
	case PairSettingCols:
		colSide = true
	case PairSettingBoth:
		rowSide, colSide = true, true
	default:
		return nil, fmt.Errorf("interval: setting %q, want %q, %q or %q", f.Setting, PairSettingRows, PairSettingCols, PairSettingBoth)
	}
	want := 1
	for _, s := range []struct {
		held bool
		fold []int
		n    int
		what string
	}{{rowSide, f.RowFold, m, "row"}, {colSide, f.ColFold, q, "column"}} {
		if !s.held {
			if s.fold != nil {
				return nil, fmt.Errorf("interval: setting %s with %s folds", f.Setting, s.what)
			}
			continue
		}
		k, err := foldsUsed(s.fold, s.n, s.what)
		if err != nil {
			return nil, fmt.Errorf("interval: %v", err)
		}
		want *= k
	}
	if len(f.Models) != want {
		return nil, fmt.Errorf("interval: %d models, want %d", len(f.Models), want)
	}
	iv := &PairInterval{Method: f.Method, Setting: f.Setting, RowFold: f.RowFold, ColFold: f.ColFold}
	var err error
	if iv.Residuals, err = fromRows(f.Residuals, m, q); err != nil {
		return nil, fmt.Errorf("interval: residuals: %v", err)
	}
	for _, v := range iv.Residuals.RawMatrix().Data {
		if v < 0 || !(v < predictionBound) {
			return nil, fmt.Errorf("interval: a residual %v is negative or beyond %g", v, predictionBound)
		}
	}
	for j, r := range f.Models {
		a, err := fromRows(r, m, q)
		if err != nil {
			return nil, fmt.Errorf("interval: model %d: %v", j, err)
		}
		iv.Models = append(iv.Models, a)
	}
	return iv, nil
}
