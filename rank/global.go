package rank

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
)

// Global is RankRLS in the scoring setting over all pairs with the magnitude-
// preserving cost (21): c(f) = ½Σ_{i,j}((y_i − y_j) − (f_i − f_j))² = (Y − f)ᵀL(Y − f),
// L = mI − 11ᵀ (Pahikkala et al. 2009, eqs. (24)–(25)). The Laplacian is a diagonal plus a
// rank-one term, so no second eigendecomposition is needed: with
// Q_u = (n·I + λK⁻¹)⁻¹ = U diag(e/(ne + λ)) Uᵀ for n = m − u on the factor,
// training, the λ path and every hold-out are Sherman–Morrison–Woodbury
// updates (Pahikkala et al. 2008; Pahikkala et al. 2009, sect. 3.4).
type Global struct {
	meta learn.Meta
	d    *factor.Data
	y    *mat.Dense // m×t
	uty  *mat.Dense // UᵀY, r×t
	c1   []float64  // Uᵀ1
	sumY []float64  // 1ᵀY
}

// FitGlobal trains on X (m×d) and the scores Y (m×t). Cost: the factor plus O(m·r·t).
func FitGlobal(x mat.Matrix, y *mat.Dense, opt Options) (*Global, error) {
	if err := matrix.Check(x); err != nil {
		return nil, fmt.Errorf("rank: %w: %w", learn.ErrShape, err)
	}
	m, _ := x.Dims()
	outs, err := learn.CheckLabels(y, m, opt.Outputs)
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	d, sc, err := build(x, opt)
	if err != nil {
		return nil, err
	}
	ones := mat.NewVecDense(m, nil)
	for i := 0; i < m; i++ {
		ones.SetVec(i, 1)
	}
	c1 := mat.NewVecDense(d.Rank(), nil)
	c1.MulVec(d.U.T(), ones)
	return newGlobal(learn.Meta{Name: learn.GlobalRank, Data: d, Outputs: outs, Scaler: sc}, c1.RawVector().Data, y), nil
}

func newGlobal(meta learn.Meta, c1 []float64, y *mat.Dense) *Global {
	g := &Global{meta: meta, d: meta.Data, c1: c1, y: mat.DenseCopyOf(y)}
	g.uty = linalg.Mul(true, false, g.d.U, g.y)
	_, t := y.Dims()
	g.sumY = make([]float64, t)
	for c := range g.sumY {
		g.sumY[c] = mat.Sum(g.y.ColView(c))
	}
	return g
}

// WithLabels returns the model of the same data and kernel for other scores Y
// (m×t'), sharing the factorization: O(m·r·t').
func (g *Global) WithLabels(y *mat.Dense, outputs []string) (*Global, error) {
	outs, err := learn.CheckLabels(y, g.d.Rows(), outputs)
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	meta := g.meta
	meta.Outputs = outs
	return newGlobal(meta, g.c1, y), nil
}

// Relabel is WithLabels as the learn.Relabeler capability.
func (g *Global) Relabel(y *mat.Dense, outputs []string) (learn.Learner, error) {
	return g.WithLabels(y, outputs)
}

// Perturbed is the twin of learn.Perturber: scores times s on the factor
// with perturbed eigenvalues. O(m·r·t).
func (g *Global) Perturbed(s float64) (learn.Learner, error) {
	var y mat.Dense
	y.Scale(s, g.y)
	return newGlobal(g.meta.Perturbed(), g.c1, &y), nil
}

// Name is learn.GlobalRank.
func (g *Global) Name() learn.Name { return learn.GlobalRank }

// Labels returns the scores Y (shared; do not modify).
func (g *Global) Labels() *mat.Dense { return g.y }

// At is Solve as the learn.Learner contract.
func (g *Global) At(lambda float64) (learn.Solution, error) { return g.Solve(lambda) }

// GlobalSolution is the Global model at one λ with its cross-validation shortcuts.
type GlobalSolution struct {
	g      *Global
	Lambda float64
	ub     *mat.Dense // Uᵀ(b + 1γᵀ), r×t
	f      *mat.Dense // training predictions

	pairMu sync.Mutex
	pair   *qCache // Q_2's entries the last pairs needed, and its products, for leave-pair-out
}

// gu returns e/((m−u)e + λ) for every eigenvalue: Q_u = U diag(gu) Uᵀ.
func (s *GlobalSolution) gu(u int) []float64 {
	n := float64(s.g.d.Rows() - u)
	out := make([]float64, s.g.d.Rank())
	for k, e := range s.g.d.E {
		out[k] = e / (n*e + s.Lambda)
	}
	return out
}

// Solve returns the model at λ: O(m·r·t), no refactorization. With b = LY and
// Q_0 = U diag(e/(me+λ)) Uᵀ, the training predictions are
// f = (L + λK⁻¹)⁻¹b = Q_0(b + 1γ), γ = 1ᵀQ_0b / (1 − 1ᵀQ_0 1) (Sherman–Morrison).
func (g *Global) Solve(lambda float64) (*GlobalSolution, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	m := float64(g.d.Rows())
	for _, e := range g.d.E {
		if !(m*e+lambda > 0) {
			return nil, fmt.Errorf("rank: %w: eigenvalue %g with lambda %g", learn.ErrIndefinite, e, lambda)
		}
	}
	s := &GlobalSolution{g: g, Lambda: lambda}
	g0 := s.gu(0)
	_, t := g.y.Dims()
	// Uᵀb = m·UᵀY − (Uᵀ1)(1ᵀY)
	ub := mat.DenseCopyOf(g.uty)
	ub.Scale(m, ub)
	for k, c := range g.c1 {
		row := ub.RawRowView(k)
		for j := range row {
			row[j] -= c * g.sumY[j]
		}
	}
	oneQone := 0.0
	for k, c := range g.c1 {
		oneQone += g0[k] * c * c
	}
	for j := 0; j < t; j++ {
		oneQb := 0.0
		for k, c := range g.c1 {
			oneQb += g0[k] * c * ub.At(k, j)
		}
		gamma := oneQb / (1 - oneQone)
		for k, c := range g.c1 {
			ub.Set(k, j, ub.At(k, j)+c*gamma)
		}
	}
	s.ub = ub
	s.f = linalg.Mul(false, false, g.d.U, linalg.ScaleRows(ub, g0))
	return s, nil
}

// Fitted returns the training predictions (shared; do not modify).
func (s *GlobalSolution) Fitted() *mat.Dense { return s.f }

// Coefficients returns the model's coefficients: dual a = (LK + λI)⁻¹b =
// U diag(1/(me+λ)) Uᵀ(b + 1γ); low rank T diag(s/(ms²+λ)) Uᵀ(b + 1γ). O(m·r·t).
func (s *GlobalSolution) Coefficients() *mat.Dense {
	d := s.g.d
	m := float64(d.Rows())
	psi := make([]float64, d.Rank())
	for k, e := range d.E {
		if d.Form == factor.Dual {
			psi[k] = 1 / (m*e + s.Lambda)
		} else {
			psi[k] = d.S[k] / (m*e + s.Lambda)
		}
	}
	t := d.T
	if t == nil {
		t = d.U
	}
	return linalg.Mul(false, false, t, linalg.ScaleRows(s.ub, psi))
}

// Predictor returns the trained predictor at λ.
func (s *GlobalSolution) Predictor() *model.Predictor {
	return s.g.meta.Predictor(s.Coefficients(), s.Lambda)
}

// qBlock holds what the hold-out of rows U needs of Q_u: Q_UU, (Q1)_U, (QY)_U,
// 1ᵀQ1 and 1ᵀQY.
type qBlock struct {
	quu     *mat.Dense
	q1u     []float64
	qyu     *mat.Dense
	oneQone float64
	oneQY   []float64
}

// block computes the pieces for rows U from the factor: O(|U|²r + |U|·r·t).
func (s *GlobalSolution) block(u []int) qBlock {
	g := s.g
	gu := s.gu(len(u))
	uu := rows(g.d.U, u)
	var b qBlock
	b.quu = linalg.Mul(false, true, linalg.ScaleCols(uu, gu), uu)
	gc := make([]float64, len(gu))
	for k := range gu {
		gc[k] = gu[k] * g.c1[k]
		b.oneQone += gc[k] * g.c1[k]
	}
	q1 := mat.NewVecDense(len(u), nil)
	q1.MulVec(uu, mat.NewVecDense(len(gc), gc))
	b.q1u = q1.RawVector().Data
	gy := linalg.ScaleRows(g.uty, gu)
	b.qyu = linalg.Mul(false, false, uu, gy)
	_, t := g.y.Dims()
	b.oneQY = make([]float64, t)
	for k, c := range g.c1 {
		for j := 0; j < t; j++ {
			b.oneQY[j] += c * gy.At(k, j)
		}
	}
	return b
}

// holdOut evaluates Pahikkala et al. 2009 eq. (38) for the rows U given Q_u's pieces:
// with n = m − |U|, B = [1_Ū, √n·I_U], L̃ = nI − BBᵀ and b̃ = L̃Y,
//
//	f_U = (Qb̃)_U + (QB)_U (I − BᵀQB)⁻¹ BᵀQb̃.
//
// O(|U|³ + |U|²t).
func (s *GlobalSolution) holdOut(u []int, b qBlock) (*mat.Dense, error) {
	g := s.g
	nu := len(u)
	_, t := g.y.Dims()
	n := float64(g.d.Rows() - nu)
	sn := sqrt(n)
	qbu := mat.NewDense(nu, nu+1, nil) // (QB)_U
	for h := 0; h < nu; h++ {
		rowSum := 0.0
		for k := 0; k < nu; k++ {
			rowSum += b.quu.At(h, k)
			qbu.Set(h, k+1, sn*b.quu.At(h, k))
		}
		qbu.Set(h, 0, b.q1u[h]-rowSum)
	}
	bqb := mat.NewDense(nu+1, nu+1, nil) // BᵀQB
	corner := b.oneQone
	for h := 0; h < nu; h++ {
		corner -= 2 * b.q1u[h]
		for k := 0; k < nu; k++ {
			corner += b.quu.At(h, k)
			bqb.Set(h+1, k+1, n*b.quu.At(h, k))
		}
		bqb.Set(0, h+1, sn*qbu.At(h, 0))
		bqb.Set(h+1, 0, sn*qbu.At(h, 0))
	}
	bqb.Set(0, 0, corner)
	by := mat.NewDense(nu+1, t, nil)  // BᵀY
	bqy := mat.NewDense(nu+1, t, nil) // BᵀQY
	for j := 0; j < t; j++ {
		s0, q0 := g.sumY[j], b.oneQY[j]
		for h, i := range u {
			yi := g.y.At(i, j)
			s0 -= yi
			q0 -= b.qyu.At(h, j)
			by.Set(h+1, j, sn*yi)
			bqy.Set(h+1, j, sn*b.qyu.At(h, j))
		}
		by.Set(0, j, s0)
		bqy.Set(0, j, q0)
	}
	// (Qb̃)_U = n(QY)_U − (QB)_U BᵀY;  BᵀQb̃ = n BᵀQY − BᵀQB BᵀY
	qbt := mat.DenseCopyOf(b.qyu)
	qbt.Scale(n, qbt)
	linalg.Gemm(false, false, -1, qbu, by, 1, qbt)
	bqbt := mat.DenseCopyOf(bqy)
	bqbt.Scale(n, bqbt)
	linalg.Gemm(false, false, -1, bqb, by, 1, bqbt)
	w := mat.DenseCopyOf(bqb)
	w.Scale(-1, w)
	for h := 0; h <= nu; h++ {
		w.Set(h, h, w.At(h, h)+1)
	}
	z, err := solve(w, bqbt)
	if err != nil {
		return nil, fmt.Errorf("rank: hold-out of %d rows at lambda %g: %w", nu, s.Lambda, err)
	}
	linalg.Gemm(false, false, 1, qbu, z, 1, qbt)
	return qbt, nil
}

// HoldOut returns the predictions for the rows U of the model retrained without
// them (every pair touching U leaves the loss; Pahikkala et al. 2008, Theorem 1):
// O(|U|²r + |U|³ + |U|·r·t).
func (s *GlobalSolution) HoldOut(u []int) (*mat.Dense, error) {
	if err := learn.CheckHoldOut(u, s.g.d.Rows()); err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	if s.g.d.Rows()-len(u) < 2 {
		return nil, fmt.Errorf("rank: %w: %d rows left, a ranking needs 2", learn.ErrHoldOut, s.g.d.Rows()-len(u))
	}
	return s.holdOut(u, s.block(u))
}

// LeaveOneOut holds out each row in turn: O(m·(r + t)).
func (s *GlobalSolution) LeaveOneOut() (*mat.Dense, error) { return leaveOneOut(s.f, s.HoldOut) }

// qCache holds what leave-pair-out needs of Q_2 = U diag(e/((m−2)e+λ)) Uᵀ —
// the set-up (39) of Pahikkala et al. 2009: its diagonal, its products with 1
// and Y, and its entries between the two sides A, B of the pairs' graph
// (Q_AB; A = B = every row when that graph is not bipartite).
type qCache struct {
	qab        *mat.Dense // Q_2 on rows A × columns B
	posA, posB []int      // row → its index in A, B; −1 when absent
	qd         []float64  // diag Q_2
	q1         []float64  // Q_2·1
	qy         *mat.Dense // Q_2·Y
	oneQone    float64
	oneQY      []float64
}

// at returns the entry (i, j) of Q_2 for a pair the cache covers.
func (c *qCache) at(i, j int) float64 {
	if a, b := c.posA[i], c.posB[j]; a >= 0 && b >= 0 {
		return c.qab.At(a, b)
	}
	return c.qab.At(c.posA[j], c.posB[i])
}

// covers reports whether every pair has one row in A and the other in B.
func (c *qCache) covers(pairs []learn.Pair) bool {
	for _, p := range pairs {
		if !(c.posA[p.I] >= 0 && c.posB[p.J] >= 0 || c.posA[p.J] >= 0 && c.posB[p.I] >= 0) {
			return false
		}
	}
	return true
}

// sides 2-colours the graph whose edges are the pairs (breadth first): A and
// B are its two sides, rows in no pair in neither; ok is false when the graph
// has an odd cycle. O(m + pairs).
func sides(m int, pairs []learn.Pair) (a, b []int, ok bool) {
	adj := make([][]int32, m)
	for _, p := range pairs {
		adj[p.I] = append(adj[p.I], int32(p.J))
		adj[p.J] = append(adj[p.J], int32(p.I))
	}
	colour := make([]int8, m) // 0 unseen, 1 side A, 2 side B
	var queue []int32
	for r := 0; r < m; r++ {
		if colour[r] != 0 || len(adj[r]) == 0 {
			continue
		}
		colour[r] = 1
		queue = append(queue[:0], int32(r))
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			for _, j := range adj[i] {
				switch colour[j] {
				case 0:
					colour[j] = 3 - colour[i]
					queue = append(queue, j)
				case colour[i]:
					return nil, nil, false
				}
			}
		}
	}
	for i, c := range colour {
		switch c {
		case 1:
			a = append(a, i)
		case 2:
			b = append(b, i)
		}
	}
	return a, b, true
}

// LeavePairOut returns, for every pair, the predictions for both rows of the
// model retrained without them. After the set-up (39) — the entries of Q_2 the
// pairs need, by one gemm: between the two sides A, B of the pairs' graph
// when it is bipartite (positive against negative rows: O(|A|·|B|·r) ≤
// O(m²r/4)), all of Q_2 otherwise (O(m²r)) — each pair costs O(t), the pairs
// shared among the cores (Pahikkala et al. 2009, sect. 3.4; Pahikkala et al.
// 2008, Theorem 2). With few pairs (< |A|·|B|/8), or when the memory
// available cannot hold Q_AB (factor.CheckMemory), each is computed from the
// factor in O(r·t) instead.
func (s *GlobalSolution) LeavePairOut(pairs []learn.Pair) (pi, pj *mat.Dense, err error) {
	m, t := s.g.y.Dims()
	if err := learn.CheckPairs(pairs, m, 4); err != nil {
		return nil, nil, fmt.Errorf("rank: %w", err)
	}
	pi, pj = mat.NewDense(len(pairs), t, nil), mat.NewDense(len(pairs), t, nil)
	if c := s.pairCache(pairs); c != nil {
		if err := c.holdOutPairs(s.g, pairs, pi, pj); err != nil {
			return nil, nil, fmt.Errorf("rank: %w at lambda %g", err, s.Lambda)
		}
		return pi, pj, nil
	}
	for n, p := range pairs {
		u := []int{p.I, p.J}
		h, err := s.holdOut(u, s.block(u))
		if err != nil {
			return nil, nil, err
		}
		pi.SetRow(n, h.RawRowView(0))
		pj.SetRow(n, h.RawRowView(1))
	}
	return pi, pj, nil
}

// pairCache returns the set-up covering the pairs — the last one when it
// does, else a new one — or nil when the pairs are too few to pay for it or
// the memory available cannot hold it.
func (s *GlobalSolution) pairCache(pairs []learn.Pair) *qCache {
	s.pairMu.Lock()
	defer s.pairMu.Unlock()
	if s.pair != nil && s.pair.covers(pairs) {
		return s.pair
	}
	m := s.g.d.Rows()
	a, b, ok := sides(m, pairs)
	if !ok {
		a = everyRow(m)
		b = a
	}
	entries := float64(len(a)) * float64(len(b))
	if float64(len(pairs)) < entries/8 || factor.CheckMemory(m, entries/(float64(m)*float64(m))) != nil {
		return nil
	}
	s.pair = s.setupPairs(a, b)
	return s.pair
}

// everyRow is 0, …, m−1.
func everyRow(m int) []int {
	out := make([]int, m)
	for i := range out {
		out[i] = i
	}
	return out
}

// pairsPerWorker is the fewest pairs worth a goroutine of holdOutPairs (a
// variable so that a test can split a few pairs among workers).
var pairsPerWorker = 4096

// holdOutPairs evaluates every pair from the cache into the rows of pi and
// pj, the pairs split among the cores; the error is that of the first pair
// that fails. O(t) per pair.
func (c *qCache) holdOutPairs(g *Global, pairs []learn.Pair, pi, pj *mat.Dense) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(pairs)/pairsPerWorker))
	chunk := (len(pairs) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := w * chunk; n < min(len(pairs), (w+1)*chunk); n++ {
				p := pairs[n]
				if err := c.holdOutPair(g, p.I, p.J, pi.RawRowView(n), pj.RawRowView(n)); err != nil {
					errs[w] = fmt.Errorf("pair (%d, %d): %w", p.I, p.J, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// holdOutPair is holdOut for U = {i, j} written out in scalars, reading Q_2's
// entries from the cache: O(t) time, no allocation (Pahikkala et al. 2009, eqs. (38)–(39)).
func (c *qCache) holdOutPair(g *Global, i, j int, outI, outJ []float64) error {
	n := float64(g.d.Rows() - 2)
	sn := math.Sqrt(n)
	qii, qij, qjj := c.qd[i], c.at(i, j), c.qd[j]
	// (QB)_U: rows h ∈ {i, j}, columns [1_Ū, √n e_i, √n e_j]
	a0, a1, a2 := c.q1[i]-qii-qij, sn*qii, sn*qij
	b0, b1, b2 := c.q1[j]-qij-qjj, sn*qij, sn*qjj
	// BᵀQB, symmetric 3×3
	m00 := c.oneQone - 2*(c.q1[i]+c.q1[j]) + qii + 2*qij + qjj
	m01, m02 := sn*a0, sn*b0
	m11, m12, m22 := n*qii, n*qij, n*qjj
	// W = I − BᵀQB and its inverse by cofactors
	w00, w01, w02 := 1-m00, -m01, -m02
	w11, w12, w22 := 1-m11, -m12, 1-m22
	c00 := w11*w22 - w12*w12
	c01 := w02*w12 - w01*w22
	c02 := w01*w12 - w02*w11
	det := w00*c00 + w01*c01 + w02*c02
	if det == 0 || math.IsNaN(det) {
		return errors.New("singular hold-out system")
	}
	c11 := w00*w22 - w02*w02
	c12 := w01*w02 - w00*w12
	c22 := w00*w11 - w01*w01
	yi, yj := g.y.RawRowView(i), g.y.RawRowView(j)
	qyi, qyj := c.qy.RawRowView(i), c.qy.RawRowView(j)
	for k := range outI {
		// BᵀY and BᵀQY
		by0, by1, by2 := g.sumY[k]-yi[k]-yj[k], sn*yi[k], sn*yj[k]
		bq0, bq1, bq2 := c.oneQY[k]-qyi[k]-qyj[k], sn*qyi[k], sn*qyj[k]
		// (Qb̃)_U and BᵀQb̃
		fi := n*qyi[k] - (a0*by0 + a1*by1 + a2*by2)
		fj := n*qyj[k] - (b0*by0 + b1*by1 + b2*by2)
		r0 := n*bq0 - (m00*by0 + m01*by1 + m02*by2)
		r1 := n*bq1 - (m01*by0 + m11*by1 + m12*by2)
		r2 := n*bq2 - (m02*by0 + m12*by1 + m22*by2)
		// z = W⁻¹ r
		z0 := (c00*r0 + c01*r1 + c02*r2) / det
		z1 := (c01*r0 + c11*r1 + c12*r2) / det
		z2 := (c02*r0 + c12*r1 + c22*r2) / det
		outI[k] = fi + a0*z0 + a1*z1 + a2*z2
		outJ[k] = fj + b0*z0 + b1*z1 + b2*z2
	}
	return nil
}

// setupPairs computes the cache for pairs between the rows a and b: Q_AB by
// one gemm, O(|A|·|B|·r); the diagonal, Q_2·1 = U(g∘Uᵀ1) and Q_2·Y =
// U(g∘UᵀY) on the rows of A ∪ B, O(|A ∪ B|·r·t), and 1ᵀQ_2 1, 1ᵀQ_2 Y from
// Uᵀ1 in O(r·t) — so that a few pairs (the tie rule's twin samples 1/64 of
// them) cost in their rows, not in m.
func (s *GlobalSolution) setupPairs(a, b []int) *qCache {
	g := s.g
	g2 := s.gu(2)
	u := g.d.U
	m, t := g.y.Dims()
	c := &qCache{posA: make([]int, m), posB: make([]int, m)}
	for i := range c.posA {
		c.posA[i], c.posB[i] = -1, -1
	}
	for n, i := range a {
		c.posA[i] = n
	}
	for n, i := range b {
		c.posB[i] = n
	}
	ua := rows(u, a)
	ub := ua
	if !slices.Equal(a, b) {
		ub = rows(u, b)
	}
	c.qab = linalg.Mul(false, true, linalg.ScaleCols(ua, g2), ub)
	// diag Q_2, Q_2·1 and Q_2·Y on the rows of A ∪ B only (the pairs' rows):
	// O(|A ∪ B|·r·t), U's rows copied only when they are not all of them
	var used []int
	for i := 0; i < m; i++ {
		if c.posA[i] >= 0 || c.posB[i] >= 0 {
			used = append(used, i)
		}
	}
	uu := u
	if len(used) < m {
		uu = rows(u, used)
	}
	gc := make([]float64, len(g2))
	for k := range g2 {
		gc[k] = g2[k] * g.c1[k]
		c.oneQone += gc[k] * g.c1[k] // 1ᵀQ_2 1 = Σ_k g_k (Uᵀ1)_k²
	}
	q1 := mat.NewVecDense(len(used), nil)
	q1.MulVec(uu, mat.NewVecDense(len(gc), gc))
	gy := linalg.ScaleRows(g.uty, g2)
	qy := linalg.Mul(false, false, uu, gy)
	c.qd, c.q1, c.qy = make([]float64, m), make([]float64, m), mat.NewDense(m, t, nil)
	for n, i := range used {
		v := 0.0
		for k, x := range uu.RawRowView(n) {
			v += x * x * g2[k]
		}
		c.qd[i], c.q1[i] = v, q1.AtVec(n)
		c.qy.SetRow(i, qy.RawRowView(n))
	}
	c.oneQY = make([]float64, t) // 1ᵀQ_2 Y = Σ_k (Uᵀ1)_k g_k (UᵀY)_k
	for k, cv := range g.c1 {
		for j := 0; j < t; j++ {
			c.oneQY[j] += cv * gy.At(k, j)
		}
	}
	return c
}
