package rank

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"rlskit/factor"
	"rlskit/internal/linalg"
	"rlskit/model"
	"rlskit/rls"
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
// once (paper 002, sect. 3.2) — with one refinement for numerical exactness.
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
	learner string
	d       *factor.Data
	feat    features
	g       laplacian
	b       *mat.Dense // m×t
	psi     *mat.Dense // m×k'
	lam     []float64  // k'
	tv      *mat.Dense // T_Φ·V₊·W: coefficients from W-coordinates
	z       *mat.Dense // k'×t
	outs    []string
}

func newGraphModel(learner string, d *factor.Data, g laplacian, outs []string) (*graphModel, error) {
	feat := newFeatures(d)
	phic := centre(feat.phi, g.components())
	uc, sc, vc, err := linalg.SVD(phic)
	if err != nil {
		return nil, fmt.Errorf("rank: SVD of the centred features: %w", err)
	}
	m, k := phic.Dims()
	tol := float64(max(m, k)) * 2.2e-16 * sc[0]
	keep := 0
	for keep < len(sc) && sc[keep] > tol {
		keep++
	}
	gm := &graphModel{learner: learner, d: d, feat: feat, g: g, b: g.b(), outs: outs}
	_, t := gm.b.Dims()
	if keep == 0 {
		// no pair constrains anything: f = 0
		gm.psi, gm.tv, gm.z = mat.NewDense(m, 1, nil), mat.NewDense(feat.t.RawMatrix().Rows, 1, nil), mat.NewDense(1, t, nil)
		gm.lam = []float64{0}
		return gm, nil
	}
	vp := mat.DenseCopyOf(vc.Slice(0, k, 0, keep))
	f := scaleCols(mat.DenseCopyOf(uc.Slice(0, m, 0, keep)), sc[:keep]) // Φ_cV₊
	h := linalg.Mul(true, false, f, g.mulL(f))
	symmetrize(h)
	lam, w, err := linalg.EigSym(h)
	if err != nil {
		return nil, fmt.Errorf("rank: eigendecomposition of ΦᵀLΦ: %w", err)
	}
	vw := linalg.Mul(false, false, vp, w)
	gm.lam = lam
	gm.psi = linalg.Mul(false, false, feat.phi, vw)
	gm.tv = linalg.Mul(false, false, feat.t, vw)
	gm.z = linalg.Mul(true, false, gm.psi, gm.b)
	return gm, nil
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

func symmetrize(h *mat.Dense) {
	n, _ := h.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			v := (h.At(i, j) + h.At(j, i)) / 2
			h.Set(i, j, v)
			h.Set(j, i, v)
		}
	}
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
	if err := rls.CheckLambda(lambda); err != nil {
		return nil, err
	}
	s := &GraphSolution{m: gm, Lambda: lambda, inv: make([]float64, len(gm.lam))}
	for k, l := range gm.lam {
		// Λ > 0 on the kept subspace, up to rounding
		s.inv[k] = 1 / (math.Max(l, 0) + lambda)
	}
	s.w = scaleRows(gm.z, s.inv)
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
	return s.m.d.Predictor(s.Coefficients(), s.m.learner, s.Lambda, s.m.outs)
}

// HoldOut returns the predictions for the rows U of the model retrained
// without every edge incident to them (paper 000, Theorem 1; paper 002,
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
	if err := checkRows(u, m); err != nil {
		return nil, err
	}
	t, dl, db := s.m.g.removal(u)
	out := rows(s.f, u)
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
		return out, nil // no edge touches U: the model does not change
	}
	f := mat.NewDense(len(t), len(keep), nil)  // F = Q₊ diag(√d)
	fi := mat.NewDense(len(t), len(keep), nil) // (F⁺)ᵀ = Q₊ diag(1/√d)
	for c, k := range keep {
		sd := math.Sqrt(ev[k])
		for r := range t {
			f.Set(r, c, q.At(r, k)*sd)
			fi.Set(r, c, q.At(r, k)/sd)
		}
	}
	sq := make([]float64, len(s.inv))
	for k, v := range s.inv {
		sq[k] = math.Sqrt(v)
	}
	z := scaleCols(linalg.Mul(true, false, f, rows(s.m.psi, t)), sq) // s×k
	a := linalg.Syrk(false, z)
	a.Scale(-1, a)
	for k := range keep {
		a.Set(k, k, a.At(k, k)+1)
	}
	r := linalg.Mul(true, false, fi, db) // ỹ
	linalg.Gemm(true, false, -1, f, rows(s.f, t), 1, r)
	sol, err := solve(a, r)
	if err != nil {
		return nil, fmt.Errorf("rank: hold-out of %d rows at lambda %g: %w", len(u), s.Lambda, err)
	}
	psiU := scaleCols(rows(s.m.psi, u), sq)
	linalg.Gemm(false, false, -1, psiU, linalg.Mul(true, false, z, sol), 1, out)
	return out, nil
}

// LeaveOneOut holds out each row in turn: O(m·|T|²k), T the row and its neighbours.
func (s *GraphSolution) LeaveOneOut() (*mat.Dense, error) {
	m, t := s.f.Dims()
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

// LeavePairOut holds out each pair (both rows and every edge touching them).
func (s *GraphSolution) LeavePairOut(pairs []rls.Pair) (pi, pj *mat.Dense, err error) {
	m, t := s.f.Dims()
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("%w: no pairs", ErrHoldOut)
	}
	pi, pj = mat.NewDense(len(pairs), t, nil), mat.NewDense(len(pairs), t, nil)
	for n, p := range pairs {
		if p.I == p.J || p.I < 0 || p.J < 0 || p.I >= m || p.J >= m {
			return nil, nil, fmt.Errorf("%w: pair (%d, %d) with %d rows", ErrHoldOut, p.I, p.J, m)
		}
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
