// Package rank is RankRLS: regularized least-squares learning to rank from
// scores, query groups and preference graphs (Pahikkala et al. 2009), with exact
// cross-validation shortcuts (Pahikkala et al. 2008).
//
// A preference graph has edges e = (i ≻ j) with target z_e and weight w_e. With
// M its oriented incidence matrix (Pahikkala et al. 2009, eq. (12)) the cost is
//
//	c(f) = Σ_e w_e²(z_e − (f_i − f_j))² = fᵀLf − 2fᵀb + const,   L = MMᵀ, b = MN,
//
// and RankRLS minimizes c(f) + λ‖f‖²_k. Three learners:
//
//	Global      all pairs of a scoring Y, magnitude-preserving cost (21): L = mI − 11ᵀ, b = LY
//	Query       pairs inside each query: L = D − PPᵀ (P the m×q query indicator), b = LY
//	Preference  any graph, costs (20) unit, (21) magnitude, (22) inverse magnitude
//
// Every learner works on the factor K̃ = U diag(e) Uᵀ of package factor (dual,
// linear or sparse form) through the features Φ = U diag(√e): f = Φw,
// w = (ΦᵀLΦ + λI)⁻¹Φᵀb. Held-out rows leave the loss, not the regularizer
// (Pahikkala et al. 2008, Theorem 1), which is what makes every hold-out a small update.
package rank

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

var (
	// ErrQueries is returned for unusable query ids.
	ErrQueries = errors.New("rank: invalid queries")
	// ErrGraph is returned for an invalid preference graph.
	ErrGraph = errors.New("rank: invalid preference graph")
	// ErrTooFew is returned when a cross-validation has fewer than 2 usable pairs or queries.
	ErrTooFew = errors.New("rank: too few pairs or queries to cross-validate")
)

// Options configure the learners (the learners' shared options). RankRLS
// conventionally uses the linear kernel with bias 0.
type Options = learn.Options

// build standardizes X when asked and factors its kernel matrix as requested.
func build(x mat.Matrix, opt Options) (*factor.Data, *model.Scaler, error) {
	d, sc, err := opt.Build(x)
	if err != nil {
		return nil, nil, fmt.Errorf("rank: %w", err)
	}
	return d, sc, nil
}

// features are Φ = U diag(√e) (m×k) and the map T_Φ from Φ-coordinates to
// model coefficients. In the dual form eigenvalues at or below m·ε·max(e) —
// rounding noise of the kernel matrix — are dropped, so 1/√e stays bounded.
type features struct {
	phi *mat.Dense
	t   *mat.Dense
	// full is set when Φ is square and invertible (dual form, nothing dropped).
	full bool
}

func newFeatures(d *factor.Data) features {
	f := d.Factor
	m := f.Rows()
	if f.Form != factor.Dual {
		return features{phi: linalg.ScaleCols(f.U, f.S), t: f.T}
	}
	emax := 0.0
	for _, e := range f.E {
		emax = math.Max(emax, e)
	}
	tol := float64(m) * 2.2e-16 * emax
	first := 0 // eigenvalues ascend: the kept ones are a suffix
	for first < len(f.E)-1 && f.E[first] <= tol {
		first++
	}
	r := f.Rank()
	u := f.U.Slice(0, m, first, r).(*mat.Dense)
	sq, inv := make([]float64, r-first), make([]float64, r-first)
	for k := range sq {
		sq[k] = math.Sqrt(math.Max(f.E[first+k], 0))
		inv[k] = 1 / sq[k]
	}
	return features{phi: linalg.ScaleCols(u, sq), t: linalg.ScaleCols(u, inv), full: first == 0}
}

// rows returns the given rows of a dense matrix.
func rows(a *mat.Dense, idx []int) *mat.Dense { return kernel.Rows(a, idx).(*mat.Dense) }

// solve returns A⁻¹B for a small general matrix A.
func solve(a, b *mat.Dense) (*mat.Dense, error) {
	var x mat.Dense
	if err := x.Solve(a, b); err != nil {
		return nil, fmt.Errorf("singular hold-out system: %w", err)
	}
	return &x, nil
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

// Form reports the form the factor was built in.
func (g *Global) Form() factor.Form { return g.d.Form }

// Basis returns the basis rows of a sparse model (nil otherwise).
func (g *Global) Basis() []int { return g.d.Basis }

// Form reports the form the factor was built in.
func (gm *graphModel) Form() factor.Form { return gm.d.Form }

// Basis returns the basis rows of a sparse model (nil otherwise).
func (gm *graphModel) Basis() []int { return gm.d.Basis }
