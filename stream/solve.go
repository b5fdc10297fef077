package stream

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
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
// (b = 0: ρ = n, the plain ridge without intercept). C = V diag(e) Vᵀ once;
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
	learner learn.Name
	lambdas []float64
	n       float64
	bias    float64
	mu      []float64 // p (zero for query ranking)
	ybar    []float64 // t
	v       *mat.Dense
	e       []float64
	vmu     []float64    // Vᵀμ
	rt      *mat.Dense   // Vᵀc (Vᵀb for query ranking), p×t
	wt      []*mat.Dense // per λ: Vᵀw, p×t
	w       []*mat.Dense // per λ: w, p×t
	beta    [][]float64  // per λ: β, t
}

// newPath solves the training set of moments m (RLS, GlobalRank) along the
// grid. O(p³ + Λ·p²t).
func newPath(name learn.Name, m *Moments, shift, yshift []float64, bias float64, lambdas []float64) (*path, error) {
	if m.N < 1 {
		return nil, fmt.Errorf("%w: a training set without rows", ErrShape)
	}
	c := m.centred(shift, yshift)
	e, v, err := linalg.EigSym(c.c)
	if err != nil {
		return nil, fmt.Errorf("stream: eigendecomposition of the %d×%d scatter matrix: %w", m.P, m.P, err)
	}
	for k := range e {
		e[k] = math.Max(e[k], 0) // C is positive semidefinite: below 0 is rounding
	}
	pa := &path{learner: name, lambdas: lambdas, n: c.n, bias: bias, mu: c.mu, ybar: c.ybar, v: v, e: e}
	pa.vmu = mulVecT(v, c.mu)
	pa.rt = linalg.Mul(true, false, v, c.cy)
	for _, lambda := range lambdas {
		var wt *mat.Dense
		var beta []float64
		switch name {
		case learn.RLS:
			wt, beta = pa.rlsAt(lambda)
		case learn.GlobalRank:
			wt, beta = pa.globalAt(lambda)
		default:
			return nil, fmt.Errorf("stream: learner %s has no moment path", name)
		}
		pa.wt = append(pa.wt, wt)
		pa.w = append(pa.w, linalg.Mul(false, false, v, wt))
		pa.beta = append(pa.beta, beta)
	}
	return pa, nil
}

// rhoKappa returns ρ = nλ/(bn+λ), κ = λ/(bn+λ) and 1 − κ = bn/(bn+λ).
func (pa *path) rhoKappa(lambda float64) (rho, kappa, oneMinus float64) {
	bn := pa.bias * pa.n
	return pa.n * lambda / (bn + lambda), lambda / (bn + lambda), bn / (bn + lambda)
}

// rlsAt is the RLS solution at λ in eigen-coordinates (Vᵀw) and its β.
func (pa *path) rlsAt(lambda float64) (*mat.Dense, []float64) {
	p, t := pa.rt.Dims()
	rho, kappa, oneMinus := pa.rhoKappa(lambda)
	dv := make([]float64, p) // D⁻¹ṽ, D = e + λ
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
			x[k] = (pa.rt.At(k, c) + rho*pa.ybar[c]*pa.vmu[k]) / (pa.e[k] + lambda)
			vx += pa.vmu[k] * x[k]
		}
		vw := 0.0
		for k := range x {
			w := x[k] - gamma*dv[k]*vx
			wt.Set(k, c, w)
			vw += pa.vmu[k] * w
		}
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
	e, v, err := linalg.EigSym(h)
	if err != nil {
		return nil, fmt.Errorf("stream: eigendecomposition of the %d×%d ranking matrix: %w", len(e), len(e), err)
	}
	p, t := b.Dims()
	emax := 0.0
	for _, x := range e {
		emax = math.Max(emax, x)
	}
	tol := float64(p) * 2.220446049250313e-16 * emax
	pa := &path{learner: learn.QueryRank, lambdas: lambdas, n: n, mu: make([]float64, p), ybar: make([]float64, t), v: v, e: e, vmu: make([]float64, p)}
	pa.rt = linalg.Mul(true, false, v, b)
	all := mat.NewDense(p, len(lambdas)*t, nil) // Vᵀw for every λ side by side: one gemm gives every w
	for l, lambda := range lambdas {
		for k := 0; k < p; k++ {
			if e[k] <= tol {
				continue // the null space of H: shifts constant on every query
			}
			for c := 0; c < t; c++ {
				all.Set(k, l*t+c, pa.rt.At(k, c)/(e[k]+lambda))
			}
		}
	}
	ws := linalg.Mul(false, false, v, all)
	for l := range lambdas {
		pa.wt = append(pa.wt, mat.DenseCopyOf(all.Slice(0, p, l*t, (l+1)*t)))
		pa.w = append(pa.w, mat.DenseCopyOf(ws.Slice(0, p, l*t, (l+1)*t)))
		pa.beta = append(pa.beta, make([]float64, t))
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
