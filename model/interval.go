package model

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// The prediction-interval methods of Barber, Candès, Ramdas & Tibshirani
// (2021), "Predictive inference with the jackknife+", Ann. Statist. 49(1).
const (
	// JackknifePlus is the jackknife+ (their eq. (6)): the n leave-one-out models.
	JackknifePlus = "jackknife+"
	// CVPlus is CV+ (their sect. 4): the K models of a partition of the
	// training rows into folds, each trained without its fold.
	CVPlus = "cv+"
)

// ErrNoInterval is returned by PredictInterval for a predictor that records
// no hold-out models (fit without --interval).
var ErrNoInterval = errors.New("model: the model records no prediction interval")

// Interval is what the jackknife+ and CV+ intervals need at prediction time,
// beside the predictor itself: the K hold-out models μ_{−S_k} (each trained
// without the training rows of fold S_k; K = n singleton folds for the
// jackknife+), which fold left each training row out, and each training
// row's hold-out residual R_i = |y_i − μ_{−S_k(i)}(x_i)|.
//
// The hold-out models are stored in the predictor's own layout and share
// everything else with it (kernel, points, scaler, weight index): W[k] (a
// linear predictor's d×t weights, rows WIndex when set) and B[k] (its t
// intercepts), or A[k] (a kernel expansion's n×t coefficients over Points)
// and B[k] (nil, or t intercepts). Model size: K·(d+1)·t numbers (linear) or
// K·n·t (kernel), plus n·(t+1) for Fold and Residuals.
type Interval struct {
	Method string
	W, A   []*mat.Dense
	B      [][]float64
	// Fold[i] ∈ [0, K) is the model that left training row i out.
	Fold []int
	// Residuals is n×t: R_i for every output.
	Residuals *mat.Dense
}

// Models returns K, the number of hold-out models.
func (iv *Interval) Models() int { return len(iv.B) }

// IntervalPredictor is a predictor with prediction intervals at a coverage
// level 1 − α ∈ (0, 1).
type IntervalPredictor interface {
	PredictInterval(x mat.Matrix, coverage float64) (pred, lo, hi *mat.Dense, err error)
}

// Ranks returns the 1-based ranks (lo, hi) among n values of Barber et al.'s
// quantiles at coverage 1 − α: q̂⁺ is the ⌈(1−α)(n+1)⌉-th smallest value,
// q̂⁻ the ⌊α(n+1)⌋-th smallest, and lo = ⌊α(n+1)⌋ = n + 1 − hi exactly. A
// product (1−α)(n+1) within 1e-9·(n+1) of an integer counts as that integer
// (0.9·40 is 36, not the 36.000000000000004 of float64). When hi > n (that
// is, α < 1/(n+1)) the interval is the whole line: q̂⁺ = +∞ and q̂⁻ = −∞, and
// Ranks returns hi = n + 1, lo = 0. coverage must lie in (0, 1).
func Ranks(coverage float64, n int) (lo, hi int) {
	x := coverage * float64(n+1)
	r := math.Round(x)
	if math.Abs(x-r) <= 1e-9*float64(n+1) {
		hi = int(r)
	} else {
		hi = int(math.Ceil(x))
	}
	hi = min(max(hi, 1), n+1)
	return n + 1 - hi, hi
}

// checkCoverage refuses a coverage level outside (0, 1).
func checkCoverage(coverage float64) error {
	if !(coverage > 0 && coverage < 1) {
		return fmt.Errorf("model: coverage %v: want a level in (0, 1), such as 0.9", coverage)
	}
	return nil
}

// PredictInterval returns the predictions of the model (Predict's) and the
// lower and upper ends of the prediction intervals at coverage 1 − α (each
// m×t), by the method the model records (Barber, Candès, Ramdas &
// Tibshirani 2021, eq. (6) and sect. 4):
//
//	lower = the ⌊α(n+1)⌋-th smallest of μ_{−S_k(i)}(x) − R_i,   i = 1..n
//	upper = the ⌈(1−α)(n+1)⌉-th smallest of μ_{−S_k(i)}(x) + R_i
//
// over the n training rows (Ranks; ±Inf when α < 1/(n+1)). Their guarantee
// is coverage ≥ 1 − 2α for the jackknife+ (Theorem 1), and ≥ 1 − 2α −
// √(2/n) for CV+ (Theorem 4), over the training data and test point; in
// practice it is near 1 − α.
//
// Cost per test point: one prediction of each of the K hold-out models —
// O(K·d·t) linear, or one kernel row (O(n·d), shared by the K models) plus
// O(K·n·t) for a kernel expansion, the K models stacked into one product
// — and O(n) expected per output to select the two order statistics
// (quickselect, O(n log n) at worst). Memory: the K models' predictions of
// a block of at most max(1, 2²⁰/(K·t)) rows at a time, the stacked
// parameters (K·(d+1)·t or K·n·t), and O(n).
func (p *Predictor) PredictInterval(x mat.Matrix, coverage float64) (pred, lo, hi *mat.Dense, err error) {
	if p == nil || p.Interval == nil {
		return nil, nil, nil, ErrNoInterval
	}
	if err := checkCoverage(coverage); err != nil {
		return nil, nil, nil, err
	}
	if pred, err = p.Predict(x); err != nil {
		return nil, nil, nil, err
	}
	m, _ := x.Dims()
	t := len(p.Outputs)
	if m == 0 {
		return pred, &mat.Dense{}, &mat.Dense{}, nil
	}
	lo, hi = mat.NewDense(m, t, nil), mat.NewDense(m, t, nil)
	iv := p.Interval
	n := len(iv.Fold)
	rLo, rHi := Ranks(coverage, n)
	if rHi > n {
		for i := 0; i < m; i++ {
			for c := 0; c < t; c++ {
				lo.Set(i, c, math.Inf(-1))
				hi.Set(i, c, math.Inf(1))
			}
		}
		return pred, lo, hi, nil
	}
	if p.Scaler != nil {
		if x, err = p.Scaler.Transform(x); err != nil {
			return nil, nil, nil, err
		}
	}
	var kern kernel.Kernel
	if !p.IsLinear() {
		if kern, err = kernel.New(p.Kernel); err != nil {
			return nil, nil, nil, err
		}
	}
	k := iv.Models()
	stacked, b := iv.stack(p.IsLinear())
	block := max(1, (1<<20)/(k*t))
	lov, hiv := make([]float64, n), make([]float64, n)
	res := iv.Residuals.RawMatrix()
	for r0 := 0; r0 < m; r0 += block {
		r1 := min(m, r0+block)
		all, err := p.holdOutPredictions(kern, rowRange(x, r0, r1), stacked, b)
		if err != nil {
			return nil, nil, nil, err
		}
		for r := 0; r < r1-r0; r++ {
			mu := all.RawRowView(r) // model f's output c at f·t + c
			for c := 0; c < t; c++ {
				for i, f := range iv.Fold {
					v, ri := mu[f*t+c], res.Data[i*res.Stride+c]
					lov[i], hiv[i] = v-ri, v+ri
				}
				lo.Set(r0+r, c, selectKth(lov, rLo-1))
				hi.Set(r0+r, c, selectKth(hiv, rHi-1))
			}
		}
	}
	return pred, lo, hi, nil
}

// stack returns the K models' weights (linear: rows×K·t, the rows of W) or
// coefficients (kernel: n×K·t) side by side, model k in columns k·t…, and
// their intercepts (K·t; nil for kernel models without one). O(K·n·t).
func (iv *Interval) stack(linear bool) (*mat.Dense, []float64) {
	ms := iv.A
	if linear {
		ms = iv.W
	}
	n, t := ms[0].Dims()
	k := len(ms)
	out := mat.NewDense(n, k*t, nil)
	var b []float64
	for f, mf := range ms {
		for i := 0; i < n; i++ {
			copy(out.RawRowView(i)[f*t:f*t+t], mf.RawRowView(i))
		}
		if iv.B[f] != nil {
			if b == nil {
				b = make([]float64, k*t)
			}
			copy(b[f*t:f*t+t], iv.B[f])
		}
	}
	return out, b
}

// holdOutPredictions returns the predictions of the K hold-out models for
// the rows of x (already standardized) side by side (rows×K·t, model k in
// columns k·t…): one product with the stacked weights (linear), or the
// kernel block of x against the points once and one product with the
// stacked coefficients.
func (p *Predictor) holdOutPredictions(kern kernel.Kernel, x mat.Matrix, stacked *mat.Dense, b []float64) (*mat.Dense, error) {
	_, kt := stacked.Dims()
	rows, _ := x.Dims()
	var out *mat.Dense
	if p.IsLinear() {
		// the linear predictor of K·t outputs whose weights are the stack
		q := &Predictor{Kernel: p.Kernel, Width: p.Width, Outputs: make([]string, kt), W: stacked, WIndex: p.WIndex, B: b}
		if q.B == nil {
			q.B = make([]float64, kt)
		}
		var err error
		if out, err = q.Predict(x); err != nil {
			return nil, fmt.Errorf("hold-out models: %w", err)
		}
		return out, nil
	}
	kb, err := kern.Block(x, p.Points)
	if err != nil {
		return nil, err
	}
	out = mat.NewDense(rows, kt, nil)
	out.Mul(kb, stacked)
	if b != nil {
		for i := 0; i < rows; i++ {
			row := out.RawRowView(i)
			for c := range row {
				row[c] += b[c]
			}
		}
	}
	return out, nil
}

// selectKth returns the k-th smallest (0-based) of v, reordering v:
// quickselect with a median-of-three pivot, O(n) expected; after 2·log₂ n
// partitions without reaching k it sorts what is left, so O(n log n) at
// worst.
func selectKth(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for budget := 2 * bits.Len(uint(len(v))); lo < hi; budget-- {
		if budget == 0 {
			slices.Sort(v[lo : hi+1])
			return v[k]
		}
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for pivot < v[j] {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// rowRange is the rows [r0, r1) of x: a view for dense data, a copy of
// the rows for other matrices.
func rowRange(x mat.Matrix, r0, r1 int) mat.Matrix {
	if d, ok := x.(*mat.Dense); ok {
		_, c := d.Dims()
		if c == 0 {
			return mat.NewDense(r1-r0, 0, nil)
		}
		return d.Slice(r0, r1, 0, c)
	}
	idx := make([]int, r1-r0)
	for i := range idx {
		idx[i] = r0 + i
	}
	return kernel.Rows(x, idx)
}

// intervalFile is the JSON form of an Interval (file version 5).
type intervalFile struct {
	Method    string          `json:"method"`
	Models    []intervalModel `json:"models"`
	Fold      []int           `json:"fold"`
	Residuals [][]float64     `json:"residuals"`
}

type intervalModel struct {
	W [][]float64 `json:"weights,omitempty"`
	A [][]float64 `json:"coefficients,omitempty"`
	B []float64   `json:"intercept,omitempty"`
}

// file returns the JSON form.
func (iv *Interval) file() *intervalFile {
	f := &intervalFile{Method: iv.Method, Fold: iv.Fold, Residuals: rows(iv.Residuals)}
	for k := range iv.B {
		var im intervalModel
		if iv.W != nil {
			im.W = rows(iv.W[k])
		} else {
			im.A = rows(iv.A[k])
		}
		im.B = iv.B[k]
		f.Models = append(f.Models, im)
	}
	return f
}

// loadInterval checks an interval read from a file against its predictor
// p (already checked): a known method, at least one model, each in p's
// layout with finite values whose predictions are bounded as p's are
// (checkLinearBound, checkKernelBound), every training row's fold a model,
// every model some row's, and n×t residuals in [0, MaxFloat64/16) (so that
// μ ± R stays finite). Allocation is
// bounded by the file's content (fromRows).
func loadInterval(f *intervalFile, p *Predictor) (*Interval, error) {
	if f.Method != JackknifePlus && f.Method != CVPlus {
		return nil, fmt.Errorf("interval: method %q, want %q or %q", f.Method, JackknifePlus, CVPlus)
	}
	k, n, t := len(f.Models), len(f.Fold), len(p.Outputs)
	if k == 0 || n == 0 {
		return nil, fmt.Errorf("interval: %d models for %d training rows", k, n)
	}
	used := make([]bool, k)
	for i, fo := range f.Fold {
		if fo < 0 || fo >= k {
			return nil, fmt.Errorf("interval: fold of training row %d is %d, outside [0,%d)", i, fo, k)
		}
		used[fo] = true
	}
	if i := slices.Index(used, false); i >= 0 {
		return nil, fmt.Errorf("interval: model %d leaves no training row out", i)
	}
	res, err := fromRows(f.Residuals, n, t)
	if err != nil {
		return nil, fmt.Errorf("interval: residuals: %v", err)
	}
	for _, v := range res.RawMatrix().Data {
		if v < 0 || !(v < predictionBound) {
			return nil, fmt.Errorf("interval: a residual %v is negative or beyond %g", v, predictionBound)
		}
	}
	iv := &Interval{Method: f.Method, Fold: f.Fold, Residuals: res, B: make([][]float64, k)}
	for j, im := range f.Models {
		q := &Predictor{Kernel: p.Kernel, Width: p.Width, Outputs: p.Outputs, Points: p.Points, WIndex: p.WIndex}
		if im.B != nil && (len(im.B) != t || !allFinite(im.B)) {
			return nil, fmt.Errorf("interval: model %d: intercept has %d finite values, want %d", j, len(im.B), t)
		}
		q.B = im.B
		if p.IsLinear() {
			if im.A != nil || im.B == nil {
				return nil, fmt.Errorf("interval: model %d of a linear model needs weights and an intercept, no coefficients", j)
			}
			r, _ := p.W.Dims()
			if q.W, err = fromRows(im.W, r, t); err != nil {
				return nil, fmt.Errorf("interval: model %d: weights: %v", j, err)
			}
			if err := q.checkLinearBound(); err != nil {
				return nil, fmt.Errorf("interval: model %d: %v", j, err)
			}
			iv.W = append(iv.W, q.W)
		} else {
			if im.W != nil {
				return nil, fmt.Errorf("interval: model %d: weights in a kernel model", j)
			}
			r, _ := p.A.Dims()
			if q.A, err = fromRows(im.A, r, t); err != nil {
				return nil, fmt.Errorf("interval: model %d: coefficients: %v", j, err)
			}
			if err := q.checkKernelBound(); err != nil {
				return nil, fmt.Errorf("interval: model %d: %v", j, err)
			}
			iv.A = append(iv.A, q.A)
		}
		iv.B[j] = q.B
	}
	return iv, nil
}

// CheckIntervalLayout reports whether the hold-out model q has the layout of
// p — both linear with the same width and weight index, or both kernel
// expansions over the same points — so that its parameters can be stored in
// p's Interval.
func CheckIntervalLayout(p, q *Predictor) error {
	switch {
	case p.IsLinear() != q.IsLinear():
		return errors.New("model: a hold-out model of another type than the model")
	case p.IsLinear():
		pr, _ := p.W.Dims()
		qr, _ := q.W.Dims()
		if pr != qr || !slices.Equal(p.WIndex, q.WIndex) {
			return errors.New("model: a hold-out model's weights differ in layout from the model's")
		}
	default:
		if !samePoints(p.Points, q.Points) {
			return errors.New("model: a hold-out model's points differ from the model's")
		}
	}
	return nil
}

// samePoints reports whether a and b are the same points (the same matrix
// value, as the learners share them).
func samePoints(a, b mat.Matrix) bool {
	switch x := a.(type) {
	case *mat.Dense:
		y, ok := b.(*mat.Dense)
		return ok && x == y
	case *matrix.CSR:
		y, ok := b.(*matrix.CSR)
		return ok && x == y
	case *kernel.UnitRows:
		y, ok := b.(*kernel.UnitRows)
		return ok && x == y
	}
	return false
}
