package rls

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// ErrHoldOutMismatch is returned by HoldOutModelsGiven for predictions it
// cannot confirm to be this solution's hold-out predictions.
var ErrHoldOutMismatch = errors.New("rls: the predictions given are not the hold-out predictions of this solution")

// HoldOutModel returns the model retrained without the rows H — its
// predictor, in the layout of Predictor — and its predictions for those rows
// (|H|×t, HoldOut's), from the factorization alone: no refit.
//
// Derivation. On the features Φ of the factored problem (K̃ = ΦΦᵀ, Φ = U
// diag(√e) Tᵀ in U-coordinates) the coefficients are T diag(ψ) UᵀY with ψ =
// 1/(e+λ) (dual, T = U) or ψ = s/(s²+λ) (linear and sparse forms, s = √e),
// i.e. the primal weights w = P⁻¹ΦᵀY, P = ΦᵀΦ + λI, mapped by T. Dropping
// the rows H from the loss gives P_{−H} = P − Φ_HᵀΦ_H, and with the
// hold-out residuals Z = Y_H − Φ_H w_{−H},
//
//	P w_{−H} = ΦᵀY − Φ_HᵀY_H + Φ_HᵀΦ_H w_{−H} = ΦᵀY − Φ_HᵀZ,
//	w_{−H} = w − P⁻¹Φ_HᵀZ,   coefficients  T diag(ψ) (UᵀY − U_HᵀZ),
//
// where Z = (A_HH)⁻¹R_H is the hold-out identity's (Pahikkala et al. 2008,
// Theorem 1; HoldOut). In the dual form this is a_{−H} = a − G_{·H}
// G_HH⁻¹ a_H with G = (K + λI)⁻¹ (a_H = R_H/λ, G_HH = A_HH/λ): the
// coefficients of the held-out rows come out 0. With sample weights the
// identities hold on the scaled problem (SK S, SY) and the dual
// coefficients are S times its own, as Coefficients says. A sparse model
// keeps its basis (the hold-out drops rows from the loss only, the Keep
// policy).
//
// Cost: HoldOut's plus O(|H|·r·t) for U_HᵀZ and O(n·r·t) for the map T
// (n = m dual, d+1 linear, |B| sparse), plus model.New's (O(m·d·t) for a
// linear kernel in the dual form).
//
// With an unpenalized intercept the model retrained without H is the model
// of all rows for the labels Y′ = Y − E_H Z (each held-out label replaced by
// its hold-out prediction: that row's loss is then 0 at the retrained
// model, which therefore minimizes the full loss too). Its intercept is b′
// = 1ᵀAY′/s = b − v_HᵀZ/s (v = A1, s = 1ᵀA1, the package comment's) and its
// coefficients those of Y′ − 1b′ᵀ: T diag(ψ) (UᵀY − U_HᵀZ − (Uᵀ1)b′ᵀ), Z
// the hold-out residuals of Â (HoldOut). O(|H|·t) more.
func (s *Solution) HoldOutModel(h []int) (*model.Predictor, *mat.Dense, error) {
	z, err := s.holdOutResidual(h)
	if err != nil {
		return nil, nil, err
	}
	pred := kernel.Rows(s.r.y, h).(*mat.Dense)
	pred.Sub(pred, z)
	s.r.unscaleRows(h, pred)
	return s.modelWithout(h, z), pred, nil
}

// HoldOutModelsGiven returns, for each fold H_k, the model retrained
// without its rows (as HoldOutModel), given cv (m×t): the hold-out
// prediction of every row of the folds by the model without its fold, as
// HoldOut returns them for this solution's λ (the rows of no fold are not
// read). Then Z_k = Y_{H_k} − cv_{H_k} (times s_h with sample weights)
// needs no hold-out solve, and all K models come from one product with T:
// O(Σ|H_k|·r·t) to form UᵀY − U_{H_k}ᵀZ_k for every fold and O(n·r·K·t)
// for the product, reading T once (not K times), plus model.New's.
// Memory: n×K·t for the coefficients, once more per extra worker (below),
// and K·t×r for UᵀY − U_{H_k}ᵀZ_k.
// The work goes over U in blocks of columns J (≈ 1 MiB of U each): a
// block's axpys forming (U_{H_k}ᵀZ_k)_J, the check's products with it and,
// in the dual form (T = U), the product adding T_{·J} diag(ψ_J)(…)_J to
// every coefficient vector all read the block while it is in cache, so U
// comes from memory once, not three times. In the dual form of full rank
// without an intercept A = U diag(λψ) Uᵀ, so ρ = λ·c_H — the held-out rows'
// own coefficients in the fold's model, which the product forms: the check
// then needs no dot products. The blocks are shared among one
// worker per core (the BLAS single-threaded meanwhile); the workers' sums
// are added in a fixed order.
//
// The predictions are checked, not trusted, at O(Σ|H_k|·r·t): the
// hold-out residuals are the unique solution of A_HH Z = R_H (HoldOut), so
// with ρ = R_H − A_HH Ẑ (A_HH Ẑ = c₀Ẑ + U_H diag(g) U_HᵀẐ, U_HᵀẐ already
// formed) the error of Ẑ is at most ‖ρ‖₂/λ_min(A_HH) ≤ ‖ρ‖₂(e_max + λ)/λ
// (interlacing: A's eigenvalues are λ/(e+λ), and 1). Predictions whose
// bound, divided by min s_h with sample weights, exceeds 1e-8·max|y| on
// some fold — those of another λ or other folds, or a system too
// ill-conditioned for the check to vouch for them — are refused with
// ErrHoldOutMismatch; HoldOutModel solves them instead. With an
// unpenalized intercept the system is Â_HH Z = R̂_H, Â_HH = A_HH −
// v_H v_Hᵀ/s, whose smallest eigenvalue is at least λ_min(A)·‖z_T‖²/‖z‖²
// (z the intercept's column, T the kept rows: uᵀÂ_HH u = min_c (ũ −
// cz)ᵀA(ũ − cz) ≥ λ_min(A)·min_c ‖ũ − cz‖² for u extended by zeros to ũ),
// so the bound is multiplied by ‖z‖²/‖z_T‖²; each model's intercept is b′ =
// b − v_HᵀẐ/s and its coefficients those of Y′ − 1b′ᵀ, as in HoldOutModel.
func (s *Solution) HoldOutModelsGiven(folds [][]int, cv *mat.Dense) ([]*model.Predictor, error) {
	m, t := s.r.y.Dims()
	if r, c := cv.Dims(); r != m || c != t {
		return nil, fmt.Errorf("rls: %w: %d×%d hold-out predictions for %d rows of %d outputs", learn.ErrShape, r, c, m, t)
	}
	f := s.r.f
	rk := f.Rank()
	k := len(folds)
	for fk, h := range folds {
		if err := learn.CheckHoldOut(h, m); err != nil {
			return nil, fmt.Errorf("rls: fold %d: %w", fk+1, err)
		}
	}
	ic := s.r.icpt
	// zs[fk][a·t+c] = Ẑ of row h[a], output c; bs with an intercept each
	// fold model's b′ = b − v_HᵀẐ/s (HoldOutModel).
	zs := make([][]float64, k)
	var bs [][]float64
	if ic != nil {
		bs = make([][]float64, k)
	}
	for fk, h := range folds {
		zs[fk] = make([]float64, len(h)*t)
		for a, i := range h {
			for c := 0; c < t; c++ {
				zs[fk][a*t+c] = s.givenResidual(i, c, cv)
			}
		}
		if ic != nil {
			b := slices.Clone(s.b)
			for a, i := range h {
				for c := range b {
					b[c] -= s.v[i] * zs[fk][a*t+c] / s.s
				}
			}
			bs[fk] = b
		}
	}
	// rhsT holds (UᵀY − U_{H_k}ᵀẐ_k)ᵀ: row k·t+c is output c of fold k, r
	// contiguous values, so that every update is an axpy over a row of U.
	utyT := mat.DenseCopyOf(s.r.uty.T())
	rhsT := mat.NewDense(k*t, rk, nil)
	for fk := range folds {
		for c := 0; c < t; c++ {
			copy(rhsT.RawRowView(fk*t+c), utyT.RawRowView(c))
		}
	}
	tm := f.T
	if tm == nil {
		tm = f.U
	}
	n, _ := tm.Dims()
	psi := s.psi()
	coefT := mat.NewDense(k*t, n, nil)
	// uv[fk][a·t+c] accumulates (U_H diag(g) U_HᵀẐ)_a for the check.
	uv := make([][]float64, k)
	for fk, h := range folds {
		uv[fk] = make([]float64, len(h)*t)
	}
	// One pass over U by blocks of columns J, each small enough to stay in
	// cache for its three uses: the axpys forming (U_HᵀẐ)_J, the check's
	// dot products U_{H,J} (diag(g) U_HᵀẐ)_J, and (dual form, T = U) the
	// product adding T_{·J} diag(ψ_J) (rhs)_J to the coefficients.
	bw := givenBlockCols
	if bw <= 0 { // m·bw numbers ≈ 1 MiB, within 32..256 columns
		bw = max(32, min(256, (1<<20)/(8*max(m, 1))))
	}
	bw = min(rk, bw)
	// The blocks are shared among workers (block b to worker b mod W, one
	// per core), each with its own share of the check's sums and of the
	// coefficients, added in worker order: the result does not depend on
	// the scheduling. The BLAS runs single-threaded meanwhile.
	nb := (rk + bw - 1) / bw
	nw := max(1, min(runtime.GOMAXPROCS(0), nb))
	uvW := make([][][]float64, nw)
	coefW := make([]*mat.Dense, nw)
	uvW[0], coefW[0] = uv, coefT
	for w := 1; w < nw; w++ {
		uvW[w] = make([][]float64, k)
		for fk, h := range folds {
			uvW[w][fk] = make([]float64, len(h)*t)
		}
		coefW[w] = mat.NewDense(k*t, n, nil)
	}
	// the folds' rows in increasing order (a constant stride through U's
	// blocks, which the hardware prefetches): row i, its fold, its place
	type entry struct{ i, fk, a int }
	var rowsInOrder []entry
	for fk, h := range folds {
		for a, i := range h {
			rowsInOrder = append(rowsInOrder, entry{i, fk, a})
		}
	}
	slices.SortFunc(rowsInOrder, func(x, y entry) int { return x.i - y.i })
	// Dual form of full rank (U square, T = U) without an intercept: A =
	// U diag(λψ) Uᵀ, so the check's residual is ρ = R_H − A_HH Ẑ = U_H
	// diag(λψ)(UᵀY − U_HᵀẐ) = λ·c_H, λ times the held-out rows' own
	// coefficients in the fold's model (before the weights' S): the product
	// forms them, and the check's dot products are not needed.
	fromCoef := givenFromCoef && f.Form == factor.Dual && rk == m && n == m && ic == nil
	block := func(w, j0, j1 int, vb *mat.Dense) {
		for _, e := range rowsInOrder {
			u := f.U.RawRowView(e.i)[j0:j1]
			for c := 0; c < t; c++ {
				floats.AddScaled(rhsT.RawRowView(e.fk*t + c)[j0:j1], -zs[e.fk][e.a*t+c], u)
			}
		}
		for row := 0; row < k*t && !fromCoef; row++ {
			vr, rr, ur := vb.RawRowView(row)[:j1-j0], rhsT.RawRowView(row)[j0:j1], utyT.RawRowView(row % t)[j0:j1]
			for j := range vr {
				vr[j] = s.g[j0+j] * (ur[j] - rr[j])
			}
		}
		for _, e := range rowsInOrder {
			if fromCoef {
				break
			}
			u := f.U.RawRowView(e.i)[j0:j1]
			for c := 0; c < t; c++ {
				uvW[w][e.fk][e.a*t+c] += floats.Dot(u, vb.RawRowView(e.fk*t + c)[:j1-j0])
			}
		}
		for row := 0; row < k*t; row++ {
			vr, rr := vb.RawRowView(row)[:j1-j0], rhsT.RawRowView(row)[j0:j1]
			for j := range vr {
				vr[j] = psi[j0+j] * rr[j]
			}
			if ic != nil { // the coefficients of Y′ − 1b′ᵀ (HoldOutModel)
				bc := bs[row/t][row%t]
				for j := range vr {
					vr[j] -= psi[j0+j] * ic.u1[j0+j] * bc
				}
			}
		}
		linalg.Gemm(false, true, 1, vb.Slice(0, k*t, 0, j1-j0).(*mat.Dense), tm.Slice(0, n, j0, j1).(*mat.Dense), 1, coefW[w])
	}
	work := func(w int) {
		vb := mat.NewDense(k*t, bw, nil) // diag(g)·(U_HᵀẐ)_J, then ψ∘(rhs − u1 b′ᵀ)_J
		for b := w; b < nb; b += nw {
			block(w, b*bw, min(rk, (b+1)*bw), vb)
		}
	}
	if nw == 1 {
		work(0)
	} else {
		end := linalg.SerialSection()
		var wg sync.WaitGroup
		for w := 0; w < nw; w++ {
			wg.Go(func() { work(w) })
		}
		wg.Wait()
		end()
		for w := 1; w < nw; w++ {
			for fk := range uv {
				floats.Add(uv[fk], uvW[w][fk])
			}
			coefT.Add(coefT, coefW[w])
		}
	}
	if fromCoef { // uv holds the check's residual ρ = λ·c_H itself
		for _, e := range rowsInOrder {
			for c := 0; c < t; c++ {
				uv[e.fk][e.a*t+c] = s.Lambda * coefT.At(e.fk*t+c, e.i)
			}
		}
	}
	chk := s.newGivenCheck()
	for fk, h := range folds {
		if err := chk.fold(fk, h, zs[fk], uv[fk], fromCoef); err != nil {
			return nil, err
		}
	}
	if s.r.sw != nil && f.Form == factor.Dual { // a = S c
		for row := 0; row < k*t; row++ {
			floats.Mul(coefT.RawRowView(row), s.r.sw)
		}
	}
	out := make([]*model.Predictor, k)
	for fk := range out {
		a := mat.NewDense(n, t, nil)
		for c := 0; c < t; c++ {
			a.SetCol(c, coefT.RawRowView(fk*t+c))
		}
		out[fk] = s.r.meta.Predictor(a, s.Lambda)
		if bs != nil {
			out[fk].AddIntercept(bs[fk])
		}
	}
	return out, nil
}

// givenBlockCols, when positive, is the width of HoldOutModelsGiven's
// blocks of columns of U (its tests use narrow blocks to cross their
// edges); 0 sizes them by the cache budget.
var givenBlockCols = 0

// givenFromCoef lets HoldOutModelsGiven read the check's residual from the
// coefficients in the dual form of full rank (its tests turn it off to
// compare with the dot products).
var givenFromCoef = true

// givenResidual is Ẑ_ic = ỹ_ic − s_i·cv_ic, the hold-out residual of the
// factored problem that the given prediction implies.
func (s *Solution) givenResidual(i, c int, cv *mat.Dense) float64 {
	sw := 1.0
	if s.r.sw != nil {
		sw = s.r.sw[i]
	}
	return s.r.y.At(i, c) - sw*cv.At(i, c)
}

// givenCheck bounds the error of the hold-out residuals Ẑ_k implied by
// the given predictions, fold by fold, as HoldOutModelsGiven says: O(|H|·r·t)
// for a fold H. It holds what the folds share.
type givenCheck struct {
	s   *Solution
	amp float64    // (e_max + λ)/λ ≥ 1/λ_min(A_HH)
	tol float64    // 1e-8·max|y|
	zz  float64    // ‖z‖², z the intercept column
	q   []float64  // v_HᵀẐ, with an intercept
	v   *mat.Dense // row c: diag(g) U_HᵀẐ for output c
}

func (s *Solution) newGivenCheck() *givenCheck {
	f := s.r.f
	_, t := s.r.y.Dims()
	emax := 0.0
	for _, e := range f.E {
		emax = max(emax, e)
	}
	ck := &givenCheck{
		s:   s,
		amp: (emax + s.Lambda) / s.Lambda,
		tol: 1e-8 * mat.Norm(s.r.y0, math.Inf(1)),
		q:   make([]float64, t),
	}
	if ic := s.r.icpt; ic != nil {
		for i := range s.diag {
			ck.zz += ic.zi(i) * ic.zi(i)
		}
	}
	return ck
}

// fold checks the fold fk of rows h given its Ẑ (z) and uv = U_H diag(g)
// U_HᵀẐ (row a, output c at a·t+c): ρ = R_H − A_HH Ẑ (with an intercept,
// Â_HH), or ρ itself in uv when isRho, and the error bound ‖ρ‖₂·amp/min s_h
// against the tolerance.
func (ck *givenCheck) fold(fk int, h []int, z, uv []float64, isRho bool) error {
	s := ck.s
	_, t := s.r.y.Dims()
	ic := s.r.icpt
	q := ck.q
	ampH := ck.amp
	if ic != nil { // λ_min(Â_HH) ≥ λ_min(A)·‖z_T‖²/‖z‖²
		zh := 0.0
		for _, i := range h {
			zh += ic.zi(i) * ic.zi(i)
		}
		if !(ck.zz-zh > 0) {
			return fmt.Errorf("%w: fold %d leaves no row to fit the intercept", ErrHoldOutMismatch, fk+1)
		}
		ampH *= ck.zz / (ck.zz - zh)
		for c := range q {
			q[c] = 0
			for a, i := range h {
				q[c] += s.v[i] * z[a*t+c]
			}
		}
	}
	rho2, smin := 0.0, math.Inf(1)
	for a, i := range h {
		if s.r.sw != nil {
			smin = min(smin, s.r.sw[i])
		} else {
			smin = 1
		}
		for c := 0; c < t; c++ {
			if isRho { // uv is ρ (HoldOutModelsGiven's dual form of full rank)
				rho2 += uv[a*t+c] * uv[a*t+c]
				continue
			}
			az := s.c0*z[a*t+c] + uv[a*t+c]
			if ic != nil { // Â_HH = A_HH − v_H v_Hᵀ/s
				az -= s.v[i] * q[c] / s.s
			}
			d := s.res.At(i, c) - az
			rho2 += d * d
		}
	}
	if bound := math.Sqrt(rho2) * ampH / smin; !(bound <= ck.tol) {
		return fmt.Errorf("%w: fold %d of %d rows: the predictions given are within %.3g of its hold-out predictions, not %.3g", ErrHoldOutMismatch, fk+1, len(h), bound, ck.tol)
	}
	return nil
}

// modelWithout is the predictor of the model retrained without the rows H,
// given their hold-out residuals Z of the factored problem (with an
// intercept, HoldOutModel's b′).
func (s *Solution) modelWithout(h []int, z *mat.Dense) *model.Predictor {
	uty := mat.DenseCopyOf(s.r.uty)
	uh := kernel.Rows(s.r.f.U, h).(*mat.Dense)
	linalg.Gemm(true, false, -1, uh, z, 1, uty) // UᵀY − U_HᵀZ
	var b []float64
	if s.r.icpt != nil {
		b = make([]float64, len(s.b))
		for c := range b {
			q := 0.0
			for a, i := range h {
				q += s.v[i] * z.At(a, c)
			}
			b[c] = s.b[c] - q/s.s
		}
		for k, u := range s.r.icpt.u1 {
			row := uty.RawRowView(k)
			for c := range row {
				row[c] -= u * b[c]
			}
		}
	}
	p := s.r.meta.Predictor(s.coefficientsOf(uty), s.Lambda)
	if b != nil {
		p.AddIntercept(b)
	}
	return p
}

// psi is ψ = 1/(e+λ) (dual form) or s/(s²+λ) (linear and sparse forms),
// the map from U-coordinates to coefficients before T.
func (s *Solution) psi() []float64 {
	f := s.r.f
	psi := make([]float64, f.Rank())
	for k, e := range f.E {
		if f.Form == factor.Dual {
			psi[k] = 1 / (e + s.Lambda)
		} else {
			psi[k] = f.S[k] / (e + s.Lambda)
		}
	}
	return psi
}

// coefficientsOf maps U-coordinates V (r×c, overwritten) to coefficients:
// T diag(ψ) V, ψ = 1/(e+λ) (dual, T = U) or s/(s²+λ), times S in the dual
// form with sample weights — Coefficients' map. O(n·r·c).
func (s *Solution) coefficientsOf(v *mat.Dense) *mat.Dense {
	f := s.r.f
	psi := s.psi()
	t := f.T
	if t == nil {
		t = f.U
	}
	coef := linalg.Mul(false, false, t, linalg.ScaleRows(v, psi))
	if s.r.sw != nil && f.Form == factor.Dual { // a = S c
		for i, sw := range s.r.sw {
			row := coef.RawRowView(i)
			for c := range row {
				row[c] *= sw
			}
		}
	}
	return coef
}
