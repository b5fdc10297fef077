package rank

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/rls"
)

// The brute-force oracle: retrain on the reduced graph from scratch with the
// paper's closed forms — dual (17) A = (LK + λI)⁻¹b, primal (28)
// W = (X̃ᵀLX̃ + λI)⁻¹X̃ᵀb, sparse (41) A = (K_BᵀLK_B + λK_BB)⁻¹K_Bᵀb — by LU.

type problem struct {
	name  string
	x     mat.Matrix
	y     *mat.Dense
	q     []int
	kern  kernel.Kernel
	form  rls.Form
	basis []int
}

func (p problem) opts() Options { return Options{Kernel: p.kern, Form: p.form, Basis: p.basis} }

func randData(rng *rand.Rand, m, d, t int, sparse bool) (mat.Matrix, *mat.Dense) {
	xd := mat.NewDense(m, d, nil)
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if sparse && j > 0 && rng.Float64() < 0.3 {
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
			y.Set(i, c, math.Round(2*math.Sin(float64(c+1)*xd.At(i, 0))+rng.NormFloat64()))
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

// problems: shapes × dense/CSR × t × kernels × forms.
func problems(rng *rand.Rand) []problem {
	var out []problem
	for _, sh := range [][2]int{{10, 3}, {23, 5}, {16, 20}} {
		m, d := sh[0], sh[1]
		q := make([]int, m)
		for i := range q {
			q[i] = rng.IntN(3) + 7 // 3 queries with arbitrary ids
		}
		q[0] = 100 // a single-item query
		kernels := []kernel.Kernel{
			kernel.Linear{Bias: 0},
			kernel.Linear{Bias: 1},
			kernel.Gaussian{Gamma: 1 / float64(d)},
			kernel.Polynomial{Gamma: 1 / float64(d), Coef0: 0, Degree: 2},
			kernel.Polynomial{Gamma: 1 / float64(d), Coef0: 1, Degree: 2},
		}
		for _, t := range []int{1, 3} {
			for _, sparse := range []bool{false, true} {
				x, y := randData(rng, m, d, t, sparse)
				for _, k := range kernels {
					base := fmt.Sprintf("m%d_d%d_t%d_sp%v_%s", m, d, t, sparse, k.Spec())
					out = append(out, problem{name: base + "_dual", x: x, y: y, q: q, kern: k, form: rls.Dual})
					if lin, ok := k.(kernel.Linear); ok && lin.Bias >= 0 && d+1 < m {
						out = append(out, problem{name: base + "_linear", x: x, y: y, q: q, kern: k, form: rls.Linear})
					}
					if _, ok := k.(kernel.Gaussian); ok {
						basis := rng.Perm(m)[:max(2, m/3)]
						out = append(out, problem{name: base + "_sparse", x: x, y: y, q: q, kern: kernel.Gaussian{Gamma: 1 / float64(d)}, form: rls.Sparse, basis: basis})
					}
				}
			}
		}
	}
	return out
}

var lambdas = []float64{1e-6, 1e-3, 1, 1e2, 1e4}

// edges lists a preference graph over rows: Laplacian weight w² and target z (per output).
type oracleEdge struct {
	i, j int
	w2   float64
	z    []float64
}

// scoringEdges returns every pair (i, j), i < j, of rows in the same group
// (group nil: all pairs) with the magnitude-preserving cost: z = y_i − y_j, w = 1.
func scoringEdges(y *mat.Dense, group []int) []oracleEdge {
	m, t := y.Dims()
	var out []oracleEdge
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			if group != nil && group[i] != group[j] {
				continue
			}
			z := make([]float64, t)
			for c := range z {
				z[c] = y.At(i, c) - y.At(j, c)
			}
			out = append(out, oracleEdge{i: i, j: j, w2: 1, z: z})
		}
	}
	return out
}

// oracle trains on the edges with both ends outside `held` and predicts the rows `test`.
func oracle(p problem, edges []oracleEdge, held, test []int, lambda float64) *mat.Dense {
	m, width := p.x.Dims()
	t := len(edges[0].z)
	out := map[int]bool{}
	for _, i := range held {
		out[i] = true
	}
	lap := mat.NewDense(m, m, nil)
	b := mat.NewDense(m, t, nil)
	for _, e := range edges {
		if out[e.i] || out[e.j] {
			continue
		}
		lap.Set(e.i, e.i, lap.At(e.i, e.i)+e.w2)
		lap.Set(e.j, e.j, lap.At(e.j, e.j)+e.w2)
		lap.Set(e.i, e.j, lap.At(e.i, e.j)-e.w2)
		lap.Set(e.j, e.i, lap.At(e.j, e.i)-e.w2)
		for c := 0; c < t; c++ {
			b.Set(e.i, c, b.At(e.i, c)+e.w2*e.z[c])
			b.Set(e.j, c, b.At(e.j, c)-e.w2*e.z[c])
		}
	}
	k := p.kern
	xs := kernel.Rows(p.x, test)
	switch {
	case p.form == rls.Sparse:
		pts := kernel.Rows(k.Points(p.x), p.basis)
		kb, _ := k.Block(p.x, pts)
		kbb, _ := k.Block(kernel.Rows(p.x, p.basis), pts)
		var lk, lhs mat.Dense
		lk.Mul(lap, kb)
		lhs.Mul(kb.T(), &lk)
		kbb.Scale(lambda, kbb)
		lhs.Add(&lhs, kbb)
		var rhs mat.Dense
		rhs.Mul(kb.T(), b)
		a := refinedSolve(&lhs, &rhs)
		ks, _ := k.Block(xs, pts)
		var f mat.Dense
		f.Mul(ks, a)
		return &f
	case explicit(p.kern, width) != nil:
		xt := explicit(p.kern, width)(p.x)
		var lx, lhs, rhs mat.Dense
		lx.Mul(lap, xt)
		lhs.Mul(xt.T(), &lx)
		_, r := lhs.Dims()
		for i := 0; i < r; i++ {
			lhs.Set(i, i, lhs.At(i, i)+lambda)
		}
		rhs.Mul(xt.T(), b)
		w := refinedSolve(&lhs, &rhs)
		var f mat.Dense
		f.Mul(explicit(p.kern, width)(xs), w)
		return &f
	default:
		pts := k.Points(p.x)
		km, _ := k.Block(p.x, pts)
		var lhs mat.Dense
		lhs.Mul(lap, km)
		for i := 0; i < m; i++ {
			lhs.Set(i, i, lhs.At(i, i)+lambda)
		}
		a := refinedSolve(&lhs, b)
		ks, _ := k.Block(xs, pts)
		var f mat.Dense
		f.Mul(ks, a)
		return &f
	}
}

// refinedSolve solves A X = B by LU followed by iterative refinement with
// residuals accumulated in twice the working precision (compensated dot
// products: math.FMA for the exact product error, TwoSum for the additions),
// so the oracle's own rounding does not hide behind A's conditioning.
func refinedSolve(a, b *mat.Dense) *mat.Dense {
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

// explicit returns the explicit feature map of a linear (bias ≥ 0) or degree-2
// polynomial kernel, or nil. The oracle then retrains by the primal formula
// (28), whose conditioning does not suffer from a rank-deficient K:
//
//	linear:      φ(x) = [x, √bias]
//	polynomial:  (γx·z + c)² = c² + 2cγ x·z + γ²(x·z)², φ(x) = [c, √(2cγ)x, γ vec(xxᵀ)]
func explicit(k kernel.Kernel, width int) func(mat.Matrix) *mat.Dense {
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

// relErr is ‖got − want‖_F / ‖want‖_F.
func relErr(got, want *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(got, want)
	den := mat.Norm(want, 2)
	if den == 0 {
		den = 1
	}
	return mat.Norm(&d, 2) / den
}

// tolerance is 1e-8, loosened at tiny λ to the conditioning of the ranking
// problem itself: cond(ΦᵀLΦ + λI) ≤ ‖L‖·trace(K)/λ with ‖L‖ ≤ m here, so a
// backward-stable method — ours, whatever the form — can be off by
// ε·m·trace(K)/λ from the refined oracle (the factor 100 covers the constants).
// Unlike RLS, whose λ(K+λI)⁻¹ is bounded, a ranking loss leaves directions
// (shifts, and whatever the kernel cannot rank) to λ alone. At λ ≥ 1e-3 this is
// below 1e-8 for every problem here.
func tolerance(p problem, lambda float64) float64 {
	m, _ := p.x.Dims()
	pts := p.kern.Points(p.x)
	k, _ := p.kern.Block(p.x, pts)
	trace := 0.0
	for i := 0; i < m; i++ {
		trace += math.Abs(k.At(i, i))
	}
	// A kernel whose feature space holds the constant function leaves the shift
	// of f to λ alone: the Sherman–Morrison step divides by
	// δ = 1 − 1ᵀQ₀1 = (λ/m)·1ᵀ(mK + λI)⁻¹1 (all terms positive, no cancellation),
	// which multiplies the forward error by up to 1/(mδ).
	km := mat.DenseCopyOf(k)
	km.Scale(float64(m), km)
	ones := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		km.Set(i, i, km.At(i, i)+lambda)
		ones.Set(i, 0, 1)
	}
	var x mat.Dense
	amp := 1.0
	if err := x.Solve(km, ones); err == nil {
		if md := lambda * mat.Sum(&x); md > 0 && md < 1 {
			amp = 1 / md
		}
	}
	return math.Max(1e-8, 100*2.2e-16*float64(m)*trace/lambda*amp)
}

func allRows(m int) []int {
	out := make([]int, m)
	for i := range out {
		out[i] = i
	}
	return out
}
