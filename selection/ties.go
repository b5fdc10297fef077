package selection

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// ErrNonFinite is returned when a cross-validation prediction is NaN or ±Inf:
// an overflow (features or labels too large for the shortcut's arithmetic), never
// a row to drop silently.
var ErrNonFinite = errors.New("selection: non-finite cross-validation prediction")

// TwinScale is the factor s a learn.Perturber twin is asked for
// (Perturbed(TwinScale)) so that NoiseTolerance can divide it back out.
const TwinScale = noiseScale

// NoiseTolerance returns, per output, the tie tolerance of CV predictions p
// (m×t) measured against the twin's p2 (a learn.Perturber twin solved on the
// labels times TwinScale): 16·max_i |p2_it/TwinScale − p_it| over the rows
// where p is not NaN. O(m·t).
func NoiseTolerance(p, p2 *mat.Dense) []float64 {
	m, _ := p.Dims()
	covered := make([]bool, m)
	for i := range covered {
		covered[i] = !math.IsNaN(p.At(i, 0))
	}
	return noiseTolerance(p, p2, covered)
}

// ScoreWithin scores CV predictions p (m×t) against the labels y with the
// one tie rule of every learner family: for an ordinal measure, the
// predictions of output c that lie within tol[c] of each other (in sorted
// order, chained) are ties; indistinguishable reports that, for every
// output, all predictions lie within it. Rows whose predictions are NaN are
// rows no fold predicts and are left out; ±Inf is ErrNonFinite. tol nil
// compares exactly. queries are per-row query ids for measures that need
// them. Neither y nor p is modified. Cost O(m·t) when every tolerance is 0
// (or tol is nil): all equal is one scan, and nothing is snapped; O(m log m
// · t) for outputs with a tolerance; plus the measure's.
func ScoreWithin(meas measure.Measure, y, p *mat.Dense, queries []int, tol []float64) (value float64, indistinguishable bool, err error) {
	if y == nil || p == nil || y.IsEmpty() || p.IsEmpty() {
		return 0, false, fmt.Errorf("%w: no labels or predictions to score", ErrScheme)
	}
	if yr, _ := y.Dims(); yr != p.RawMatrix().Rows {
		return 0, false, fmt.Errorf("%w: %d labels, %d predictions", ErrScheme, yr, p.RawMatrix().Rows)
	}
	raw := p.RawMatrix()
	c := &cvPredictions{p: p, tol: tol}
	for i := 0; i < raw.Rows; i++ {
		if v := raw.Data[i*raw.Stride]; v != v { // NaN: a row no fold predicts
			if c.covered == nil {
				c.covered = make([]bool, raw.Rows)
				for k := range i {
					c.covered[k] = true
				}
			}
			continue
		}
		if c.covered != nil {
			c.covered[i] = true
		}
	}
	return c.score(meas, y, queries)
}

// noiseScale multiplies the labels of the twin learner whose CV predictions,
// divided back, differ from the learner's by their forward error only; not a
// power of 2, so the two computations round differently.
const noiseScale = 0.7853981633974483

// noiseFactor turns the measured difference into a tie tolerance: the
// difference of two rounding errors of the same size can be smaller than
// either, and the maximum over rows samples only one realization.
const noiseFactor = 16

// twinStride is the share of the hold-outs the twin repeats: one hold-out
// unit (a fold, a left-out row; for leave-pair-out a row on each side of the
// pairs) in twinStride — at least one — is cross-validated by the twin too,
// and the forward error is the largest difference over those. The noise of
// the shortcut is of one size over the rows (the same factorization, the
// same formula), so that a sample of every twinStride-th unit measures it,
// and noiseFactor (16) covers a maximum over fewer realizations; the twin
// then costs about 1/twinStride of the cross-validation it guards (issue:
// the tie rule at a bounded price).
const twinStride = 16

// twinRowStride: for leave-pair-out the twin holds out the pairs among one
// row in twinRowStride on each side (twinPairs).
const twinRowStride = 8

// twinAllPairs: up to this many pairs the twin holds out every one; they
// cost little, and a sample of every 8th row of a small set is a handful of
// rows whose largest difference can miss the noise (prefrank's K = I
// leave-pair-out scored 0.46 against retraining's 0.5 with the OpenBLAS build).
const twinAllPairs = 4096

// twinFolds returns every twinStride-th fold (the first included).
func twinFolds(folds [][]int) [][]int {
	out := make([][]int, 0, (len(folds)+twinStride-1)/twinStride)
	for k := 0; k < len(folds); k += twinStride {
		out = append(out, folds[k])
	}
	return out
}

// twinPairs returns the indices of the pairs the twin holds out: those
// whose two rows are both among every twinRowStride-th (8th, in index
// order) of the distinct rows the pairs name (about 1/64 of a complete set
// of pairs between two sides, on a block of rows 1/8 × 1/8 of theirs: the
// pairs' hold-outs cost in that block), or, when that leaves fewer than
// len(pairs)/(8·twinStride) pairs (sparse pairs), every twinStride-th
// pair; up to twinAllPairs pairs, every one. At least one pair when there
// are any. O(pairs + the largest row).
func twinPairs(pairs []learn.Pair) []int {
	if len(pairs) <= twinAllPairs { // few pairs: the twin repeats them all (a sample of a few rows misses the noise)
		out := make([]int, len(pairs))
		for n := range out {
			out[n] = n
		}
		return out
	}
	top := 0
	for _, p := range pairs {
		top = max(top, p.I+1, p.J+1)
	}
	keep := make([]bool, top) // the rows the pairs name, then every twinRowStride-th of them
	for _, p := range pairs {
		keep[p.I], keep[p.J] = true, true
	}
	seen := 0
	for r, used := range keep {
		if used {
			keep[r] = seen%twinRowStride == 0
			seen++
		}
	}
	var out []int
	for n, p := range pairs {
		if keep[p.I] && keep[p.J] {
			out = append(out, n)
		}
	}
	if len(out) >= max(1, len(pairs)/(8*twinStride)) {
		return out
	}
	out = out[:0]
	for n := 0; n < len(pairs); n += twinStride {
		out = append(out, n)
	}
	return out
}

// cvPredictions are the CV predictions at one λ, with the rows they cover and,
// per output, the tolerance below which two predictions are ties.
type cvPredictions struct {
	p       *mat.Dense
	covered []bool    // nil: every row
	tol     []float64 // per output; nil: exact comparisons
}

// twin returns the learner's learn.Perturber twin on the labels times
// noiseScale for an ordinal measure (nil otherwise, or when the learner has
// no twin: then predictions are compared exactly).
func twin(l learn.Learner, meas measure.Measure, sc Scheme) (learn.Learner, error) {
	p, ok := l.(learn.Perturber)
	if !ok || !meas.Ordinal || sc.Kind == None {
		return nil, nil
	}
	return p.Perturbed(noiseScale)
}

// noiseTolerance measures, per output, the forward error of predictions p as
// the largest |p2/noiseScale − p| over the covered rows (p2 the twin's) and
// returns noiseFactor times it.
func noiseTolerance(p, p2 *mat.Dense, covered []bool) []float64 {
	m, t := p.Dims()
	tol := make([]float64, t)
	for i := 0; i < m; i++ {
		if covered != nil && !covered[i] {
			continue
		}
		a, b := p.RawRowView(i), p2.RawRowView(i)
		for c := range tol {
			if d := math.Abs(b[c]/noiseScale - a[c]); d > tol[c] {
				tol[c] = d
			}
		}
	}
	for c := range tol {
		tol[c] *= noiseFactor
	}
	return tol
}

// check refuses a non-finite prediction in a covered row.
func (c *cvPredictions) check() error {
	raw := c.p.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		if c.covered != nil && !c.covered[i] {
			continue
		}
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v-v != 0 { // NaN or ±Inf
				return fmt.Errorf("%w: row %d, output %d is %v (rescale the features, e.g. standardize them)", ErrNonFinite, i, j, v)
			}
		}
	}
	return nil
}

// rows lists the covered rows.
func (c *cvPredictions) rows() []int {
	m, _ := c.p.Dims()
	var out []int
	for i := 0; i < m; i++ {
		if c.covered == nil || c.covered[i] {
			out = append(out, i)
		}
	}
	return out
}

// score scores the covered rows. For an ordinal measure, predictions of an
// output closer than its tolerance are snapped together first, so they count
// as ties. indistinct reports that every output's predictions lie within the
// tolerance of each other: the CV cannot tell the rows apart.
func (c *cvPredictions) score(meas measure.Measure, y *mat.Dense, q []int) (v float64, indistinct bool, err error) {
	if err := c.check(); err != nil {
		return 0, false, err
	}
	all := true
	for _, ok := range c.covered {
		if !ok {
			all = false
			break
		}
	}
	ys, ps, qs := y, c.p, q
	n, t := y.Dims()
	if !all {
		rows := c.rows()
		n = len(rows)
		ys, ps, qs = mat.NewDense(len(rows), t, nil), mat.NewDense(len(rows), t, nil), nil
		for k, i := range rows {
			ys.SetRow(k, y.RawRowView(i))
			ps.SetRow(k, c.p.RawRowView(i))
			if q != nil {
				qs = append(qs, q[i])
			}
		}
	}
	indistinct = n > 1
	copied := !all
	for j := 0; j < t; j++ {
		tol := 0.0
		if c.tol != nil {
			tol = c.tol[j]
		}
		if tol == 0 {
			raw := ps.RawMatrix()
			first := raw.Data[j]
			for i := 1; i < n; i++ {
				if raw.Data[i*raw.Stride+j] != first {
					indistinct = false
					break
				}
			}
			continue
		}
		snapped, groups := snap(mat.Col(nil, j, ps), tol)
		if groups > 1 {
			indistinct = false
		}
		if meas.Ordinal {
			if !copied {
				ps, copied = mat.DenseCopyOf(ps), true
			}
			ps.SetCol(j, snapped)
		}
	}
	v, err = meas.Score(ys, ps, qs)
	if err == nil && math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("%w: the %s value is %v — labels or predictions this large (squares above 1.8e308) overflow float64: rescale the labels (divide them by a power of ten)", ErrNonFinite, meas.Name, v)
	}
	return v, indistinct, err
}

// foldMean is the mean over folds of the measure of each fold's predictions
// alone (ties as in score); folds on which the measure is undefined are left
// out, and none defined is an error.
func (c *cvPredictions) foldMean(meas measure.Measure, y *mat.Dense, q []int, folds [][]int) (float64, error) {
	m, _ := y.Dims()
	sum, n := 0.0, 0
	var firstErr error
	for k, f := range folds {
		in := make([]bool, m)
		for _, i := range f {
			in[i] = true
		}
		fc := &cvPredictions{p: c.p, covered: in, tol: c.tol}
		v, _, err := fc.score(meas, y, q)
		if errors.Is(err, measure.ErrUndefined) {
			if firstErr == nil {
				firstErr = fmt.Errorf("fold %d: %w", k, err)
			}
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("fold %d: %w", k, err)
		}
		sum += v
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("the measure is defined on no fold: %w", firstErr)
	}
	return sum / float64(n), nil
}

// snap returns p with every run of values whose consecutive gaps (in sorted
// order) are at most tol replaced by the run's smallest value, and the number
// of runs. O(m log m).
func snap(p []float64, tol float64) ([]float64, int) {
	out := slices.Clone(p)
	if len(p) == 0 {
		return out, 0
	}
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	groups, first, prev := 1, p[idx[0]], p[idx[0]]
	for _, i := range idx {
		if p[i]-prev > tol {
			groups++
			first = p[i]
		}
		prev = p[i]
		out[i] = first
	}
	return out, groups
}
