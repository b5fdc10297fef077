package rls

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
)

// This file holds the brute-force oracle: retraining from scratch on the reduced
// data with a direct method that shares nothing with the factor-based shortcuts
// (internal/oracle, which imports no package of this module: it evaluates the
// kernel itself, entry by entry, from the kernel's description).

// randProblem draws m rows of d features (dense, or CSR with ~50% zeros outside
// column 0) and t smooth regression outputs.
func randProblem(rng *rand.Rand, m, d, t int, sparse bool) (mat.Matrix, *mat.Dense) {
	x, y := oracle.Data(rng, m, d, t, sparse, 0.5, oracle.Smooth)
	if sparse {
		return toCSR(x), y
	}
	return x, y
}

// toCSR returns the nonzeros of x as CSR.
func toCSR(x *mat.Dense) *matrix.CSR {
	m, d := x.Dims()
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if v := x.At(i, j); v != 0 {
				idx, val = append(idx, j), append(val, v)
			}
		}
		indptr = append(indptr, len(idx))
	}
	c, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		panic(err)
	}
	return c
}

// oracleKernel is the oracle's description of k: its name and parameters,
// which the oracle evaluates by the textbook formula (not k.Block).
func oracleKernel(k kernel.Kernel) oracle.Kernel {
	s := k.Spec()
	return oracle.Kernel{Name: s.Name, Gamma: s.Gamma, Bias: s.Bias, Coef0: s.Coef0, Degree: s.Degree}
}

// naivePredict trains on rows train (the basis rows index the full data) and
// predicts rows test, by the oracle's direct methods.
func naivePredict(p problem, train, test []int, lambda float64) *mat.Dense {
	return oracle.Ridge(oracle.Problem{X: oracle.Dense(p.x), Y: p.y, K: oracleKernel(p.kern), Basis: p.basis, Primal: isLinearPrimal(p, len(train))}, train, test, lambda)
}

var (
	relErr         = oracle.RelErr
	complementRows = cv.Complement
	lambdas        = oracle.Lambdas
)

// problem is a random learning problem.
type problem struct {
	name   string
	x      mat.Matrix // dense or CSR
	y      *mat.Dense
	kern   kernel.Kernel
	form   learn.Form
	basis  []int
	sparse bool
}

func isLinearPrimal(p problem, rows int) bool {
	lin, ok := p.kern.(kernel.Linear)
	_, d := p.x.Dims()
	return ok && lin.Bias >= 0 && d+1 < rows
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
					out = append(out, problem{name: base + "_dual", x: x, y: y, kern: k, form: learn.Dual})
					if lin, ok := k.(kernel.Linear); ok && lin.Bias >= 0 && d+1 < m {
						out = append(out, problem{name: base + "_linear", x: x, y: y, kern: k, form: learn.Linear})
					}
					if _, ok := k.(kernel.Gaussian); ok {
						// basis: a quarter of the rows, chosen at random; a narrower gaussian
						// keeps K_BB well conditioned, so the oracle's Cholesky is accurate
						n := max(2, m/4)
						basis := rng.Perm(m)[:n]
						sk := kernel.Gaussian{Gamma: 1 / float64(d)}
						out = append(out, problem{name: base + "_sparse", x: x, y: y, kern: sk, form: learn.Sparse, basis: basis})
					}
				}
			}
		}
	}
	return out
}

// tolerance returns the relative tolerance for comparing with the oracle:
//
//	dual form:             max(1e-8, 100·ε·trace(K)/λ)
//	linear and sparse:     1e-8
//
// The dual bound: computing K rounds its entries by ε·|K| (the learner and the
// oracle evaluate the kernel independently), and (K + λI)⁻¹ amplifies a
// perturbation of K by up to ‖K‖/λ ≤ trace(K)/λ, so any method that works from
// K — the oracle's LU included — has a forward error of order ε·trace(K)/λ
// when K is (numerically) rank deficient; the factor 100 covers the constants.
// There is no shift to amplify: the squared loss sees every direction of f, and
// λ(K + λI)⁻¹ is bounded. Over the problems here trace(K) < 620, so the dual
// tolerance is at most 1.4e-5 at λ = 1e-6, 1.4e-8 at λ = 1e-3 and 1e-8 from
// λ = 1 on (TestToleranceMeaningful holds it to that); the largest error
// measured is 8.6·ε·trace(K)/λ. The linear and sparse forms compare two
// least-squares solutions of well-conditioned problems (the oracle by QR of
// [F; √λI]); there 1e-8 is a cap, not a derived bound: the largest error
// measured is 1.6e-10.
func tolerance(p problem, lambda float64) float64 {
	if p.form != learn.Dual {
		return 1e-8
	}
	return math.Max(1e-8, 100*2.2e-16*oracle.Trace(oracleKernel(p.kern), oracle.Dense(p.x))/lambda)
}

// Every tolerance of the oracle comparisons can fail: for the problems of the
// four oracle tests (their seeds) at every λ, tolerance is below 1e-2 — a
// tolerance that loose would pass predictions of the size of the labels — and
// from λ = 1e-3 on it is at most 1e-6 for every problem (1e-8 from λ = 1 on).
func TestToleranceMeaningful(t *testing.T) {
	loosest := map[float64]float64{}
	for seed := uint64(1); seed <= 4; seed++ {
		for _, p := range problems(rand.New(rand.NewPCG(seed, seed))) {
			for _, lambda := range lambdas {
				tol := tolerance(p, lambda)
				loosest[lambda] = math.Max(loosest[lambda], tol)
				switch {
				case tol >= 1e-2:
					t.Errorf("%s λ=%g: tolerance %.1e cannot fail", p.name, lambda, tol)
				case lambda >= 1e-3 && tol > 1e-6:
					t.Errorf("%s λ=%g: tolerance %.1e above 1e-6", p.name, lambda, tol)
				case lambda >= 1 && tol > 1e-8:
					t.Errorf("%s λ=%g: tolerance %.1e above 1e-8", p.name, lambda, tol)
				}
			}
		}
	}
	for _, lambda := range lambdas {
		t.Logf("λ=%g: loosest tolerance %.2e", lambda, loosest[lambda])
	}
}
