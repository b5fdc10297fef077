package rank

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"rlskit/factor"
	"rlskit/internal/linalg"
	"rlskit/model"
	"rlskit/rls"
)

// Global is RankRLS in the scoring setting over all pairs with the magnitude-
// preserving cost (21): c(f) = ½Σ_{i,j}((y_i − y_j) − (f_i − f_j))² = (Y − f)ᵀL(Y − f),
// L = mI − 11ᵀ (paper 002, eqs. (24)–(25)). The Laplacian is a diagonal plus a
// rank-one term, so no second eigendecomposition is needed: with
// Q_u = K(m−u)K + λI)⁻¹... written on the factor as Q_u = U diag(e/((m−u)e + λ)) Uᵀ,
// training, the λ path and every hold-out are Sherman–Morrison–Woodbury
// updates (paper 000; paper 002, sect. 3.4).
type Global struct {
	d    *factor.Data
	y    *mat.Dense // m×t
	uty  *mat.Dense // UᵀY, r×t
	c1   []float64  // Uᵀ1
	sumY []float64  // 1ᵀY
	outs []string
}

// FitGlobal trains on X (m×d) and the scores Y (m×t). Cost: the factor plus O(m·r·t).
func FitGlobal(x mat.Matrix, y *mat.Dense, opt Options) (*Global, error) {
	m, _ := x.Dims()
	outs, err := checkLabels(y, m, opt.Outputs)
	if err != nil {
		return nil, err
	}
	d, err := build(x, opt)
	if err != nil {
		return nil, err
	}
	g := &Global{d: d, y: mat.DenseCopyOf(y), outs: outs}
	u := d.U
	g.uty = linalg.Mul(true, false, u, g.y)
	ones := mat.NewVecDense(m, nil)
	for i := 0; i < m; i++ {
		ones.SetVec(i, 1)
	}
	c1 := mat.NewVecDense(d.Rank(), nil)
	c1.MulVec(u.T(), ones)
	g.c1 = c1.RawVector().Data
	_, t := y.Dims()
	g.sumY = make([]float64, t)
	for c := range g.sumY {
		g.sumY[c] = mat.Sum(g.y.ColView(c))
	}
	return g, nil
}

// GlobalSolution is the Global model at one λ with its cross-validation shortcuts.
type GlobalSolution struct {
	g      *Global
	Lambda float64
	ub     *mat.Dense // Uᵀ(b + 1γᵀ), r×t
	f      *mat.Dense // training predictions

	pairOnce sync.Once
	pair     *qCache // Q_2 and its products, for leave-pair-out
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
	if err := rls.CheckLambda(lambda); err != nil {
		return nil, err
	}
	m := float64(g.d.Rows())
	for _, e := range g.d.E {
		if !(m*e+lambda > 0) {
			return nil, fmt.Errorf("%w: eigenvalue %g with lambda %g", rls.ErrIndefinite, e, lambda)
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
	s.f = linalg.Mul(false, false, g.d.U, scaleRows(ub, g0))
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
	return linalg.Mul(false, false, t, scaleRows(s.ub, psi))
}

// Predictor returns the trained predictor at λ.
func (s *GlobalSolution) Predictor() *model.Predictor {
	return s.g.d.Predictor(s.Coefficients(), "globalrank", s.Lambda, s.g.outs)
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
	b.quu = linalg.Mul(false, true, scaleCols(uu, gu), uu)
	gc := make([]float64, len(gu))
	for k := range gu {
		gc[k] = gu[k] * g.c1[k]
		b.oneQone += gc[k] * g.c1[k]
	}
	q1 := mat.NewVecDense(len(u), nil)
	q1.MulVec(uu, mat.NewVecDense(len(gc), gc))
	b.q1u = q1.RawVector().Data
	gy := scaleRows(g.uty, gu)
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

// holdOut evaluates paper 002 eq. (38) for the rows U given Q_u's pieces:
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
// them (every pair touching U leaves the loss; paper 000, Theorem 1):
// O(|U|²r + |U|³ + |U|·r·t).
func (s *GlobalSolution) HoldOut(u []int) (*mat.Dense, error) {
	if err := checkRows(u, s.g.d.Rows()); err != nil {
		return nil, err
	}
	if s.g.d.Rows()-len(u) < 2 {
		return nil, fmt.Errorf("%w: %d rows left, a ranking needs 2", ErrHoldOut, s.g.d.Rows()-len(u))
	}
	return s.holdOut(u, s.block(u))
}

// LeaveOneOut holds out each row in turn: O(m·(r + t)).
func (s *GlobalSolution) LeaveOneOut() (*mat.Dense, error) {
	m, t := s.g.y.Dims()
	out := mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		p, err := s.HoldOut([]int{i})
		if err != nil {
			return nil, err
		}
		out.SetRow(i, p.RawRowView(0))
	}
	return out, nil
}

// qCache holds Q_2 = U diag(e/((m−2)e+λ)) Uᵀ (m×m) and its products with 1 and
// Y: the set-up (39) of paper 002 for leave-pair-out.
type qCache struct {
	q       *mat.Dense
	q1      []float64
	qy      *mat.Dense
	oneQone float64
	oneQY   []float64
}

// LeavePairOut returns, for every pair, the predictions for both rows of the
// model retrained without them. After the O(m²r) set-up (39) — Q_2 by one gemm —
// each pair costs O(t) (paper 002, sect. 3.4; paper 000, Theorem 2). With few
// pairs (< m²/8) each is computed from the factor in O(r·t) instead.
func (s *GlobalSolution) LeavePairOut(pairs []rls.Pair) (pi, pj *mat.Dense, err error) {
	m, t := s.g.y.Dims()
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("%w: no pairs", ErrHoldOut)
	}
	if m < 4 {
		return nil, nil, fmt.Errorf("%w: leave-pair-out needs at least 4 rows, have %d", ErrHoldOut, m)
	}
	for _, p := range pairs {
		if p.I < 0 || p.I >= m || p.J < 0 || p.J >= m || p.I == p.J {
			return nil, nil, fmt.Errorf("%w: pair (%d, %d) with %d rows", ErrHoldOut, p.I, p.J, m)
		}
	}
	pi, pj = mat.NewDense(len(pairs), t, nil), mat.NewDense(len(pairs), t, nil)
	full := len(pairs) >= m*m/8
	if full {
		s.pairOnce.Do(s.setupPairs)
	}
	var b qBlock
	if full {
		b = qBlock{quu: mat.NewDense(2, 2, nil), q1u: make([]float64, 2), qyu: mat.NewDense(2, t, nil),
			oneQone: s.pair.oneQone, oneQY: s.pair.oneQY}
	}
	for n, p := range pairs {
		u := []int{p.I, p.J}
		if full {
			c := s.pair
			b.quu.Set(0, 0, c.q.At(p.I, p.I))
			b.quu.Set(0, 1, c.q.At(p.I, p.J))
			b.quu.Set(1, 0, c.q.At(p.J, p.I))
			b.quu.Set(1, 1, c.q.At(p.J, p.J))
			b.q1u[0], b.q1u[1] = c.q1[p.I], c.q1[p.J]
			b.qyu.SetRow(0, c.qy.RawRowView(p.I))
			b.qyu.SetRow(1, c.qy.RawRowView(p.J))
		} else {
			b = s.block(u)
		}
		h, err := s.holdOut(u, b)
		if err != nil {
			return nil, nil, err
		}
		pi.SetRow(n, h.RawRowView(0))
		pj.SetRow(n, h.RawRowView(1))
	}
	return pi, pj, nil
}

func (s *GlobalSolution) setupPairs() {
	g := s.g
	g2 := s.gu(2)
	u := g.d.U
	c := &qCache{q: linalg.Mul(false, true, scaleCols(u, g2), u)}
	m, t := g.y.Dims()
	c.q1 = make([]float64, m)
	for i := 0; i < m; i++ {
		c.q1[i] = mat.Sum(c.q.RowView(i))
	}
	c.qy = linalg.Mul(false, false, c.q, g.y)
	for _, v := range c.q1 {
		c.oneQone += v
	}
	c.oneQY = make([]float64, t)
	for j := range c.oneQY {
		c.oneQY[j] = mat.Sum(c.qy.ColView(j))
	}
	s.pair = c
}
