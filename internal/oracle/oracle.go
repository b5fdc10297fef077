// Package oracle is the brute force that rlskit's exact shortcuts are tested
// against: retraining from scratch on the reduced data with direct methods that
// share nothing with the factor-based shortcuts, plus the random problems,
// error measure, tie rule and λ range the learners' property tests share. It is
// used by tests only.
//
// It imports no package of this module (only the standard library and gonum),
// so a bug in the code under test cannot pass both sides of a comparison: the
// kernel functions are evaluated here entry by entry from their textbook
// formulas (Kernel), rows are selected, the bias column appended and CSR data
// made dense here (Rows, WithBias, Dense — the last through mat.Matrix's At,
// which every matrix of the module implements), the random data are drawn
// here as dense matrices (the tests build their CSR copies themselves), and
// ties are snapped here (Snap).
package oracle

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
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

// Data draws m rows of d N(0,1) features and t labels per row. With sparse,
// each entry outside column 0 is zero with probability zeroProb (column 0
// stays dense, so rows stay distinct): the zeros are stored in the dense
// matrix returned, and a test that wants the CSR form builds it from the
// nonzeros itself (a N(0,1) draw is never exactly 0, so the nonzeros are the
// stored entries).
func Data(rng *rand.Rand, m, d, t int, sparse bool, zeroProb float64, label Label) (x, y *mat.Dense) {
	x = mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if sparse && j > 0 && rng.Float64() < zeroProb {
				continue
			}
			x.Set(i, j, rng.NormFloat64())
		}
	}
	y = mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		for c := 0; c < t; c++ {
			y.Set(i, c, label(x.At(i, 0), c, rng.NormFloat64()))
		}
	}
	return x, y
}

// Dense returns a dense copy of any matrix, read entry by entry through At
// (a CSR of the module included).
func Dense(x mat.Matrix) *mat.Dense {
	m, d := x.Dims()
	out := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			out.Set(i, j, x.At(i, j))
		}
	}
	return out
}

// Rows returns the rows idx of x, in that order, as a new matrix.
func Rows(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for n, i := range idx {
		for j := 0; j < d; j++ {
			out.Set(n, j, x.At(i, j))
		}
	}
	return out
}

// WithBias returns [X, √bias·1] (X alone when bias is 0): the explicit
// feature map of the linear kernel x·z + bias.
func WithBias(x *mat.Dense, bias float64) *mat.Dense {
	m, d := x.Dims()
	cols := d
	if bias != 0 {
		cols++
	}
	out := mat.NewDense(m, cols, nil)
	sb := math.Sqrt(bias)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			out.Set(i, j, x.At(i, j))
		}
		if bias != 0 {
			out.Set(i, d, sb)
		}
	}
	return out
}

// Kernel describes a kernel function by its name and parameters:
//
//	linear       k(x, z) = x·z + Bias
//	gaussian     k(x, z) = exp(−Gamma·‖x − z‖²)
//	polynomial   k(x, z) = (Gamma·x·z + Coef0)^Degree
//	precomputed  the data hold the kernel values: row i, column j is k(x_i, x_j)
type Kernel struct {
	Name   string
	Gamma  float64
	Bias   float64
	Coef0  float64
	Degree int
}

// Eval returns k(a, b) by the textbook formula of a linear, gaussian or
// polynomial kernel (‖a − b‖² summed from the differences, the power by
// repeated multiplication). A precomputed kernel has no formula: it panics.
func (k Kernel) Eval(a, b []float64) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("oracle: kernel of vectors of lengths %d and %d", len(a), len(b)))
	}
	dot := func() float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	switch k.Name {
	case "linear":
		return dot() + k.Bias
	case "gaussian":
		s := 0.0
		for i := range a {
			d := a[i] - b[i]
			s += d * d
		}
		return math.Exp(-k.Gamma * s)
	case "polynomial":
		base, v := k.Gamma*dot()+k.Coef0, 1.0
		for n := 0; n < k.Degree; n++ {
			v *= base
		}
		return v
	}
	panic(fmt.Sprintf("oracle: no formula for kernel %q", k.Name))
}

// Gram returns the kernel values between the rows a and the rows b of the
// data x, entry by entry: k(x_{a_i}, x_{b_j}), or for a precomputed kernel
// the given values x_{a_i, b_j}.
func (k Kernel) Gram(x *mat.Dense, a, b []int) *mat.Dense {
	out := mat.NewDense(len(a), len(b), nil)
	for n, i := range a {
		for l, j := range b {
			if k.Name == "precomputed" {
				out.Set(n, l, x.At(i, j))
			} else {
				out.Set(n, l, k.Eval(x.RawRowView(i), x.RawRowView(j)))
			}
		}
	}
	return out
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

// Trace is Σ|K_ii| for the kernel matrix of the rows of x.
func Trace(k Kernel, x *mat.Dense) float64 {
	m, _ := x.Dims()
	tr := 0.0
	for i := 0; i < m; i++ {
		tr += math.Abs(k.Gram(x, []int{i}, []int{i}).At(0, 0))
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

// Problem is what a retraining needs: the rows (dense: a test converts its
// CSR data with Dense), labels, kernel and, for the sparse form, the basis
// rows (indices into the full data).
type Problem struct {
	X     *mat.Dense
	Y     *mat.Dense
	K     Kernel
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
	switch {
	case p.Basis != nil:
		ktb := k.Gram(p.X, train, p.Basis)
		ksb := k.Gram(p.X, test, p.Basis)
		kbb := k.Gram(p.X, p.Basis, p.Basis)
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(len(p.Basis), kbb.RawMatrix().Data)) {
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
		w := RidgeLS(phiT(ktb), Rows(p.Y, train), lambda)
		var out mat.Dense
		out.Mul(phiT(ksb), w)
		return &out
	case p.Primal:
		if k.Name != "linear" {
			panic("oracle: the primal is the linear kernel's")
		}
		w := RidgeLS(WithBias(Rows(p.X, train), k.Bias), Rows(p.Y, train), lambda)
		var out mat.Dense
		out.Mul(WithBias(Rows(p.X, test), k.Bias), w)
		return &out
	default:
		ktt := k.Gram(p.X, train, train)
		kst := k.Gram(p.X, test, train)
		for i := range train {
			ktt.Set(i, i, ktt.At(i, i)+lambda)
		}
		var a mat.Dense
		if err := a.Solve(ktt, Rows(p.Y, train)); err != nil {
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
	all := AllRows(m)
	switch {
	case p.Basis != nil:
		kb := k.Gram(p.X, all, p.Basis)
		kbb := k.Gram(p.X, p.Basis, p.Basis)
		var lk, lhs mat.Dense
		lk.Mul(lap, kb)
		lhs.Mul(kb.T(), &lk)
		kbb.Scale(lambda, kbb)
		lhs.Add(&lhs, kbb)
		var rhs mat.Dense
		rhs.Mul(kb.T(), b)
		a := RefinedSolve(&lhs, &rhs)
		var f mat.Dense
		f.Mul(k.Gram(p.X, test, p.Basis), a)
		return &f
	case Explicit(k, width) != nil:
		phi := Explicit(k, width)
		xt := phi(p.X)
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
		f.Mul(phi(Rows(p.X, test)), w)
		return &f
	default:
		km := k.Gram(p.X, all, all)
		var lhs mat.Dense
		lhs.Mul(lap, km)
		for i := 0; i < m; i++ {
			lhs.Set(i, i, lhs.At(i, i)+lambda)
		}
		a := RefinedSolve(&lhs, b)
		var f mat.Dense
		f.Mul(k.Gram(p.X, test, all), a)
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
func Explicit(k Kernel, width int) func(*mat.Dense) *mat.Dense {
	switch k.Name {
	case "linear":
		if k.Bias >= 0 {
			return func(x *mat.Dense) *mat.Dense { return WithBias(x, k.Bias) }
		}
	case "polynomial":
		if k.Degree == 2 && k.Coef0 >= 0 && width <= 8 { // d² features: small d only
			return func(x *mat.Dense) *mat.Dense {
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

// Snap is the oracle's tie rule: predictions p closer than tol are ties.
// Two predictions are joined when |p_i − p_j| ≤ tol, and every group of
// predictions joined directly or through others (a chain) takes the
// smallest value of the group; groups is their number. It is written
// apart from the package's tie code — joining by an O(n²) scan of all
// pairs with union–find, not a sort — so that a bug there cannot pass both
// sides; for values on a line the groups are the same runs of gaps ≤ tol.
func Snap(p []float64, tol float64) (snapped []float64, groups int) {
	parent := make([]int, len(p))
	for i := range parent {
		parent[i] = i
	}
	var root func(int) int
	root = func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	for i := range p {
		for j := i + 1; j < len(p); j++ {
			if math.Abs(p[i]-p[j]) <= tol {
				if a, b := root(i), root(j); a != b {
					parent[b] = a
				}
			}
		}
	}
	low := map[int]float64{}
	for i, v := range p {
		r := root(i)
		if w, ok := low[r]; !ok || v < w {
			low[r] = v
		}
	}
	snapped = make([]float64, len(p))
	for i := range p {
		snapped[i] = low[root(i)]
	}
	return snapped, len(low)
}
