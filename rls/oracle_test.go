package rls

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// This file holds the brute-force oracle: retraining from scratch on the reduced
// data with a direct method that shares nothing with the factor-based shortcuts.

// problem is a random learning problem.
type problem struct {
	name   string
	x      mat.Matrix // dense or CSR
	y      *mat.Dense
	kern   kernel.Kernel
	form   Form
	basis  []int
	sparse bool
}

// randProblem draws m rows of d features (dense, or CSR with ~50% zeros outside
// column 0) and t outputs.
func randProblem(rng *rand.Rand, m, d, t int, sparse bool) (mat.Matrix, *mat.Dense) {
	xd := mat.NewDense(m, d, nil)
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if sparse && j > 0 && rng.Float64() < 0.5 { // column 0 dense: rows stay distinct
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
			y.Set(i, c, math.Sin(float64(c+1)*xd.At(i, 0))+0.3*rng.NormFloat64())
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

// complementRows returns the rows of 0..m-1 not in h, ascending.
func complementRows(h []int, m int) []int {
	in := make(map[int]bool, len(h))
	for _, i := range h {
		in[i] = true
	}
	var out []int
	for i := 0; i < m; i++ {
		if !in[i] {
			out = append(out, i)
		}
	}
	return out
}

// naivePredict trains on rows `train` (with the given basis rows for the sparse
// form, indices into the full data) and predicts rows `test`.
//   - dual: solve (K_tt + λI) a = Y_t by LU, predict K_st a;
//   - linear kernel with the primal: ridge regression on [X, √bias] by the
//     augmented least-squares problem [F; √λ I] w ≈ [Y; 0] (QR);
//   - sparse: ridge on Φ = K_{·B} L⁻ᵀ (K_BB = LLᵀ), again by augmented least squares.
func naivePredict(p problem, train, test []int, lambda float64) *mat.Dense {
	k := p.kern
	xt := kernel.Rows(p.x, train)
	xs := kernel.Rows(p.x, test)
	switch {
	case p.basis != nil:
		pts := kernel.Rows(k.Points(p.x), p.basis)
		ktb, _ := k.Block(xt, pts)
		ksb, _ := k.Block(xs, pts)
		kbb, _ := k.Block(kernel.Rows(p.x, p.basis), pts)
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(len(p.basis), mat.DenseCopyOf(kbb).RawMatrix().Data)) {
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
		w := ridgeLS(phiT(ktb), kernel.Rows(p.y, train).(*mat.Dense), lambda)
		var out mat.Dense
		out.Mul(phiT(ksb), w)
		return &out
	case isLinearPrimal(p, len(train)):
		lin := k.(kernel.Linear)
		w := ridgeLS(factor.WithBias(xt, lin.Bias), kernel.Rows(p.y, train).(*mat.Dense), lambda)
		var out mat.Dense
		out.Mul(factor.WithBias(xs, lin.Bias), w)
		return &out
	default:
		pts := k.Points(p.x)
		ktt, _ := k.Block(xt, kernel.Rows(pts, train))
		kst, _ := k.Block(xs, kernel.Rows(pts, train))
		for i := range train {
			ktt.Set(i, i, ktt.At(i, i)+lambda)
		}
		var a mat.Dense
		if err := a.Solve(ktt, kernel.Rows(p.y, train)); err != nil {
			panic(err)
		}
		var out mat.Dense
		out.Mul(kst, &a)
		return &out
	}
}

func isLinearPrimal(p problem, rows int) bool {
	lin, ok := p.kern.(kernel.Linear)
	_, d := p.x.Dims()
	return ok && lin.Bias >= 0 && d+1 < rows
}

// ridgeLS solves min ‖F w − Y‖² + λ‖w‖² as the least-squares problem [F; √λ I] w ≈ [Y; 0] by QR.
func ridgeLS(f, y *mat.Dense, lambda float64) *mat.Dense {
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

// relErr is ‖got − want‖_F / ‖want‖_F (absolute when want is zero).
func relErr(got, want *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(got, want)
	den := mat.Norm(want, 2)
	if den == 0 {
		den = 1
	}
	return mat.Norm(&d, 2) / den
}

// problems returns the test matrix of shapes, kernels, forms and output counts.
func problems(rng *rand.Rand) []problem {
	var out []problem
	for _, sh := range [][2]int{{9, 4}, {24, 6}, {40, 3}, {17, 30}} {
		m, d := sh[0], sh[1]
		// gamma ~ 1/d keeps the gaussian kernel away from the identity (‖x − z‖² ≈ 2d)
		kernels := []kernel.Kernel{
			kernel.Linear{Bias: 1},
			kernel.Linear{Bias: 0},
			kernel.Gaussian{Gamma: 0.5 / float64(d)},
			kernel.Polynomial{Gamma: 1 / float64(d), Coef0: 1, Degree: 2},
		}
		for _, t := range []int{1, 3} {
			for _, sparse := range []bool{false, true} {
				x, y := randProblem(rng, m, d, t, sparse)
				for _, k := range kernels {
					base := fmt.Sprintf("m%d_d%d_t%d_sp%v_%s", m, d, t, sparse, k.Spec())
					out = append(out, problem{name: base + "_dual", x: x, y: y, kern: k, form: Dual})
					if lin, ok := k.(kernel.Linear); ok && lin.Bias >= 0 && d+1 < m {
						out = append(out, problem{name: base + "_linear", x: x, y: y, kern: k, form: Linear})
					}
					if _, ok := k.(kernel.Gaussian); ok {
						// basis: a quarter of the rows, chosen at random; a narrower gaussian
						// keeps K_BB well conditioned, so the oracle's Cholesky is accurate
						n := max(2, m/4)
						basis := rng.Perm(m)[:n]
						sk := kernel.Gaussian{Gamma: 1 / float64(d)}
						out = append(out, problem{name: base + "_sparse", x: x, y: y, kern: sk, form: Sparse, basis: basis})
					}
				}
			}
		}
	}
	return out
}

var lambdas = []float64{1e-6, 1e-3, 1, 1e2, 1e4}

// tolerance returns the relative tolerance for comparing with the oracle: 1e-8,
// loosened for the dual form at tiny λ. The reason: computing K itself rounds
// its entries by ε·|K|, and (K + λI)⁻¹ amplifies that by up to 1/λ, so any
// method that works from K — the oracle's LU included — has a forward error of
// order ε·trace(K)/λ when K is (numerically) rank deficient. At λ = 1e-6 and
// trace(K) = 40 that is ~1e-8; the factor 100 covers the constants.
func tolerance(p problem, lambda float64) float64 {
	if p.form != Dual {
		return 1e-8
	}
	pts := p.kern.Points(p.x)
	k, _ := p.kern.Block(p.x, pts)
	trace := 0.0
	m, _ := k.Dims()
	for i := 0; i < m; i++ {
		trace += math.Abs(k.At(i, i))
	}
	return math.Max(1e-8, 100*2.2e-16*trace/lambda)
}
