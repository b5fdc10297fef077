package pairwise

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// TwoStep is two-step regularized least squares on complete data (Stock et
// al. 2016, 2018; Pahikkala et al. 2014): kernel ridge regression over the
// rows for every column, then over the columns for every row,
//
//	A = (K + λ_r I)⁻¹ Y (G + λ_c I)⁻¹,   f(u, v) = k(u)ᵀ A g(v),
//
// whose training predictions F = H_K Y H_G use the two hat matrices
// H_K = K(K + λ_r I)⁻¹ = U diag(e/(e+λ_r)) Uᵀ and H_G likewise. Its
// spectral filter is the product of the two sides' (Stock et al. 2018,
// sect. 3), so every cross-validation setting is a product of one-sided
// shortcuts: with L_K the leave-one-row-out operator of the row ridge
// (L_K Y = Y − A_K Y ⊘ diag(A_K), A_K = λ_r(K + λ_r I)⁻¹) and L_G likewise,
//
//	A  (pairs)  P = Y − R ⊘ (1 − diag(H_K) diag(H_G)ᵀ)   the self-consistent imputation
//	B  (rows)   P = L_K(Y) H_G
//	C  (cols)   P = H_K L_G(Y)
//	D  (both)   P = L_K Y L_Gᵀ
//
// and with folds the one-sided hold-outs in place of L. Everything after the
// two eigendecompositions costs O(m·q·min(m, q)) per (λ_r, λ_c) and
// O(m·q·max(m, q)) per value of the outer λ; no refactorization.
type TwoStep struct {
	problem
	spectrum
}

// FitTwoStep trains two-step RLS on complete data (every (row, column) pair
// labelled). Cost: the two sides' eigendecompositions (shared with other
// learners on the same sides) plus O(m·q·(m + q)).
func FitTwoStep(rows, cols *Side, pairs []Pair, y []float64, opt Options) (*TwoStep, error) {
	pr, err := newProblem(rows, cols, pairs, y, opt)
	if err != nil {
		return nil, err
	}
	return fitTwoStep(pr)
}

// fitTwoStep is FitTwoStep on a problem set up.
func fitTwoStep(pr problem) (*TwoStep, error) {
	if !pr.lab.complete {
		return nil, fmt.Errorf("%w: %s (two-step RLS needs complete data)", ErrIncomplete, pr.lab.missing(5))
	}
	sp, err := pr.spectrum()
	if err != nil {
		return nil, err
	}
	return &TwoStep{problem: pr, spectrum: sp}, nil
}

// Labels returns the n×1 labels in the order of the pairs given.
func (t *TwoStep) Labels() *mat.Dense { return t.lab.vector() }

// Pairs returns the labelled pairs as given (shared; do not modify).
func (t *TwoStep) Pairs() []Pair { return t.lab.given }

// Matrix returns the m×q label matrix (shared; do not modify).
func (t *TwoStep) Matrix() *mat.Dense { return t.lab.full }

// Sides returns the row and column sides.
func (t *TwoStep) Sides() (rows, cols *Side) { return t.rows, t.cols }

// Symmetry returns the network's symmetry.
func (t *TwoStep) Symmetry() Symmetry { return t.lab.sym }

// filter holds one side's ridge filter at one λ: g = λ/(e+λ) (the scaled
// inverse A = U diag(g) Uᵀ), h = e/(e+λ) (the hat matrix H = U diag(h) Uᵀ),
// diag(A) = (U∘U) g and diag(H) = (U∘U) h, each computed directly so that
// neither loses digits to 1 − x when the other is near 1.
type filter struct {
	lambda       float64
	g, h         []float64
	diagA, diagH []float64
}

func newFilter(e []float64, u2 *mat.Dense, lambda float64) (*filter, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	s := &filter{lambda: lambda, g: make([]float64, len(e)), h: make([]float64, len(e))}
	for k, v := range e {
		d := v + lambda
		if !(d > 0) {
			return nil, fmt.Errorf("pairwise: %w: eigenvalue %g with lambda %g", learn.ErrIndefinite, v, lambda)
		}
		s.g[k] = lambda / d
		s.h[k] = v / d
	}
	n, _ := u2.Dims()
	s.diagA, s.diagH = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		s.diagA[i] = floats(u2.RawRowView(i), s.g)
		s.diagH[i] = floats(u2.RawRowView(i), s.h)
	}
	return s, nil
}

// TwoStepSolution is two-step RLS at one (λ_r, λ_c).
type TwoStepSolution struct {
	t                    *TwoStep
	RowLambda, ColLambda float64
	r, c                 *filter
}

// Solve returns the model at (λ_r, λ_c): O(m + q) here, O(m·q·(m + q)) for
// each quantity asked of it.
func (t *TwoStep) Solve(rowLambda, colLambda float64) (*TwoStepSolution, error) {
	r, err := newFilter(t.er, t.u2, rowLambda)
	if err != nil {
		return nil, err
	}
	c, err := newFilter(t.ec, t.v2, colLambda)
	if err != nil {
		return nil, err
	}
	return &TwoStepSolution{t: t, RowLambda: rowLambda, ColLambda: colLambda, r: r, c: c}, nil
}

// grid returns U (UᵀYV ∘ w) Vᵀ for w_kl = f(k, l).
func (t *TwoStep) spectral(f func(k, l int) float64) *mat.Dense {
	m, q := t.yt.Dims()
	w := mat.NewDense(m, q, nil)
	for k := 0; k < m; k++ {
		src, dst := t.yt.RawRowView(k), w.RawRowView(k)
		for l := range dst {
			dst[l] = src[l] * f(k, l)
		}
	}
	return linalg.Mul(false, true, linalg.Mul(false, false, t.u, w), t.v)
}

// Fitted returns F = H_K Y H_G. O(m·q·(m + q)).
func (s *TwoStepSolution) Fitted() *mat.Dense {
	return s.t.spectral(func(k, l int) float64 { return s.r.h[k] * s.c.h[l] })
}

// Residuals returns R = Y − F, computed as U (UᵀYV ∘ (g_r + g_c − g_r g_c)) Vᵀ
// without cancellation. O(m·q·(m + q)).
func (s *TwoStepSolution) Residuals() *mat.Dense {
	return s.t.spectral(func(k, l int) float64 {
		a, b := s.r.g[k], s.c.g[l]
		return a + b - a*b
	})
}

// Coefficients returns A = (K + λ_r I)⁻¹ Y (G + λ_c I)⁻¹ (m×q), f(u, v) =
// k(u)ᵀ A g(v). O(m·q·(m + q)).
func (s *TwoStepSolution) Coefficients() *mat.Dense {
	er, ec := s.t.er, s.t.ec
	return s.t.spectral(func(k, l int) float64 {
		return 1 / ((er[k] + s.RowLambda) * (ec[l] + s.ColLambda))
	})
}

// LeaveOneOutMatrix returns setting A: for each pair the self-consistent
// imputation — the value p such that two-step RLS retrained with that label
// set to p predicts p: p = Y − R ⊘ (1 − h_K h_Gᵀ) with h the hat matrices'
// diagonals (Stock et al. 2018). O(m·q·(m + q)).
func (s *TwoStepSolution) LeaveOneOutMatrix() (*mat.Dense, error) {
	return s.t.settingA(s.Residuals(), s.Fitted(), s.r, s.c)
}

// LeaveOneOut returns setting A for the pairs as given (n×1): learn.LeaveOneOuter.
func (s *TwoStepSolution) LeaveOneOut() (*mat.Dense, error) {
	p, err := s.LeaveOneOutMatrix()
	if err != nil {
		return nil, err
	}
	v := s.t.lab.pick(p)
	return mat.NewDense(len(v), 1, v), nil
}

// HoldOutRows returns setting B: HO_K(Y) H_G, the row ridge's hold-out of
// each fold of rows (nil: each row alone) followed by the column step
// trained on all columns. O(m·q·(m + q)) plus O(Σ_F |F|²(m + q)).
func (s *TwoStepSolution) HoldOutRows(folds [][]int) (*mat.Dense, error) {
	return s.t.crossValidate(Design{Setting: Rows, RowFolds: folds}, s.r, s.c)
}

// HoldOutCols returns setting C: H_K HO_G(Y).
func (s *TwoStepSolution) HoldOutCols(folds [][]int) (*mat.Dense, error) {
	return s.t.crossValidate(Design{Setting: Cols, ColFolds: folds}, s.r, s.c)
}

// LeaveBothOut returns setting D: HO_K Y HO_Gᵀ, each block (row fold ×
// column fold) predicted by two-step RLS trained without those rows and
// columns (nil folds: each object alone).
func (s *TwoStepSolution) LeaveBothOut(rowFolds, colFolds [][]int) (*mat.Dense, error) {
	return s.t.crossValidate(Design{Setting: Both, RowFolds: rowFolds, ColFolds: colFolds}, s.r, s.c)
}

// Predictor returns the model as a kernel expansion over the training pairs
// as given, for rows of pairwise kernel values (see KronSolution.Predictor).
func (s *TwoStepSolution) Predictor() *model.Predictor {
	return pairExpansion(learn.TwoStep, s.t.lab, s.Coefficients(), s.RowLambda)
}

// Conditioning is (e_max + λ_r)/λ_r · (s_max + λ_c)/λ_c, the condition number of the two ridge systems together.
func (s *TwoStepSolution) Conditioning() float64 {
	return (maxAbs(s.t.er) + s.RowLambda) / s.RowLambda * (maxAbs(s.t.ec) + s.ColLambda) / s.ColLambda
}

// settingA is the imputation p = (F − h y)/(1 − h), h = diag(H_K)_i diag(H_G)_j,
// with 1 − h = a + b − ab (a, b the diagonals of A_K, A_G) free of
// cancellation, computed as y − r/(1 − h) where 1 − h is small (light
// regularization: the residual is accurate) and from F where it is large
// (heavy regularization: F is accurate, y − r would cancel).
func (t *TwoStep) settingA(res, fit *mat.Dense, r, c *filter) (*mat.Dense, error) {
	if t.lab.sym != Heterogeneous {
		return t.settingAHomogeneous(res, fit, r, c)
	}
	y := t.lab.full
	m, q := y.Dims()
	out := mat.NewDense(m, q, nil)
	for i := 0; i < m; i++ {
		a := r.diagA[i]
		yr, rr, fr, or := y.RawRowView(i), res.RawRowView(i), fit.RawRowView(i), out.RawRowView(i)
		for j := 0; j < q; j++ {
			b := c.diagA[j]
			one := a + b - a*b
			or[j] = impute(yr[j], rr[j], fr[j], r.diagH[i]*c.diagH[j], one)
		}
	}
	return out, nil
}

// impute returns the fixed point p of p = f + h(p − y), given r = y − f and
// one = 1 − h: y − r/one or (f − h y)/one, whichever does not cancel.
func impute(y, r, f, h, one float64) float64 {
	if one < 0.5 {
		return y - r/one
	}
	return (f - h*y) / one
}

// settingAHomogeneous imputes (u, v) and (v, u) together: F_uv depends on
// Y_uv through h_u h_v and on Y_vu through (H_uv)², so with s = ±1 for
// (anti)symmetric labels p = (F_uv − (h_u h_v + s H_uv²) y_uv)/(1 − h_u h_v − s H_uv²).
// O(m³) for the hat matrix.
func (t *TwoStep) settingAHomogeneous(res, fit *mat.Dense, r, c *filter) (*mat.Dense, error) {
	y := t.lab.full
	m, _ := y.Dims()
	hr := linalg.Mul(false, true, linalg.ScaleCols(t.u, r.h), t.u)
	hc := linalg.Mul(false, true, linalg.ScaleCols(t.v, c.h), t.v)
	sign := 1.0
	if t.lab.sym == Antisymmetric {
		sign = -1
	}
	out := mat.NewDense(m, m, nil)
	for u := 0; u < m; u++ {
		for v := 0; v < m; v++ {
			a, b := r.diagA[u], c.diagA[v]
			one := a + b - a*b // 1 − h_u h_v
			h := r.diagH[u] * c.diagH[v]
			if u != v {
				x := sign * hr.At(u, v) * hc.At(v, u)
				out.Set(u, v, impute(y.At(u, v), res.At(u, v), fit.At(u, v), h+x, one-x))
				continue
			}
			out.Set(u, v, impute(y.At(u, v), res.At(u, v), fit.At(u, v), h, one))
		}
	}
	return out, nil
}

// rowHoldOut returns, for labels Y (m×q), the row ridge's hold-out
// predictions of each fold of rows (nil: each row alone), NaN for rows in no
// fold, given AY = A_K Y and HY = H_K Y: Y_F − (A_K)_FF⁻¹ (AY)_F, or the same
// value (A_K)_FF⁻¹ ((HY)_F − (H_K)_FF Y_F) where A_K is near I (heavy
// regularization), where the first form would cancel.
func rowHoldOut(y, ay, hy, u *mat.Dense, s *filter, folds [][]int) (*mat.Dense, error) {
	m, q := y.Dims()
	if folds == nil {
		out := mat.NewDense(m, q, nil)
		for i := 0; i < m; i++ {
			yr, rr, fr, or := y.RawRowView(i), ay.RawRowView(i), hy.RawRowView(i), out.RawRowView(i)
			d, h := s.diagA[i], s.diagH[i]
			for j := range or {
				or[j] = impute(yr[j], rr[j], fr[j], h, d)
			}
		}
		return out, nil
	}
	out := nanDense(m, q)
	for _, f := range folds {
		p, err := foldHoldOut(rowsOf(u, f), s, rowsOf(y, f), rowsOf(ay, f), rowsOf(hy, f))
		if err != nil {
			return nil, err
		}
		for a, i := range f {
			copy(out.RawRowView(i), p.RawRowView(a))
		}
	}
	return out, nil
}

// foldHoldOut is the hold-out of the |F| rows with eigenvector rows U_F:
// Y_F − A_FF⁻¹ R_F or A_FF⁻¹ (F_F − H_FF Y_F), by the mean of diag(A_FF).
func foldHoldOut(uf *mat.Dense, s *filter, yf, rf, ff *mat.Dense) (*mat.Dense, error) {
	aff := linalg.Mul(false, true, linalg.ScaleCols(uf, s.g), uf)
	n, _ := aff.Dims()
	tr := 0.0
	for i := 0; i < n; i++ {
		tr += aff.At(i, i)
	}
	if tr < 0.5*float64(n) {
		z, err := solveSPD(aff, rf)
		if err != nil {
			return nil, err
		}
		var out mat.Dense
		out.Sub(yf, z)
		return &out, nil
	}
	hff := linalg.Mul(false, true, linalg.ScaleCols(uf, s.h), uf)
	b := mat.DenseCopyOf(ff)
	linalg.Gemm(false, false, -1, hff, yf, 1, b)
	return solveSPD(aff, b)
}

// applyA returns Z A = (Z V ∘ g) Vᵀ for the column side's filter g, given ZV.
func applyA(zv, v *mat.Dense, g []float64) *mat.Dense {
	return linalg.Mul(false, true, linalg.ScaleCols(zv, g), v)
}

// crossValidate computes a design at one (λ_r, λ_c) from scratch.
func (t *TwoStep) crossValidate(d Design, r, c *filter) (*mat.Dense, error) {
	if err := d.check(t.lab.m, t.lab.q, t.lab.sym); err != nil {
		return nil, err
	}
	st := t.rowStage(d, r)
	if st.err != nil {
		return nil, st.err
	}
	return st.cols(c)
}

// stage is the part of a two-step cross-validation that depends on λ_r only;
// cols finishes it for one λ_c in O(m·q²).
type stage struct {
	t   *TwoStep
	d   Design
	r   *filter
	z   *mat.Dense // the row-side matrix the column step acts on
	zv  *mat.Dense // Z V
	ay  *mat.Dense // A_K Y (setting A)
	err error
}

// rowStage computes, for λ_r, the row side of the design: Z = L_K(Y) or
// HO_K(Y) for rows and both, H_K Y for cols and pairs (with A_K Y);
// O(m²·q + m·q²).
func (t *TwoStep) rowStage(d Design, r *filter) *stage {
	st := &stage{t: t, d: d, r: r}
	y := t.lab.full
	uty := linalg.Mul(true, false, t.u, y)
	ay := linalg.Mul(false, false, t.u, linalg.ScaleRows(uty, r.g)) // A_K Y
	hy := linalg.Mul(false, false, t.u, linalg.ScaleRows(uty, r.h)) // H_K Y
	switch d.Setting {
	case Pairs:
		st.ay, st.z = ay, hy
	case Rows, Both:
		folds := d.RowFolds
		st.z, st.err = rowHoldOut(y, ay, hy, t.u, r, folds)
		if st.err != nil {
			return st
		}
		if folds != nil {
			// rows in no fold carry NaN; keep them out of the column products
			raw := st.z.RawMatrix().Data
			for i, v := range raw {
				if v != v {
					raw[i] = 0
				}
			}
		}
	case Cols:
		st.z = hy
	default:
		st.err = fmt.Errorf("%w: %s for two-step RLS", ErrSetting, d)
		return st
	}
	st.zv = linalg.Mul(false, false, st.z, t.v)
	return st
}

// cols finishes the design for the column filter c: O(m·q²) (plus the
// column folds' O(Σ|F|²q + |F|³ + m·|F|²)).
func (st *stage) cols(c *filter) (*mat.Dense, error) {
	t, d := st.t, st.d
	zh := linalg.Mul(false, true, linalg.ScaleCols(st.zv, c.h), t.v) // Z H_G
	switch d.Setting {
	case Pairs:
		// F = H_K Y H_G, R = A_K Y + H_K Y A_G (1 − h_r h_c = g_r + h_r g_c)
		res := applyA(st.zv, t.v, c.g)
		res.Add(res, st.ay)
		return t.settingA(res, zh, st.r, c)
	case Rows:
		st.markRows(zh)
		return zh, nil
	case Cols, Both:
		za := applyA(st.zv, t.v, c.g)
		p, err := colHoldOut(st.z, za, zh, t.v, c, d.ColFolds)
		if err != nil {
			return nil, err
		}
		if d.Setting == Both {
			st.markRows(p)
		}
		return p, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrSetting, d)
}

// markRows sets the rows in no row fold to NaN.
func (st *stage) markRows(p *mat.Dense) {
	if st.d.RowFolds == nil {
		return
	}
	m, q := p.Dims()
	in := make([]bool, m)
	for _, f := range st.d.RowFolds {
		for _, i := range f {
			in[i] = true
		}
	}
	for i := 0; i < m; i++ {
		if !in[i] {
			row := p.RawRowView(i)
			for j := 0; j < q; j++ {
				row[j] = nan
			}
		}
	}
}

// colHoldOut returns the column ridge's hold-out of each fold of columns of
// Z (m×q, rows as label vectors over the columns), given ZA = Z A_G and
// ZH = Z H_G: Z_·F − (ZA)_·F (A_G)_FF⁻¹ or its heavy-regularization form (see
// rowHoldOut); NaN for columns in no fold.
func colHoldOut(z, za, zh, v *mat.Dense, c *filter, folds [][]int) (*mat.Dense, error) {
	m, q := z.Dims()
	if folds == nil {
		out := mat.NewDense(m, q, nil)
		for i := 0; i < m; i++ {
			zr, ar, hr, or := z.RawRowView(i), za.RawRowView(i), zh.RawRowView(i), out.RawRowView(i)
			for j := range or {
				or[j] = impute(zr[j], ar[j], hr[j], c.diagH[j], c.diagA[j])
			}
		}
		return out, nil
	}
	out := nanDense(m, q)
	for _, f := range folds {
		zt := transpose(colsOf(z, f))
		p, err := foldHoldOut(rowsOf(v, f), c, zt, transpose(colsOf(za, f)), transpose(colsOf(zh, f)))
		if err != nil {
			return nil, err
		}
		for a, j := range f {
			pr := p.RawRowView(a)
			for i := 0; i < m; i++ {
				out.Set(i, j, pr[i])
			}
		}
	}
	return out, nil
}

var nan = math.NaN()

// CrossValidate runs the design at every (λ_r, λ_c) of the two grids and
// hands visit the m×q matrix of cross-validation predictions (NaN for pairs
// no fold predicts; valid only during the call), i indexing rowGrid and j
// colGrid. The side with more objects is handled in the outer loop, so the
// cost is O(m·q·max(m, q)) per value of its λ and O(m·q·min(m, q)) per pair
// (λ_r, λ_c) — plus the folds' small systems — after the two
// eigendecompositions; no refactorization.
func (t *TwoStep) CrossValidate(d Design, rowGrid, colGrid []float64, visit func(i, j int, p *mat.Dense) error) error {
	if err := checkLambdas(rowGrid); err != nil {
		return err
	}
	if err := checkLambdas(colGrid); err != nil {
		return err
	}
	if err := d.check(t.lab.m, t.lab.q, t.lab.sym); err != nil {
		return err
	}
	tt, dd, outer, inner := t, d, rowGrid, colGrid
	swap := t.lab.sym == Heterogeneous && t.lab.q > t.lab.m
	if swap {
		tt, dd, outer, inner = t.transposed(), d.transposed(), colGrid, rowGrid
	}
	cf := make([]*filter, len(inner))
	for j, l := range inner {
		var err error
		if cf[j], err = newFilter(tt.ec, tt.v2, l); err != nil {
			return err
		}
	}
	for i, l := range outer {
		r, err := newFilter(tt.er, tt.u2, l)
		if err != nil {
			return err
		}
		var st *stage
		if dd.Setting != Vertices {
			if st = tt.rowStage(dd, r); st.err != nil {
				return st.err
			}
		}
		for j, c := range cf {
			var p *mat.Dense
			if dd.Setting == Vertices {
				p, err = tt.vertexOut(r, c, dd.RowFolds)
			} else {
				p, err = st.cols(c)
			}
			if err != nil {
				return fmt.Errorf("pairwise: %s at λ = %g, col λ = %g: %w", d, r.lambda, c.lambda, err)
			}
			if swap {
				err = visit(j, i, transpose(p))
			} else {
				err = visit(i, j, p)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// transposed returns the same learner with rows and columns exchanged.
func (t *TwoStep) transposed() *TwoStep {
	lab := *t.lab
	lab.m, lab.q, lab.full = t.lab.q, t.lab.m, transpose(t.lab.full)
	return &TwoStep{problem: problem{rows: t.cols, cols: t.rows, lab: &lab},
		spectrum: spectrum{u: t.v, v: t.u, er: t.ec, ec: t.er, u2: t.v2, v2: t.u2, yt: transpose(t.yt)}}
}

// transposed exchanges the roles of rows and columns.
func (d Design) transposed() Design {
	out := Design{Setting: d.Setting, RowFolds: d.ColFolds, ColFolds: d.RowFolds}
	switch d.Setting {
	case Rows:
		out.Setting = Cols
	case Cols:
		out.Setting = Rows
	}
	return out
}

// LeaveVertexOut returns leave-vertex-out cross-validation of two-step RLS
// on a homogeneous network at (λ_r, λ_c): for each fold F of vertices (nil:
// each alone) the predictions f(u, v), u ∈ F, v any vertex, of two-step RLS
// trained on the network without F. The row step is the hold-out
// Z = HO_K(Y)_F; the column step trained without F predicts every vertex from
// Z with its F entries imputed by the column hold-out (the self-consistent
// values a model trained without them reproduces), P_F = Z̃ H_G.
// O(m³) plus O(Σ_F |F|·m²) per (λ_r, λ_c).
func (s *TwoStepSolution) LeaveVertexOut(folds [][]int) (*mat.Dense, error) {
	d := Design{Setting: Vertices, RowFolds: folds}
	if err := d.check(s.t.lab.m, s.t.lab.q, s.t.lab.sym); err != nil {
		return nil, err
	}
	return s.t.vertexOut(s.r, s.c, folds)
}

func (t *TwoStep) vertexOut(r, c *filter, folds [][]int) (*mat.Dense, error) {
	y := t.lab.full
	m, q := y.Dims()
	if folds == nil {
		folds = loo(m)
	}
	uty := linalg.Mul(true, false, t.u, y)
	ay := linalg.Mul(false, false, t.u, linalg.ScaleRows(uty, r.g))
	hy := linalg.Mul(false, false, t.u, linalg.ScaleRows(uty, r.h))
	out := nanDense(m, q)
	for _, f := range folds {
		z, err := foldHoldOut(rowsOf(t.u, f), r, rowsOf(y, f), rowsOf(ay, f), rowsOf(hy, f)) // HO_K(Y)_F, |F|×q
		if err != nil {
			return nil, err
		}
		zv := linalg.Mul(false, false, z, t.v)
		imp, err := colHoldOut(z, applyA(zv, t.v, c.g), linalg.Mul(false, true, linalg.ScaleCols(zv, c.h), t.v), t.v, c, [][]int{f})
		if err != nil {
			return nil, err
		}
		for _, j := range f {
			for a := range f {
				z.Set(a, j, imp.At(a, j))
			}
		}
		p := linalg.Mul(false, true, linalg.ScaleCols(linalg.Mul(false, false, z, t.v), c.h), t.v)
		for a, i := range f {
			copy(out.RawRowView(i), p.RawRowView(a))
		}
	}
	return out, nil
}
