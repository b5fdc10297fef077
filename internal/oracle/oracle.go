// Package oracle is the brute force that rlskit's exact shortcuts are tested
// against: retraining from scratch on the reduced data with direct methods that
// share nothing with the factor-based shortcuts, plus the random problems,
// error measure and λ range the learners' property tests share. It is used by
// tests only.
package oracle

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// Lambdas is the λ range every property test covers.
var Lambdas = []float64{1e-6, 1e-3, 1, 1e2, 1e4}

// Label makes label c of a row from its first feature x0 and a N(0,1) draw.
type Label func(x0 float64, c int, noise float64) float64

// Smooth is a regression label: sin((c+1)·x0) + 0.3·noise.
func Smooth(x0 float64, c int, noise float64) float64 { return math.Sin(float64(c+1)*x0) + 0.3*noise }

// Graded is a ranking label with ties: round(2·sin((c+1)·x0) + noise).
func Graded(x0 float64, c int, noise float64) float64 {
	return math.Round(2*math.Sin(float64(c+1)*x0) + noise)
}

// Data draws m rows of d N(0,1) features — dense, or CSR where each entry
// outside column 0 is zero with probability zeroProb (column 0 stays dense, so
// rows stay distinct) — and t labels per row.
func Data(rng *rand.Rand, m, d, t int, sparse bool, zeroProb float64, label Label) (mat.Matrix, *mat.Dense) {
	xd := mat.NewDense(m, d, nil)
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if sparse && j > 0 && rng.Float64() < zeroProb {
				continue
			}
			v := rng.NormFloat64()
			xd.Set(i, j, v)
			idx = append(idx, j)
			val = append(val, v)
		}
		indptr = append(indptr, len(idx))
	}
	y := mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		for c := 0; c < t; c++ {
			y.Set(i, c, label(xd.At(i, 0), c, rng.NormFloat64()))
		}
	}
	if !sparse {
		return xd, y
	}
	csr, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		panic(err)
	}
	return csr, y
}

// RelErr is ‖got − want‖_F / ‖want‖_F (absolute when want is zero).
func RelErr(got, want *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(got, want)
	den := mat.Norm(want, 2)
	if den == 0 {
		den = 1
	}
	return mat.Norm(&d, 2) / den
}

// Trace is Σ|K_ii| for the kernel matrix of X.
func Trace(k kernel.Kernel, x mat.Matrix) float64 {
	km, _ := k.Block(x, k.Points(x))
	m, _ := km.Dims()
	tr := 0.0
	for i := 0; i < m; i++ {
		tr += math.Abs(km.At(i, i))
	}
	return tr
}

// AllRows returns 0..m-1.
func AllRows(m int) []int {
	out := make([]int, m)
	for i := range out {
		out[i] = i
	}
	return out
}

// Problem is what a retraining needs: the rows, labels, kernel and, for the
// sparse form, the basis rows (indices into the full data).
type Problem struct {
	X     mat.Matrix
	Y     *mat.Dense
	K     kernel.Kernel
	Basis []int
	// Primal asks the linear kernel to be retrained by its primal (ridge on [X, √bias]).
	Primal bool
}

// Ridge trains RLS on rows `train` (with the given basis rows for the sparse
// form, indices into the full data) and predicts rows `test`.
//   - dual: solve (K_tt + λI) a = Y_t by LU, predict K_st a;
//   - linear kernel with the primal: ridge regression on [X, √bias] by the
//     augmented least-squares problem [F; √λ I] w ≈ [Y; 0] (QR);
//   - sparse: ridge on Φ = K_{·B} L⁻ᵀ (K_BB = LLᵀ), again by augmented least squares.
func Ridge(p Problem, train, test []int, lambda float64) *mat.Dense {
	k := p.K
	xt := kernel.Rows(p.X, train)
	xs := kernel.Rows(p.X, test)
	switch {
	case p.Basis != nil:
		pts := kernel.Rows(k.Points(p.X), p.Basis)
		ktb, _ := k.Block(xt, pts)
		ksb, _ := k.Block(xs, pts)
		kbb, _ := k.Block(kernel.Rows(p.X, p.Basis), pts)
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(len(p.Basis), mat.DenseCopyOf(kbb).RawMatrix().Data)) {
			panic("K_BB not positive definite in oracle")
		}
		var l mat.TriDense
		ch.LTo(&l)
		// Φ = K L⁻ᵀ  ⇔  Φ Lᵀ = K  ⇔  L Φᵀ = Kᵀ
		phiT := func(kx *mat.Dense) *mat.Dense {
			var out mat.Dense
			if err := out.Solve(&l, kx.T()); err != nil {
				panic(err)
			}
			return mat.DenseCopyOf(out.T())
		}
		w := RidgeLS(phiT(ktb), kernel.Rows(p.Y, train).(*mat.Dense), lambda)
		var out mat.Dense
		out.Mul(phiT(ksb), w)
		return &out
	case p.Primal:
		lin := k.(kernel.Linear)
		w := RidgeLS(factor.WithBias(xt, lin.Bias), kernel.Rows(p.Y, train).(*mat.Dense), lambda)
		var out mat.Dense
		out.Mul(factor.WithBias(xs, lin.Bias), w)
		return &out
	default:
		pts := k.Points(p.X)
		ktt, _ := k.Block(xt, kernel.Rows(pts, train))
		kst, _ := k.Block(xs, kernel.Rows(pts, train))
		for i := range train {
			ktt.Set(i, i, ktt.At(i, i)+lambda)
		}
		var a mat.Dense
		if err := a.Solve(ktt, kernel.Rows(p.Y, train)); err != nil {
			panic(err)
		}
		var out mat.Dense
		out.Mul(kst, &a)
		return &out
	}
}

// RidgeLS solves min ‖F w − Y‖² + λ‖w‖² as the least-squares problem [F; √λ I] w ≈ [Y; 0] by QR.
func RidgeLS(f, y *mat.Dense, lambda float64) *mat.Dense {
	m, r := f.Dims()
	_, t := y.Dims()
	a := mat.NewDense(m+r, r, nil)
	a.Slice(0, m, 0, r).(*mat.Dense).Copy(f)
	b := mat.NewDense(m+r, t, nil)
	b.Slice(0, m, 0, t).(*mat.Dense).Copy(y)
	sl := math.Sqrt(lambda)
	for i := 0; i < r; i++ {
		a.Set(m+i, i, sl)
	}
	var w mat.Dense
	if err := w.Solve(a, b); err != nil {
		panic(err)
	}
	return &w
}

// Edge is an edge i ≻ j of a preference graph: Laplacian weight W2 = w² and
// target Z (per output).
type Edge struct {
	I, J int
	W2   float64
	Z    []float64
}

// ScoringEdges returns every pair (i, j), i < j, of rows in the same group
// (group nil: all pairs) with the magnitude-preserving cost: z = y_i − y_j, w = 1.
func ScoringEdges(y *mat.Dense, group []int) []Edge {
	m, t := y.Dims()
	var out []Edge
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			if group != nil && group[i] != group[j] {
				continue
			}
			z := make([]float64, t)
			for c := range z {
				z[c] = y.At(i, c) - y.At(j, c)
			}
			out = append(out, Edge{I: i, J: j, W2: 1, Z: z})
		}
	}
	return out
}

// Graph retrains RankRLS on the edges with both ends outside held and predicts
// the rows test, by the closed forms of Pahikkala et al. (2009) — dual
// A = (LK + λI)⁻¹b, primal W = (X̃ᵀLX̃ + λI)⁻¹X̃ᵀb through an explicit feature
// map where one exists, sparse A = (K_BᵀLK_B + λK_BB)⁻¹K_Bᵀb — solved by LU with
// refinement in twice the working precision.
func Graph(p Problem, edges []Edge, held, test []int, lambda float64) *mat.Dense {
	m, width := p.X.Dims()
	t := len(edges[0].Z)
	out := map[int]bool{}
	for _, i := range held {
		out[i] = true
	}
	lap := mat.NewDense(m, m, nil)
	b := mat.NewDense(m, t, nil)
	for _, e := range edges {
		if out[e.I] || out[e.J] {
			continue
		}
		lap.Set(e.I, e.I, lap.At(e.I, e.I)+e.W2)
		lap.Set(e.J, e.J, lap.At(e.J, e.J)+e.W2)
		lap.Set(e.I, e.J, lap.At(e.I, e.J)-e.W2)
		lap.Set(e.J, e.I, lap.At(e.J, e.I)-e.W2)
		for c := 0; c < t; c++ {
			b.Set(e.I, c, b.At(e.I, c)+e.W2*e.Z[c])
			b.Set(e.J, c, b.At(e.J, c)-e.W2*e.Z[c])
		}
	}
	k := p.K
	xs := kernel.Rows(p.X, test)
	switch {
	case p.Basis != nil:
		pts := kernel.Rows(k.Points(p.X), p.Basis)
		kb, _ := k.Block(p.X, pts)
		kbb, _ := k.Block(kernel.Rows(p.X, p.Basis), pts)
		var lk, lhs mat.Dense
		lk.Mul(lap, kb)
		lhs.Mul(kb.T(), &lk)
		kbb.Scale(lambda, kbb)
		lhs.Add(&lhs, kbb)
		var rhs mat.Dense
		rhs.Mul(kb.T(), b)
		a := RefinedSolve(&lhs, &rhs)
		ks, _ := k.Block(xs, pts)
		var f mat.Dense
		f.Mul(ks, a)
		return &f
	case Explicit(p.K, width) != nil:
		xt := Explicit(p.K, width)(p.X)
		var lx, lhs, rhs mat.Dense
		lx.Mul(lap, xt)
		lhs.Mul(xt.T(), &lx)
		_, r := lhs.Dims()
		for i := 0; i < r; i++ {
			lhs.Set(i, i, lhs.At(i, i)+lambda)
		}
		rhs.Mul(xt.T(), b)
		w := RefinedSolve(&lhs, &rhs)
		var f mat.Dense
		f.Mul(Explicit(p.K, width)(xs), w)
		return &f
	default:
		pts := k.Points(p.X)
		km, _ := k.Block(p.X, pts)
		var lhs mat.Dense
		lhs.Mul(lap, km)
		for i := 0; i < m; i++ {
			lhs.Set(i, i, lhs.At(i, i)+lambda)
		}
		a := RefinedSolve(&lhs, b)
		ks, _ := k.Block(xs, pts)
		var f mat.Dense
		f.Mul(ks, a)
		return &f
	}
}

// RefinedSolve solves A X = B by LU followed by iterative refinement with
// residuals accumulated in twice the working precision (compensated dot
// products: math.FMA for the exact product error, TwoSum for the additions),
// so the oracle's own rounding does not hide behind A's conditioning.
func RefinedSolve(a, b *mat.Dense) *mat.Dense {
	var lu mat.LU
	lu.Factorize(a)
	var x mat.Dense
	if err := lu.SolveTo(&x, false, b); err != nil {
		panic(err)
	}
	n, t := b.Dims()
	for iter := 0; iter < 4; iter++ {
		r := mat.NewDense(n, t, nil)
		for i := 0; i < n; i++ {
			for c := 0; c < t; c++ {
				s, e := b.At(i, c), 0.0
				for k := 0; k < n; k++ {
					p := -a.At(i, k) * x.At(k, c)
					pe := math.FMA(-a.At(i, k), x.At(k, c), -p)
					s2 := s + p
					bb := s2 - s
					e += (s - (s2 - bb)) + (p - bb) + pe
					s = s2
				}
				r.Set(i, c, s+e)
			}
		}
		var dx mat.Dense
		if err := lu.SolveTo(&dx, false, r); err != nil {
			panic(err)
		}
		x.Add(&x, &dx)
	}
	return &x
}

// Explicit returns the explicit feature map of a linear (bias ≥ 0) or degree-2
// polynomial kernel, or nil. The oracle then retrains by the primal formula
// (28), whose conditioning does not suffer from a rank-deficient K:
//
//	linear:      φ(x) = [x, √bias]
//	polynomial:  (γx·z + c)² = c² + 2cγ x·z + γ²(x·z)², φ(x) = [c, √(2cγ)x, γ vec(xxᵀ)]
func Explicit(k kernel.Kernel, width int) func(mat.Matrix) *mat.Dense {
	switch k := k.(type) {
	case kernel.Linear:
		if k.Bias >= 0 {
			return func(x mat.Matrix) *mat.Dense { return factor.WithBias(x, k.Bias) }
		}
	case kernel.Polynomial:
		if k.Degree == 2 && k.Coef0 >= 0 && width <= 8 { // d² features: small d only
			return func(x mat.Matrix) *mat.Dense {
				m, d := x.Dims()
				out := mat.NewDense(m, 1+d+d*d, nil)
				a := math.Sqrt(2 * k.Coef0 * k.Gamma)
				for i := 0; i < m; i++ {
					out.Set(i, 0, k.Coef0)
					for j := 0; j < d; j++ {
						out.Set(i, 1+j, a*x.At(i, j))
						for l := 0; l < d; l++ {
							out.Set(i, 1+d+j*d+l, k.Gamma*x.At(i, j)*x.At(i, l))
						}
					}
				}
				return out
			}
		}
	}
	return nil
}
