package rank

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
)

// The brute-force oracle (internal/oracle.Graph): retrain on the reduced graph
// from scratch with the paper's closed forms — dual (17), primal (28), sparse (41).

type problem struct {
	name  string
	x     mat.Matrix
	y     *mat.Dense
	q     []int
	kern  kernel.Kernel
	form  learn.Form
	basis []int
}

func (p problem) opts() Options { return Options{Kernel: p.kern, Form: p.form, Basis: p.basis} }

// randData draws m rows of d features (dense, or CSR with ~30% zeros outside
// column 0) and t graded ranking labels.
func randData(rng *rand.Rand, m, d, t int, sparse bool) (mat.Matrix, *mat.Dense) {
	x, y := oracle.Data(rng, m, d, t, sparse, 0.3, oracle.Graded)
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
					out = append(out, problem{name: base + "_dual", x: x, y: y, q: q, kern: k, form: learn.Dual})
					if lin, ok := k.(kernel.Linear); ok && lin.Bias >= 0 && d+1 < m {
						out = append(out, problem{name: base + "_linear", x: x, y: y, q: q, kern: k, form: learn.Linear})
					}
					if _, ok := k.(kernel.Gaussian); ok {
						basis := rng.Perm(m)[:max(2, m/3)]
						out = append(out, problem{name: base + "_sparse", x: x, y: y, q: q, kern: kernel.Gaussian{Gamma: 1 / float64(d)}, form: learn.Sparse, basis: basis})
					}
				}
			}
		}
	}
	return out
}

var (
	lambdas      = oracle.Lambdas
	relErr       = oracle.RelErr
	allRows      = oracle.AllRows
	scoringEdges = oracle.ScoringEdges
)

// oracle trains on the edges with both ends outside held and predicts the rows test.
func oracleFit(p problem, edges []oracle.Edge, held, test []int, lambda float64) *mat.Dense {
	op := oracle.Problem{X: oracle.Dense(p.x), K: oracleKernel(p.kern)}
	if p.form == learn.Sparse {
		op.Basis = p.basis
	}
	return oracle.Graph(op, edges, held, test, lambda)
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
	xd, ok := oracle.Dense(p.x), oracleKernel(p.kern)
	k := ok.Gram(xd, allRows(m), allRows(m))
	trace := oracle.Trace(ok, xd)
	// A kernel whose feature space holds the constant function leaves the shift
	// of f to λ alone: the Sherman–Morrison step divides by
	// δ = 1 − 1ᵀQ₀1 = (λ/m)·1ᵀ(mK + λI)⁻¹1 (all terms positive, no cancellation),
	// which multiplies the forward error by up to 1/(mδ).
	km := k
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
