package pairwise

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
)

// Options configure the pairwise learners.
type Options struct {
	// Symmetry is Heterogeneous for two sets of objects; Symmetric or
	// Antisymmetric when rows and columns are the same objects (pass the same
	// Side, or nil, as the columns).
	Symmetry Symmetry
}

// sides resolves the column side of a homogeneous network.
func sides(rows, cols *Side, opt Options) (*Side, *Side, error) {
	if rows == nil {
		return nil, nil, errSide
	}
	if opt.Symmetry != Heterogeneous {
		if cols != nil && cols != rows {
			return nil, nil, fmt.Errorf("pairwise: %w: a %s network has one side: pass the rows as the columns", learnErrShape, opt.Symmetry)
		}
		return rows, rows, nil
	}
	if cols == nil {
		return nil, nil, errSide
	}
	return rows, cols, nil
}

// problem is the two sides and the labelled pairs every learner starts from.
type problem struct {
	rows, cols *Side
	lab        *labels
}

// newProblem resolves the sides and checks the pairs against them.
func newProblem(rows, cols *Side, pairs []Pair, y []float64, opt Options) (problem, error) {
	rows, cols, err := sides(rows, cols, opt)
	if err != nil {
		return problem{}, err
	}
	lab, err := newLabels(rows.Len(), cols.Len(), pairs, y, opt.Symmetry)
	if err != nil {
		return problem{}, err
	}
	return problem{rows: rows, cols: cols, lab: lab}, nil
}

// problemWith is newProblem with the labels already checked (newLabels for
// the sides' sizes and opt's symmetry), shared: the learner's method checks
// the pairs once for every kernel setting. O(1).
func problemWith(rows, cols *Side, lab *labels, opt Options) (problem, error) {
	rows, cols, err := sides(rows, cols, opt)
	if err != nil {
		return problem{}, err
	}
	if lab.m != rows.Len() || lab.q != cols.Len() || lab.sym != opt.Symmetry {
		return problem{}, fmt.Errorf("pairwise: %w: labels of %d×%d %s pairs for sides of %d and %d objects, %s", learnErrShape,
			lab.m, lab.q, lab.sym, rows.Len(), cols.Len(), opt.Symmetry)
	}
	return problem{rows: rows, cols: cols, lab: lab}, nil
}

// spectrum is what the closed forms need of complete data: both sides'
// eigendecompositions K = U diag(er) Uᵀ, G = V diag(ec) Vᵀ (with U∘U, V∘V)
// and UᵀYV.
type spectrum struct {
	u, v   *mat.Dense
	er, ec []float64
	u2, v2 *mat.Dense
	yt     *mat.Dense // UᵀYV, m×q
}

// spectrum eigendecomposes both sides (once per side, shared) and projects
// the complete labels: O(m³ + q³) the first time, then O(m·q·(m + q)).
func (p problem) spectrum() (spectrum, error) {
	var sp spectrum
	var err error
	if sp.u, sp.er, err = p.rows.Eigen(); err != nil {
		return sp, err
	}
	if sp.v, sp.ec, err = p.cols.Eigen(); err != nil {
		return sp, err
	}
	sp.u2, sp.v2 = p.rows.u2, p.cols.u2
	sp.yt = linalg.Mul(false, false, linalg.Mul(true, false, sp.u, p.lab.full), sp.v)
	return sp, nil
}

// KronRLS is Kronecker regularized least squares on complete data: the
// minimizer over f(u, v) = Σ_ij A_ij k(u, u_i) g(v, v_j) of
//
//	Σ_ij (Y_ij − f(u_i, v_j))² + λ‖f‖²,   vec(A) = (G⊗K + λI)⁻¹ vec(Y),
//
// solved through the eigendecompositions K = U diag(e) Uᵀ, G = V diag(s) Vᵀ
// of the two sides: A = U [(UᵀYV) ⊘ (e sᵀ + λ)] Vᵀ. The factorization does
// not depend on λ; Solve gives the model and every exact cross-validation
// shortcut at any λ. It implements learn.Learner with the labels in the
// order of the pairs given.
type KronRLS struct {
	problem
	spectrum

	utyOnce sync.Once
	uty     *mat.Dense // UᵀY, for setting D

	// perturbed marks a Perturbed twin: the eigenvalues of the per-fold
	// eigendecompositions of settings D and vertices are perturbed too.
	perturbed bool

	// Progress, when set, is told how many of the folds of the side
	// LeaveBothOut and LeaveVertexOut eigendecompose are done.
	Progress progress.Observer
}

// FitKron trains Kronecker RLS on the labelled pairs, which must cover every
// (row, column) pair (complete data). Cost: the two
// sides' eigendecompositions, O(m³ + q³) (shared with any other learner on
// the same sides), plus O(m·q·(m + q)) for UᵀYV.
func FitKron(rows, cols *Side, pairs []Pair, y []float64, opt Options) (*KronRLS, error) {
	pr, err := newProblem(rows, cols, pairs, y, opt)
	if err != nil {
		return nil, err
	}
	return fitKron(pr)
}

// fitKron is FitKron on a problem set up.
func fitKron(pr problem) (*KronRLS, error) {
	if !pr.lab.complete {
		return nil, fmt.Errorf("%w: %s", ErrIncomplete, pr.lab.missing(5))
	}
	sp, err := pr.spectrum()
	if err != nil {
		return nil, err
	}
	return &KronRLS{problem: pr, spectrum: sp}, nil
}

// Name is learn.KronRLS.
func (k *KronRLS) Name() learn.Name { return learn.KronRLS }

// Labels returns the n×1 labels in the order of the pairs given.
func (k *KronRLS) Labels() *mat.Dense { return k.lab.vector() }

// Pairs returns the labelled pairs in the order given (shared; do not modify).
func (k *KronRLS) Pairs() []Pair { return k.lab.given }

// Matrix returns the m×q label matrix (shared; do not modify).
func (k *KronRLS) Matrix() *mat.Dense { return k.lab.full }

// Sides returns the row and column sides.
func (k *KronRLS) Sides() (rows, cols *Side) { return k.rows, k.cols }

// Symmetry returns the network's symmetry.
func (k *KronRLS) Symmetry() Symmetry { return k.lab.sym }

// At is Solve as the learn.Learner contract.
func (k *KronRLS) At(lambda float64) (learn.Solution, error) {
	s, err := k.Solve(lambda)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// KronSolution is Kronecker RLS at one λ with its exact cross-validation
// shortcuts. With the scaled inverse 𝒜 = λ(G⊗K + λI)⁻¹ = (V⊗U) diag(g) (V⊗U)ᵀ,
// g_kl = λ/(e_k s_l + λ), the residuals are R = Y − F = U (UᵀYV ∘ g) Vᵀ and
// the prediction for a held-out set H of pairs of the model retrained without
// them is Y_H − 𝒜_HH⁻¹ R_H.
type KronSolution struct {
	k      *KronRLS
	Lambda float64
	g      *mat.Dense // m×q

	resOnce sync.Once
	res     *mat.Dense // m×q, formed on first need (residuals)

	diagOnce sync.Once
	diag     *mat.Dense // diag(𝒜) as m×q: (U∘U) g (V∘V)ᵀ
}

// Solve returns the model at λ: O(m·q) for the filter, no refactorization;
// the residuals every shortcut starts from, O(m·q·(m + q)), are formed on
// first need (and the coefficients a model needs by Coefficients). λ·I +
// G⊗K must be positive definite (else an error wrapping learn.ErrIndefinite:
// a precomputed kernel that is not positive semi-definite).
func (k *KronRLS) Solve(lambda float64) (*KronSolution, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	g, err := kronFilter(k.er, k.ec, lambda)
	if err != nil {
		return nil, err
	}
	return &KronSolution{k: k, Lambda: lambda, g: g}, nil
}

// residuals returns R = U (UᵀYV ∘ g) Vᵀ, formed once: O(m·q·(m + q)).
func (s *KronSolution) residuals() *mat.Dense {
	s.resOnce.Do(func() {
		k := s.k
		s.res = linalg.Mul(false, true, linalg.Mul(false, false, k.u, mulElem(k.yt, s.g)), k.v)
	})
	return s.res
}

// kronFilter returns g_kl = λ/(e_k s_l + λ).
func kronFilter(er, ec []float64, lambda float64) (*mat.Dense, error) {
	g := mat.NewDense(len(er), len(ec), nil)
	if err := kronFilterInto(g, er, ec, lambda); err != nil {
		return nil, err
	}
	return g, nil
}

// kronFilterInto writes g_kl = λ/(e_k s_l + λ) into the len(er)×len(ec)
// matrix g; a non-positive e_k s_l + λ (an indefinite kernel) is an error
// wrapping learn.ErrIndefinite. O(m·q).
func kronFilterInto(g *mat.Dense, er, ec []float64, lambda float64) error {
	for i, a := range er {
		row := g.RawRowView(i)
		for j, b := range ec {
			d := a*b + lambda
			if !(d > 0) {
				return indefinite(a, b, lambda)
			}
			row[j] = lambda / d
		}
	}
	return nil
}

// indefinite is the error of a non-positive e_k s_l + λ: an indefinite
// kernel (learn.ErrIndefinite).
func indefinite(a, b, lambda float64) error {
	return fmt.Errorf("pairwise: %w: eigenvalue product %g with lambda %g", learn.ErrIndefinite, a*b, lambda)
}

// Residuals returns R = Y − F on the m×q training grid (shared; do not
// modify): O(m·q·(m + q)) on the first call.
func (s *KronSolution) Residuals() *mat.Dense { return s.residuals() }

// Fitted returns the m×q training predictions F = Y − R.
func (s *KronSolution) Fitted() *mat.Dense {
	var f mat.Dense
	f.Sub(s.k.lab.full, s.residuals())
	return &f
}

// Coefficients returns A (m×q) with f(u, v) = k(u)ᵀ A g(v):
// A = U [(UᵀYV) ∘ g/λ] Vᵀ. O(m·q·(m + q)).
func (s *KronSolution) Coefficients() *mat.Dense {
	c := mulElem(s.k.yt, s.g)
	c.Scale(1/s.Lambda, c)
	return linalg.Mul(false, true, linalg.Mul(false, false, s.k.u, c), s.k.v)
}

// diagonal returns diag(𝒜) arranged as m×q: (U∘U) g (V∘V)ᵀ, O(m·q·(m + q)) once.
func (s *KronSolution) diagonal() *mat.Dense {
	s.diagOnce.Do(func() {
		s.diag = linalg.Mul(false, true, linalg.Mul(false, false, s.k.u2, s.g), s.k.v2)
	})
	return s.diag
}

// LeaveOneOutMatrix returns setting A on the m×q grid: for every pair the
// prediction of the model retrained without its label, Y − R ⊘ diag(𝒜)
// (Stock et al. 2018, eq. for Kronecker KRR setting A). O(m·q·(m + q)) after
// Solve. On a homogeneous network a pair is left out in both orientations
// (see HoldOut), O(m⁴).
func (s *KronSolution) LeaveOneOutMatrix() (*mat.Dense, error) {
	if s.k.lab.sym != Heterogeneous {
		return s.leaveUnorderedPairOut()
	}
	d, res := s.diagonal(), s.residuals()
	y := s.k.lab.full
	m, q := y.Dims()
	out := mat.NewDense(m, q, nil)
	for i := 0; i < m; i++ {
		yr, rr, dr, or := y.RawRowView(i), res.RawRowView(i), d.RawRowView(i), out.RawRowView(i)
		for j := range or {
			or[j] = yr[j] - rr[j]/dr[j]
		}
	}
	return out, nil
}

// leaveUnorderedPairOut leaves (u, v) and (v, u) out together: the 2×2
// hold-out with 𝒜_(uv),(vu) = Σ_kl U_uk U_vk U_ul U_vl g_kl, which for
// symmetric (antisymmetric) labels and residuals gives
// y_uv − r_uv/(𝒜_(uv),(uv) ± 𝒜_(uv),(vu)). O(m⁴): one m×m×m product per vertex.
func (s *KronSolution) leaveUnorderedPairOut() (*mat.Dense, error) {
	d, res := s.diagonal(), s.residuals()
	y := s.k.lab.full
	u := s.k.u
	m, _ := y.Dims()
	sign := 1.0
	if s.k.lab.sym == Antisymmetric {
		sign = -1
	}
	out := mat.NewDense(m, m, nil)
	z := mat.NewDense(m, m, nil)
	for a := 0; a < m; a++ {
		ua := u.RawRowView(a)
		for b := 0; b < m; b++ {
			ub, dst := u.RawRowView(b), z.RawRowView(b)
			for k := range dst {
				dst[k] = ua[k] * ub[k]
			}
		}
		t := linalg.Mul(false, false, z, s.g) // row b: Σ_k (U_ak U_bk) g_kl
		for b := 0; b < m; b++ {
			if b == a {
				out.Set(a, a, y.At(a, a)-res.At(a, a)/d.At(a, a))
				continue
			}
			o := 0.0
			tb, zb := t.RawRowView(b), z.RawRowView(b)
			for l, v := range tb {
				o += v * zb[l]
			}
			out.Set(a, b, y.At(a, b)-res.At(a, b)/(d.At(a, b)+sign*o))
		}
	}
	return out, nil
}

// LeaveOneOut returns setting A for the pairs as given (n×1), the
// learn.LeaveOneOuter capability.
func (s *KronSolution) LeaveOneOut() (*mat.Dense, error) {
	p, err := s.LeaveOneOutMatrix()
	if err != nil {
		return nil, err
	}
	v := s.k.lab.pick(p)
	return mat.NewDense(len(v), 1, v), nil
}

// HoldOut returns, for the given pairs h (indices into the pairs as given;
// on a homogeneous network each with its mirror), the predictions of the
// model retrained without them: Y_H − 𝒜_HH⁻¹ R_H with
// 𝒜_(ij),(i'j') = Σ_kl U_ik U_i'k g_kl V_jl V_j'l — the learn.HoldOuter
// capability, for any set of pairs. Cost O(|H|²·m·q + |H|³).
func (s *KronSolution) HoldOut(h []int) (*mat.Dense, error) {
	lab := s.k.lab
	if err := learn.CheckHoldOut(h, len(lab.given)); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	var held []Pair
	pos := make(map[Pair]int)
	addHeld := func(p Pair) {
		if _, ok := pos[p]; !ok {
			pos[p] = len(held)
			held = append(held, p)
		}
	}
	for _, i := range h {
		p := lab.given[i]
		addHeld(p)
		if lab.sym != Heterogeneous {
			addHeld(Pair{p.Col, p.Row})
		}
	}
	if len(held) >= lab.m*lab.q {
		return nil, fmt.Errorf("pairwise: %w: every pair held out", learn.ErrHoldOut)
	}
	u, v, res := s.k.u, s.k.v, s.residuals()
	n := len(held)
	a := mat.NewDense(n, n, nil)
	rh := mat.NewDense(n, 1, nil)
	m, q := lab.m, lab.q
	tk, tl := make([]float64, m), make([]float64, q)
	for x, px := range held {
		rh.Set(x, 0, res.At(px.Row, px.Col))
		for y := 0; y <= x; y++ {
			py := held[y]
			ux, uy := u.RawRowView(px.Row), u.RawRowView(py.Row)
			for k := range tk {
				tk[k] = ux[k] * uy[k]
			}
			vx, vy := v.RawRowView(px.Col), v.RawRowView(py.Col)
			for l := range tl {
				tl[l] = vx[l] * vy[l]
			}
			val := 0.0
			for k, t := range tk {
				if t == 0 {
					continue
				}
				val += t * floats(s.g.RawRowView(k), tl)
			}
			a.Set(x, y, val)
			a.Set(y, x, val)
		}
	}
	z, err := solveSPD(a, rh)
	if err != nil {
		return nil, fmt.Errorf("pairwise: hold-out of %d pairs at lambda %g: %w", len(h), s.Lambda, err)
	}
	out := mat.NewDense(len(h), 1, nil)
	for o, i := range h {
		p := lab.given[i]
		x := pos[p]
		out.Set(o, 0, lab.full.At(p.Row, p.Col)-z.At(x, 0))
	}
	return out, nil
}

// floats is the dot product.
func floats(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// HoldOutRows returns setting B (m×q, NaN for rows in no fold): for each
// fold F of row objects, the predictions for its pairs of the model retrained
// without them. In the column eigenvectors the hold-out system is block
// diagonal: P_F = Y_F − [𝒜_l⁻¹ (R_F V)_·l]_l Vᵀ with 𝒜_l = U_F diag(g_·l) U_Fᵀ.
// folds nil leaves each row out alone: Y − [(RV) ⊘ ((U∘U)g)] Vᵀ, O(m·q·(m+q));
// folds cost O(Σ_F |F|²·m·q + |F|³·q) after Solve. No refactorization.
func (s *KronSolution) HoldOutRows(folds [][]int) (*mat.Dense, error) {
	k := s.k
	if k.lab.sym != Heterogeneous {
		return nil, fmt.Errorf("%w: setting rows on a homogeneous network", ErrSetting)
	}
	return holdOutSide(k.lab.full, s.residuals(), k.u, k.u2, k.v, s.g, folds)
}

// HoldOutCols returns setting C (m×q): HoldOutRows on the transposed problem.
func (s *KronSolution) HoldOutCols(folds [][]int) (*mat.Dense, error) {
	k := s.k
	if k.lab.sym != Heterogeneous {
		return nil, fmt.Errorf("%w: setting cols on a homogeneous network", ErrSetting)
	}
	p, err := holdOutSide(transpose(k.lab.full), transpose(s.residuals()), k.v, k.v2, k.u, transpose(s.g), folds)
	if err != nil {
		return nil, err
	}
	return transpose(p), nil
}

// holdOutSide is setting B for labels Y, residuals R, row eigenvectors U (and
// U∘U), column eigenvectors V and filter g.
func holdOutSide(y, r, u, u2, v, g *mat.Dense, folds [][]int) (*mat.Dense, error) {
	m, q := y.Dims()
	if err := checkFolds(folds, m, "row"); err != nil {
		return nil, err
	}
	rv := linalg.Mul(false, false, r, v)
	if folds == nil {
		w := linalg.Mul(false, false, u2, g)
		var z mat.Dense
		z.DivElem(rv, w)
		var out mat.Dense
		out.Sub(y, linalg.Mul(false, true, &z, v))
		return &out, nil
	}
	out := nanDense(m, q)
	for _, f := range folds {
		uf := rowsOf(u, f)
		z, err := blockSolve(uf, g, rowsOf(rv, f), nil)
		if err != nil {
			return nil, err
		}
		zv := linalg.Mul(false, true, z, v)
		for a, i := range f {
			yr, zr, or := y.RawRowView(i), zv.RawRowView(a), out.RawRowView(i)
			for j := range or {
				or[j] = yr[j] - zr[j]
			}
		}
	}
	return out, nil
}

// Conditioning bounds how much the shortcuts amplify rounding: the
// condition number (max|e|·max|s| + λ)/λ of G⊗K + λI.
func (s *KronSolution) Conditioning() float64 {
	return (maxAbs(s.k.er)*maxAbs(s.k.ec) + s.Lambda) / s.Lambda
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// Predictor returns the model as a kernel expansion over the n training pairs
// as given, f(x) = Σ_p α_p 𝕂(x, p), for data rows holding the pairwise kernel
// values 𝕂(x, p) (a precomputed kernel over pairs) — the learn.Solution
// contract. Use PairModel to predict pairs of objects. O(m·q·(m + q)).
func (s *KronSolution) Predictor() *model.Predictor {
	return pairExpansion(learn.KronRLS, s.k.lab, s.Coefficients(), s.Lambda)
}

// pairExpansion writes the coefficients A of the observed grid as weights of
// the given pairs in the pairwise kernel: α_p = A_rc (heterogeneous), 2A_rc
// off the diagonal of a homogeneous network (the pair stands for both
// orientations under the symmetric or antisymmetric kernel).
func pairExpansion(name learn.Name, lab *labels, a *mat.Dense, lambda float64) *model.Predictor {
	n := len(lab.given)
	coef := mat.NewDense(n, 1, nil)
	for i, p := range lab.given {
		v := a.At(p.Row, p.Col)
		if lab.sym != Heterogeneous && p.Row != p.Col {
			v *= 2
		}
		if lab.sym == Antisymmetric && p.Row == p.Col {
			v = 0
		}
		coef.Set(i, 0, v)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return model.New(model.Expansion{Learner: string(name), Kernel: kernel.Precomputed{}, Lambda: lambda, Width: n,
		Outputs: []string{"y"}, Coef: coef, Points: &kernel.UnitRows{Index: idx, N: n}})
}
