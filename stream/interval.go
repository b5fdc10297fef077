package stream

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// CV+ intervals (Barber, Candès, Ramdas & Tibshirani 2021, "Predictive
// inference with the jackknife+", Ann. Statist. 49(1)) from the streamed
// statistics, with no refit. Fold f's model is the one its cross-validation
// already solved: the training set's statistics are the total minus the
// fold's, S − S_f and c − c_f (Moments.Minus), so
//
//	w₋f = (S − S_f + λI)⁻¹(c − c_f)
//
// (centred about the training set's own mean, with the intercept handling
// of path; the same path the CV curve reads), at the chosen λ. The
// residuals R_i = |y_i − f₋f(i)(x_i)| need each row's hold-out prediction
// at that λ: one more row pass (IntervalPass) that applies the fold models
// to the rows — O(p·t) per row, the rows' fold ids and residuals kept:
// m·(t+1) numbers, besides the K models of (d+1)·t (or |B|·t) numbers. The
// model records them in the layout of the in-memory CV+ (model.Interval,
// interval.New), so model.Predictor.PredictInterval reads it unchanged:
// per test point O(p·d) for the features (O(|B|·d) over a basis), O(K·p·t)
// for the K fold models' predictions and O(m) for the order statistics.

// checkInterval refuses an Options.Interval the stream cannot record.
func (p *Plan) checkInterval() error {
	switch p.opt.Interval {
	case "":
		return nil
	case model.CVPlus:
	case model.JackknifePlus:
		return fmt.Errorf("%w: the jackknife+ from the streamed statistics is not recorded (it would store a model per row): give interval %s with kfold:K", ErrOptions, model.CVPlus)
	default:
		return fmt.Errorf("%w: interval %q, want %q", ErrOptions, p.opt.Interval, model.CVPlus)
	}
	if p.loss != learn.Squared {
		return fmt.Errorf("%w: a %s interval is for the squared loss (rls), not the %s loss", ErrOptions, p.opt.Interval, p.loss)
	}
	if p.scheme != cvKFold {
		return fmt.Errorf("%w: a %s interval from the stream reads the fold models of kfold:K, not cross-validation %q", ErrOptions, p.opt.Interval, p.opt.CV)
	}
	return nil
}

// checkIntervalSize refuses, once the rows are counted, an interval whose
// model would hold more than interval.MaxNumbers numbers: K models of p·t
// weights and m·(t+1) fold ids and residuals.
func (p *Plan) checkIntervalSize() error {
	if p.opt.Interval == "" {
		return nil
	}
	n := float64(p.k)*float64(p.p+1)*float64(p.t) + p.rows*float64(p.t+1)
	if n > interval.MaxNumbers {
		return fmt.Errorf("%w: a %s interval over %g rows would store %g numbers in the model (%g residuals and fold ids, %d models of %d weights), more than %d: fit without --interval, or on fewer rows", ErrData, p.opt.Interval, p.rows, n, p.rows*float64(p.t+1), p.k, (p.p+1)*p.t, interval.MaxNumbers)
	}
	return nil
}

// bestIndex is the chosen point of the curve (ties: the larger λ), as
// Result reports it.
func (p *Plan) bestIndex() int {
	best, bv := -1, 0.0
	for l, lambda := range p.opt.Lambdas {
		v := p.curve[l]
		if best < 0 || p.opt.Measure.Better(v, bv) || (v == bv && lambda > p.opt.Lambdas[best]) {
			best, bv = l, v
		}
	}
	return best
}

// at is the path's single-λ view at grid index l (no copy of the weights).
func (pa *path) at(l int) *path {
	q := *pa
	q.lambdas = pa.lambdas[l : l+1]
	q.w, q.wt, q.beta = pa.w[l:l+1], pa.wt[l:l+1], pa.beta[l:l+1]
	q.tw = nil
	return &q
}

// intervalState is what the interval pass shares between accumulators: each
// fold's model at the chosen λ, stacked for shifted rows.
type intervalState struct {
	ivOnce   sync.Once
	ivBest   int
	ivWB     []wb
	interval *model.Interval    // after the interval pass, without the models
	ivModels []*model.Predictor // each non-empty fold's model at the chosen λ
}

// prepInterval stacks every fold's weights at the chosen λ (once).
func (p *Plan) prepInterval() {
	p.ivBest = p.bestIndex()
	p.ivWB = make([]wb, len(p.paths))
	for f, pa := range p.paths {
		if pa != nil {
			w, b := pa.at(p.ivBest).shifted(p.shift)
			p.ivWB[f] = stackWB(w, b)
		}
	}
}

// residualRows adds the hold-out residuals |y_i − f₋f(i)(z_i)| of a
// chunk's rows, and their folds, at the chosen λ. O(p·t) per row.
func (a *Accumulator) residualRows(z *mat.Dense, rows []Row) error {
	p := a.plan
	byFold := map[int][]int{}
	var order []int
	for i, r := range rows {
		f := Fold(r, p.opt.Seed, p.k)
		if byFold[f] == nil {
			order = append(order, f)
		}
		byFold[f] = append(byFold[f], i)
	}
	_, c := z.Dims()
	for _, f := range order {
		idx := byFold[f]
		m := p.ivWB[f]
		if m.w == nil {
			return fmt.Errorf("%w: a row of fold %d, which had no rows in the statistics pass (the data changed between passes)", ErrData, f)
		}
		zf := mat.NewDense(len(idx), c, nil)
		for n, i := range idx {
			zf.SetRow(n, z.RawRowView(i))
		}
		pred := linalg.Mul(false, false, p.shiftRows(zf), m.w)
		for n, i := range idx {
			pr := pred.RawRowView(n)
			for k, y := range rows[i].Y {
				r := math.Abs(y - (pr[k] + m.b[k]))
				if math.IsNaN(r) || math.IsInf(r, 0) {
					return fmt.Errorf("%w: the hold-out residual of output %d is %v at λ = %g (rescale the features, e.g. standardize them)", ErrNonFinite, k, r, p.opt.Lambdas[p.ivBest])
				}
				a.ivRes = append(a.ivRes, r)
			}
			a.ivFold = append(a.ivFold, int32(f))
		}
	}
	return nil
}

// finishInterval records the interval: every non-empty fold's model at the
// chosen λ (in the layout of the model of all rows) and the rows' folds
// and residuals, sorted by fold and residual so that the model does not
// depend on the order the rows were read in. O(m log m + K·p·t).
func (p *Plan) finishInterval(a *Accumulator) error {
	p.ivOnce.Do(p.prepInterval)
	t := p.t
	m := len(a.ivFold)
	if float64(m) != p.rows || len(a.ivRes) != m*t {
		return fmt.Errorf("%w: the interval pass saw %d rows, the statistics %g (the data changed between passes)", ErrData, m, p.rows)
	}
	// compact fold ids: the non-empty folds, in order
	id := make([]int, len(p.paths))
	var q []*model.Predictor
	for f, pa := range p.paths {
		id[f] = -1
		if pa != nil {
			id[f] = len(q)
			q = append(q, p.predictor(pa.at(p.ivBest)))
		}
	}
	if len(q) < 2 {
		return fmt.Errorf("%w: CV+ needs at least 2 non-empty folds, the rows fill %d", ErrData, len(q))
	}
	for _, f := range a.ivFold {
		if f < 0 || int(f) >= len(id) || id[f] < 0 {
			return fmt.Errorf("%w: a row of fold %d, which had no rows in the statistics pass (the data changed between passes)", ErrData, f)
		}
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool {
		i, j := order[x], order[y]
		if a.ivFold[i] != a.ivFold[j] {
			return a.ivFold[i] < a.ivFold[j]
		}
		return slices.Compare(a.ivRes[i*t:(i+1)*t], a.ivRes[j*t:(j+1)*t]) < 0
	})
	iv := &model.Interval{Method: model.CVPlus, Fold: make([]int, m), Residuals: mat.NewDense(m, t, nil), B: make([][]float64, len(q))}
	for n, i := range order {
		iv.Fold[n] = id[a.ivFold[i]]
		copy(iv.Residuals.RawRowView(n), a.ivRes[i*t:(i+1)*t])
	}
	for k, pr := range q {
		iv.B[k] = pr.B
	}
	p.interval, p.ivModels = iv, q
	return nil
}

// attachInterval gives the model of all rows pr its interval: the fold
// models' weights (linear) or coefficients (over a basis), checked to share
// pr's layout (model.CheckIntervalLayout).
func (p *Plan) attachInterval(pr *model.Predictor) error {
	if p.interval == nil {
		return nil
	}
	iv := *p.interval
	iv.W, iv.A = nil, nil
	for k, q := range p.ivModels {
		if err := model.CheckIntervalLayout(pr, q); err != nil {
			return fmt.Errorf("stream: interval: fold model %d: %w", k+1, err)
		}
		if q.IsLinear() {
			iv.W = append(iv.W, q.W)
		} else {
			iv.A = append(iv.A, q.A)
		}
	}
	pr.Interval = &iv
	return nil
}
