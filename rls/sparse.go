package rls

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// HoldOutBasis returns the predictions for the rows H of the model retrained
// without them under the given basis policy. For the dual and linear forms both
// policies equal HoldOut (retraining on H̄ never uses the held-out points).
//
// For a sparse model with basis B (n vectors, K_BB of full rank) write the
// coefficients as a = Tc (T = K_BB^{-1/2}V from the factor), so f = USc and the
// regularizer is ‖c‖². Removing rows H and basis vectors E is then the ridge
// problem on the rows H̄ with the linear constraint T_E c = 0:
//
//	A = diag(s² + λ) − XᵀX,  X = U_H S,  z = S(UᵀY − U_HᵀY_H),
//	c = A⁻¹z − A⁻¹T_Eᵀ (T_E A⁻¹T_Eᵀ)⁻¹ T_E A⁻¹z,   f_H = Xc.
//
// A⁻¹ is applied through Woodbury when |H| < n (O(|H|²n)) and by a Cholesky
// factorization of A otherwise (O(|H|n² + n³)): the cheaper side of Pahikkala, Suominen & Boberg 2012,
// eq. (36). The constraint adds O(|E|·n·(|E| + |H|)).
//
// With an intercept, b is eliminated by centring the rows H̄ on their own
// means (n̄ = |H̄| rows): with μ = S(Uᵀ1 − U_Hᵀ1)/n̄ and ȳ the labels' means
// over H̄, the problem is the one above with A − n̄μμᵀ and z − n̄μȳᵀ, solved by
// Sherman–Morrison on the same A⁻¹ (O(n(|H| + n)) more), and
// f_H = Xc + 1(ȳ − cᵀμ)ᵀ: b refit on H̄ too.
func (s *Solution) HoldOutBasis(h []int, p learn.Policy) (*mat.Dense, error) {
	switch p {
	case learn.Keep, "":
		return s.HoldOut(h)
	case learn.Remove:
	default:
		return nil, fmt.Errorf("rls: %w: basis policy %q does not apply to a hold-out", learn.ErrHoldOut, p)
	}
	r := s.r
	if r.f.Form != factor.Sparse {
		return s.HoldOut(h)
	}
	if err := learn.CheckHoldOut(h, r.Rows()); err != nil {
		return nil, fmt.Errorf("rls: %w", err)
	}
	pos := make(map[int]int, len(r.d.Basis))
	for k, b := range r.d.Basis {
		pos[b] = k
	}
	var e []int // positions in the basis of the held-out basis vectors
	for _, i := range h {
		if k, ok := pos[i]; ok {
			e = append(e, k)
		}
	}
	if len(e) == 0 {
		return s.HoldOut(h)
	}
	n := len(r.d.Basis)
	if len(e) == n {
		return nil, fmt.Errorf("rls: %w: the hold-out set holds all %d basis vectors, the remove policy leaves none", learn.ErrBasis, n)
	}
	if r.f.Rank() < n {
		return nil, fmt.Errorf("rls: %w: the basis vectors are linearly dependent in the kernel's feature space (K_BB has rank %d < %d); use the keep policy", learn.ErrBasis, r.f.Rank(), n)
	}
	f := r.f
	x := linalg.ScaleCols(kernel.Rows(f.U, h).(*mat.Dense), f.S) // U_H S
	// z = S(UᵀY − U_HᵀY_H)
	z := mat.DenseCopyOf(r.uty)
	linalg.Gemm(true, false, -1, kernel.Rows(f.U, h).(*mat.Dense), kernel.Rows(r.y, h).(*mat.Dense), 1, z)
	z = linalg.ScaleRows(z, f.S)
	var ic *centring
	if r.icpt != nil {
		ic = s.centre(h, z)
	}
	if 2*len(e) > n {
		return s.holdOutReducedBasis(h, e, x, z, ic)
	}
	te := kernel.Rows(f.T, e).(*mat.Dense) // |E|×n
	// one solve with A for [z, T_Eᵀ]
	_, t := z.Dims()
	rhs := mat.NewDense(f.Rank(), t+len(e), nil)
	rhs.Slice(0, f.Rank(), 0, t).(*mat.Dense).Copy(z)
	rhs.Slice(0, f.Rank(), t, t+len(e)).(*mat.Dense).Copy(te.T())
	sol, err := s.solveACentred(x, rhs, ic)
	if err != nil {
		return nil, fmt.Errorf("rls: hold-out of %d rows (%d basis vectors removed) at lambda %g: %w", len(h), len(e), s.Lambda, err)
	}
	q := sol.Slice(0, f.Rank(), 0, t).(*mat.Dense)
	p2 := sol.Slice(0, f.Rank(), t, t+len(e)).(*mat.Dense)
	me := linalg.Mul(false, false, te, mat.DenseCopyOf(p2))
	linalg.Symmetrize(me)
	lam, err := solveSPD(me, linalg.Mul(false, false, te, mat.DenseCopyOf(q)))
	if err != nil {
		return nil, fmt.Errorf("rls: basis-removal constraint: %w", err)
	}
	c := mat.DenseCopyOf(q)
	linalg.Gemm(false, false, -1, mat.DenseCopyOf(p2), lam, 1, c)
	return ic.predict(x, c), nil
}

// centring is the intercept's elimination in a basis-removing hold-out: the
// rows H̄ centred on their means, A − wwᵀ (w = √n̄·μ) in place of A and
// z − n̄μȳᵀ (formed by centre) in place of z.
type centring struct {
	mu   []float64 // μ = S(Uᵀ1 − U_Hᵀ1)/n̄ (r)
	w    []float64 // √n̄·μ
	ybar []float64 // ȳ, the labels' means over H̄ (t)
}

// centre returns the centring of the hold-out H and subtracts n̄μȳᵀ from z
// (r×t). O(|H|·(r + t) + r·t).
func (s *Solution) centre(h []int, z *mat.Dense) *centring {
	r := s.r
	f := r.f
	m, t := r.y.Dims()
	nb := float64(m - len(h))
	ic := &centring{mu: append([]float64(nil), r.icpt.u1...), ybar: make([]float64, t)}
	out := make(map[int]bool, len(h))
	for _, i := range h {
		out[i] = true
		for k, u := range f.U.RawRowView(i) {
			ic.mu[k] -= u
		}
	}
	for i := 0; i < m; i++ {
		if !out[i] {
			for c, v := range r.y.RawRowView(i) {
				ic.ybar[c] += v
			}
		}
	}
	for c := range ic.ybar {
		ic.ybar[c] /= nb
	}
	ic.w = make([]float64, len(ic.mu))
	for k := range ic.mu {
		ic.mu[k] *= f.S[k] / nb
		ic.w[k] = math.Sqrt(nb) * ic.mu[k]
		row := z.RawRowView(k)
		for c := range row {
			row[c] -= nb * ic.mu[k] * ic.ybar[c]
		}
	}
	return ic
}

// predict returns the hold-out's predictions X·c, plus with an intercept
// the refit b = ȳ − cᵀμ in every row. O(|H|·r·t).
func (ic *centring) predict(x, c *mat.Dense) *mat.Dense {
	out := linalg.Mul(false, false, x, c)
	if ic == nil {
		return out
	}
	_, t := c.Dims()
	b := append([]float64(nil), ic.ybar...)
	for k, mu := range ic.mu {
		for j, v := range c.RawRowView(k)[:t] {
			b[j] -= mu * v
		}
	}
	nh, _ := out.Dims()
	for i := 0; i < nh; i++ {
		row := out.RawRowView(i)
		for j := range row {
			row[j] += b[j]
		}
	}
	return out
}

// solveACentred solves (A − wwᵀ) Z = B (A alone when ic is nil) by one
// solveA of [B, w] and Sherman–Morrison: Z = P + q(wᵀP)/(1 − wᵀq) for
// P = A⁻¹B, q = A⁻¹w. A − wwᵀ is the Gram matrix of the centred rows plus
// λI, positive definite, so 1 − wᵀq > 0.
func (s *Solution) solveACentred(x, b *mat.Dense, ic *centring) (*mat.Dense, error) {
	if ic == nil {
		return s.solveA(x, b)
	}
	rk, nb := b.Dims()
	bw := mat.NewDense(rk, nb+1, nil)
	bw.Slice(0, rk, 0, nb).(*mat.Dense).Copy(b)
	bw.SetCol(nb, ic.w)
	sol, err := s.solveA(x, bw)
	if err != nil {
		return nil, err
	}
	q := mat.Col(nil, nb, sol)
	den := 1.0
	for k, w := range ic.w {
		den -= w * q[k]
	}
	out := mat.DenseCopyOf(sol.Slice(0, rk, 0, nb))
	coef := make([]float64, nb) // wᵀP/den
	for k, w := range ic.w {
		for j, v := range out.RawRowView(k) {
			coef[j] += w * v
		}
	}
	for j := range coef {
		coef[j] /= den
	}
	for k := 0; k < rk; k++ {
		row := out.RawRowView(k)
		for j := range row {
			row[j] += q[k] * coef[j]
		}
	}
	return out, nil
}

// holdOutReducedBasis solves the same problem in the coordinates of the
// remaining basis B' = B∖E, better conditioned when most of the basis leaves:
// c = G_{B'}a' (G from the factor, so T_E c = 0 holds by construction) and
// a' = (G_{B'}ᵀ A G_{B'})⁻¹ G_{B'}ᵀ z (with an intercept A − wwᵀ and z
// centred, as ic says). O(|H|·n·n' + n·n'²) for n' = |B'|.
func (s *Solution) holdOutReducedBasis(h, e []int, x, z *mat.Dense, ic *centring) (*mat.Dense, error) {
	r := s.r
	f := r.f
	gone := make(map[int]bool, len(e))
	for _, k := range e {
		gone[k] = true
	}
	var rest []int
	for k := range r.d.Basis {
		if !gone[k] {
			rest = append(rest, k)
		}
	}
	gt := kernel.Rows(mat.DenseCopyOf(f.G.T()), rest).(*mat.Dense) // G_{B'}ᵀ, n'×r
	g := mat.DenseCopyOf(gt.T())                                   // r×n'
	// A G = diag(s²+λ) G − Xᵀ(X G)
	ag := mat.DenseCopyOf(g)
	for k, ev := range f.E {
		row := ag.RawRowView(k)
		for j := range row {
			row[j] *= ev + s.Lambda
		}
	}
	linalg.Gemm(true, false, -1, x, linalg.Mul(false, false, x, g), 1, ag)
	ar := linalg.Mul(false, false, gt, ag)
	linalg.Symmetrize(ar)
	if ic != nil { // G_{B'}ᵀ(A − wwᵀ)G_{B'} = ar − ppᵀ, p = G_{B'}ᵀw
		pv := mat.NewVecDense(len(rest), nil)
		pv.MulVec(gt, mat.NewVecDense(len(ic.w), ic.w))
		ar.RankOne(ar, -1, pv, pv)
	}
	a, err := solveSPD(ar, linalg.Mul(false, false, gt, z))
	if err != nil {
		return nil, fmt.Errorf("rls: hold-out of %d rows (%d basis vectors removed) at lambda %g: %w", len(h), len(e), s.Lambda, err)
	}
	return ic.predict(x, linalg.Mul(false, false, g, a)), nil
}

// solveA solves (diag(s²+λ) − XᵀX) Z = B: by Woodbury through
// (I − X D⁻¹Xᵀ) when X has fewer rows than columns, else by Cholesky of A.
func (s *Solution) solveA(x, b *mat.Dense) (*mat.Dense, error) {
	f := s.r.f
	nh, r := x.Dims()
	dinv := make([]float64, r)
	for k, e := range f.E {
		dinv[k] = 1 / (e + s.Lambda)
	}
	if nh < r {
		db := linalg.ScaleRows(b, dinv)     // D⁻¹B
		xd := linalg.ScaleCols(x, dinv)     // XD⁻¹
		m := linalg.Mul(false, true, xd, x) // XD⁻¹Xᵀ
		m.Scale(-1, m)
		for i := 0; i < nh; i++ {
			m.Set(i, i, m.At(i, i)+1)
		}
		w, err := solveSPD(m, linalg.Mul(false, false, x, db))
		if err != nil {
			return nil, err
		}
		linalg.Gemm(true, false, 1, xd, w, 1, db) // + D⁻¹Xᵀ(...)
		return db, nil
	}
	a := linalg.Syrk(true, x)
	a.Scale(-1, a)
	for k := range dinv {
		a.Set(k, k, a.At(k, k)+1/dinv[k])
	}
	return solveSPD(a, b)
}

// LeaveOneOutSkip returns leave-one-out predictions for the rows that are not
// basis vectors and NaN for the basis rows (Pahikkala, Suominen & Boberg 2012, sect. 6.4 (ii)): for a
// non-basis row, removing it from the basis changes nothing, so the keep and
// remove policies agree. O(m·r·t) after Solve.
func (s *Solution) LeaveOneOutSkip() (*mat.Dense, error) {
	out, err := s.LeaveOneOut()
	if err != nil {
		return nil, err
	}
	_, t := out.Dims()
	for _, b := range s.r.d.Basis {
		for c := 0; c < t; c++ {
			out.Set(b, c, math.NaN())
		}
	}
	return out, nil
}
