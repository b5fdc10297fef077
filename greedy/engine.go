package greedy

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/selection"
)

// engine runs the selection paths of all λ together. Every m-vector is in
// engine row order (see columns): with folds, fold f holds the rows
// [bounds[f], bounds[f+1]) and the rows from ncov on are in no fold.
type engine struct {
	cols    *columns
	m, d, t int
	y       *mat.Dense // m×t
	ys      *mat.Dense // m×t: the twin's labels, y × selection.TwinScale
	ycov    *mat.Dense // the first ncov rows of y
	ncov    int
	bounds  []int // nil: leave-one-out
	meas    measure.Measure
	mse     bool
	q       []int // query ids of the covered rows
	bias    float64
	cached  bool
	k       int
	block   int
	paths   []*path
	scratch []*scratch
	scaler  *model.Scaler

	progress progress.Observer
	trace    func(path, step int, values []float64)
}

// dual is the part of a path's state that the labels enter.
type dual struct {
	r    *mat.Dense // m×t: R = A·Y
	diag []float64  // diag(A)
	e    *mat.Dense // folds: m×t hold-out residuals E_H = (A_HH)⁻¹R_H
}

// path is the state of the selection at one λ.
type path struct {
	lambda float64
	w      *mat.Dense // (K+1)×m: rows 0…s-1 are the directions, A = I − WᵀW
	s      int
	dual
	// twin is the perturbed twin's dual (see ties.go): labels Y·TwinScale,
	// each direction's pivot c moved up by its rounding error; it shares the
	// images, so it costs O(m·t) per step and per candidate scored with it.
	twin  dual
	inS   []bool
	steps []Step

	// cached form
	u, g *mat.Dense // d×m: the images A·v_i and, for folds, g_i = blockdiag((A_HH)⁻¹)·u_i
	q    []float64  // v_iᵀA·v_i

	// folds: per direction, β = (A_HH)⁻¹w_H for every fold H (a row of m) and
	// δ'_H = 1 − w_Hᵀβ_H (a row of folds)
	beta, dprime *mat.Dense

	// lean form
	z     *mat.Dense // d×(K+1): z_i = W·v_i
	zDone int        // the columns of z computed for every candidate

	// conditioning: the Gram matrix of the selected columns (bias included)
	selT *mat.Dense // (K+1)×m
	gram *mat.Dense
	n    int
	emax float64
}

// scratch is one worker's buffers.
type scratch struct {
	xb, ub, gb *mat.Dense // block×m
	single     bool       // images of one column placed in xb (see source)
	ep, ep2    []float64  // m×t residuals: the model's and its twin's
	p, p2      *mat.Dense // ncov×t predictions: the model's and its twin's
	r, r2, qv  []float64
}

// cand is a candidate's criterion value; zero marks a column of zeros.
type cand struct {
	i    int
	v    float64
	zero bool
}

// newEngine checks the options, standardizes X when asked, orders the rows
// fold by fold and sets up one path per λ with the bias feature added.
func newEngine(x mat.Matrix, y *mat.Dense, opt *Options) (*engine, mat.Matrix, error) {
	if x == nil {
		return nil, nil, fmt.Errorf("greedy: %w: no data", learn.ErrShape)
	}
	m, d := x.Dims()
	if err := opt.check(m, d, y); err != nil {
		return nil, nil, err
	}
	_, t := y.Dims()
	perm, bounds := rowOrder(m, opt.Folds)
	ncov := m
	if bounds != nil {
		ncov = bounds[len(bounds)-1]
	}
	e := &engine{m: m, d: d, t: t, ncov: ncov, bounds: bounds, meas: opt.Measure, mse: opt.Measure.Name == "mse",
		bias: opt.Bias, k: opt.K, progress: opt.Progress, trace: opt.trace}
	e.y = mat.NewDense(m, t, nil)
	for r, i := range perm {
		e.y.SetRow(r, y.RawRowView(i))
	}
	e.ys = mat.NewDense(m, t, nil)
	e.ys.Scale(selection.TwinScale, e.y)
	e.ycov = e.y.Slice(0, ncov, 0, t).(*mat.Dense)
	if opt.Measure.NeedsQueries {
		e.q = make([]int, ncov)
		for r := range e.q {
			e.q[r] = opt.Queries[perm[r]]
		}
	}
	if _, err := e.meas.Score(e.ycov, e.ycov, e.q); err != nil {
		return nil, nil, fmt.Errorf("%w: measure %s on the labels: %w", ErrCriterion, e.meas.Name, err)
	}
	xs, sc, err := learn.Options{Standardize: opt.Standardize}.Prepare(x)
	if err != nil {
		return nil, nil, fmt.Errorf("greedy: %w", err)
	}
	e.scaler = sc
	e.cols = newColumns(xs, perm)
	for j, v := range e.cols.norm2 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, nil, fmt.Errorf("%w: feature %d: its squared norm overflows (standardize the features)", ErrNonFinite, j)
		}
	}

	copies := 1
	if bounds != nil {
		copies = 2
	}
	switch opt.Memory {
	case Cache:
		e.cached = true
	case Lean:
	default:
		e.cached = float64(len(opt.Lambdas))*float64(copies)*float64(m)*float64(d)*8 <= DefaultCacheBytes
	}
	workers := runtime.GOMAXPROCS(0)
	e.block = max(1, min(64, (d+2*workers-1)/(2*workers)))
	for range workers {
		e.scratch = append(e.scratch, e.newScratch())
	}
	var xt *mat.Dense
	if e.cached {
		xt = mat.NewDense(d, m, nil)
		e.cols.fillT(0, d, xt)
	}
	for n, l := range opt.Lambdas {
		p := e.newPath(l)
		if e.cached {
			p.u = xt
			if n < len(opt.Lambdas)-1 || bounds != nil {
				p.u = mat.DenseCopyOf(xt)
			}
			if bounds != nil {
				p.g = xt
				if n < len(opt.Lambdas)-1 {
					p.g = mat.DenseCopyOf(xt)
				}
			}
		}
		e.paths = append(e.paths, p)
	}
	if e.bias > 0 {
		e.addBias()
	}
	return e, xs, nil
}

// rowOrder returns the engine row order — the folds' rows fold by fold, then
// the rows in no fold — and the fold boundaries (nil for leave-one-out).
func rowOrder(m int, folds [][]int) (perm, bounds []int) {
	if folds == nil {
		perm = make([]int, m)
		for i := range perm {
			perm[i] = i
		}
		return perm, nil
	}
	in := make([]bool, m)
	bounds = []int{0}
	for _, f := range folds {
		for _, i := range f {
			perm = append(perm, i)
			in[i] = true
		}
		bounds = append(bounds, len(perm))
	}
	for i := 0; i < m; i++ {
		if !in[i] {
			perm = append(perm, i)
		}
	}
	return perm, bounds
}

func (e *engine) newScratch() *scratch {
	sc := &scratch{
		ep: make([]float64, e.m*e.t), ep2: make([]float64, e.m*e.t),
		p: mat.NewDense(e.ncov, e.t, nil), p2: mat.NewDense(e.ncov, e.t, nil),
		r: make([]float64, e.t), r2: make([]float64, e.t), qv: make([]float64, e.t),
	}
	if !e.cached { // the lean form's blocks; the cached form reads its caches
		sc.xb, sc.ub = mat.NewDense(e.block, e.m, nil), mat.NewDense(e.block, e.m, nil)
		if e.bounds != nil {
			sc.gb = mat.NewDense(e.block, e.m, nil)
		}
	}
	return sc
}

// newPath is the state before any feature: A = I, R = Y (the twin's R = Y·TwinScale).
func (e *engine) newPath(lambda float64) *path {
	p := &path{lambda: lambda, w: mat.NewDense(e.k+1, e.m, nil), dual: e.newDual(e.y), twin: e.newDual(e.ys),
		inS: make([]bool, e.d), selT: mat.NewDense(e.k+1, e.m, nil), gram: mat.NewDense(e.k+1, e.k+1, nil)}
	if e.bounds != nil {
		p.beta, p.dprime = mat.NewDense(e.k+1, e.m, nil), mat.NewDense(e.k+1, len(e.bounds)-1, nil)
	}
	if e.cached {
		p.q = append([]float64(nil), e.cols.norm2...)
	} else {
		p.z = mat.NewDense(e.d, e.k+1, nil)
	}
	return p
}

// newDual is the dual before any feature: A = I, R = E = y.
func (e *engine) newDual(y *mat.Dense) dual {
	d := dual{r: mat.DenseCopyOf(y), diag: make([]float64, e.m)}
	for j := range d.diag {
		d.diag[j] = 1
	}
	if e.bounds != nil {
		d.e = mat.DenseCopyOf(y)
	}
	return d
}

// direction is a column added to a path: its vector v, image u = A·v, fold
// image g, c = λ + vᵀA·v and r = uᵀY; the twin's pivot c2 = c + δ
// (pivotShift) and r2 = uᵀY·TwinScale.
type direction struct {
	v, u, g []float64
	c, c2   float64
	r, r2   []float64
}

// addBias adds the bias column √bias·1 to every path: A = I, so u = g = v.
func (e *engine) addBias() {
	v := make([]float64, e.m)
	for j := range v {
		v[j] = math.Sqrt(e.bias)
	}
	nb := e.bias * float64(e.m)
	dirs := make([]direction, len(e.paths))
	for l, p := range e.paths {
		c := p.lambda + nb
		dirs[l] = direction{v: v, u: v, g: v, c: c, c2: c + pivotShift(p.s, p.emax+nb),
			r: e.uty(e.y, v, make([]float64, e.t)), r2: e.uty(e.ys, v, make([]float64, e.t))}
		e.addDirection(p, dirs[l])
	}
	e.updateImages(dirs)
}

// uty returns r = uᵀy (engine order; y is e.y or e.ys). O(m·t).
func (e *engine) uty(y *mat.Dense, u, r []float64) []float64 {
	yd := y.RawMatrix().Data // stride t
	if e.t == 1 {
		r[0] = floats.Dot(u, yd)
		return r
	}
	clear(r)
	t := e.t
	for j, uj := range u {
		if uj == 0 {
			continue
		}
		for c, y := range yd[j*t : j*t+t] {
			r[c] += uj * y
		}
	}
	return r
}

// looMSE is the leave-one-out mean squared error of path p with the
// candidate (u, c, r) added, residuals and score in one pass. O(m·t).
func (e *engine) looMSE(p *path, u []float64, c float64, r []float64) float64 {
	rd, t := p.r.RawMatrix().Data, e.t // stride t
	s := 0.0
	if t == 1 {
		r0 := r[0]
		for j, uj := range u {
			v := (c*rd[j] - uj*r0) / (c*p.diag[j] - uj*uj)
			s += v * v
		}
	} else {
		for j, uj := range u {
			den := c*p.diag[j] - uj*uj
			for k, rk := range rd[j*t : j*t+t] {
				v := (c*rk - uj*r[k]) / den
				s += v * v
			}
		}
	}
	return s / float64(e.m*t)
}

// run takes the K steps.
func (e *engine) run() error {
	for step := 1; step <= e.k; step++ {
		cands, err := e.evaluate(step)
		if err != nil {
			return err
		}
		dirs := make([]direction, len(e.paths))
		for l, p := range e.paths {
			if cands[l].i < 0 {
				return fmt.Errorf("%w: λ = %g, step %d: measure %s is undefined on the CV predictions of every candidate", ErrCriterion, p.lambda, step, e.meas.Name)
			}
			dirs[l], err = e.choose(l, cands[l])
			if err != nil {
				return err
			}
		}
		for l, p := range e.paths {
			e.addDirection(p, dirs[l])
		}
		e.updateImages(dirs)
		if e.progress != nil {
			e.progress.Step("greedy selection", step, e.k)
		}
	}
	return nil
}

// better orders candidates: the better value, ties to the lower index; NaN
// never wins, and a column of zeros (a constant feature, standardized) comes
// after every other candidate with a value: its image A·v is 0 at every λ,
// so it cannot change the model, and its value differs from the current
// model's by rounding only.
func (e *engine) better(a, b cand) bool {
	switch {
	case math.IsNaN(a.v):
		return false
	case b.i < 0 || math.IsNaN(b.v):
		return true
	case a.zero != b.zero:
		return b.zero
	case e.meas.Better(a.v, b.v):
		return true
	}
	return a.v == b.v && a.i < b.i
}

// evaluate scores every candidate of every path, in parallel over blocks of
// candidates (one read of each block of the data for all paths), and
// returns each path's best.
func (e *engine) evaluate(step int) ([]cand, error) {
	nb := (e.d + e.block - 1) / e.block
	var next atomic.Int64
	var failed atomic.Bool
	bests := make([][]cand, len(e.scratch))
	errs := make([]error, len(e.scratch))
	var values [][]float64
	if e.trace != nil {
		values = make([][]float64, len(e.paths))
		for l := range values {
			values[l] = make([]float64, e.d)
		}
	}
	{
		var wg sync.WaitGroup
		for w, sc := range e.scratch {
			bests[w] = make([]cand, len(e.paths))
			for l := range bests[w] {
				bests[w][l] = cand{i: -1, v: math.NaN()}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !failed.Load() {
					blk := int(next.Add(1)) - 1
					if blk >= nb {
						return
					}
					i0, i1 := blk*e.block, min((blk+1)*e.block, e.d)
					if !e.cached {
						e.cols.fillT(i0, i1, e.source(sc))
					}
					for l, p := range e.paths {
						var vals []float64
						if values != nil {
							vals = values[l]
						}
						if err := e.evalBlock(p, i0, i1, sc, &bests[w][l], vals); err != nil {
							errs[w] = err
							failed.Store(true)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, p := range e.paths {
		p.zDone = p.s
	}
	out := make([]cand, len(e.paths))
	for l := range out {
		out[l] = cand{i: -1, v: math.NaN()}
		for w := range bests {
			if e.better(bests[w][l], out[l]) {
				out[l] = bests[w][l]
			}
		}
		if values != nil {
			e.trace(l, step, values[l])
		}
	}
	return out, nil
}

// evalBlock scores the candidates i0…i1-1 of path p.
func (e *engine) evalBlock(p *path, i0, i1 int, sc *scratch, best *cand, vals []float64) error {
	var ub, gb *mat.Dense
	if e.cached {
		ub = p.u.Slice(i0, i1, 0, e.m).(*mat.Dense)
		if p.g != nil {
			gb = p.g.Slice(i0, i1, 0, e.m).(*mat.Dense)
		}
	} else {
		ub, gb = e.images(p, i0, i1, sc)
	}
	for b := 0; b < i1-i0; b++ {
		i := i0 + b
		if p.inS[i] {
			if vals != nil {
				vals[i] = math.NaN()
			}
			continue
		}
		u := ub.RawRowView(b)
		var g []float64
		if gb != nil {
			g = gb.RawRowView(b)
		}
		c := p.lambda + max(e.vav(p, i), 0)
		r := e.uty(e.y, u, sc.r)
		var v float64
		fast := e.mse && e.bounds == nil
		if fast {
			v = e.looMSE(p, u, c, r)
		}
		if !fast || math.IsNaN(v) || math.IsInf(v, 0) {
			e.residuals(&p.dual, u, g, c, r, sc.ep, sc)
			var ep2 []float64
			if e.meas.Ordinal { // ties need the twin's predictions
				e.residuals(&p.twin, u, g, c+pivotShift(p.s, p.emax+e.cols.norm2[i]), e.uty(e.ys, u, sc.r2), sc.ep2, sc)
				ep2 = sc.ep2
			}
			var err error
			if v, _, _, err = e.score(sc.ep, ep2, sc); err != nil {
				return fmt.Errorf("λ = %g, feature %d: %w", p.lambda, i, err)
			}
		}
		if vals != nil {
			vals[i] = v
		}
		if cd := (cand{i: i, v: v, zero: e.cols.norm2[i] == 0}); e.better(cd, *best) {
			*best = cd
		}
	}
	return nil
}

// source is where the lean form's evaluation puts the candidates' columns:
// straight into the images' buffer when one path without folds needs them
// (no copy), else into sc.xb.
func (e *engine) source(sc *scratch) *mat.Dense {
	if len(e.paths) == 1 && e.bounds == nil && !sc.single {
		return sc.ub
	}
	return sc.xb
}

// vav is v_iᵀA·v_i (before clamping at 0).
func (e *engine) vav(p *path, i int) float64 {
	if e.cached {
		return p.q[i]
	}
	z := p.z.RawRowView(i)[:p.s]
	return e.cols.norm2[i] - floats.Dot(z, z)
}

// images computes, in the lean form, the images u_i = v_i − Wᵀz_i of the
// candidates i0…i1-1 (whose columns are in e.source(sc)), O(m·s) per
// candidate by gemm, and for folds g_i by replay, O(m·s) per candidate. The
// products z_i with the directions added since the last pass are formed
// first, O(m) each.
func (e *engine) images(p *path, i0, i1 int, sc *scratch) (ub, gb *mat.Dense) {
	nb := i1 - i0
	// the new directions' products z_ij = w_jᵀv_i, fused into this pass
	// over the data
	src := e.source(sc)
	for b := 0; b < nb; b++ {
		z, v := p.z.RawRowView(i0+b), src.RawRowView(b)
		for j := p.zDone; j < p.s; j++ {
			z[j] = floats.Dot(v, p.w.RawRowView(j))
		}
	}
	ub = sc.ub.Slice(0, nb, 0, e.m).(*mat.Dense)
	if src != sc.ub {
		ub.Copy(sc.xb.Slice(0, nb, 0, e.m))
	}
	if p.s > 0 {
		linalg.Gemm(false, false, -1, p.z.Slice(i0, i1, 0, p.s).(*mat.Dense), p.w.Slice(0, p.s, 0, e.m).(*mat.Dense), 1, ub)
	}
	if e.bounds == nil {
		return ub, nil
	}
	gb = sc.gb.Slice(0, nb, 0, e.m).(*mat.Dense)
	for b := 0; b < nb; b++ {
		g, z := gb.RawRowView(b), p.z.RawRowView(i0+b)
		copy(g, sc.xb.RawRowView(b))
		e.replay(p, g, z)
	}
	return ub, gb
}

// residuals writes the CV residuals Y − P of a path's dual p (the model's or
// its twin's) with the candidate (u, g, c, r) added into out (m×t,
// row-major; the covered rows): leave-one-out (c·R_j − u_j·r)/(c·A_jj − u_j²),
// folds E_H + g_H(u_HᵀE_H − rᵀ)/(c − u_Hᵀg_H). O(m·t).
func (e *engine) residuals(p *dual, u, g []float64, c float64, r, out []float64, sc *scratch) {
	t := e.t
	if e.bounds == nil {
		rd := p.r.RawMatrix().Data // stride t
		for j, uj := range u {
			den := c*p.diag[j] - uj*uj
			rr, o := rd[j*t:j*t+t], out[j*t:j*t+t]
			for k := range o {
				o[k] = (c*rr[k] - uj*r[k]) / den
			}
		}
		return
	}
	qv := sc.qv
	for f := 0; f+1 < len(e.bounds); f++ {
		h0, h1 := e.bounds[f], e.bounds[f+1]
		delta := c - floats.Dot(u[h0:h1], g[h0:h1])
		for k := range qv {
			qv[k] = -r[k]
		}
		for j := h0; j < h1; j++ {
			if uj := u[j]; uj != 0 {
				for k, ev := range p.e.RawRowView(j) {
					qv[k] += uj * ev
				}
			}
		}
		for k := range qv {
			qv[k] /= delta
		}
		for j := h0; j < h1; j++ {
			ev, gj := p.e.RawRowView(j), g[j]
			o := out[j*t : j*t+t]
			for k := range o {
				o[k] = ev[k] + gj*qv[k]
			}
		}
	}
}

// score computes the criterion from the residuals ep of the covered rows:
// for mse without a twin their mean square; otherwise the measure of the
// predictions Y − E, and with the twin's residuals ep2 through the one tie
// rule: the tolerance tol = selection.NoiseTolerance of the predictions and
// the twin's, and selection.ScoreWithin (ordinal measures score predictions
// within tol as ties; indistinct says all are). A measure undefined on the
// predictions gives NaN (the candidate is never chosen); a non-finite
// prediction is an error. Cost O(n·t), O(n log n·t) with the twin, plus the
// measure's.
func (e *engine) score(ep, ep2 []float64, sc *scratch) (v float64, indistinct bool, tol []float64, err error) {
	n, t := e.ncov, e.t
	if e.mse && ep2 == nil {
		s := 0.0
		for _, v := range ep[:n*t] {
			s += v * v
		}
		v := s / float64(n*t)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false, nil, e.nonFinite(ep)
		}
		return v, false, nil, nil
	}
	if err := e.predictions(e.y, ep, sc.p); err != nil {
		return 0, false, nil, err
	}
	if ep2 == nil {
		v, err = e.meas.Score(e.ycov, sc.p, e.q)
	} else {
		if err := e.predictions(e.ys, ep2, sc.p2); err != nil {
			return 0, false, nil, err
		}
		tol = selection.NoiseTolerance(sc.p, sc.p2)
		v, indistinct, err = selection.ScoreWithin(e.meas, e.ycov, sc.p, e.q, tol)
	}
	if err != nil {
		if errors.Is(err, measure.ErrUndefined) {
			return math.NaN(), indistinct, tol, nil
		}
		return 0, false, nil, err
	}
	return v, indistinct, tol, nil
}

// predictions writes y − ep (the covered rows) into dst (ncov×t); a
// non-finite prediction is an error. O(n·t).
func (e *engine) predictions(y *mat.Dense, ep []float64, dst *mat.Dense) error {
	t := e.t
	raw := dst.RawMatrix()
	for j := 0; j < e.ncov; j++ {
		yr, o := y.RawRowView(j), raw.Data[j*raw.Stride:j*raw.Stride+t]
		for k := range o {
			o[k] = yr[k] - ep[j*t+k]
			if math.IsNaN(o[k]) || math.IsInf(o[k], 0) {
				return e.nonFinite(ep)
			}
		}
	}
	return nil
}

// replay turns g = v_i into g_i = blockdiag((A_HH)⁻¹)·A·v_i by applying the
// s directions' updates in order — the arithmetic of the cached form's update
// (see updateCache), with α_j = z_ij: g ← g − α_j β_j, then per fold
// g_H ← g_H + β_{j,H}(w_{j,H}ᵀg_H)/δ'_{j,H}. O(m·s). Forming (A_HH)⁻¹
// instead would cost accuracy where A_HH is nearly singular (a fold whose
// training rows are fewer than the features, at small λ).
func (e *engine) replay(p *path, g, z []float64) {
	for j := 0; j < p.s; j++ {
		w, beta, dp := p.w.RawRowView(j), p.beta.RawRowView(j), p.dprime.RawRowView(j)
		floats.AddScaled(g, -z[j], beta)
		for f := 0; f+1 < len(e.bounds); f++ {
			h0, h1 := e.bounds[f], e.bounds[f+1]
			floats.AddScaled(g[h0:h1], floats.Dot(w[h0:h1], g[h0:h1])/dp[f], beta[h0:h1])
		}
	}
}

// nonFinite names the first non-finite residual.
func (e *engine) nonFinite(ep []float64) error {
	for n, v := range ep[:e.ncov*e.t] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: row %d, output %d is %v (rescale the features, e.g. standardize them)", ErrNonFinite, e.cols.perm[n/e.t], n%e.t, v)
		}
	}
	return fmt.Errorf("%w: the criterion overflows (rescale the features or labels)", ErrNonFinite)
}

// choose records the step of path l that adds candidate cd — its value,
// whether its predictions are indistinguishable, the forward-error bound of
// its value (valueTolerance, from the twin's predictions) and whether it
// ties the previous step (NoGain) — and returns the candidate as a
// direction.
func (e *engine) choose(l int, cd cand) (direction, error) {
	p, sc := e.paths[l], e.scratch[0]
	i := cd.i
	dir := direction{v: make([]float64, e.m), u: make([]float64, e.m), r: make([]float64, e.t), r2: make([]float64, e.t)}
	e.cols.col(i, dir.v)
	if e.cached {
		copy(dir.u, p.u.RawRowView(i))
		if p.g != nil {
			dir.g = append([]float64(nil), p.g.RawRowView(i)...)
		}
	} else {
		sc.single = true // the column goes to xb, images copies it
		copy(sc.xb.RawRowView(0), dir.v)
		ub, gb := e.images(p, i, i+1, sc)
		sc.single = false
		copy(dir.u, ub.RawRowView(0))
		if gb != nil {
			dir.g = append([]float64(nil), gb.RawRowView(0)...)
		}
	}
	dir.c = p.lambda + max(e.vav(p, i), 0)
	dir.c2 = dir.c + pivotShift(p.s, p.emax+e.cols.norm2[i])
	e.uty(e.y, dir.u, dir.r)
	e.uty(e.ys, dir.u, dir.r2)
	e.residuals(&p.dual, dir.u, dir.g, dir.c, dir.r, sc.ep, sc)
	e.residuals(&p.twin, dir.u, dir.g, dir.c2, dir.r2, sc.ep2, sc)
	v, flag, tol, err := e.score(sc.ep, sc.ep2, sc)
	if err != nil {
		return dir, fmt.Errorf("λ = %g, feature %d: %w", p.lambda, i, err)
	}
	st := Step{Feature: i, Value: cd.v, Indistinguishable: flag,
		Tolerance: valueTolerance(e.meas, e.ycov, sc.p, e.q, tol, v)}
	if n := len(p.steps); n > 0 {
		st.NoGain = ties(st, p.steps[n-1])
	}
	p.steps = append(p.steps, st)
	p.inS[i] = true
	return dir, nil
}

// cvPredictions returns the CV predictions (m×t in data order, NaN for rows
// in no fold) of path p's model with its first k features, replayed from
// the directions it keeps: leave-one-out R = Y − Σ w_j(w_jᵀY),
// diag(A) = 1 − Σ w_j∘w_j, P = Y − R/diag(A); folds, from E = Y, per
// direction and fold E_H ← E_H + β_H(w_HᵀE_H − w_jᵀY)/δ'_H — the updates of
// addDirection written in w = u/√c and β = g/√c. O(s·m·t) for the s
// directions (the bias's and k).
func (e *engine) cvPredictions(p *path, k int) *mat.Dense {
	s := k
	if e.bias > 0 {
		s++
	}
	m, t := e.m, e.t
	res := mat.DenseCopyOf(e.y) // R or E
	diag := make([]float64, m)
	for j := range diag {
		diag[j] = 1
	}
	wy := make([]float64, t)
	for j := 0; j < s; j++ {
		w := p.w.RawRowView(j)
		e.uty(e.y, w, wy)
		if e.bounds == nil {
			for r, wr := range w {
				if wr == 0 {
					continue
				}
				row := res.RawRowView(r)
				for c := range row {
					row[c] -= wr * wy[c]
				}
				diag[r] -= wr * wr
			}
			continue
		}
		beta, dp := p.beta.RawRowView(j), p.dprime.RawRowView(j)
		qv := make([]float64, t)
		for f := 0; f+1 < len(e.bounds); f++ {
			h0, h1 := e.bounds[f], e.bounds[f+1]
			for c := range qv {
				qv[c] = -wy[c]
			}
			for r := h0; r < h1; r++ {
				if wr := w[r]; wr != 0 {
					for c, ev := range res.RawRowView(r) {
						qv[c] += wr * ev
					}
				}
			}
			for r := h0; r < h1; r++ {
				row := res.RawRowView(r)
				for c := range row {
					row[c] += beta[r] * qv[c] / dp[f]
				}
			}
		}
	}
	out := mat.NewDense(m, t, nil)
	for r, i := range e.cols.perm {
		o, y, er := out.RawRowView(i), e.y.RawRowView(r), res.RawRowView(r)
		for c := range o {
			switch {
			case r >= e.ncov:
				o[c] = math.NaN()
			case e.bounds == nil:
				o[c] = y[c] - er[c]/diag[r]
			default:
				o[c] = y[c] - er[c]
			}
		}
	}
	return out
}

// addDirection adds a direction to a path's dual state, and with the pivot
// c2 and r2 to its twin's (see update), and w = u/√c as the next row of W.
// O(m·t).
func (e *engine) addDirection(p *path, d direction) {
	e.update(&p.dual, d.u, d.g, d.c, d.r)
	e.update(&p.twin, d.u, d.g, d.c2, d.r2)
	w := p.w.RawRowView(p.s)
	sq := math.Sqrt(d.c)
	for j, uj := range d.u {
		w[j] = uj / sq
	}
	if e.bounds != nil {
		beta, dp := p.beta.RawRowView(p.s), p.dprime.RawRowView(p.s)
		for j, gj := range d.g {
			beta[j] = gj / sq
		}
		for f := range dp {
			h0, h1 := e.bounds[f], e.bounds[f+1]
			dp[f] = 1 - floats.Dot(w[h0:h1], beta[h0:h1])
		}
	}
	p.s++
	p.addGram(d.v)
}

// update adds the direction (u, g, c, r) to a dual: E_H (folds) as in
// residuals, R ← R − u rᵀ/c, diag(A) ← diag(A) − u∘u/c. O(m·t).
func (e *engine) update(p *dual, u, g []float64, c float64, r []float64) {
	if e.bounds != nil {
		ep := make([]float64, e.m*e.t)
		e.residuals(p, u, g, c, r, ep, &scratch{qv: make([]float64, e.t)})
		for j := 0; j < e.ncov; j++ {
			copy(p.e.RawRowView(j), ep[j*e.t:(j+1)*e.t])
		}
	}
	for j, uj := range u {
		if uj == 0 {
			continue
		}
		rr := p.r.RawRowView(j)
		for k := range rr {
			rr[k] -= uj * r[k] / c
		}
		p.diag[j] -= uj * uj / c
	}
}

// addGram adds a selected column to the Gram matrix and updates its largest
// eigenvalue. O(m·s + s³).
func (p *path) addGram(v []float64) {
	n := p.n
	copy(p.selT.RawRowView(n), v)
	for j := 0; j <= n; j++ {
		g := floats.Dot(p.selT.RawRowView(j), v)
		p.gram.Set(j, n, g)
		p.gram.Set(n, j, g)
	}
	p.n++
	sym := mat.NewSymDense(p.n, nil)
	for a := 0; a < p.n; a++ {
		for b := a; b < p.n; b++ {
			sym.SetSym(a, b, p.gram.At(a, b))
		}
	}
	var eig mat.EigenSym
	if eig.Factorize(sym, false) {
		vals := eig.Values(nil)
		p.emax = vals[len(vals)-1]
	} else {
		p.emax = mat.Trace(sym)
	}
}

// updateImages brings the cached images up to date after each path gained
// the direction w = u/√c (its last row of W): α_i = v_bᵀu_i/√c,
// u_i ← u_i − α_i w, and for folds g_i by Sherman–Morrison per fold, O(m)
// per candidate. The lean form has nothing to do here: its products
// z_i = W·v_i gain the new direction during the next evaluation's pass over
// the data (see images).
func (e *engine) updateImages(dirs []direction) {
	if e.cached {
		for l, p := range e.paths {
			e.updateCache(p, dirs[l])
		}
	}
}

// updateCache updates the cached images of path p, in parallel over rows.
func (e *engine) updateCache(p *path, d direction) {
	sq := math.Sqrt(d.c)
	w := p.w.RawRowView(p.s - 1)
	var beta, dprime []float64
	if p.g != nil {
		beta, dprime = p.beta.RawRowView(p.s-1), p.dprime.RawRowView(p.s-1)
	}
	parallel(e.d, len(e.scratch), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if p.inS[i] {
				continue
			}
			ui := p.u.RawRowView(i)
			a := floats.Dot(ui, d.v) / sq
			floats.AddScaled(ui, -a, w)
			p.q[i] -= a * a
			if beta == nil {
				continue
			}
			gi := p.g.RawRowView(i)
			floats.AddScaled(gi, -a, beta)
			for f := 0; f+1 < len(e.bounds); f++ {
				h0, h1 := e.bounds[f], e.bounds[f+1]
				gamma := floats.Dot(w[h0:h1], gi[h0:h1])
				floats.AddScaled(gi[h0:h1], gamma/dprime[f], beta[h0:h1])
			}
		}
	})
}

// parallel runs f over [0,n) split into contiguous chunks, one per worker.
func parallel(n, workers int, f func(lo, hi int)) {
	if workers <= 1 || n < 2*workers {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	wg.Wait()
}
