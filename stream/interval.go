package stream

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// CV+ and jackknife+ intervals (Barber, Candès, Ramdas & Tibshirani 2021,
// "Predictive inference with the jackknife+", Ann. Statist. 49(1)) from the
// streamed statistics, with no refit (the jackknife+: see looRows). Fold f's model is the one its cross-validation
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
	default:
		return fmt.Errorf("%w: interval %q, want %q or %q", ErrOptions, p.opt.Interval, model.CVPlus, model.JackknifePlus)
	}
	if p.loss != learn.Squared {
		return fmt.Errorf("%w: a %s interval is for the squared loss (rls), not the %s loss", ErrOptions, p.opt.Interval, p.loss)
	}
	if p.opt.Interval == model.CVPlus && p.scheme != cvKFold {
		return fmt.Errorf("%w: a %s interval from the stream reads the fold models of kfold:K, not cross-validation %q", ErrOptions, p.opt.Interval, p.opt.CV)
	}
	if p.opt.Interval == model.JackknifePlus && p.scheme != cvLOO {
		return fmt.Errorf("%w: the %s reads the leave-one-out models of loo, not cross-validation %q", ErrOptions, p.opt.Interval, p.opt.CV)
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
	k := float64(p.k)
	if p.opt.Interval == model.JackknifePlus {
		k = p.rows // a model per row
	}
	n := k*float64(p.p+1)*float64(p.t) + p.rows*float64(p.t+1)
	if n > interval.MaxNumbers {
		return fmt.Errorf("%w: a %s interval over %g rows would store %g numbers in the model (%g residuals and fold ids, %g models of %d weights), more than %d: fit without --interval, or on fewer rows", ErrData, p.opt.Interval, p.rows, n, p.rows*float64(p.t+1), k, (p.p+1)*p.t, interval.MaxNumbers)
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
	if p.scheme == cvLOO {
		return a.looRows(z, rows)
	}
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
	if p.scheme == cvLOO {
		return p.finishJackknife(a)
	}
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

// The jackknife+ (Options.Interval = model.JackknifePlus with loo). Every
// model the stream solves is a ridge smoother, f(z) = ẑᵀA⁻¹Ẑᵀy on ẑ = [z,
// √b] (A = ẐᵀẐ + λI; with an unpenalized intercept the centred ridge plus
// the mean), for which retraining without row i equals retraining with y_i
// replaced by f₋ᵢ(z_i). So
//
//	f₋ᵢ(z) = f(z) − H(z, z_i)·q_i,   q_i = (y_i − f(z_i))/(1 − h_i),
//
// with H(z, z_i) = ẑᵀA⁻¹ẑ_i the hat function and h_i = H(z_i, z_i), the
// leverage path.leaveOneOut forms (Rifkin & Lippert 2007). In the path's
// centred coordinates h_i = a_iᵀM a_i + c with a(z) = Vᵀ(z − μ) + κṽ, M = (D
// + ρṽṽᵀ)⁻¹ (Sherman–Morrison on the eigendecomposition) and c its
// constant share; polarizing, H(z, z_i) = a(z)ᵀM a_i + c, so row i's model
// is the path's with
//
//	w₋ᵢ = w − (V M a_i) q_iᵀ,   β₋ᵢ = β − (κ ṽᵀM a_i + c) q_i
//
// — O(p²) per row from the one eigendecomposition of the total statistics,
// and |q_i| is its residual |y_i − f₋ᵢ(z_i)|. The interval pass keeps
// V M a_i, κṽᵀMa_i + c and q_i per row; the model then holds m models of
// (p+1)·t numbers (refused beyond interval.MaxNumbers).

// looRows adds, for each row of a chunk, its leave-one-out model's update
// (u_i = V M a_i, s_i, q_i) and residuals |q_i| at the chosen λ.
func (a *Accumulator) looRows(z *mat.Dense, rows []Row) error {
	p := a.plan
	pa := p.totalPath
	l := p.ivBest
	lambda := pa.lambdas[l]
	r, c := z.Dims()
	zc := mat.DenseCopyOf(z)
	for i := 0; i < r; i++ {
		row := zc.RawRowView(i)
		for j := 0; j < c; j++ {
			row[j] -= pa.mu[j]
		}
	}
	g := linalg.Mul(false, false, zc, pa.v) // r×p: Vᵀ(z_i − μ)
	rho, kappa, _ := pa.rhoKappa(lambda)
	pp := len(pa.e)
	vdv := 0.0
	for k := 0; k < pp; k++ {
		vdv += pa.vmu[k] * pa.vmu[k] / (pa.e[k] + lambda)
	}
	gamma := rho / (1 + rho*vdv)
	cl := pa.constLeverage(lambda)
	ma := make([]float64, pp)
	wt := pa.wt[l]
	for i := 0; i < r; i++ {
		gi := g.RawRowView(i)
		vda := 0.0 // ṽᵀD⁻¹a
		for k := 0; k < pp; k++ {
			ma[k] = (gi[k] + kappa*pa.vmu[k]) / (pa.e[k] + lambda)
			vda += pa.vmu[k] * ma[k]
		}
		h, vma := cl, 0.0
		for k := 0; k < pp; k++ {
			ma[k] -= gamma * pa.vmu[k] / (pa.e[k] + lambda) * vda // M a = D⁻¹a − γD⁻¹ṽ(ṽᵀD⁻¹a)
			h += (gi[k] + kappa*pa.vmu[k]) * ma[k]
			vma += pa.vmu[k] * ma[k]
		}
		u := make([]float64, c) // V M a_i
		for j := 0; j < c; j++ {
			u[j] = floats.Dot(pa.v.RawRowView(j), ma)
		}
		a.ivLoo = append(append(a.ivLoo, u...), kappa*vma+cl)
		for cc, y := range rows[i].Y {
			fit := pa.beta[l][cc]
			for k := 0; k < pp; k++ {
				fit += gi[k] * wt.At(k, cc)
			}
			q := (y - fit) / (1 - h)
			if math.IsNaN(q) || math.IsInf(q, 0) {
				return fmt.Errorf("%w: the leave-one-out residual of output %d is %v at λ = %g (leverage %g; rescale the features, e.g. standardize them)", ErrNonFinite, cc, q, lambda, h)
			}
			a.ivLoo = append(a.ivLoo, q)
			a.ivRes = append(a.ivRes, math.Abs(q))
		}
		a.ivFold = append(a.ivFold, 0)
	}
	return nil
}

// finishJackknife records the jackknife+: row i's model (the total path
// updated by u_i, s_i, q_i) and residual |q_i|, the rows sorted by residual
// and update so that the model does not depend on the order they were read
// in. O(m log m + m·p·t).
func (p *Plan) finishJackknife(a *Accumulator) error {
	t, c := p.t, p.p
	m := len(a.ivFold)
	per := c + 1 + t
	if float64(m) != p.rows || len(a.ivRes) != m*t || len(a.ivLoo) != m*per {
		return fmt.Errorf("%w: the interval pass saw %d rows, the statistics %g (the data changed between passes)", ErrData, m, p.rows)
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool {
		i, j := order[x], order[y]
		if d := slices.Compare(a.ivRes[i*t:(i+1)*t], a.ivRes[j*t:(j+1)*t]); d != 0 {
			return d < 0
		}
		return slices.Compare(a.ivLoo[i*per:(i+1)*per], a.ivLoo[j*per:(j+1)*per]) < 0
	})
	pa := p.totalPath.at(p.ivBest)
	iv := &model.Interval{Method: model.JackknifePlus, Fold: make([]int, m), Residuals: mat.NewDense(m, t, nil), B: make([][]float64, m)}
	p.ivModels = make([]*model.Predictor, m)
	for n, i := range order {
		iv.Fold[n] = n
		copy(iv.Residuals.RawRowView(n), a.ivRes[i*t:(i+1)*t])
		rec := a.ivLoo[i*per : (i+1)*per]
		u, s, q := rec[:c], rec[c], rec[c+1:]
		w := mat.DenseCopyOf(pa.w[0])
		beta := slices.Clone(pa.beta[0])
		for j, uj := range u {
			row := w.RawRowView(j)
			for cc := range row {
				row[cc] -= uj * q[cc]
			}
		}
		for cc := range beta {
			beta[cc] -= s * q[cc]
		}
		one := *pa
		one.w, one.beta = []*mat.Dense{w}, [][]float64{beta}
		p.ivModels[n] = p.predictor(&one)
		iv.B[n] = p.ivModels[n].B
	}
	p.interval = iv
	return nil
}
