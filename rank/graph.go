package rank

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// laplacian is a preference graph as the learners use it.
type laplacian interface {
	// mulL returns L·X.
	mulL(x *mat.Dense) *mat.Dense
	// b returns MN, the m×t linear term of the cost.
	b() *mat.Dense
	// components returns each row's connected component (0-based codes).
	components() []int
	// removal returns the rows T touched by the edges incident to the rows U
	// (U ⊆ T, ascending), and the change those edges make to the cost:
	// ΔL_TT and Δb_T, so that the graph without them has L − ΔL and b − Δb.
	removal(u []int) (t []int, dl, db *mat.Dense)
}

// graphModel is RankRLS with an explicit Laplacian (Query, Preference), trained
// once (Pahikkala et al. 2009, sect. 3.2) — with one refinement for numerical exactness.
//
// The cost cannot see shifts of f that are constant on a connected component of
// the graph, so H = ΦᵀLΦ is singular on N = {w : Φw constant on every
// component}; the solution has no part there (b = MN is orthogonal to those
// shifts), and neither does any hold-out correction (removed edges lie inside
// components). Eigenvectors of H near that null space are fuzzy, and (H + λI)⁻¹
// would multiply the fuzz by 1/λ; so N is removed first: Φ_c = CΦ (C centres
// every component) = U_c S_c V_cᵀ, keep V₊ (singular values above k·ε·s_max),
// F = Φ_cV₊, H₊ = FᵀLF = W diag(Λ) Wᵀ with Λ > 0, Ψ = ΦV₊W, z = Ψᵀb.
// Cost beyond the factor: O(m·k²) for the SVD and products, O(k³) for the
// eigendecomposition (O(m³) each in the dual form), O(l·k) for L·F.
type graphModel struct {
	meta learn.Meta
	d    *factor.Data
	feat features
	g    laplacian
	b    *mat.Dense // m×t
	psi  *mat.Dense // m×k'
	lam  []float64  // k'
	tv   *mat.Dense // T_Φ·V₊·W: coefficients from W-coordinates
	z    *mat.Dense // k'×t

	// shapes (hold-out set → *holdShape) is shared by every model withGraph
	// derives from this one: the same features and Laplacian. pathRows counts
	// the rows of X the shapes HoldOutPath stored hold (at most m: their
	// memory at most Ψ's).
	shapes     *sync.Map
	pathRows   *atomic.Int64
	holdCaches sync.Map // hold-out set → *holdCache
}

func newGraphModel(meta learn.Meta, g laplacian) (*graphModel, error) {
	feat := newFeatures(meta.Data)
	gm := &graphModel{meta: meta, d: meta.Data, feat: feat, g: g, b: g.b(), shapes: new(sync.Map), pathRows: new(atomic.Int64)}
	var (
		vw  *mat.Dense // the kept eigenvectors, in Φ-coordinates
		lam []float64
		err error
	)
	if feat.full {
		vw, lam, err = deflateByShift(feat, g)
	} else {
		vw, lam, err = deflateBySVD(feat, g)
	}
	if err != nil {
		return nil, err
	}
	m, _ := feat.phi.Dims()
	_, t := gm.b.Dims()
	if len(lam) == 0 {
		// no pair constrains anything: f = 0
		r, _ := feat.t.Dims()
		gm.psi, gm.tv, gm.z, gm.lam = mat.NewDense(m, 1, nil), mat.NewDense(r, 1, nil), mat.NewDense(1, t, nil), []float64{0}
		return gm, nil
	}
	gm.lam = lam
	gm.psi = linalg.Mul(false, false, feat.phi, vw)
	gm.tv = linalg.Mul(false, false, feat.t, vw)
	gm.z = linalg.Mul(true, false, gm.psi, gm.b)
	return gm, nil
}

// withGraph returns the model of the same features and Laplacian for a graph
// g with other targets (L unchanged, b = MN new): O(m·k·t), no refactoring.
func (gm *graphModel) withGraph(g laplacian, outs []string) *graphModel {
	meta := gm.meta
	meta.Outputs = outs
	out := &graphModel{meta: meta, d: gm.d, feat: gm.feat, g: g, b: g.b(), psi: gm.psi, lam: gm.lam, tv: gm.tv, shapes: gm.shapes, pathRows: gm.pathRows}
	out.z = linalg.Mul(true, false, out.psi, out.b)
	return out
}

// perturbed returns the eigenvalues of ΦᵀLΦ moved up within their rounding
// error, as factor.PerturbUp does (learn.Perturber).
func perturbed(lam []float64) []float64 { return factor.PerturbUp(lam) }

// deflateBySVD finds N as the right null space of Φ_c = CΦ by a thin SVD and
// eigendecomposes H on its complement: O(m·k² + k³).
func deflateBySVD(feat features, g laplacian) (*mat.Dense, []float64, error) {
	phic := centre(feat.phi, g.components())
	uc, sc, vc, err := linalg.SVD(phic)
	if err != nil {
		return nil, nil, fmt.Errorf("rank: SVD of the centred features: %w", err)
	}
	m, k := phic.Dims()
	tol := float64(max(m, k)) * 2.2e-16 * sc[0]
	keep := 0
	for keep < len(sc) && sc[keep] > tol {
		keep++
	}
	if keep == 0 {
		return nil, nil, nil
	}
	vp := mat.DenseCopyOf(vc.Slice(0, k, 0, keep))
	f := linalg.ScaleCols(mat.DenseCopyOf(uc.Slice(0, m, 0, keep)), sc[:keep]) // Φ_cV₊
	h := linalg.Mul(true, false, f, g.mulL(f))
	linalg.Symmetrize(h)
	lam, w, err := linalg.EigSym(h)
	if err != nil {
		return nil, nil, fmt.Errorf("rank: eigendecomposition of ΦᵀLΦ: %w", err)
	}
	return linalg.Mul(false, false, vp, w), lam, nil
}

// deflateByShift handles a square, invertible Φ (the dual form): there
// N = Φ⁻¹P exactly (P the component indicators, Φ⁻¹ = T_Φᵀ), so
// H + σN_oN_oᵀ (N_o an orthonormal basis of N, σ = 3·trace H: H ≽ 0, so its
// eigenvalues are at most trace H = σ/3) has N as an eigenspace at σ, far from
// the rest of the spectrum and of its scale (σ is relative, so the shift costs
// the same relative rounding at any scale of K and L); those eigenpairs are
// dropped. One eigendecomposition, no SVD: O(m²k + k³).
func deflateByShift(feat features, g laplacian) (*mat.Dense, []float64, error) {
	comp := g.components()
	nc := 0
	for _, c := range comp {
		nc = max(nc, c+1)
	}
	m, k := feat.t.Dims()
	n := mat.NewDense(k, nc, nil) // Nᵀ rows summed per component: N = T_Φᵀ P
	for i := 0; i < m; i++ {
		row := feat.t.RawRowView(i)
		c := comp[i]
		for j, v := range row {
			n.Set(j, c, n.At(j, c)+v)
		}
	}
	no := orthonormalize(n)
	h := linalg.Mul(true, false, feat.phi, g.mulL(feat.phi))
	linalg.Symmetrize(h)
	sigma := 0.0
	for i := 0; i < k; i++ {
		sigma += 3 * math.Abs(h.At(i, i))
	}
	linalg.Gemm(false, true, sigma, no, no, 1, h)
	lam, w, err := linalg.EigSym(h)
	if err != nil {
		return nil, nil, fmt.Errorf("rank: eigendecomposition of ΦᵀLΦ: %w", err)
	}
	keep := 0
	for keep < len(lam) && lam[keep] < sigma/2 {
		keep++
	}
	if keep == 0 {
		return nil, nil, nil
	}
	return mat.DenseCopyOf(w.Slice(0, k, 0, keep)), lam[:keep], nil
}

// orthonormalize returns an orthonormal basis of the columns of A (assumed
// independent) by modified Gram–Schmidt, run twice for orthogonality to
// rounding: O(k·c²) for A k×c.
func orthonormalize(a *mat.Dense) *mat.Dense {
	k, c := a.Dims()
	cols := make([][]float64, c)
	for j := range cols {
		cols[j] = mat.Col(nil, j, a)
	}
	for pass := 0; pass < 2; pass++ {
		for j := range cols {
			for i := 0; i < j; i++ {
				d := dot(cols[i], cols[j])
				for r := range cols[j] {
					cols[j][r] -= d * cols[i][r]
				}
			}
			nrm := math.Sqrt(dot(cols[j], cols[j]))
			for r := range cols[j] {
				cols[j][r] /= nrm
			}
		}
	}
	out := mat.NewDense(k, c, nil)
	for j, col := range cols {
		out.SetCol(j, col)
	}
	return out
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// centre subtracts from every row the mean of its component's rows.
func centre(x *mat.Dense, comp []int) *mat.Dense {
	m, k := x.Dims()
	n := 0
	for _, c := range comp {
		n = max(n, c+1)
	}
	sum := mat.NewDense(max(n, 1), k, nil)
	count := make([]float64, max(n, 1))
	for i := 0; i < m; i++ {
		count[comp[i]]++
		row := sum.RawRowView(comp[i])
		for j, v := range x.RawRowView(i) {
			row[j] += v
		}
	}
	out := mat.DenseCopyOf(x)
	for i := 0; i < m; i++ {
		mean := sum.RawRowView(comp[i])
		row := out.RawRowView(i)
		for j := range row {
			row[j] -= mean[j] / count[comp[i]]
		}
	}
	return out
}

// GraphSolution is a Query or Preference model at one λ with its
// cross-validation shortcuts.
type GraphSolution struct {
	m      *graphModel
	Lambda float64
	inv    []float64  // 1/(Λ+λ)
	w      *mat.Dense // (Λ+λ)⁻¹z, k×t
	f      *mat.Dense // training predictions Ψw, m×t
}

func (gm *graphModel) solve(lambda float64) (*GraphSolution, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	s := &GraphSolution{m: gm, Lambda: lambda, inv: make([]float64, len(gm.lam))}
	for k, l := range gm.lam {
		// Λ > 0 on the kept subspace, up to rounding
		s.inv[k] = 1 / (math.Max(l, 0) + lambda)
	}
	s.w = linalg.ScaleRows(gm.z, s.inv)
	s.f = linalg.Mul(false, false, gm.psi, s.w)
	return s, nil
}

// Fitted returns the training predictions f = Φw (shared; do not modify).
func (s *GraphSolution) Fitted() *mat.Dense { return s.f }

// Coefficients returns the model's coefficients (dual: one row per training
// point; sparse: per basis vector; linear: primal weights, bias weight last).
func (s *GraphSolution) Coefficients() *mat.Dense {
	return linalg.Mul(false, false, s.m.tv, s.w)
}

// Predictor returns the trained predictor at λ.
func (s *GraphSolution) Predictor() *model.Predictor {
	return s.m.meta.Predictor(s.Coefficients(), s.Lambda)
}

// HoldOut returns the predictions for the rows U of the model retrained
// without every edge incident to them (Pahikkala et al. 2008, Theorem 1; Pahikkala et al. 2009,
// eq. (33) for whole queries).
//
// The removed edges touch the rows T ⊇ U and change the cost by
// fᵀΔLf − 2fᵀΔb. Writing ΔL_TT = FFᵀ (eigendecomposition, rank s) and
// ỹ = F⁺Δb_T makes their part of the cost ‖ỹ − FᵀΦ_T w‖²: a ridge regression
// on s rows, and removing them is the classical downdate
//
//	w_ho = w − A⁻¹X_Sᵀ(I − X_S A⁻¹X_Sᵀ)⁻¹(ỹ − X_S w),  X_S = FᵀΦ_T, A = ΦᵀLΦ + λI.
//
// With A⁻¹ = V(Λ+λ)⁻¹Vᵀ and Z = FᵀΨ_T(Λ+λ)^{-1/2}, the matrix I − ZZᵀ is bounded
// (ZZᵀ ≼ I because ΔL ≼ L), so tiny λ does not amplify rounding. Cost
// O(|T|³ + |T|²k); for whole queries T = U.
func (s *GraphSolution) HoldOut(u []int) (*mat.Dense, error) {
	m, _ := s.f.Dims()
	if err := learn.CheckHoldOut(u, m); err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	c, err := s.m.cachedHoldOut(u)
	if err != nil {
		return nil, err
	}
	return s.holdOut(c)
}

// cachedHoldOut returns the λ-independent part of HoldOut(u), computed once per
// model and hold-out set: cross-validating along a λ grid reuses it.
func (gm *graphModel) cachedHoldOut(u []int) (*holdCache, error) {
	key := holdKey(u)
	if c, ok := gm.holdCaches.Load(key); ok {
		return c.(*holdCache), nil
	}
	c, err := gm.prepareHoldOut(u, key)
	if err != nil {
		return nil, err
	}
	gm.holdCaches.Store(key, c)
	return c, nil
}

// holdKey names a hold-out set in the caches.
func holdKey(u []int) string {
	var key strings.Builder
	for _, i := range u {
		key.WriteString(strconv.Itoa(i))
		key.WriteByte(',')
	}
	return key.String()
}

// holdShape is the part of a hold-out that depends on the features and the
// Laplacian only: the touched rows T, the square root F of ΔL_TT with
// (F⁺)ᵀ, and X = FᵀΨ_T. Models that share both (a learner, its
// learn.Perturber twin, its relabelled copies) share it.
type holdShape struct {
	u, t []int
	f    *mat.Dense // |T|×s; nil when no edge touches U
	fi   *mat.Dense // (F⁺)ᵀ, |T|×s
	x    *mat.Dense // s×k'
}

// holdCache is the λ-independent part of a hold-out: its shape and
// ỹ = F⁺Δb_T, which depends on the targets.
type holdCache struct {
	*holdShape
	ytil *mat.Dense // s×t
}

// prepareHoldOut computes the λ-independent part of HoldOut(u): the shape
// once for every model sharing it, O(|T|³ + |T|²k); ỹ in O(|T|·s·t).
func (gm *graphModel) prepareHoldOut(u []int, key string) (*holdCache, error) {
	t, dl, db := gm.g.removal(u)
	var sh *holdShape
	if v, ok := gm.shapes.Load(key); ok {
		sh = v.(*holdShape)
	} else {
		var err error
		if sh, err = gm.newShape(u, t, dl); err != nil {
			return nil, err
		}
		v, _ := gm.shapes.LoadOrStore(key, sh)
		sh = v.(*holdShape)
	}
	c := &holdCache{holdShape: sh}
	if sh.f != nil {
		c.ytil = linalg.Mul(true, false, sh.fi, db)
	}
	return c, nil
}

// pathHoldOut is cachedHoldOut for HoldOutPath with bounded memory: a new
// shape is kept (for the twin, the next λ chunk, the next pass) only while
// the rows of X kept by such calls stay within m, so that they hold at most
// Ψ's memory; beyond, each call forms the hold-out anew (leave-one-out of a
// query ranker touches a whole query per row: m·n̄ rows of X in all).
func (gm *graphModel) pathHoldOut(u []int) (*holdCache, error) {
	key := holdKey(u)
	if c, ok := gm.holdCaches.Load(key); ok {
		return c.(*holdCache), nil
	}
	t, dl, db := gm.g.removal(u)
	var sh *holdShape
	keep := false
	if v, ok := gm.shapes.Load(key); ok {
		sh, keep = v.(*holdShape), true
	} else {
		var err error
		if sh, err = gm.newShape(u, t, dl); err != nil {
			return nil, err
		}
		rows := 0
		if sh.x != nil {
			rows, _ = sh.x.Dims()
		}
		m, _ := gm.psi.Dims()
		if gm.pathRows.Add(int64(rows)) <= int64(m) {
			v, _ := gm.shapes.LoadOrStore(key, sh)
			sh, keep = v.(*holdShape), true
		} else {
			gm.pathRows.Add(-int64(rows))
		}
	}
	c := &holdCache{holdShape: sh}
	if sh.f != nil {
		c.ytil = linalg.Mul(true, false, sh.fi, db)
	}
	if keep {
		gm.holdCaches.Store(key, c)
	}
	return c, nil
}

// newShape factors ΔL_TT = FFᵀ (eigendecomposition, eigenvalues above
// |T|·ε·max kept) and forms X = FᵀΨ_T: O(|T|³ + |T|²k).
func (gm *graphModel) newShape(u, t []int, dl *mat.Dense) (*holdShape, error) {
	sh := &holdShape{u: u, t: t}
	ev, q, err := linalg.EigSym(dl)
	if err != nil {
		return nil, err
	}
	tol := float64(len(t)) * 2.2e-16 * math.Max(ev[len(ev)-1], 0)
	var keep []int
	for k, v := range ev {
		if v > tol {
			keep = append(keep, k)
		}
	}
	if len(keep) == 0 {
		return sh, nil // no edge touches U: the model does not change
	}
	sh.f = mat.NewDense(len(t), len(keep), nil)  // F = Q₊ diag(√d)
	sh.fi = mat.NewDense(len(t), len(keep), nil) // (F⁺)ᵀ = Q₊ diag(1/√d)
	for col, k := range keep {
		sd := math.Sqrt(ev[k])
		for r := range t {
			sh.f.Set(r, col, q.At(r, k)*sd)
			sh.fi.Set(r, col, q.At(r, k)/sd)
		}
	}
	sh.x = linalg.Mul(true, false, sh.f, rows(gm.psi, t))
	return sh, nil
}

// holdOut applies the downdate at this λ: with D = (Λ+λ)⁻¹ and Z = XD^{1/2},
// f_U = f_U − Ψ_U D Xᵀ(I − XDXᵀ)⁻¹(ỹ − Fᵀf_T). O(s²k' + |U|·k'·t).
func (s *GraphSolution) holdOut(c *holdCache) (*mat.Dense, error) {
	out := rows(s.f, c.u)
	if c.f == nil {
		return out, nil
	}
	_, ns := c.f.Dims()
	xd := linalg.ScaleCols(c.x, s.inv)    // XD
	a := linalg.Mul(false, true, xd, c.x) // XDXᵀ = ZZᵀ
	a.Scale(-1, a)
	for k := 0; k < ns; k++ {
		a.Set(k, k, a.At(k, k)+1)
	}
	linalg.Symmetrize(a)
	r := mat.DenseCopyOf(c.ytil)
	linalg.Gemm(true, false, -1, c.f, rows(s.f, c.t), 1, r)
	sol, err := solveSym(a, r)
	if err != nil {
		return nil, fmt.Errorf("rank: hold-out of %d rows at lambda %g: %w", len(c.u), s.Lambda, err)
	}
	v := linalg.Mul(true, false, xd, sol) // D Xᵀ sol
	linalg.Gemm(false, false, -1, rows(s.m.psi, c.u), v, 1, out)
	return out, nil
}

// solveSym solves A X = B for the symmetric positive definite A by Cholesky,
// falling back to LU when rounding defeats it.
func solveSym(a, b *mat.Dense) (*mat.Dense, error) {
	if x, err := linalg.SolveSPD(a, b); err == nil {
		return x, nil
	}
	return solve(a, b)
}

// LeaveOneOut holds out each row in turn: O(m·|T|²k), T the row and its neighbours.
func (s *GraphSolution) LeaveOneOut() (*mat.Dense, error) { return leaveOneOut(s.f, s.HoldOut) }

// leaveOneOut collects the hold-outs of every single row of a learner with m×t predictions f.
func leaveOneOut(f *mat.Dense, holdOut func([]int) (*mat.Dense, error)) (*mat.Dense, error) {
	m, t := f.Dims()
	out := mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		p, err := holdOut([]int{i})
		if err != nil {
			return nil, err
		}
		out.SetRow(i, p.RawRowView(0))
	}
	return out, nil
}

// LeavePairOut holds out each pair (both rows and every edge touching them).
func (s *GraphSolution) LeavePairOut(pairs []learn.Pair) (pi, pj *mat.Dense, err error) {
	m, t := s.f.Dims()
	if err := learn.CheckPairs(pairs, m, 3); err != nil {
		return nil, nil, fmt.Errorf("rank: %w", err)
	}
	pi, pj = mat.NewDense(len(pairs), t, nil), mat.NewDense(len(pairs), t, nil)
	for n, p := range pairs {
		h, err := s.HoldOut([]int{p.I, p.J})
		if err != nil {
			return nil, nil, err
		}
		pi.SetRow(n, h.RawRowView(0))
		pj.SetRow(n, h.RawRowView(1))
	}
	return pi, pj, nil
}

// sortedUnion returns the ascending distinct elements of a and b.
func sortedUnion(a, b []int) []int {
	out := append(append([]int(nil), a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
