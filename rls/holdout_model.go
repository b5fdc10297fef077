package rls

import (
	"errors"
	"fmt"
	"math"
	"slices"

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
// Memory: n×K·t for the coefficients.
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
	// rhsT holds (UᵀY − U_{H_k}ᵀẐ_k)ᵀ: row k·t+c is output c of fold k, r
	// contiguous values, so that every update is an axpy over a row of U.
	rhsT := mat.NewDense(k*t, rk, nil)
	for fk := range folds {
		for c := 0; c < t; c++ {
			row := rhsT.RawRowView(fk*t + c)
			for j := range row {
				row[j] = s.r.uty.At(j, c)
			}
		}
	}
	for fk, h := range folds {
		if err := learn.CheckHoldOut(h, m); err != nil {
			return nil, fmt.Errorf("rls: fold %d: %w", fk+1, err)
		}
		for _, i := range h {
			u := f.U.RawRowView(i)
			for c := 0; c < t; c++ {
				z := s.givenResidual(i, c, cv)
				row := rhsT.RawRowView(fk*t + c)
				for j, uj := range u {
					row[j] -= uj * z
				}
			}
		}
	}
	if err := s.checkGiven(folds, cv, rhsT); err != nil {
		return nil, err
	}
	var bs [][]float64 // with an intercept, each fold model's b′ (HoldOutModel)
	if ic := s.r.icpt; ic != nil {
		bs = make([][]float64, k)
		for fk, h := range folds {
			b := slices.Clone(s.b)
			for _, i := range h {
				for c := range b {
					b[c] -= s.v[i] * s.givenResidual(i, c, cv) / s.s
				}
			}
			for c, bc := range b {
				row := rhsT.RawRowView(fk*t + c)
				for j, u := range ic.u1 {
					row[j] -= u * bc
				}
			}
			bs[fk] = b
		}
	}
	coef := s.coefficientsOf(mat.DenseCopyOf(rhsT.T()))
	n, _ := coef.Dims()
	out := make([]*model.Predictor, k)
	for fk := range out {
		out[fk] = s.r.meta.Predictor(mat.DenseCopyOf(coef.Slice(0, n, fk*t, fk*t+t)), s.Lambda)
		if bs != nil {
			out[fk].AddIntercept(bs[fk])
		}
	}
	return out, nil
}

// givenResidual is Ẑ_ic = ỹ_ic − s_i·cv_ic, the hold-out residual of the
// factored problem that the given prediction implies.
func (s *Solution) givenResidual(i, c int, cv *mat.Dense) float64 {
	sw := 1.0
	if s.r.sw != nil {
		sw = s.r.sw[i]
	}
	return s.r.y.At(i, c) - sw*cv.At(i, c)
}

// checkGiven bounds the error of the hold-out residuals Ẑ_k implied by cv
// on every fold, given rhsT (row k·t+c: (UᵀY − U_{H_k}ᵀẐ_k)ᵀ for output
// c), as HoldOutModelsGiven says. O(Σ|H_k|·r·t).
func (s *Solution) checkGiven(folds [][]int, cv, rhsT *mat.Dense) error {
	f := s.r.f
	_, t := s.r.y.Dims()
	emax := 0.0
	for _, e := range f.E {
		emax = max(emax, e)
	}
	amp := (emax + s.Lambda) / s.Lambda // ≥ 1/λ_min(A_HH)
	tol := 1e-8 * mat.Norm(s.r.y0, math.Inf(1))
	ic := s.r.icpt
	zz := 0.0 // ‖z‖², z the intercept column
	if ic != nil {
		for i := range s.diag {
			zz += ic.zi(i) * ic.zi(i)
		}
	}
	q := make([]float64, t)             // v_HᵀẐ, with an intercept
	v := mat.NewDense(t, f.Rank(), nil) // row c: diag(g) U_HᵀẐ for output c
	for fk, h := range folds {
		for c := 0; c < t; c++ {
			vr, rr := v.RawRowView(c), rhsT.RawRowView(fk*t+c)
			for j, g := range s.g {
				vr[j] = g * (s.r.uty.At(j, c) - rr[j])
			}
		}
		ampH := amp
		if ic != nil { // λ_min(Â_HH) ≥ λ_min(A)·‖z_T‖²/‖z‖²
			zh := 0.0
			for _, i := range h {
				zh += ic.zi(i) * ic.zi(i)
			}
			if !(zz-zh > 0) {
				return fmt.Errorf("%w: fold %d leaves no row to fit the intercept", ErrHoldOutMismatch, fk+1)
			}
			ampH *= zz / (zz - zh)
			for c := range q {
				q[c] = 0
				for _, i := range h {
					q[c] += s.v[i] * s.givenResidual(i, c, cv)
				}
			}
		}
		rho2, smin := 0.0, math.Inf(1)
		for _, i := range h {
			if s.r.sw != nil {
				smin = min(smin, s.r.sw[i])
			} else {
				smin = 1
			}
			u := f.U.RawRowView(i)
			for c := 0; c < t; c++ {
				az := s.c0 * s.givenResidual(i, c, cv)
				for j, vj := range v.RawRowView(c) {
					az += u[j] * vj
				}
				if ic != nil { // Â_HH = A_HH − v_H v_Hᵀ/s
					az -= s.v[i] * q[c] / s.s
				}
				d := s.res.At(i, c) - az
				rho2 += d * d
			}
		}
		if bound := math.Sqrt(rho2) * ampH / smin; !(bound <= tol) {
			return fmt.Errorf("%w: fold %d of %d rows: the predictions given are within %.3g of its hold-out predictions, not %.3g", ErrHoldOutMismatch, fk+1, len(h), bound, tol)
		}
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

// coefficientsOf maps U-coordinates V (r×c, overwritten) to coefficients:
// T diag(ψ) V, ψ = 1/(e+λ) (dual, T = U) or s/(s²+λ), times S in the dual
// form with sample weights — Coefficients' map. O(n·r·c).
func (s *Solution) coefficientsOf(v *mat.Dense) *mat.Dense {
	f := s.r.f
	psi := make([]float64, f.Rank())
	for k, e := range f.E {
		if f.Form == factor.Dual {
			psi[k] = 1 / (e + s.Lambda)
		} else {
			psi[k] = f.S[k] / (e + s.Lambda)
		}
	}
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
