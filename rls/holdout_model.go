package rls

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/model"
)

// ErrHoldOutModelIntercept is returned by HoldOutModel for a model with an
// unpenalized intercept, whose retrained coefficients it does not form yet.
var ErrHoldOutModelIntercept = errors.New("rls: the hold-out model of a model with an unpenalized intercept (--intercept) is not formed yet")

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
// linear kernel in the dual form). A model with an unpenalized intercept
// is refused (ErrHoldOutModelIntercept).
func (s *Solution) HoldOutModel(h []int) (*model.Predictor, *mat.Dense, error) {
	if s.r.icpt != nil {
		return nil, nil, ErrHoldOutModelIntercept
	}
	z, err := s.holdOutResidual(h)
	if err != nil {
		return nil, nil, err
	}
	f := s.r.f
	uty := mat.DenseCopyOf(s.r.uty)
	uh := kernel.Rows(f.U, h).(*mat.Dense)
	linalg.Gemm(true, false, -1, uh, z, 1, uty) // UᵀY − U_HᵀZ
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
	coef := linalg.Mul(false, false, t, linalg.ScaleRows(uty, psi))
	if s.r.sw != nil && f.Form == factor.Dual { // a = S c
		for i, sw := range s.r.sw {
			row := coef.RawRowView(i)
			for c := range row {
				row[c] *= sw
			}
		}
	}
	pred := kernel.Rows(s.r.y, h).(*mat.Dense)
	pred.Sub(pred, z)
	s.r.unscaleRows(h, pred)
	return s.r.meta.Predictor(coef, s.Lambda), pred, nil
}
