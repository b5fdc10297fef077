// Package basis chooses the basis vectors of sparse (subset-of-regressors) RLS.
//
// Sparse RLS over a basis B ⊂ {0, …, m−1} of training rows predicts
//
//	f(x) = Σ_{j∈B} a_j k(x, x_j),
//
// with the coefficients minimizing, for the labels Y (m×t),
//
//	‖Y − K_{·B} a‖²_F + λ tr(aᵀ K_BB a).
//
// The basis can be drawn at random (Random), one row per group (PerGroup), or
// grown greedily by the randomized forward selection of Pahikkala, Suominen & Boberg 2012, Algorithm 1
// (Greedy), which adds at each step the one of a few random candidates that lowers
// the training error most.
//
// All randomness comes from math/rand/v2's PCG generator seeded with
// (seed, 0x9e3779b97f4a7c15), so equal seeds give equal bases.
package basis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
)

// ErrBasis is returned (wrapped, with the offending argument and value) for an
// invalid request: a basis size outside [1, m], an invalid λ, labels that do not
// fit the data, or too few linearly independent rows.
var ErrBasis = errors.New("basis: invalid request")

// DefaultCandidates is the number of random candidates Greedy examines per step
// when GreedyOptions.Candidates is 0: with 60 candidates the chosen one is, with
// probability 0.95, among the best 5% of all rows (Pahikkala, Suominen & Boberg 2012, sect. 6.3.2).
const DefaultCandidates = 60

// dependentTol is the relative threshold below which a candidate is linearly
// dependent on the current basis: k_hh − ‖L_B⁻¹K_{Bh}‖² ≤ dependentTol·k_hh.
const dependentTol = 1e-12

// seedStream is the second word of the PCG state; the first is the caller's seed.
const seedStream = 0x9e3779b97f4a7c15

// newRNG returns the package's generator for a seed: PCG(seed, seedStream).
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seedStream)) }

// drawCandidates returns min(c, #unselected) distinct indices drawn uniformly
// without replacement among the i with !selected[i]. The fixed procedure, which
// the tests replicate by calling this function with an identically seeded rng:
// list the unselected indices in ascending order, then run c steps of a partial
// Fisher–Yates shuffle (step i swaps position i with position i + rng.IntN(len−i))
// and return the first c positions, in that order. O(len(selected)) time and space.
func drawCandidates(rng *rand.Rand, selected []bool, c int) []int {
	pool := make([]int, 0, len(selected))
	for i, s := range selected {
		if !s {
			pool = append(pool, i)
		}
	}
	c = max(0, min(c, len(pool)))
	for i := 0; i < c; i++ {
		j := i + rng.IntN(len(pool)-i)
		pool[i], pool[j] = pool[j], pool[i]
	}
	return pool[:c:c]
}

// Random returns n distinct rows of 0, …, m−1 drawn uniformly without
// replacement (every n-subset is equally likely) with the PCG generator seeded
// by seed, in ascending order. n < 1 or n > m gives ErrBasis.
// O(m) time and space plus O(n log n) for the sort.
func Random(m, n int, seed uint64) ([]int, error) {
	if n < 1 || n > m {
		return nil, fmt.Errorf("%w: n = %d basis vectors for m = %d rows, want 1 ≤ n ≤ m", ErrBasis, n, m)
	}
	b := drawCandidates(newRNG(seed), make([]bool, m), n)
	slices.Sort(b)
	return b, nil
}

// PerGroup returns one row per group for the group labels of the rows
// (groups[i] is the group of row i; any int labels): for each group, in order of
// first appearance, one member drawn uniformly with the PCG generator seeded by
// seed (the same seed always picks the same members). The rows are returned in
// ascending order, so |result| is the number of distinct groups. Empty groups
// (no rows) gives ErrBasis. O(m) time and space plus O(g log g) for the sort of
// the g groups' rows.
func PerGroup(groups []int, seed uint64) ([]int, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: groups is empty (0 rows)", ErrBasis)
	}
	pos := map[int]int{} // group label → index in members
	var members [][]int  // members in order of first appearance of the group
	for i, g := range groups {
		p, ok := pos[g]
		if !ok {
			p = len(members)
			pos[g] = p
			members = append(members, nil)
		}
		members[p] = append(members[p], i)
	}
	rng := newRNG(seed)
	out := make([]int, len(members))
	for p, rows := range members {
		out[p] = rows[rng.IntN(len(rows))]
	}
	slices.Sort(out)
	return out, nil
}

// GreedyOptions configure Greedy.
type GreedyOptions struct {
	// Lambda is the regularization parameter λ > 0 of the sparse RLS whose
	// training error is minimized.
	Lambda float64
	// Candidates is the number of random candidates per step (0 means
	// DefaultCandidates, 60; fewer are drawn when fewer rows remain).
	Candidates int
	// Seed seeds the PCG generator of the candidate draws.
	Seed uint64
}

// Greedy selects n basis rows by randomized greedy forward selection (Pahikkala, Suominen & Boberg 2012,
// Algorithm 1) and returns them in selection order. Starting from B = ∅, each of
// the n steps draws Candidates random rows not yet in B (drawCandidates) and adds
// the h minimizing
//
//	TrainingErr(B ∪ {h}) = ‖Y − K_{·B'} a‖²_F,  a = argmin ‖Y − K_{·B'}a‖² + λ aᵀK_{B'B'}a,  B' = B ∪ {h}
//
// (ties: the first drawn). Nothing is retrained: with L_B the Cholesky factor of
// K_BB, the whitened features Φ_B = K_{·B} L_B⁻ᵀ turn the problem into ridge
// regression, min_w ‖Y − Φ_B w‖² + λ‖w‖², whose residuals are R = (I − H_B)Y,
// H_B = Φ_B A_B⁻¹ Φ_Bᵀ, A_B = Φ_BᵀΦ_B + λI. Greedy keeps Φ_B, L_B, the Cholesky
// factor of A_B and R, each extended by one row or column per step. A candidate h
// adds the feature
//
//	φ = (K_{·h} − Φ_B c)/√(k_hh − ‖c‖²),  c = L_B⁻¹ K_{Bh},
//
// and since min_w ‖z − Φw‖² + λ‖w‖² = zᵀ(I − H)z with residual (I − H)z, only
// its own weight u is a new 1-D problem: minimizing (Y − φu)ᵀ(I − H_B)(Y − φu) + λu²
// over u gives
//
//	g = (I − H_B)φ = φ − Φ_B A_B⁻¹(Φ_Bᵀφ),  v = φᵀR/(λ + φᵀg) = gᵀY/(λ + φᵀg),
//	TrainingErr(B ∪ {h}) = ‖(I − H_B)(Y − φv)‖²_F = ‖R − g v‖²_F.
//
// (Note v ≠ gᵀR/(λ + φᵀg) for B ≠ ∅: I − H_B is not a projection when λ > 0.)
//
// A candidate with k_hh − ‖c‖² ≤ 1e-12·k_hh (linearly dependent on B, e.g. a
// duplicate of a basis row) is never chosen, and it is excluded from the later
// draws as well (dependence on B persists as B grows); when all candidates of a
// draw are dependent the step draws again among the remaining rows, and when
// none remain Greedy returns ErrBasis.
//
// X is *mat.Dense or *matrix.CSR (for the precomputed kernel, the m×m kernel
// matrix); Y is m×t. ErrBasis for n < 1, n > m, λ not finite and > 0,
// Candidates < 0, a nil kernel, or Y that is empty, non-finite or has a number
// of rows other than m. Cost O(n·C·(m·|B| + m·t)) with C the candidates per
// step, plus the n·C kernel columns, O(n·C·m·d); memory O(m·(n + C + t)).
func Greedy(x mat.Matrix, y *mat.Dense, k kernel.Kernel, n int, opt GreedyOptions) ([]int, error) {
	g, err := newGreedy(x, y, k, n, opt)
	if err != nil {
		return nil, err
	}
	c := opt.Candidates
	if c == 0 {
		c = DefaultCandidates
	}
	rng := newRNG(opt.Seed)
	avail := g.m
	for len(g.basis) < n {
		var ev *evaluation
		for {
			if avail == 0 {
				return nil, fmt.Errorf("%w: n = %d basis vectors requested, but only %d rows are linearly independent", ErrBasis, n, len(g.basis))
			}
			cands := drawCandidates(rng, g.taken, min(c, avail))
			ev, err = g.evaluate(cands)
			if err != nil {
				return nil, err
			}
			for _, h := range ev.dependent {
				g.taken[h] = true
				avail--
			}
			if len(ev.rows) > 0 {
				break
			}
		}
		g.add(ev, argmin(ev.errs))
		avail--
	}
	return slices.Clone(g.basis), nil
}

// argmin returns the index of the first smallest value.
func argmin(v []float64) int {
	best := 0
	for j, e := range v {
		if e < v[best] {
			best = j
		}
	}
	return best
}

// greedy is the incremental state of Greedy for the current basis B (b = |B|):
// the first b columns of phi hold Φ_B (m×b), the leading b×b blocks of lb and la
// the Cholesky factors of K_BB and A_B = Φ_BᵀΦ_B + λI, and r the residuals
// R = (I − H_B)Y.
type greedy struct {
	x      mat.Matrix
	k      kernel.Kernel
	pts    mat.Matrix // the training points, k.Points(x)
	lambda float64
	m      int
	phi    *mat.Dense // m×n
	lb     *mat.Dense // n×n
	la     *mat.Dense // n×n
	r      *mat.Dense // m×t
	basis  []int
	taken  []bool // rows in B or found dependent on B
}

// newGreedy checks the arguments and returns the state for B = ∅ (R = Y).
func newGreedy(x mat.Matrix, y *mat.Dense, k kernel.Kernel, n int, opt GreedyOptions) (*greedy, error) {
	if x == nil {
		return nil, fmt.Errorf("%w: x is nil", ErrBasis)
	}
	m, _ := x.Dims()
	if n < 1 || n > m {
		return nil, fmt.Errorf("%w: n = %d basis vectors for m = %d rows, want 1 ≤ n ≤ m", ErrBasis, n, m)
	}
	if k == nil {
		return nil, fmt.Errorf("%w: kernel is nil", ErrBasis)
	}
	if !(opt.Lambda > 0) || math.IsInf(opt.Lambda, 1) {
		return nil, fmt.Errorf("%w: Lambda = %v, want a finite number > 0", ErrBasis, opt.Lambda)
	}
	if opt.Candidates < 0 {
		return nil, fmt.Errorf("%w: Candidates = %d, want ≥ 0 (0 means %d)", ErrBasis, opt.Candidates, DefaultCandidates)
	}
	if y == nil || y.IsEmpty() {
		return nil, fmt.Errorf("%w: y is empty", ErrBasis)
	}
	ym, _ := y.Dims()
	if ym != m {
		return nil, fmt.Errorf("%w: y has %d rows, x has %d", ErrBasis, ym, m)
	}
	for i := 0; i < m; i++ {
		for c, v := range y.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: y[%d,%d] = %v", ErrBasis, i, c, v)
			}
		}
	}
	return &greedy{
		x: x, k: k, pts: k.Points(x), lambda: opt.Lambda, m: m,
		phi:   mat.NewDense(m, n, nil),
		lb:    mat.NewDense(n, n, nil),
		la:    mat.NewDense(n, n, nil),
		r:     mat.DenseCopyOf(y),
		taken: make([]bool, m),
	}, nil
}

// evaluation holds the candidates of one draw: the independent ones (rows, in
// draw order) with TrainingErr(B ∪ {h}) and what add needs to extend the state,
// and the dependent ones. With b = |B| and V = len(rows):
type evaluation struct {
	rows      []int
	errs      []float64
	dependent []int
	c         *mat.Dense // b×V, L_B⁻¹ K_{B,h}
	s         []float64  // √(k_hh − ‖c‖²)
	phi       *mat.Dense // m×V, the new features φ
	l         *mat.Dense // b×V, L_A⁻¹ Φ_Bᵀφ
	q         *mat.Dense // b×V, A_B⁻¹ Φ_Bᵀφ, so that g = (I − H_B)φ = φ − Φ_B q
	den       []float64  // λ + φᵀg
	v         *mat.Dense // V×t, φᵀR/(λ + φᵀg)
}

// evaluate computes TrainingErr(B ∪ {h}) for every candidate h without
// retraining: two m×b×C gemms (Φ_B c and Φ_Bᵀφ), O(C·m·t + b²·C + m·b·t) for
// the rest, plus the kernel columns K_{·h}.
func (g *greedy) evaluate(cands []int) (*evaluation, error) {
	m, b := g.m, len(g.basis)
	kc, err := g.k.Block(g.x, kernel.Rows(g.pts, cands))
	if err != nil {
		return nil, fmt.Errorf("basis: kernel columns: %w", err)
	}
	if r, c := kc.Dims(); r != m || c != len(cands) {
		return nil, fmt.Errorf("basis: kernel block is %d×%d, want %d×%d", r, c, m, len(cands))
	}
	// c = L_B⁻¹ K_{B,h} for all candidates at once.
	var cm *mat.Dense
	if b > 0 {
		cm = mat.NewDense(b, len(cands), nil)
		for i, row := range g.basis {
			copy(cm.RawRowView(i), kc.RawRowView(row))
		}
		linalg.SolveLower(g.lbView(), false, cm)
	}
	ev := &evaluation{}
	var cols []int // columns of kc of the independent candidates
	for j, h := range cands {
		khh := kc.At(h, j)
		s2 := khh
		for i := 0; i < b; i++ {
			v := cm.At(i, j)
			s2 -= v * v
		}
		if !(khh > 0) || !(s2 > dependentTol*khh) {
			ev.dependent = append(ev.dependent, h)
			continue
		}
		ev.rows = append(ev.rows, h)
		ev.s = append(ev.s, math.Sqrt(s2))
		cols = append(cols, j)
	}
	nv := len(cols)
	if nv == 0 {
		return ev, nil
	}
	// φ = (K_{·h} − Φ_B c)/s
	phi := mat.NewDense(m, nv, nil)
	for i := 0; i < m; i++ {
		src, dst := kc.RawRowView(i), phi.RawRowView(i)
		for jj, j := range cols {
			dst[jj] = src[j]
		}
	}
	phiB := g.phiView()
	if b > 0 {
		ev.c = mat.NewDense(b, nv, nil)
		for i := 0; i < b; i++ {
			src, dst := cm.RawRowView(i), ev.c.RawRowView(i)
			for jj, j := range cols {
				dst[jj] = src[j]
			}
		}
		linalg.Gemm(false, false, -1, phiB, ev.c, 1, phi)
	}
	for i := 0; i < m; i++ {
		row := phi.RawRowView(i)
		for jj := range row {
			row[jj] /= ev.s[jj]
		}
	}
	ev.phi = phi
	// With p = Φ_Bᵀφ, l = L_A⁻¹p (kept for extending L_A) and q = A_B⁻¹p, the
	// vector g = φ − Φ_B q is never formed for all candidates; its products are
	//   φᵀg = φᵀφ − ‖l‖²,  gᵀR = φᵀR − qᵀ(Φ_BᵀR),  ‖g‖² = φᵀφ − pᵀq − λ‖q‖²
	// (Φ_BᵀΦ_B = A_B − λI), so that ‖R − g v‖² = ‖R‖² − 2 v·(gᵀR) + ‖g‖²‖v‖².
	ff := make([]float64, nv) // φᵀφ
	for i := 0; i < m; i++ {
		for jj, v := range phi.RawRowView(i) {
			ff[jj] += v * v
		}
	}
	fr := linalg.Mul(true, false, phi, g.r) // V×t, φᵀR
	gr := mat.DenseCopyOf(fr)               // V×t, gᵀR
	gg := slices.Clone(ff)                  // ‖g‖²
	ev.den = make([]float64, nv)
	for jj := range ev.den {
		ev.den[jj] = ff[jj]
	}
	if b > 0 {
		p := linalg.Mul(true, false, phiB, phi) // b×V
		la := g.laView()
		q := mat.DenseCopyOf(p)
		linalg.SolveLower(la, false, q)
		ev.l = mat.DenseCopyOf(q)
		linalg.SolveLower(la, true, q)
		ev.q = q
		for i := 0; i < b; i++ {
			pr, lr, qr := p.RawRowView(i), ev.l.RawRowView(i), q.RawRowView(i)
			for jj := range pr {
				ev.den[jj] -= lr[jj] * lr[jj]
				gg[jj] -= pr[jj]*qr[jj] + g.lambda*qr[jj]*qr[jj]
			}
		}
		br := linalg.Mul(true, false, phiB, g.r) // b×t, Φ_BᵀR
		linalg.Gemm(true, false, -1, q, br, 1, gr)
	}
	rr := 0.0 // ‖R‖²
	for i := 0; i < m; i++ {
		for _, v := range g.r.RawRowView(i) {
			rr += v * v
		}
	}
	// v = φᵀR/(λ + φᵀg), TrainingErr = ‖R − g v‖²_F
	ev.v = fr
	ev.errs = make([]float64, nv)
	for jj := range ev.den {
		ev.den[jj] = g.lambda + max(0, ev.den[jj])
		gj := max(0, gg[jj])
		vr, grr := ev.v.RawRowView(jj), gr.RawRowView(jj)
		e := rr
		for c := range vr {
			vr[c] /= ev.den[jj]
			e += vr[c] * (gj*vr[c] - 2*grr[c])
		}
		ev.errs[jj] = max(0, e)
	}
	return ev, nil
}

// add appends candidate jj of ev to the basis: one row of L_B ([cᵀ, s]) and of
// L_A ([lᵀ, √(λ + φᵀg)], since λ + φᵀφ − ‖l‖² = λ + φᵀg), one column of Φ, and
// R ← R − g v with g = φ − Φ_B q. O(m·(b + t)).
func (g *greedy) add(ev *evaluation, jj int) {
	b := len(g.basis)
	lbRow, laRow := g.lb.RawRowView(b), g.la.RawRowView(b)
	for i := 0; i < b; i++ {
		lbRow[i] = ev.c.At(i, jj)
		laRow[i] = ev.l.At(i, jj)
	}
	lbRow[b] = ev.s[jj]
	laRow[b] = math.Sqrt(ev.den[jj])
	q := make([]float64, b)
	for i := range q {
		q[i] = ev.q.At(i, jj)
	}
	vr := ev.v.RawRowView(jj)
	for i := 0; i < g.m; i++ {
		pr := g.phi.RawRowView(i)
		gv := ev.phi.At(i, jj)
		for k, qk := range q {
			gv -= pr[k] * qk
		}
		pr[b] = ev.phi.At(i, jj)
		rr := g.r.RawRowView(i)
		for c := range rr {
			rr[c] -= gv * vr[c]
		}
	}
	h := ev.rows[jj]
	g.basis = append(g.basis, h)
	g.taken[h] = true
}

// phiView returns Φ_B (m×b; an empty matrix for b = 0).
func (g *greedy) phiView() *mat.Dense {
	b := len(g.basis)
	if b == 0 {
		return &mat.Dense{}
	}
	return g.phi.Slice(0, g.m, 0, b).(*mat.Dense)
}

// lbView returns the b×b Cholesky factor of K_BB (b ≥ 1).
func (g *greedy) lbView() *mat.Dense {
	b := len(g.basis)
	return g.lb.Slice(0, b, 0, b).(*mat.Dense)
}

// laView returns the b×b Cholesky factor of A_B (b ≥ 1).
func (g *greedy) laView() *mat.Dense {
	b := len(g.basis)
	return g.la.Slice(0, b, 0, b).(*mat.Dense)
}
