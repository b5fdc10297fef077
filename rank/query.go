package rank

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/progress"
)

// Query is RankRLS for label ranking: pairs only inside a query, magnitude-
// preserving cost, L = D − PPᵀ with P the m×q query indicator and D = diag(n_q(i))
// (Pahikkala et al. 2009, eq. (25)), b = LY. A query with a single item has no pairs: it is
// kept for training (it still shapes the kernel expansion) but contributes no loss.
type Query struct {
	*graphModel
	q *queryGraph
}

// FitQuery trains on X (m×d), labels Y (m×t) and per-row query ids. Cost: the
// factor, O(m·k²) for ΦᵀLΦ and O(k³) for its eigendecomposition.
func FitQuery(x mat.Matrix, y *mat.Dense, queries []int, opt Options) (*Query, error) {
	return fitQuery(x, y, queries, opt, false)
}

// FitQueryNormalized is FitQuery with every query's pairs weighted by 1/n_q,
// L = blockdiag(I − 11ᵀ/n_q): RLScore's convention for query ranking, under
// which a large query does not outweigh the small ones. A hold-out that cuts a
// query renormalizes its remaining rows by their own count, as retraining on
// them does. Same costs as FitQuery.
func FitQueryNormalized(x mat.Matrix, y *mat.Dense, queries []int, opt Options) (*Query, error) {
	return fitQuery(x, y, queries, opt, true)
}

func fitQuery(x mat.Matrix, y *mat.Dense, queries []int, opt Options, normalized bool) (*Query, error) {
	if err := matrix.Check(x); err != nil {
		return nil, fmt.Errorf("rank: %w: %w", learn.ErrShape, err)
	}
	m, _ := x.Dims()
	outs, err := learn.CheckLabels(y, m, opt.Outputs)
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	if len(queries) != m {
		return nil, fmt.Errorf("%w: %d query ids for %d rows", ErrQueries, len(queries), m)
	}
	qg := newQueryGraph(queries, mat.DenseCopyOf(y))
	qg.normalized = normalized
	// The one-eigendecomposition route needs a kernel matrix of full numerical
	// rank: when K is rank deficient (linear, polynomial, precomputed kernels
	// beyond their feature dimension) the zero eigenvalues of K and the query
	// shifts share one cluster of SKS's spectrum and the shifts cannot be told
	// apart; the general route deflates them exactly after factoring K.
	_, gaussian := opt.Kernel.(kernel.Gaussian)
	meta := learn.Meta{Name: learn.QueryRank, Outputs: outs}
	if gaussian && (opt.Form == learn.Dual || opt.Form == learn.Auto && factor.AutoForm(x, opt.Kernel, opt.Basis) == factor.Dual) {
		xs, sc, err := opt.Prepare(x)
		if err != nil {
			return nil, fmt.Errorf("rank: %w", err)
		}
		meta.Scaler = sc
		gm, err := newQueryDual(xs, opt.Kernel, qg, meta, opt.Observe)
		if err != nil {
			return nil, err
		}
		return &Query{graphModel: gm, q: qg}, nil
	}
	d, sc, err := build(x, opt)
	if err != nil {
		return nil, err
	}
	meta.Data, meta.Scaler = d, sc
	gm, err := newGraphModel(meta, qg)
	if err != nil {
		return nil, err
	}
	return &Query{graphModel: gm, q: qg}, nil
}

// queryDualPeak is the peak of newQueryDual in m×m matrices of float64: the
// kernel matrix, turned into SKS in place and eigendecomposed in place, and
// the eigensolver's 2m² workspace; afterwards the eigenvectors and Ψ.
const queryDualPeak = 3

// newQueryDual trains the dual query ranker with one eigendecomposition. With
// S = L^{1/2} = blockdiag(σ_q·C_q) (C_q centres query q, σ_q = √(n_q·w_q) for
// the query's pair weight w_q; cheap to apply), M = SKS = V diag(Λ) Vᵀ has
// the same non-zero eigenvalues as H = ΦᵀLΦ (Φ = K^{1/2}), whose eigenvectors
// are K^{1/2}SVΛ^{-1/2}. Hence Ψ = KSVΛ^{-1/2}, T_ΦW = SVΛ^{-1/2}, and the null
// space of H — the shifts within queries, which S annihilates — never enters.
// Eigenvalues at or below m·ε·max Λ are dropped (Pahikkala et al. 2009, sect. 3.2).
//
// Ψ is not formed by the m×m×k product KSVΛ^{-1/2}: since SΨ = MVΛ^{-1/2} =
// VΛ^{1/2}, the rows of query q are
//
//	Ψ_q = C_qV_qΛ^{1/2}/σ_q + 1·μ_q,   μ = (P̄ᵀK)·S·V·Λ^{-1/2}
//
// (P̄ the m×q matrix of query means: μ_q is the mean of Ψ's rows in q; a
// single-item query has only μ_q), which costs O(m²) for the query means of
// K and O(q·m·k) for μ. With the computed V, Λ this differs from the product
// KSVΛ^{-1/2} by S⁺(MV − VΛ)Λ^{-1/2} only — the eigensolver's residual,
// O(ε‖M‖) per column, the order of the product's own error through V — and
// satisfies SΨ = VΛ^{1/2} to rounding.
//
// Cost: the kernel matrix, O(m²) for SKS (formed in place: K's query means,
// then every entry once), one O(m³) eigendecomposition and O(q·m·k) for Ψ;
// memory queryDualPeak m×m matrices.
func newQueryDual(x mat.Matrix, k kernel.Kernel, qg *queryGraph, meta learn.Meta, observe progress.Observer) (*graphModel, error) {
	rows, width := x.Dims()
	if err := factor.CheckMemory(rows, queryDualPeak); err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	observe.Report(factor.KernelPhase(rows, rows, width))
	d, km, err := factor.KernelOnly(x, k)
	if err != nil {
		return nil, err
	}
	means := qg.queryMeans(km) // P̄ᵀK, q×m
	qg.sandwich(km, means)     // km = SKS
	observe.Report(factor.EigPhase(rows))
	lam, err := linalg.EigSymInPlace(km)
	if err != nil {
		return nil, fmt.Errorf("rank: eigendecomposition of L^{1/2}KL^{1/2}: %w", err)
	}
	m := len(lam)
	tol := float64(m) * 2.2e-16 * math.Max(lam[m-1], 0)
	first := 0
	for first < m && lam[first] <= tol {
		first++
	}
	meta.Data = d
	gm := &graphModel{meta: meta, d: d, g: qg, b: qg.b(), shapes: new(sync.Map), pathRows: new(atomic.Int64)}
	_, t := gm.b.Dims()
	if first == m {
		gm.psi, gm.tv, gm.z, gm.lam = mat.NewDense(m, 1, nil), mat.NewDense(m, 1, nil), mat.NewDense(1, t, nil), []float64{0}
		return gm, nil
	}
	gm.lam = lam[first:]
	v := km.Slice(0, m, first, m).(*mat.Dense) // V, in place of K
	qg.centreInPlace(v)                        // C·V
	// μ = (P̄ᵀK·S)·V·Λ^{-1/2}: the query means of K, centred and scaled per query like S
	ks := qg.mulSqrtL(mat.DenseCopyOf(means.T())) // S·K·P̄ = (P̄ᵀK·S)ᵀ, m×q
	mu := linalg.Mul(true, false, ks, v)          // q×k
	sq, isq := make([]float64, len(gm.lam)), make([]float64, len(gm.lam))
	for j, l := range gm.lam {
		sq[j] = math.Sqrt(l)
		isq[j] = 1 / sq[j]
	}
	gm.psi = mat.NewDense(m, len(gm.lam), nil)
	for c, mem := range qg.members {
		sigma := qg.sigma(len(mem))
		muc := mu.RawRowView(c)
		for _, i := range mem {
			vi, pi := v.RawRowView(i), gm.psi.RawRowView(i)
			for j := range pi {
				pi[j] = muc[j] * isq[j]
				if sigma > 0 {
					pi[j] += vi[j] * sq[j] / sigma
				}
			}
		}
	}
	// T_ΦW = S·V·Λ^{-1/2}, in place of V (C·V already)
	for _, mem := range qg.members {
		sigma := qg.sigma(len(mem))
		for _, i := range mem {
			vi := v.RawRowView(i)
			for j := range vi {
				vi[j] *= sigma * isq[j]
			}
		}
	}
	gm.tv = v
	gm.z = linalg.Mul(true, false, gm.psi, gm.b)
	return gm, nil
}

// Solve returns the model at λ: O(m·k·t), no refactorization.
func (q *Query) Solve(lambda float64) (*GraphSolution, error) { return q.solve(lambda) }

// WithLabels returns the model of the same data, queries and kernel for other
// scores Y (m×t'), sharing the factorization: O(m·k·t').
func (q *Query) WithLabels(y *mat.Dense, outputs []string) (*Query, error) {
	outs, err := learn.CheckLabels(y, len(q.q.of), outputs)
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	qg := &queryGraph{of: q.q.of, members: q.q.members, y: mat.DenseCopyOf(y), normalized: q.q.normalized}
	return &Query{graphModel: q.withGraph(qg, outs), q: qg}, nil
}

// Perturbed is the twin of learn.Perturber: scores times s, the
// eigenvalues of ΦᵀLΦ moved up by their rounding error. O(m·k·t).
func (q *Query) Perturbed(s float64) (learn.Learner, error) {
	var y mat.Dense
	y.Scale(s, q.q.y)
	qg := &queryGraph{of: q.q.of, members: q.q.members, y: &y, normalized: q.q.normalized}
	gm := q.withGraph(qg, q.meta.Outputs)
	gm.lam = perturbed(gm.lam)
	return &Query{graphModel: gm, q: qg}, nil
}

// Relabel is WithLabels as the learn.Relabeler capability.
func (q *Query) Relabel(y *mat.Dense, outputs []string) (learn.Learner, error) {
	return q.WithLabels(y, outputs)
}

// Name is learn.QueryRank.
func (q *Query) Name() learn.Name { return learn.QueryRank }

// Labels returns the scores Y (shared; do not modify).
func (q *Query) Labels() *mat.Dense { return q.q.y }

// At is Solve as the learn.Learner contract.
func (q *Query) At(lambda float64) (learn.Solution, error) { return q.Solve(lambda) }

// Queries returns the rows of each query, in order of first appearance.
func (q *Query) Queries() [][]int { return q.q.members }

// LeaveQueryOut returns the predictions for every row from the model trained
// without its query (a solution of a Query model; others fail with ErrQueries) (Pahikkala et al. 2009, sect. 3.3). The λ-independent part of each
// query's hold-out is computed once per model (O(Σ_q n_q²k + n_q³)); each λ then
// costs O(Σ_q n_q²k) = O(m·n̄·k). Fewer than two queries with a pair is an error
// wrapping ErrTooFew.
func (s *GraphSolution) LeaveQueryOut() (*mat.Dense, error) {
	q, ok := s.m.g.(*queryGraph)
	if !ok {
		return nil, fmt.Errorf("%w: leave-query-out of a %s model", ErrQueries, s.m.meta.Name)
	}
	usable := 0
	for _, mem := range q.members {
		if len(mem) > 1 {
			usable++
		}
	}
	if usable < 2 {
		return nil, fmt.Errorf("%w: %d queries with at least two items", ErrTooFew, usable)
	}
	m, t := s.f.Dims()
	out := mat.NewDense(m, t, nil)
	// queries are independent: two workers per core's worth of small BLAS calls
	members := q.members
	workers := min(runtime.GOMAXPROCS(0), len(members))
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	// the goroutines use the cores; many small BLAS calls gain nothing from BLAS threads on top
	linalg.SerialBLAS(func() {
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := w; k < len(members); k += workers {
					c, err := s.m.cachedHoldOut(members[k])
					if err != nil {
						errs[k] = fmt.Errorf("query %d: %w", k, err)
						continue
					}
					p, err := s.holdOut(c)
					if err != nil {
						errs[k] = fmt.Errorf("query %d: %w", k, err)
						continue
					}
					for n, i := range c.u {
						copy(out.RawRowView(i), p.RawRowView(n)) // rows of distinct queries: no overlap
					}
				}
			}()
		}
		wg.Wait()
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// queryGraph is L = D − PPᵀ over the queries (normalized: every query's
// block divided by its size), with b = LY.
type queryGraph struct {
	of         []int   // row → query code
	members    [][]int // query code → rows ascending
	y          *mat.Dense
	normalized bool
}

// weight is the factor of a query's complete-graph Laplacian: 1, or 1/n when normalized.
func (g *queryGraph) weight(n int) float64 {
	if g.normalized && n > 0 {
		return 1 / float64(n)
	}
	return 1
}

func newQueryGraph(queries []int, y *mat.Dense) *queryGraph {
	code := map[int]int{}
	g := &queryGraph{of: make([]int, len(queries)), y: y}
	for i, q := range queries {
		c, ok := code[q]
		if !ok {
			c = len(g.members)
			code[q] = c
			g.members = append(g.members, nil)
		}
		g.of[i] = c
		g.members[c] = append(g.members[c], i)
	}
	return g
}

// mulL computes (D − PPᵀ)X = D·C·X in O(m·k): C centres every query, D scales
// row i by its query's size n_q (the complete graph's Laplacian is n_q·C_q).
func (g *queryGraph) mulL(x *mat.Dense) *mat.Dense {
	return g.scaleBySize(centre(x, g.of), func(n float64) float64 { return n * g.weight(int(n)) })
}

func (g *queryGraph) b() *mat.Dense { return g.mulL(g.y) }

// mulSqrtL computes L^{1/2}X = blockdiag(√n_q·C_q)X in O(m·k).
func (g *queryGraph) mulSqrtL(x *mat.Dense) *mat.Dense {
	return g.scaleBySize(centre(x, g.of), func(n float64) float64 { return math.Sqrt(n * g.weight(int(n))) })
}

// sigma is σ_q = √(n_q·w_q), the factor of a query's block of L^{1/2} =
// σ_q·C_q; 0 for a single-item query, whose block of C is 0.
func (g *queryGraph) sigma(n int) float64 {
	if n < 2 {
		return 0
	}
	return math.Sqrt(float64(n) * g.weight(n))
}

// queryMeans returns P̄ᵀK (q×m): row c is the mean of K's rows in query c. O(m²).
func (g *queryGraph) queryMeans(k *mat.Dense) *mat.Dense {
	_, n := k.Dims()
	out := mat.NewDense(len(g.members), n, nil)
	for c, mem := range g.members {
		row := out.RawRowView(c)
		for _, i := range mem {
			for j, v := range k.RawRowView(i) {
				row[j] += v
			}
		}
		inv := 1 / float64(len(mem))
		for j := range row {
			row[j] *= inv
		}
	}
	return out
}

// sandwich overwrites the symmetric K (m×m) with SKS, given its query means
// A = P̄ᵀK: for i in query a and j in query b,
//
//	(SKS)_ij = σ_aσ_b (K_ij − A_aj − A_bi + Ā_ab),   Ā_ab = mean of A_a over the rows of b,
//
// each entry once, the upper triangle computed and mirrored so the result is
// exactly symmetric. O(m² + q·m).
func (g *queryGraph) sandwich(k, a *mat.Dense) {
	m, _ := k.Dims()
	nq := len(g.members)
	abar := mat.NewDense(nq, nq, nil)
	for ca := 0; ca < nq; ca++ {
		row := a.RawRowView(ca)
		for cb := ca; cb < nq; cb++ {
			s := 0.0
			for _, j := range g.members[cb] {
				s += row[j]
			}
			s /= float64(len(g.members[cb]))
			abar.Set(ca, cb, s)
			abar.Set(cb, ca, s)
		}
	}
	sig := make([]float64, nq)
	for c, mem := range g.members {
		sig[c] = g.sigma(len(mem))
	}
	col := make([]float64, nq) // A_·i
	for i := 0; i < m; i++ {
		ca := g.of[i]
		ki, ai := k.RawRowView(i), a.RawRowView(ca)
		abi := abar.RawRowView(ca)
		si := sig[ca]
		for c := range col {
			col[c] = a.At(c, i)
		}
		for j := i; j < m; j++ {
			cb := g.of[j]
			ki[j] = si * sig[cb] * (ki[j] - ai[j] - col[cb] + abi[cb])
		}
	}
	for i := 0; i < m; i++ {
		for j := 0; j < i; j++ {
			k.Set(i, j, k.At(j, i))
		}
	}
}

// centreInPlace subtracts from every row of x (m×k) the mean of its query's rows.
func (g *queryGraph) centreInPlace(x *mat.Dense) {
	_, k := x.Dims()
	mean := make([]float64, k)
	for _, mem := range g.members {
		clear(mean)
		for _, i := range mem {
			for j, v := range x.RawRowView(i) {
				mean[j] += v
			}
		}
		inv := 1 / float64(len(mem))
		for _, i := range mem {
			row := x.RawRowView(i)
			for j := range row {
				row[j] -= mean[j] * inv
			}
		}
	}
}

// scaleBySize multiplies, in place, every row of x by f(n_q) for its query's size n_q.
func (g *queryGraph) scaleBySize(x *mat.Dense, f func(n float64) float64) *mat.Dense {
	for _, mem := range g.members {
		sc := f(float64(len(mem)))
		for _, i := range mem {
			row := x.RawRowView(i)
			for c := range row {
				row[c] *= sc
			}
		}
	}
	return x
}

func (g *queryGraph) components() []int { return g.of }

// removal: the queries of U lose every pair that involves a row of U. For each
// such query (members M, remaining R = M∖U), ΔL = L_M − L_R (the complete-graph
// Laplacians), Δb = ΔL·Y_M. T is the union of those queries.
func (g *queryGraph) removal(u []int) ([]int, *mat.Dense, *mat.Dense) {
	held := make(map[int]bool, len(u))
	affected := map[int]bool{}
	for _, i := range u {
		held[i] = true
		affected[g.of[i]] = true
	}
	var t []int
	for c := range affected {
		t = sortedUnion(t, g.members[c])
	}
	pos := make(map[int]int, len(t))
	for n, i := range t {
		pos[i] = n
	}
	dl := mat.NewDense(len(t), len(t), nil)
	for c := range affected {
		mem := g.members[c]
		remaining := 0
		for _, i := range mem {
			if !held[i] {
				remaining++
			}
		}
		wf, wr := g.weight(len(mem)), g.weight(remaining)
		for _, i := range mem {
			for _, j := range mem {
				full, reduced := -wf, 0.0
				if i == j {
					full = float64(len(mem)-1) * wf
				}
				if !held[i] && !held[j] {
					reduced = -wr
					if i == j {
						reduced = float64(remaining-1) * wr
					}
				}
				dl.Set(pos[i], pos[j], full-reduced)
			}
		}
	}
	db := linalgMul(dl, rows(g.y, t))
	return t, dl, db
}
