package stream

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/selection"
)

// path is the model of one training set at every λ of the grid, from one
// eigendecomposition of its p×p statistics: f(z) = (z − μ)ᵀW_λ + β_λ.
//
// RLS (ridge on z = [x, √b]; the bias weight penalized like the others, as
// the in-memory learners do). With the training set's mean μ, centred scatter
// C and c = Σ(z−μ)(y−ȳ)ᵀ, the bias row of the normal equations is eliminated
// exactly (a Schur complement), which leaves, for the feature weights w,
//
//	(C + λI + ρ μμᵀ) w = c + ρ μ ȳᵀ,  ρ = nλ/(bn + λ),   β = (bn·ȳ + λ·μᵀw)/(bn + λ),
//
// (b = 0: ρ = n, the plain ridge without intercept). With an unpenalized
// intercept (Options.Intercept; the limit b → ∞) ρ = 0 and β = ȳ: the centred
// ridge (C + λI) w = c, f(z) = (z − μ)ᵀw + ȳ, whose intercept ȳ − μᵀw is refit
// on every training set's own sums — C = Σzzᵀ − (Σz)(Σz)ᵀ/n and
// c = Σzyᵀ − (Σz)(Σy)ᵀ/n from its double-double moments (Hoerl & Kennard
// 1970; scikit-learn's Ridge(fit_intercept=True)). C = V diag(e) Vᵀ once;
// each λ is a diagonal solve plus a Sherman–Morrison correction for ρμμᵀ:
// O(p²t) per λ. Working about the mean keeps the offset of the features out of
// the eigendecomposition: C is as well conditioned as the data's spread, while
// S = ZᵀZ carries n·|μ|² in one direction (Golub & Van Loan 2013, sect. 6.1
// on the normal equations).
//
// GlobalRankRLS: ZᵀLZ = nS − ssᵀ = nC (L = nI − 11ᵀ annihilates the bias and any
// shift), ZᵀLY = n·c, so w = V diag(n/(ne + λ)) Vᵀc and f(z) = zᵀw.
//
// QueryRankRLS: H = Σ_q w_q n_q C_q and B (RankMoments); H = V diag(e) Vᵀ with the
// eigenvalues at or below p·ε·max(e) dropped — the shifts constant on every
// query, which no pair sees and b is orthogonal to (the in-memory learner
// deflates the same null space) — and w = V diag(1/(e + λ)) VᵀB, f(z) = zᵀw.
type path struct {
	loss    learn.Loss
	lambdas []float64
	n       float64
	bias    float64
	// intercept says the constant is unpenalized (ρ = κ = 0, β = ȳ); bias is
	// then not read.
	intercept bool
	mu        []float64 // p (zero for query ranking)
	ybar      []float64 // t
	v         *mat.Dense
	e         []float64
	// drop marks, for query ranking, the eigenvalues at or below p·ε·max(e):
	// the null space of H, left out of every solve (nil otherwise).
	drop []bool
	// active marks the features that are not a constant column of the
	// training set (Moments.centred; nil: all). An inactive feature is left
	// out of the eigendecomposition — its eigenvector is its unit vector, its
	// eigenvalue and right-hand side exactly 0 — so it is solved exactly (a
	// column of zeros gets the weight 0, as in memory) instead of as its
	// shifted sums' rounding noise amplified by 1/λ.
	active []bool
	vmu    []float64    // Vᵀμ
	sys    *mat.Dense   // C (H for query ranking), p×p, until the twin is made from it (then nil)
	cy     *mat.Dense   // c (B for query ranking), p×t: the right-hand side before the rotation
	rt     *mat.Dense   // Vᵀc (Vᵀb for query ranking), p×t
	wt     []*mat.Dense // per λ: Vᵀw, p×t
	w      []*mat.Dense // per λ: w, p×t
	beta   [][]float64  // per λ: β, t
	// tw is the path's twin (see twin), when its hold-out predictions
	// measure their forward error; nil otherwise.
	tw *path
}

// newPath solves the training set of moments m (the squared or the
// all-pairs loss) along the grid; ref is the features of a data row of
// zeros (see Moments.centred); intercept (the squared loss) leaves the
// constant unpenalized, bias is then not read. O(p³ + Λ·p²t).
func newPath(loss learn.Loss, m *Moments, shift, yshift, ref []float64, bias float64, intercept bool, lambdas []float64) (*path, error) {
	if m.N < 1 {
		return nil, fmt.Errorf("%w: a training set without rows", ErrShape)
	}
	if intercept && loss != learn.Squared {
		return nil, fmt.Errorf("%w: an unpenalized intercept with the %s loss", ErrOptions, loss)
	}
	c := m.centred(shift, yshift, ref)
	pa := &path{loss: loss, lambdas: lambdas, n: c.n, bias: bias, intercept: intercept, mu: c.mu, ybar: c.ybar, sys: c.c, cy: c.cy, active: c.active}
	if err := pa.factor(1); err != nil {
		return nil, err
	}
	if err := pa.solve(); err != nil {
		return nil, err
	}
	return pa, nil
}

// factor eigendecomposes s·sys and divides the eigenvalues back by s (s ≠ 1:
// the same matrix rounded another way), then rotates μ and the right-hand
// side: V, e (the scatter's clamped at 0; for query ranking the null space
// marked in drop), Vᵀμ and Vᵀc. O(p³ + p²t).
func (pa *path) factor(s float64) error {
	a := pa.sys
	if s != 1 {
		a = mat.DenseCopyOf(pa.sys)
		a.Scale(s, a)
	}
	e, v, err := pa.eigActive(a)
	if err != nil {
		what := "scatter"
		if pa.loss == learn.QueryPairs {
			what = "ranking"
		}
		p, _ := a.Dims()
		return fmt.Errorf("stream: eigendecomposition of the %d×%d %s matrix: %w", p, p, what, err)
	}
	emax := 0.0
	for k := range e {
		e[k] /= s
		emax = math.Max(emax, e[k])
	}
	if pa.loss == learn.QueryPairs {
		tol := float64(len(e)) * 2.220446049250313e-16 * emax
		pa.drop = make([]bool, len(e))
		for k, x := range e {
			pa.drop[k] = x <= tol
		}
	} else {
		for k := range e {
			e[k] = math.Max(e[k], 0) // C is positive semidefinite: below 0 is rounding
		}
	}
	pa.v, pa.e = v, e
	pa.vmu = mulVecT(v, pa.mu)
	pa.rt = linalg.Mul(true, false, v, pa.cy)
	return nil
}

// eigActive eigendecomposes a over the active features (every feature when
// pa.active is nil); an inactive feature's eigenvector is its unit vector
// with eigenvalue 0, and its rows of the right-hand side are set to 0.
// O(p³).
func (pa *path) eigActive(a *mat.Dense) ([]float64, *mat.Dense, error) {
	if pa.active == nil {
		return linalg.EigSym(a)
	}
	var idx []int
	for j, on := range pa.active {
		if on {
			idx = append(idx, j)
		} else {
			for k := range pa.cy.RawRowView(j) {
				pa.cy.Set(j, k, 0)
			}
		}
	}
	p, _ := a.Dims()
	e := make([]float64, p)
	v := mat.NewDense(p, p, nil)
	for j, on := range pa.active {
		if !on {
			v.Set(j, j, 1)
		}
	}
	if len(idx) == 0 {
		return e, v, nil
	}
	sub := mat.NewDense(len(idx), len(idx), nil)
	for r, i := range idx {
		for c, j := range idx {
			sub.Set(r, c, a.At(i, j))
		}
	}
	es, vs, err := linalg.EigSym(sub)
	if err != nil {
		return es, nil, err
	}
	// the active eigenpairs take the columns of the active features, in order
	for c, j := range idx {
		e[j] = es[c]
		for r, i := range idx {
			v.Set(i, j, vs.At(r, c))
		}
	}
	return e, v, nil
}

// solve fills the weights of every λ from the eigendecomposition and the
// rotated right-hand side. O(Λ·p²t).
func (pa *path) solve() error {
	pa.wt, pa.w, pa.beta = nil, nil, nil
	switch pa.loss {
	case learn.Squared, learn.AllPairs:
		for _, lambda := range pa.lambdas {
			var wt *mat.Dense
			var beta []float64
			if pa.loss == learn.Squared {
				wt, beta = pa.rlsAt(lambda)
			} else {
				wt, beta = pa.globalAt(lambda)
			}
			pa.wt = append(pa.wt, wt)
			pa.w = append(pa.w, linalg.Mul(false, false, pa.v, wt))
			pa.beta = append(pa.beta, beta)
		}
	case learn.QueryPairs:
		p, t := pa.rt.Dims()
		all := mat.NewDense(p, len(pa.lambdas)*t, nil) // Vᵀw for every λ side by side: one gemm gives every w
		for l, lambda := range pa.lambdas {
			for k := 0; k < p; k++ {
				if pa.drop[k] {
					continue // the null space of H: shifts constant on every query
				}
				for c := 0; c < t; c++ {
					all.Set(k, l*t+c, pa.rt.At(k, c)/(pa.e[k]+lambda))
				}
			}
		}
		ws := linalg.Mul(false, false, pa.v, all)
		for l := range pa.lambdas {
			pa.wt = append(pa.wt, mat.DenseCopyOf(all.Slice(0, p, l*t, (l+1)*t)))
			pa.w = append(pa.w, mat.DenseCopyOf(ws.Slice(0, p, l*t, (l+1)*t)))
			pa.beta = append(pa.beta, make([]float64, t))
		}
	default:
		return fmt.Errorf("%w: the %s loss has no moment path", ErrOptions, pa.loss)
	}
	return nil
}

// twin returns the path's twin, the streaming form of learn.Perturber:
// the same statistics solved again — the right-hand side moved by its
// accumulation's rounding bound rhsErr (Plan's rhsError) in a fixed
// low-discrepancy pattern and, with the label means, multiplied by
// selection.TwinScale; the mean moved by its rounding error (perturbMean);
// the p×p matrix eigendecomposed anew from TwinScale times it (so its
// rounding, eigenvectors included, is another realization) and every
// eigenvalue moved up by about its rounding error (factor.PerturbUp: by up
// to p·ε·max e) — along the same grid. In exact arithmetic and without the perturbation, the twin's
// predictions, hold-out shortcuts included, are TwinScale times the path's;
// computed in the same prediction pass, their difference is what
// selection.NoiseTolerance turns into the tie tolerance of the one tie rule,
// so that hold-out predictions closer than their forward error — the
// eigendecomposition's rounding and the solve's sensitivity to it, the
// shortcuts' cancellations — count as ties. O(p³ + Λ·p²t).
func (pa *path) twin(rhsErr *mat.Dense) (*path, error) {
	if pa.sys == nil {
		return nil, fmt.Errorf("%w: a path's twin after its matrix was released", ErrOptions)
	}
	s := selection.TwinScale
	tw := &path{loss: pa.loss, lambdas: pa.lambdas, n: pa.n, bias: pa.bias, intercept: pa.intercept, mu: perturbMean(pa.mu), sys: pa.sys, active: pa.active}
	tw.ybar = make([]float64, len(pa.ybar))
	for c, v := range pa.ybar {
		tw.ybar[c] = v * s
	}
	tw.cy = mat.DenseCopyOf(pa.cy)
	r, t := tw.cy.Dims()
	if rhsErr != nil {
		er, et := rhsErr.Dims()
		for j := 0; j < r && j < er; j++ {
			for k := 0; k < t && k < et; k++ {
				tw.cy.Set(j, k, tw.cy.At(j, k)+rhsErr.At(j, k)*lowDiscrepancy(j*t+k))
			}
		}
	}
	tw.cy.Scale(s, tw.cy)
	if err := tw.factor(s); err != nil {
		return nil, err
	}
	tw.e = factor.PerturbUp(tw.e)
	tw.sys = nil
	if err := tw.solve(); err != nil {
		return nil, err
	}
	return tw, nil
}

// lowDiscrepancy is u_i ∈ [−1, 1), a fixed golden-ratio sequence: the
// direction of a twin's perturbations.
func lowDiscrepancy(i int) float64 {
	return 2*math.Mod(float64(i+1)*0.6180339887498949, 1) - 1
}

// perturbMean returns μ with every entry moved by about its rounding error,
// ε·|μ_j|·u_j with u_j ∈ [−1, 1) a fixed low-discrepancy sequence, so that
// a twin also measures the sensitivity of its predictions to the rounding of
// the mean (large for features far from 0 without a bias: the mean then
// carries the intercept). O(p).
func perturbMean(mu []float64) []float64 {
	out := make([]float64, len(mu))
	for j, v := range mu {
		out[j] = v + 2.220446049250313e-16*math.Abs(v)*lowDiscrepancy(j)
	}
	return out
}

// rhoKappa returns ρ = nλ/(bn+λ), κ = λ/(bn+λ) and 1 − κ = bn/(bn+λ); with
// an unpenalized intercept their limits as b → ∞: 0, 0 and 1.
func (pa *path) rhoKappa(lambda float64) (rho, kappa, oneMinus float64) {
	if pa.intercept {
		return 0, 0, 1
	}
	bn := pa.bias * pa.n
	return pa.n * lambda / (bn + lambda), lambda / (bn + lambda), bn / (bn + lambda)
}

// constLeverage is the constant's share of a row's leverage: b/(bn+λ) for
// the penalized bias feature, 1/n (its limit as b → ∞) for an unpenalized
// intercept.
func (pa *path) constLeverage(lambda float64) float64 {
	if pa.intercept {
		return 1 / pa.n
	}
	return pa.bias / (pa.bias*pa.n + lambda)
}

// rlsAt is the RLS solution at λ in eigen-coordinates (Vᵀw) and its β. With
// D = diag(e) + λ, ṽ = Vᵀμ, x₁ = D⁻¹Vᵀc and γ = ρ/(1 + ρ ṽᵀD⁻¹ṽ),
// Sherman–Morrison gives
//
//	Vᵀw = x₁ + γ (ȳ − ṽᵀx₁) D⁻¹ṽ,   ṽᵀw = (ṽᵀx₁ + ρ ṽᵀD⁻¹ṽ ȳ)/(1 + ρ ṽᵀD⁻¹ṽ),
//
// the label mean entering once, scaled by γ: solving for D⁻¹(c + ρμȳ) first
// and correcting it after would cancel terms ρ·ṽᵀD⁻¹ṽ times larger than w —
// 10⁵ and more for features far from 0 — and lose as many digits.
func (pa *path) rlsAt(lambda float64) (*mat.Dense, []float64) {
	p, t := pa.rt.Dims()
	rho, kappa, oneMinus := pa.rhoKappa(lambda)
	dv := make([]float64, p) // D⁻¹ṽ
	vdv := 0.0
	for k := range dv {
		dv[k] = pa.vmu[k] / (pa.e[k] + lambda)
		vdv += pa.vmu[k] * dv[k]
	}
	gamma := rho / (1 + rho*vdv)
	wt := mat.NewDense(p, t, nil)
	beta := make([]float64, t)
	x := make([]float64, p)
	for c := 0; c < t; c++ {
		vx := 0.0
		for k := range x {
			x[k] = pa.rt.At(k, c) / (pa.e[k] + lambda)
			vx += pa.vmu[k] * x[k]
		}
		g := gamma * (pa.ybar[c] - vx)
		for k := range x {
			wt.Set(k, c, x[k]+g*dv[k])
		}
		vw := (vx + rho*vdv*pa.ybar[c]) / (1 + rho*vdv)
		beta[c] = oneMinus*pa.ybar[c] + kappa*vw
	}
	return wt, beta
}

// globalAt is the GlobalRankRLS solution at λ: Vᵀw = n/(ne+λ)·Vᵀc, β = μᵀw.
func (pa *path) globalAt(lambda float64) (*mat.Dense, []float64) {
	p, t := pa.rt.Dims()
	wt := mat.NewDense(p, t, nil)
	beta := make([]float64, t)
	for k := 0; k < p; k++ {
		g := pa.n / (pa.n*pa.e[k] + lambda)
		for c := 0; c < t; c++ {
			w := g * pa.rt.At(k, c)
			wt.Set(k, c, w)
			beta[c] += pa.vmu[k] * w
		}
	}
	return wt, beta
}

// newQueryPath solves query ranking's statistics along the grid. O(p³ + Λ·p²t).
func newQueryPath(m *RankMoments, lambdas []float64) (*path, error) {
	h, b := m.matrices()
	return queryPath(h, b, m.N, lambdas)
}

// queryPath is newQueryPath from H and B rounded to float64.
func queryPath(h, b *mat.Dense, n float64, lambdas []float64) (*path, error) {
	p, t := b.Dims()
	pa := &path{loss: learn.QueryPairs, lambdas: lambdas, n: n, mu: make([]float64, p), ybar: make([]float64, t), sys: h, cy: b}
	if err := pa.factor(1); err != nil {
		return nil, err
	}
	if err := pa.solve(); err != nil {
		return nil, err
	}
	return pa, nil
}

// mulVecT returns Vᵀx.
func mulVecT(v *mat.Dense, x []float64) []float64 {
	r, c := v.Dims()
	out := make([]float64, c)
	for i := 0; i < r && i < len(x); i++ {
		xi := x[i]
		if xi == 0 {
			continue
		}
		for k, a := range v.RawRowView(i) {
			out[k] += a * xi
		}
	}
	return out
}

// shifted returns, per λ, W and β' = β − (μ − z₀)ᵀW, so that for shifted rows
// z' = z − z₀ the prediction is z'ᵀW + β'. O(Λ·p·t).
func (pa *path) shifted(shift []float64) (w []*mat.Dense, beta [][]float64) {
	for n, wl := range pa.w {
		p, t := wl.Dims()
		b := append([]float64(nil), pa.beta[n]...)
		for j := 0; j < p; j++ {
			d := pa.mu[j]
			if j < len(shift) {
				d -= shift[j]
			}
			if d == 0 {
				continue
			}
			row := wl.RawRowView(j)
			for c := 0; c < t; c++ {
				b[c] -= d * row[c]
			}
		}
		w, beta = append(w, wl), append(beta, b)
	}
	return w, beta
}

// sse returns, per λ and output, the squared error Σ_i (y_i − f(z_i))² of the
// path's models on the rows of the moments f (shifted by z₀, y₀) without
// visiting them:
//
//	with a = y₀ − β',  Σ r² = Y'Y' − 2wᵀZY + wᵀZZw + 2a(Y − wᵀZ) + n·a²,
//
// every product formed in double-double from the double-double sums, so the
// cancellation between the terms (they are large when the model fits well)
// costs nothing: the result is the squared error of the float64 model to
// about 2⁻¹⁰⁰ of its terms. O(Λ·p²·t).
func sse(f *Moments, ws []*mat.Dense, betas [][]float64, yshift []float64) [][]float64 {
	out := make([][]float64, len(ws))
	P, T := f.P, f.T
	for n, w := range ws {
		p, _ := w.Dims()
		out[n] = make([]float64, T)
		for c := 0; c < T; c++ {
			wc := make([]float64, P)
			for j := 0; j < p && j < P; j++ {
				wc[j] = w.At(j, c)
			}
			var wzy, wz, quad dd
			for i := 0; i < P; i++ {
				if wc[i] == 0 {
					continue
				}
				wzy = wzy.add(f.zy.at(i*T + c).mulF(wc[i]))
				wz = wz.add(f.z.at(i).mulF(wc[i]))
				var row dd
				for j := 0; j < P; j++ {
					if wc[j] != 0 {
						row = row.add(f.zzAt(i, j).mulF(wc[j]))
					}
				}
				quad = quad.add(row.mulF(wc[i]))
			}
			a := ddOf(yshift[c]).sub(ddOf(betas[n][c]))
			v := f.yy.at(c).sub(wzy.mulF(2)).add(quad)
			v = v.add(a.mul(f.y.at(c).sub(wz)).mulF(2))
			v = v.add(a.mul(a).mulF(f.N))
			out[n][c] = math.Max(v.float(), 0)
		}
	}
	return out
}
