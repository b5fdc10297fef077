package rank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

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

// Tolerances. Every comparison with the oracle is held to a bound on the
// forward error of the two computations compared, derived per problem, λ and
// check — never a constant, never loosened beyond what the bound says:
//
//	tol = C·ε·m·s·(1 + κ),   κ = ‖L‖₂‖K‖₂/λ,   C = 100,
//
// m the rows, L the training graph's Laplacian, K the kernel matrix of all
// rows, and s the scale of the predictions compared (below).
//
//   - Forward error of the computation. Every prediction either side returns
//     is formed by sums of at most m terms of the size of the trained model's
//     predictions f: eigenvector expansions and Sherman–Morrison updates on the
//     factor, K_T·a in the oracle, a hold-out as f_U minus its correction. Each
//     such step leaves an absolute error of γ_m ≈ m·ε of that scale. RelErr
//     measures against the predictions compared, so the relative error is
//     m·ε·s with s = max(1, rms(f)/rms(want)) (want = 0: RelErr's absolute
//     error, s = rms(f)·√n): s > 1 only where a held-out prediction is much
//     smaller than the model's own, i.e. where the update cancels.
//   - Conditioning of the system solved. Both sides solve the ranking problem
//     (ΦᵀLΦ + λI)w = Φᵀb in some form (the oracle LU with refinement on the
//     dual, primal or sparse normal equations, the learners an
//     eigendecomposition and downdates), and a perturbation of its data is
//     amplified by at most its condition number, ≤ (‖L‖‖Φ‖² + λ)/λ = 1 + κ, with
//     ‖Φ‖² = ‖K‖ (the sparse form's K_BK_BB⁻¹K_Bᵀ ≼ K: ‖K‖ bounds it too). A
//     hold-out only removes edges, L' ≼ L, so the training graph's ‖L‖ bounds
//     every hold-out's (a normalized query block I − 11ᵀ/n has norm 1 for
//     every n).
//   - The shift, where it truly applies. A ranking loss never sees a shift of
//     f that is constant on a connected component of the graph (L1 = 0). When
//     the kernel carries the constant function on the sample (1 ∈ range K),
//     only λ fixes that shift: ΦᵀLΦ is singular there, and the system's
//     eigenvalue λ is the one the condition number above already divides by.
//     Beyond that, Global solves by Sherman–Morrison and divides by
//     δ = 1 − 1ᵀQ₀1 = (λ/m)·1ᵀ(mK + λI)⁻¹1 (its hold-outs by the same quantity
//     on the rows left), formed by cancellation, which costs a relative ε/δ.
//     But 1ᵀ(mK + λI)⁻¹1 ≥ ‖1‖²/‖mK + λI‖ = m/(m‖K‖ + λ), so
//     1/δ ≤ 1 + m‖K‖/λ = 1 + κ (‖L‖ = m for Global): the shift's
//     amplification is a term no larger than the conditioning term, not a
//     factor on it (the tolerance before multiplied the two, ∝ 1/λ², and
//     reached 3.5e3 at λ = 1e-6). shiftTerm computes 1/δ for Global and the
//     bound takes max(1 + κ, 1/δ); TestGlobalEqualsRetraining asserts that the
//     max is 1 + κ. Query, QueryNormalized and Preference remove the shifts
//     before they solve (deflateBySVD, deflateByShift) and divide by no δ: no
//     shift term there.
//   - Brute force decides. Over every (problem, λ, check) of the four oracle
//     tests the largest error measured is 6.1·ε·m·s·(1 + κ) on the 64 of 88
//     problems whose kernel carries the constant function (m·δ < 1e-2 at
//     λ = 1e-6: gaussian, linear with bias, polynomial with coef0 > 0, and
//     every kernel of full rank — d = 20 features on 16 rows) and
//     2.5·ε·m·s·(1 + κ) on the other 24: one bound holds both, and a
//     multiplicative shift factor would only make checks vacuous (the old
//     one, 1/(mδ) on top of κ, gave 64 of the 88 a tolerance ≥ 1 at
//     λ = 1e-6). C = 100 leaves a margin of ~16 for other platforms' rounding
//     (FMA, another BLAS). The tolerance depends on the oracle's predictions
//     only, never on the code under test.
//
// A tolerance of vacuousTol or more cannot fail on predictions of the size of
// the labels: such a check is skipped and counted, not counted as a check
// (only at λ = 1e-6, where κ ~ 1e9, and only where s is large). The ledger
// fails the test unless the skipped checks are a small minority (≤ 5%), every
// problem is checked at some λ with every tolerance ≤ tightTol (1e-6), every
// tolerance from λ = tightFrom on is ≤ tightTol and from λ = exactFrom on ≤
// exactTol (1e-8): if the bound ever became vacuous, the test would say so.
// No problem needs a λ beyond oracle.Lambdas for that: at λ = 1 κ ≤ ~1e3.
const (
	unitRoundoff = 0x1p-52 // ε
	boundC       = 100     // C: constants of the forward-error bounds, and the margin
	vacuousTol   = 1e-2    // a tolerance this loose is not a check
	maxSkipped   = 0.05    // skipped checks, at most this fraction of all
	tightTol     = 1e-6    // every problem is held to this at some λ, and at every λ ≥ tightFrom
	tightFrom    = 1.0
	exactTol     = 1e-8 // every problem is held to this at every λ ≥ exactFrom
	exactFrom    = 100.0
)

// conditioning is what the bound needs of one problem on one training graph.
type conditioning struct {
	m     int
	lnorm float64 // ‖L‖₂ of the training graph
	knorm float64 // ‖K‖₂ of the kernel matrix on all rows
	// shift, for Global only, returns 1/δ at λ (the Sherman–Morrison denominator); nil elsewhere.
	shift func(lambda float64) float64
}

// newConditioning computes ‖L‖₂ (the Laplacian of edges, from the oracle's
// weights) and ‖K‖₂ (the oracle's kernel matrix) by symmetric eigenvalues.
func newConditioning(p problem, edges []oracle.Edge) conditioning {
	m, _ := p.x.Dims()
	lap := mat.NewSymDense(m, nil)
	for _, e := range edges {
		lap.SetSym(e.I, e.I, lap.At(e.I, e.I)+e.W2)
		lap.SetSym(e.J, e.J, lap.At(e.J, e.J)+e.W2)
		lap.SetSym(e.I, e.J, lap.At(e.I, e.J)-e.W2)
	}
	k := oracleKernel(p.kern).Gram(oracle.Dense(p.x), allRows(m), allRows(m))
	return conditioning{m: m, lnorm: largestEig(lap), knorm: largestEig(mat.NewSymDense(m, k.RawMatrix().Data))}
}

func largestEig(a *mat.SymDense) float64 {
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		panic("eigenvalues did not converge")
	}
	v := es.Values(nil)
	return math.Max(v[len(v)-1], 0)
}

// shiftTerm returns 1/δ, δ = (λ/m)·1ᵀ(mK + λI)⁻¹1: the Sherman–Morrison
// denominator of Global, near 1 when the kernel does not carry the constant
// function (1 when 1 ⊥ range K), ~λ/(m‖K‖) when 1 is a leading direction of
// K. K is the kernel matrix of all rows; the sparse form's factor
// K_BK_BB⁻¹K_Bᵀ ≼ K obeys the same bound 1/δ ≤ 1 + κ.
func shiftTerm(p problem) func(lambda float64) float64 {
	m, _ := p.x.Dims()
	k := oracleKernel(p.kern).Gram(oracle.Dense(p.x), allRows(m), allRows(m))
	return func(lambda float64) float64 {
		a := mat.DenseCopyOf(k)
		a.Scale(float64(m), a)
		ones := mat.NewDense(m, 1, nil)
		for i := 0; i < m; i++ {
			a.Set(i, i, a.At(i, i)+lambda)
			ones.Set(i, 0, 1)
		}
		x := oracle.RefinedSolve(a, ones)
		return 1 / (lambda / float64(m) * mat.Sum(x))
	}
}

// kappa is ‖L‖₂‖K‖₂/λ.
func (c conditioning) kappa(lambda float64) float64 { return c.lnorm * c.knorm / lambda }

// bound is C·ε·m·max(1 + κ, 1/δ): the relative forward error allowed at λ
// for predictions of the model's own scale (s = 1).
func (c conditioning) bound(lambda float64) float64 {
	amp := 1 + c.kappa(lambda)
	if c.shift != nil {
		amp = math.Max(amp, c.shift(lambda))
	}
	return boundC * unitRoundoff * float64(c.m) * amp
}

// scale is s = max(1, rms(f)/rms(want)), with want = 0 measured absolutely as
// RelErr does: the model's prediction scale relative to the predictions compared.
func scale(f, want *mat.Dense) float64 {
	fr, fc := f.Dims()
	wr, wc := want.Dims()
	rmsF := mat.Norm(f, 2) / math.Sqrt(float64(fr*fc))
	den := mat.Norm(want, 2)
	if den == 0 {
		return math.Max(1, rmsF*math.Sqrt(float64(wr*wc)))
	}
	return math.Max(1, rmsF*math.Sqrt(float64(wr*wc))/den)
}

// ledger records the tolerances the oracle checks of one test used, per
// problem (subtest) and λ, and the checks skipped as vacuous.
type ledger struct {
	loosest map[string]map[float64]float64 // problem → λ → largest tolerance, skipped ones included
	used    map[float64]float64            // λ → largest tolerance of a check made
	skips   map[float64]int                // λ → checks skipped
	checks  int
	skipped int
	worst   float64 // largest error/tolerance
}

func newLedger() *ledger {
	return &ledger{loosest: map[string]map[float64]float64{}, used: map[float64]float64{}, skips: map[float64]int{}}
}

// check compares got with the oracle's want at λ for the problem of subtest t,
// c its conditioning and f the oracle's fit of all rows at λ. It reports a
// failure (and returns false) when the error exceeds the bound; a check whose
// tolerance is vacuousTol or more is skipped and counted.
func (l *ledger) check(t *testing.T, c conditioning, lambda float64, f, got, want *mat.Dense, what string) bool {
	t.Helper()
	tol := c.bound(lambda) * scale(f, want)
	if l.loosest[t.Name()] == nil {
		l.loosest[t.Name()] = map[float64]float64{}
	}
	l.loosest[t.Name()][lambda] = math.Max(l.loosest[t.Name()][lambda], tol)
	if tol >= vacuousTol {
		// skipped: a tolerance this loose would pass whatever the code computes
		t.Logf("λ=%g: %s not checked: its bound %.1e is vacuous (s = %.3g)", lambda, what, tol, scale(f, want))
		l.skipped++
		l.skips[lambda]++
		return true
	}
	l.checks++
	l.used[lambda] = math.Max(l.used[lambda], tol)
	e := relErr(got, want)
	l.worst = math.Max(l.worst, e/tol)
	if e > tol {
		t.Errorf("λ=%g: %s rel. error %.2e > bound %.2e", lambda, what, e, tol)
		return false
	}
	return true
}

// verify fails the test unless every problem was checked at some λ with all
// its tolerances ≤ tightTol, every tolerance at λ ≥ tightFrom is ≤ tightTol
// and at λ ≥ exactFrom ≤ exactTol, and the skipped checks are at most
// maxSkipped of all; it logs, per λ, the loosest tolerance used, the checks
// skipped and how many problems are tight.
func (l *ledger) verify(t *testing.T) {
	t.Helper()
	if t.Failed() {
		return // a subtest failed: its ledger is incomplete
	}
	tight := map[float64]int{}
	var loose []string
	for name, byLambda := range l.loosest {
		ok := false
		for lambda, tol := range byLambda {
			if tol <= tightTol {
				tight[lambda]++
				ok = true
			}
			if lambda >= tightFrom && tol > tightTol || lambda >= exactFrom && tol > exactTol {
				t.Errorf("%s λ=%g: tolerance %.1e, above what the test promises from λ = %g (%g) and %g (%g)", name, lambda, tol, tightFrom, tightTol, exactFrom, exactTol)
			}
		}
		if !ok {
			loose = append(loose, name)
		}
	}
	sort.Strings(loose)
	if len(loose) > 0 {
		t.Errorf("no λ at which every check is held to %g: %s", tightTol, strings.Join(loose, ", "))
	}
	if total := l.checks + l.skipped; float64(l.skipped) > maxSkipped*float64(total) {
		t.Errorf("%d of %d checks skipped as vacuous (tolerance ≥ %g): more than %g of them", l.skipped, total, vacuousTol, maxSkipped)
	}
	var b strings.Builder
	for _, lambda := range lambdas {
		fmt.Fprintf(&b, "\n  λ=%-6g loosest tolerance used %.1e, %d checks skipped, %d/%d problems tight (≤ %g)", lambda, l.used[lambda], l.skips[lambda], tight[lambda], len(l.loosest), tightTol)
	}
	t.Logf("%d checks, %d skipped as vacuous, largest error/bound %.2g%s", l.checks, l.skipped, l.worst, b.String())
}
