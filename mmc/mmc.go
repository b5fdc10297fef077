// Package mmc is maximum margin clustering by regularized least squares
// (Gieseke, Pahikkala & Kramer 2009; Pahikkala, Airola, Gieseke & Kramer
// 2012, "Unsupervised multi-class regularized least-squares
// classification", ICDM): the labelling of the training rows into c
// clusters whose one-versus-all RLS model fits it best.
//
// # The objective
//
// A labelling assigns each of the m rows one of c clusters; Y ∈ {±1}^{m×c}
// is its one-versus-all coding (y_ic = +1 for the row's cluster, −1 for the
// others). The RLS model of column y at λ leaves the minimized loss
// min_a ‖y − Ka‖² + λ aᵀKa = λ yᵀ(K + λI)⁻¹y = yᵀ(I − R)y with
// R = K(K + λI)⁻¹, so the objective of a labelling is
//
//	J(Y) = Σ_c (m − y_cᵀ R y_c)                                      (1)
//
// (Pahikkala et al. 2012, eq. 3). R = I − λ(K + λI)⁻¹ comes from the
// Cholesky factor of K + λI (ClusterKernel: no eigendecomposition), or on a
// factor K = U diag(e) Uᵀ of package factor as U diag(g) Uᵀ with g_k =
// e_k/(e_k + λ), zero on the complement of U for the low-rank forms
// (Cluster).
//
// # The exact move
//
// Moving row i from cluster a to cluster b flips y_ia to −1 and y_ib to +1;
// with RY = R·Y kept up to date,
//
//	ΔJ = 4 (RY_ia − RY_ib − 2 R_ii)                                  (2)
//
// (expand (y ∓ 2e_i)ᵀR(y ∓ 2e_i)): O(1) per candidate move, against O(m²·c)
// for re-solving the RLS models. Making the move updates RY's two columns
// by ∓2 R_{·i}: O(m) from a stored R (m×m), or O(m·r) from U; J itself is
// Σ_c (m − y_cᵀ(RY)_c), O(m·c).
//
// # The search
//
// Steepest descent with class rotation (Pahikkala et al. 2012, sect. IV):
// for rounds t = 0, 1, …, T−1 (T = 20), with h_t = ⌊(m/c)/2^t⌋, each
// cluster b in turn claims, one at a time, ⌊m/c⌋ − |b| + h_t rows — each
// time the row outside b whose move into b changes J least by (2), ties to
// the lower row index. The first rounds shake the labelling by forcing
// large exchanges; the last ones (h_t = 0) only restore the balance
// ⌊m/c⌋, so the result is a nearly balanced labelling, not the trivial
// one-cluster minimum of (1). Each claim costs O(m) to find plus the update
// above. A run starts from a given labelling or from a seeded random
// balanced one; restarts run from further random labellings and keep the
// lowest J.
package mmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/progress"
)

var (
	// ErrClusters is returned for a number of clusters below 2 or above m.
	ErrClusters = errors.New("mmc: invalid number of clusters")
	// ErrInit is returned for an initial labelling that does not fit.
	ErrInit = errors.New("mmc: invalid initial labelling")
	// ErrRestarts is returned for a negative number of restarts.
	ErrRestarts = errors.New("mmc: invalid number of restarts")
)

// Rounds is the number of rounds of the class rotation (Pahikkala et al.
// 2012; RLScore's SteepestDescentMMC uses the same 20).
const Rounds = 20

// DenseLimit is the largest m for which the search stores R = K(K+λI)⁻¹
// (m×m, 8·m² bytes: 32 MiB at m = 2048) for the low-rank factors; above it
// each move recomputes R's column from U in O(m·r). A Dual factor always
// stores R: it already holds an m×m U.
const DenseLimit = 2048

// Options configure a clustering.
type Options struct {
	// Clusters is c, 2 ≤ c ≤ m; 0 means 2.
	Clusters int
	// Lambda is the regularization parameter λ > 0.
	Lambda float64
	// Init, when not nil, is the first start: a cluster index in [0, c)
	// per row.
	Init []int
	// Fixed lists rows (distinct, in [0, m)) whose cluster of Init no
	// start changes (RLScore's fixed_indices): they keep it in the random
	// starts too, and no claim moves them. Needs Init.
	Fixed []int
	// Restarts is the number of starts from seeded random balanced
	// labellings (each an independent stream of Seed), run after the Init
	// start when given; without Init, 0 means 1.
	Restarts int
	// Seed seeds the random starts.
	Seed uint64
	// Rounds is the number of rotation rounds; 0 means Rounds.
	Rounds int
	// Dense forces (true) or forbids (false) storing R when not nil;
	// nil decides by DenseLimit. For tests and benchmarks.
	Dense *bool
	// Progress, when set, is told of each start done (a step of the
	// "clustering starts" loop), so a front end can show and cancel the
	// search between starts.
	Progress progress.Observer
}

// Start is the outcome of one start of the search.
type Start struct {
	// Random is false for the given initial labelling.
	Random bool `json:"random"`
	// Initial is J of the starting labelling, Objective J at the end.
	Initial   float64 `json:"initial_objective"`
	Objective float64 `json:"objective"`
	// Moves is the number of rows claimed.
	Moves int `json:"moves"`
}

// Result is the best labelling over the starts.
type Result struct {
	// Labels holds the cluster index of each row.
	Labels []int
	// Counts holds the size of each cluster.
	Counts []int
	// Objective is J (1) of Labels.
	Objective float64
	// Starts lists every start in order; Best indexes the one kept (the
	// first of the lowest J; J of each start's end is computed afresh from
	// its labels, O(m²·c) or O(m·r·c), so equal labellings tie exactly).
	Starts []Start
	Best   int
}

// Normalize checks the options against m rows and fills the defaults.
func (o Options) Normalize(m int) (Options, error) {
	if o.Clusters == 0 {
		o.Clusters = 2
	}
	if o.Clusters < 2 || o.Clusters > m {
		return o, fmt.Errorf("%w: %d clusters for %d rows (want 2 … %d)", ErrClusters, o.Clusters, m, m)
	}
	if !(o.Lambda > 0) || math.IsInf(o.Lambda, 1) {
		return o, fmt.Errorf("mmc: lambda must be a finite number > 0, got %v", o.Lambda)
	}
	if o.Restarts < 0 {
		return o, fmt.Errorf("%w: %d (want ≥ 0)", ErrRestarts, o.Restarts)
	}
	if o.Rounds < 0 {
		return o, fmt.Errorf("mmc: %d rounds (want ≥ 0)", o.Rounds)
	}
	if o.Rounds == 0 {
		o.Rounds = Rounds
	}
	if o.Init != nil {
		if err := CheckLabels(o.Init, m, o.Clusters); err != nil {
			return o, err
		}
	} else if o.Restarts == 0 {
		o.Restarts = 1
	}
	if o.Fixed != nil {
		if o.Init == nil {
			return o, fmt.Errorf("%w: %d fixed rows without an initial labelling to fix them at", ErrInit, len(o.Fixed))
		}
		seen := make([]bool, m)
		for _, i := range o.Fixed {
			if i < 0 || i >= m || seen[i] {
				return o, fmt.Errorf("%w: fixed row %d is outside 0 … %d or given twice", ErrInit, i, m-1)
			}
			seen[i] = true
		}
	}
	return o, nil
}

// CheckLabels returns an error wrapping ErrInit unless labels holds m
// cluster indices in [0, c).
func CheckLabels(labels []int, m, c int) error {
	if len(labels) != m {
		return fmt.Errorf("%w: %d labels for %d rows", ErrInit, len(labels), m)
	}
	for i, v := range labels {
		if v < 0 || v >= c {
			return fmt.Errorf("%w: row %d has cluster %d (want 0 … %d)", ErrInit, i, v, c-1)
		}
	}
	return nil
}

// Cluster runs the search on the factor f of the kernel matrix (package
// factor; its U and E are read, not modified). R is stored — built as
// U diag(g) Uᵀ in O(m²·r) — for a Dual factor and for m ≤ DenseLimit;
// otherwise each move recomputes R's column from U. Cost per start: O(m·r·c)
// to set up plus O(m) per claim with R stored, O(m·r) without; about 2m to
// 3m claims per start. Memory: O(m·c) plus R's 8·m² bytes when stored.
func Cluster(f *factor.Factor, opt Options) (*Result, error) {
	if f == nil || f.U == nil {
		return nil, errors.New("mmc: no factor")
	}
	opt, err := opt.Normalize(f.Rows())
	if err != nil {
		return nil, err
	}
	g := Gains(f.E, opt.Lambda)
	dense := f.Form == factor.Dual || f.Rows() <= DenseLimit
	if opt.Dense != nil {
		dense = *opt.Dense
	}
	if dense {
		return search(nil, nil, FactorR(f, g), opt), nil
	}
	return search(f.U, g, nil, opt), nil
}

// ClusterKernel runs the search on the m×m kernel matrix K (not modified)
// without eigendecomposing it: R = K(K+λI)⁻¹ = I − λ(K+λI)⁻¹ from the
// Cholesky factor K + λI = LLᵀ, (K+λI)⁻¹ = L⁻ᵀL⁻¹ (KernelR: about m³
// flops, a ninth of an eigendecomposition's and its product's) plus the
// search's O(m) per claim. Memory: one m×m matrix besides K.
func ClusterKernel(k *mat.Dense, opt Options) (*Result, error) {
	if k == nil || k.IsEmpty() {
		return nil, errors.New("mmc: no kernel matrix")
	}
	m, n := k.Dims()
	if m != n {
		return nil, fmt.Errorf("mmc: the kernel matrix is %d×%d, not square", m, n)
	}
	opt, err := opt.Normalize(m)
	if err != nil {
		return nil, err
	}
	r, err := KernelR(k, opt.Lambda)
	if err != nil {
		return nil, err
	}
	return search(nil, nil, r, opt), nil
}

// FactorR returns R = U diag(g) Uᵀ (m×m) from the factor's U and the gains
// g (Gains): a symmetric product, O(m²·r).
func FactorR(f *factor.Factor, g []float64) *mat.Dense {
	return linalg.Mul(false, true, f.U, linalg.ScaleCols(f.U, g))
}

// KernelR returns R = K(K+λI)⁻¹ = I − λ(K+λI)⁻¹ for the symmetric m×m
// kernel matrix K: (K+λI)⁻¹ in place of a copy of K + λI by its Cholesky
// factor and LAPACK's dpotri (linalg.InverseSPDInPlace: m³ flops in all,
// against about 9m³ for an eigendecomposition and its product), then
// R = I − λ·(K+λI)⁻¹. Memory: one m×m matrix besides K. It fails, naming
// λ, when K + λI is not positive definite (an indefinite precomputed
// kernel).
func KernelR(k *mat.Dense, lambda float64) (*mat.Dense, error) {
	m, _ := k.Dims()
	r := mat.DenseCopyOf(k)
	raw := r.RawMatrix()
	for i := 0; i < m; i++ {
		raw.Data[i*raw.Stride+i] += lambda
	}
	if err := linalg.InverseSPDInPlace(r); err != nil {
		return nil, fmt.Errorf("mmc: %w (λ = %g): %w", learn.ErrIndefinite, lambda, err)
	}
	for i := 0; i < m; i++ { // R = I − λ·(K+λI)⁻¹
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		for j := range row {
			row[j] *= -lambda
		}
		row[i]++
	}
	return r, nil
}

// search runs every start with R stored (rmat) or from (u, g), and keeps
// the lowest J.
func search(u *mat.Dense, g []float64, rmat *mat.Dense, opt Options) *Result {
	m := 0
	if rmat != nil {
		m, _ = rmat.Dims()
	} else {
		m, _ = u.Dims()
	}
	var starts [][]int
	if opt.Init != nil {
		starts = append(starts, opt.Init)
	}
	for s := 0; s < opt.Restarts; s++ {
		y := RandomLabels(m, opt.Clusters, opt.Seed, uint64(s))
		for _, i := range opt.Fixed {
			y[i] = opt.Init[i]
		}
		starts = append(starts, y)
	}
	var locked []bool
	if len(opt.Fixed) > 0 {
		locked = make([]bool, m)
		for _, i := range opt.Fixed {
			locked[i] = true
		}
	}
	res := &Result{Best: -1}
	for s, init := range starts {
		st := newState(u, g, rmat, init, opt.Clusters)
		st.listMembers(locked)
		j0 := st.objective()
		st.rotate(opt.Rounds)
		// J afresh from the labels, not from the RY the moves updated: equal
		// labellings get equal J to the bit, and the first start wins a tie
		j := newState(u, g, rmat, st.y, opt.Clusters).objective()
		res.Starts = append(res.Starts, Start{Random: opt.Init == nil || s > 0, Initial: j0, Objective: j, Moves: st.moves})
		if res.Best < 0 || j < res.Objective {
			res.Best, res.Objective = s, j
			res.Labels, res.Counts = st.y, st.counts
		}
		opt.Progress.Step("clustering starts", s+1, len(starts))
	}
	return res
}

// Gains returns g_k = e_k/(e_k + λ), the eigenvalues of R = K(K+λI)⁻¹ along
// U. O(r).
func Gains(e []float64, lambda float64) []float64 {
	g := make([]float64, len(e))
	for k, v := range e {
		g[k] = v / (v + lambda)
	}
	return g
}

// RandomLabels is a seeded random balanced labelling, as RLScore draws its
// default start: a random ⌊m/c⌋ rows for each of the clusters 0 … c−2 and
// the remaining rows for cluster c−1. stream picks an independent sequence
// of seed. O(m).
func RandomLabels(m, c int, seed, stream uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x6d6d63^stream<<8))
	perm := rng.Perm(m)
	y := make([]int, m)
	per := m / c
	for k, i := range perm {
		y[i] = min(k/per, c-1)
	}
	return y
}

// state is the search's bookkeeping for one labelling: R stored (rmat),
// or U and g to compute its columns.
type state struct {
	m, c   int
	u      *mat.Dense // m×r, or nil with rmat
	g      []float64  // r
	rmat   *mat.Dense // m×m R, or nil
	ry     []float64  // m×c: RY
	rdiag  []float64  // m: R_ii
	y      []int      // cluster of each row
	counts []int
	col    []float64
	ug     []float64
	moves  int
	// lazy keeps W = UᵀY (r×c) instead of RY: a gain (2) costs O(r) —
	// RY_ib = Σ_k u_ik g_k W_kb — and a move O(r), for steps that
	// evaluate few candidates per move (Interactive on a low-rank factor;
	// RLScore's interactive classifier works so).
	lazy bool
	w    []float64
	// members lists each cluster's rows a claim may move (listMembers; the
	// search's states: all but the rows of Options.Fixed), pos each row's
	// place in its list (−1: fixed); nil: claims scan every row
	members [][]int
	pos     []int
}

// newLazyState sets up W = UᵀY and diag R for the labelling (copied):
// O(m·r·c), memory O(r·c) beyond the labels.
func newLazyState(u *mat.Dense, g []float64, labels []int, c int) *state {
	m := len(labels)
	_, r := u.Dims()
	st := &state{m: m, c: c, u: u, g: g, lazy: true, w: make([]float64, r*c), rdiag: make([]float64, m),
		y: append([]int(nil), labels...), counts: make([]int, c)}
	for i, a := range st.y {
		st.counts[a]++
		d := 0.0
		for k, v := range u.RawRowView(i) {
			d += g[k] * v * v
			for b := 0; b < c; b++ {
				if b == a {
					st.w[k*c+b] += v
				} else {
					st.w[k*c+b] -= v
				}
			}
		}
		st.rdiag[i] = d
	}
	return st
}

// ryAt is (RY)_ib: stored, or for a lazy state Σ_k u_ik g_k W_kb, O(r).
func (st *state) ryAt(i, b int) float64 {
	if !st.lazy {
		return st.ry[i*st.c+b]
	}
	v := 0.0
	for k, u := range st.u.RawRowView(i) {
		v += u * st.g[k] * st.w[k*st.c+b]
	}
	return v
}

// newState sets up RY and diag R for the labelling (copied): O(m²·c) from
// a stored R, O(m·r·c) from U.
func newState(u *mat.Dense, g []float64, rmat *mat.Dense, labels []int, c int) *state {
	m := len(labels)
	st := &state{m: m, c: c, u: u, g: g, rmat: rmat, ry: make([]float64, m*c), rdiag: make([]float64, m),
		y: append([]int(nil), labels...), counts: make([]int, c), col: make([]float64, m)}
	for _, a := range st.y {
		st.counts[a]++
	}
	if rmat != nil {
		// RY_jb = Σ_i R_ji y_ib = 2 Σ_{i∈b} R_ji − Σ_i R_ji
		for j := 0; j < m; j++ {
			row, out := rmat.RawRowView(j), st.ry[j*c:(j+1)*c]
			tot := 0.0
			for i, v := range row {
				out[st.y[i]] += 2 * v
				tot += v
			}
			for b := range out {
				out[b] -= tot
			}
			st.rdiag[j] = row[j]
		}
		return st
	}
	_, r := u.Dims()
	st.ug = make([]float64, r)
	w := make([]float64, r*c) // UᵀY, scaled by g below
	for i, a := range st.y {
		ui := u.RawRowView(i)
		d := 0.0
		for k, v := range ui {
			d += g[k] * v * v
			for b := 0; b < c; b++ {
				if b == a {
					w[k*c+b] += v
				} else {
					w[k*c+b] -= v
				}
			}
		}
		st.rdiag[i] = d
	}
	for k := 0; k < r; k++ {
		for b := 0; b < c; b++ {
			w[k*c+b] *= g[k]
		}
	}
	for i := 0; i < m; i++ {
		row := st.ry[i*c : (i+1)*c]
		for k, v := range u.RawRowView(i) {
			for b := range row {
				row[b] += v * w[k*c+b]
			}
		}
	}
	return st
}

// objective is J (1) from RY: Σ_c (m − Σ_i y_ic (RY)_ic), O(m·c); for a
// lazy state from W: Σ_c (m − Σ_k g_k W_kc²), O(r·c).
func (st *state) objective() float64 {
	if st.lazy {
		j := 0.0
		for _, f := range st.classFitness() {
			j += f
		}
		return j
	}
	q := 0.0
	for i, a := range st.y {
		row := st.ry[i*st.c : (i+1)*st.c]
		for b, v := range row {
			if b == a {
				q += v
			} else {
				q -= v
			}
		}
	}
	return float64(st.m*st.c) - q
}

// delta is ΔJ/4 (2) of moving row i into cluster b ≠ y_i. O(1).
func (st *state) delta(i, b int) float64 {
	if st.lazy {
		return st.ryAt(i, st.y[i]) - st.ryAt(i, b) - 2*st.rdiag[i]
	}
	return st.ry[i*st.c+st.y[i]] - st.ry[i*st.c+b] - 2*st.rdiag[i]
}

// move puts row i into cluster b, updating RY and the counts: O(m) with
// R stored, O(m·r) without.
func (st *state) move(i, b int) {
	a := st.y[i]
	if a == b {
		return
	}
	c := st.c
	if st.lazy {
		for k, v := range st.u.RawRowView(i) {
			st.w[k*c+a] -= 2 * v
			st.w[k*c+b] += 2 * v
		}
		st.y[i] = b
		st.counts[a]--
		st.counts[b]++
		st.moves++
		return
	}
	var col []float64
	if st.rmat != nil {
		col = st.rmat.RawRowView(i) // R is symmetric: row i is column i
	} else {
		for k, v := range st.u.RawRowView(i) {
			st.ug[k] = st.g[k] * v
		}
		col = st.col
		for j := 0; j < st.m; j++ {
			s := 0.0
			for k, v := range st.u.RawRowView(j) {
				s += v * st.ug[k]
			}
			col[j] = s
		}
	}
	for j, v := range col {
		st.ry[j*c+a] -= 2 * v
		st.ry[j*c+b] += 2 * v
	}
	st.y[i] = b
	st.counts[a]--
	st.counts[b]++
	st.moves++
	if st.members != nil && st.pos[i] >= 0 { // out of a's list (the last takes its place), into b's
		la := st.members[a]
		last := la[len(la)-1]
		la[st.pos[i]], st.pos[last] = last, st.pos[i]
		st.members[a] = la[:len(la)-1]
		st.pos[i] = len(st.members[b])
		st.members[b] = append(st.members[b], i)
	}
}

// listMembers sets up the rows of each cluster that a claim may move
// (all but the locked ones), so that a claim scans the other clusters'
// lists with no test of each row's cluster. O(m).
func (st *state) listMembers(locked []bool) {
	st.members, st.pos = make([][]int, st.c), make([]int, st.m)
	for i, a := range st.y {
		if locked != nil && locked[i] {
			st.pos[i] = -1
			continue
		}
		st.pos[i] = len(st.members[a])
		st.members[a] = append(st.members[a], i)
	}
}

// claim moves into cluster b the row outside b whose move changes
// J least (2), the lower index on ties; false when there is none. O(m)
// plus the move.
func (st *state) claim(b int) (int, bool) {
	best, bi := math.Inf(1), -1
	if st.lazy {
		for i, a := range st.y {
			if a == b {
				continue
			}
			if d := st.delta(i, b); d < best || bi < 0 {
				best, bi = d, i
			}
		}
	} else if st.members != nil { // delta inlined over the other clusters' lists: the search's inner loop
		c, ry, rd := st.c, st.ry, st.rdiag
		for a, list := range st.members {
			if a == b {
				continue
			}
			for _, i := range list {
				base := i * c
				// the lowest d, and of equal ones the lowest index (the lists are unordered)
				if d := ry[base+a] - ry[base+b] - 2*rd[i]; d < best || bi < 0 || d == best && i < bi {
					best, bi = d, i
				}
			}
		}
	} else {
		c, ry, rd, y := st.c, st.ry, st.rdiag, st.y
		rd = rd[:len(y)]
		ry = ry[:len(y)*c]
		for i, a := range y {
			if a == b {
				continue
			}
			base := i * c
			if d := ry[base+a] - ry[base+b] - 2*rd[i]; d < best || bi < 0 {
				best, bi = d, i
			}
		}
	}
	if bi < 0 {
		return -1, false
	}
	st.move(bi, b)
	return bi, true
}

// rotate is the steepest descent with class rotation (see the package
// comment): rounds t = 0 … T−1, h_t = ⌊(m/c)/2^t⌋, each cluster in turn
// claiming ⌊m/c⌋ − |b| + h_t rows.
func (st *state) rotate(rounds int) {
	per := st.m / st.c
	for t := 0; t < rounds; t++ {
		h := int(float64(st.m) / float64(st.c) / math.Exp2(float64(t)))
		for b := 0; b < st.c; b++ {
			take := per - st.counts[b] + h
			for n := 0; n < take; n++ {
				if _, ok := st.claim(b); !ok {
					break
				}
			}
		}
	}
}
