// Package rls is regularized least-squares regression (kernel ridge regression)
// with exact, nearly free cross-validation along the whole regularization path.
//
// Fit minimizes, for every output column of Y (m×t) at once,
//
//	‖Y − f(X)‖² + λ‖f‖²_k
//
// over f(x) = Σ_i a_i k(x, x_i) (dual), f(x) = wᵀx + b (linear kernel, primal), or
// f(x) = Σ_{j∈B} a_j k(x, x_j) over a basis B of training rows (sparse, subset of
// regressors). Fit factors the (approximated) kernel matrix once,
// K̃ = U diag(e) Uᵀ (package factor); after that, for any λ,
//
//	A(λ) = λ(K̃ + λI)⁻¹ = c₀I + U diag(g) Uᵀ,
//	  dual:       c₀ = 0, g = λ/(e+λ)        (UUᵀ = I)
//	  low rank:   c₀ = 1, g = −e/(e+λ)       (the complement I − UUᵀ is kept)
//
// and every quantity is a small operation on U's rows (Rifkin & Lippert 2007, "Varying λ" and
// LOOE; Pahikkala et al. 2008, Theorem 1):
//
//	residuals    R = A·Y = Y − Ŷ                              O(m·r·t)
//	LOO          Y_i − R_i / A_ii                             O(m·r·t)
//	hold-out H   Y_H − (A_HH)⁻¹ R_H                           O(|H|²r + |H|³) or, low rank, O(|H|r² + r³)
//	pair {i,j}   the 2×2 case of the hold-out                 O(t) per pair once A is formed
//
// All of them equal retraining on the reduced data (held-out rows dropped from the
// loss; a sparse basis stays as it is). Along a λ grid, SolvePath and AtGrid
// compute the residuals and diag(A) of many λ in one level-3 product each,
// reading U once for all of them instead of twice per λ.
//
// # Unpenalized intercept
//
// With Options.Intercept the model is f(x) + b, b ∈ Rᵗ free in the loss and
// absent from the penalty: min ‖Y − f(X) − 1bᵀ‖² + λ‖f‖². It is still a
// penalized least-squares problem, on the design [Φ, 1] with the penalty
// diag(λI, 0), so its residuals are I − H applied to Y for the augmented hat
// matrix H, and the hold-out identities above hold with
//
//	Â = I − H = A − v vᵀ/s,   v = A1,  s = 1ᵀA1 = 1ᵀv,
//
// in place of A (Â = λĜ with Ĝ = G − G11ᵀG/(1ᵀG1), G = (K̃ + λI)⁻¹: the
// partial minimization over b of λ(Y − 1bᵀ)ᵀG(Y − 1bᵀ); Ĝ is the block of
// the inverse of the bordered system [K̃ + λI, 1; 1ᵀ, 0] of least-squares
// SVMs, whose exact LOO Cawley & Talbot 2004 derive the same way). Then
//
//	b = 1ᵀR/s = 1ᵀGY/1ᵀG1,  R̂ = R − v bᵀ,  diag Â = diag A − v∘v/s,
//	coefficients those of the labels Y − 1bᵀ,
//
// and every shortcut — LOO, hold-outs, leave-pair-out, the λ path — reads Â
// and R̂: each equals refitting f and b on the reduced data. v costs one
// O(m·r) product per λ (U(g∘Uᵀ1), Uᵀ1 formed once), s is O(r), a hold-out
// block of Â O(|H|²) more than A's (the Woodbury path takes v_H as one
// more column). The reduced data must keep a row (b is then determined):
// learn.CheckHoldOut refuses a hold-out of every row. Adding a constant c
// to the kernel (the linear kernel's bias) changes nothing but rounding:
// Ĝ is the same for K̃ and K̃ + c11ᵀ, and the coefficients sum to zero.
//
// # Sample weights
//
// With Options.Weights w (w_i > 0) Fit minimizes Σ_i w_i‖y_i − f(x_i)‖² +
// λ‖f‖². With S = diag(√w) that is ‖SY − S f(X)‖² + λ‖f‖²: ordinary RLS
// on the kernel matrix S K S (the features S[X, √bias·1] in the linear
// form) and the labels SY, whose dual coefficients c give f's as a = S c
// (the primal weights are f's as they are). Fit factors S K S once; every
// formula above then applies to the scaled problem. Dropping rows H from
// the weighted loss drops them from the scaled one, the other rows keeping
// their weights, so the scaled problem's hold-out prediction of row h is
// s_h f^{−H}(x_h): HoldOut, LeaveOneOut, LeavePairOut and HoldOutPath
// divide it by s_h, and Residuals by s_i, so that everything returned is
// on the data's scale (Labels returns Y unweighted). With an intercept the
// intercept's column of the scaled problem is S1 in place of 1 (1 reads z
// = S1 in the section above: v = Az, s = zᵀAz, b = zᵀR/s, q0 = ‖(I −
// UUᵀ)z‖²): the weighted intercept, refit inside every hold-out. The sparse
// form and the conjugate-gradient solver take no weights yet.
package rls

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
)

// Options configure Fit (the learners' shared options).
type Options = learn.Options

// RLS is a trained factorization: it does not depend on λ. Solve gives the model
// and the cross-validation shortcuts at any λ.
type RLS struct {
	meta learn.Meta
	d    *factor.Data
	f    *factor.Factor
	y    *mat.Dense // m×t, the labels of the factored problem: SY with sample weights
	y0   *mat.Dense // m×t, the labels as given (y itself without weights)
	sw   []float64  // s_i = √w_i, nil without sample weights
	uty  *mat.Dense // r×t, UᵀY
	icpt *intercept // nil without an unpenalized intercept
}

// intercept is what the unpenalized intercept needs of the factor, formed
// once by Fit: O(m·r).
type intercept struct {
	// z is the intercept's column of the factored problem: 1, or S1 = s
	// with sample weights (nil stands for 1). Below, 1 is z.
	z  []float64
	u1 []float64 // Uᵀ1 (r)
	// q0 = ‖(I − UUᵀ)1‖², the complement's part of 1ᵀA1 (low-rank
	// forms; 0 for the dual form), from the residual vector 1 − U(Uᵀ1)
	// rather than m − ‖Uᵀ1‖², which cancels when 1 is nearly in span U.
	q0 float64
}

// newIntercept forms Uᵀz and, for a low-rank factor, q0, for the
// intercept column z (nil: 1). O(m·r).
func newIntercept(f *factor.Factor, z []float64) *intercept {
	m, rk := f.Rows(), f.Rank()
	ic := &intercept{z: z, u1: make([]float64, rk)}
	for i := 0; i < m; i++ {
		zi := ic.zi(i)
		for k, u := range f.U.RawRowView(i) {
			ic.u1[k] += u * zi
		}
	}
	if f.Complement() {
		for i := 0; i < m; i++ {
			p := 0.0
			for k, u := range f.U.RawRowView(i) {
				p += u * ic.u1[k]
			}
			ic.q0 += (ic.zi(i) - p) * (ic.zi(i) - p)
		}
	}
	return ic
}

// zi is z_i, 1 when z is nil.
func (ic *intercept) zi(i int) float64 {
	if ic.z == nil {
		return 1
	}
	return ic.z[i]
}

// Fit factors the kernel matrix of X (m×d, *mat.Dense or *matrix.CSR) for the
// labels Y (m×t). Cost: one kernel block and O(m³) (Dual), O(m·d²) (Linear) or
// O(m·n²) (Sparse), plus O(m·r·t) for UᵀY and, with opt.Intercept, O(m·r)
// for Uᵀ1 (see the package comment). With opt.Weights it factors S K S
// instead (dual and linear forms; see "Sample weights" in the package
// comment), plus O(m·t) to scale Y.
func Fit(x mat.Matrix, y *mat.Dense, opt Options) (*RLS, error) {
	if err := matrix.Check(x); err != nil {
		return nil, fmt.Errorf("rls: %w: %w", learn.ErrShape, err)
	}
	m, _ := x.Dims()
	if m < 2 {
		return nil, fmt.Errorf("rls: %w: %d training rows, need at least 2", learn.ErrShape, m)
	}
	outs, err := learn.CheckLabels(y, m, opt.Outputs)
	if err != nil {
		return nil, fmt.Errorf("rls: %w", err)
	}
	var sw []float64
	if opt.Weights != nil {
		if sw, err = sqrtWeights(opt.Weights, m); err != nil {
			return nil, fmt.Errorf("rls: %w", err)
		}
	}
	var d *factor.Data
	var sc *model.Scaler
	if sw == nil {
		d, sc, err = opt.Build(x)
	} else {
		d, sc, err = buildWeighted(x, opt, sw)
	}
	if err != nil {
		return nil, fmt.Errorf("rls: %w", err)
	}
	var ic *intercept
	if opt.Intercept {
		ic = newIntercept(d.Factor, sw)
	}
	return newRLS(learn.Meta{Name: learn.RLS, Data: d, Outputs: outs, Scaler: sc}, y, ic, sw), nil
}

// newRLS is the model of the labels y on the factor of meta, with the
// intercept data ic (nil: no intercept; it depends on U only, so models on
// the same U share it) and the square roots sw of the sample weights (nil:
// none; the factored labels are then S Y).
func newRLS(meta learn.Meta, y *mat.Dense, ic *intercept, sw []float64) *RLS {
	r := &RLS{meta: meta, d: meta.Data, f: meta.Data.Factor, y: mat.DenseCopyOf(y), icpt: ic, sw: sw}
	r.y0 = r.y
	if sw != nil {
		r.y0 = mat.DenseCopyOf(y)
		for i, s := range sw {
			row := r.y.RawRowView(i)
			for c := range row {
				row[c] *= s
			}
		}
	}
	r.uty = linalg.Mul(true, false, r.f.U, r.y)
	return r
}

// WithLabels returns the model of the same data and kernel for other labels Y
// (m×t'), sharing the factorization: O(m·r·t'), no refactoring. Permutation
// tests and one-vs-all learning use it. outputs may be nil.
func (r *RLS) WithLabels(y *mat.Dense, outputs []string) (*RLS, error) {
	outs, err := learn.CheckLabels(y, r.Rows(), outputs)
	if err != nil {
		return nil, fmt.Errorf("rls: %w", err)
	}
	meta := r.meta
	meta.Outputs = outs
	return newRLS(meta, y, r.icpt, r.sw), nil
}

// Relabel is WithLabels as the learn.Relabeler capability.
func (r *RLS) Relabel(y *mat.Dense, outputs []string) (learn.Learner, error) {
	return r.WithLabels(y, outputs)
}

// Perturbed is the twin of learn.Perturber: labels times s on the factor
// with perturbed eigenvalues. O(m·r·t).
func (r *RLS) Perturbed(s float64) (learn.Learner, error) {
	var y mat.Dense
	y.Scale(s, r.y0)
	return newRLS(r.meta.Perturbed(), &y, r.icpt, r.sw), nil
}

// Name is learn.RLS.
func (r *RLS) Name() learn.Name { return learn.RLS }

// At is Solve as the learn.Learner contract.
func (r *RLS) At(lambda float64) (learn.Solution, error) { return r.Solve(lambda) }

// Form reports the form the factor was built in.
func (r *RLS) Form() factor.Form { return r.f.Form }

// Rows returns m.
func (r *RLS) Rows() int { return r.f.Rows() }

// Outputs returns t.
func (r *RLS) Outputs() int { _, t := r.y.Dims(); return t }

// Labels returns Y as given, unweighted (shared; do not modify).
func (r *RLS) Labels() *mat.Dense { return r.y0 }

// Basis returns the basis rows of a sparse model (nil otherwise).
func (r *RLS) Basis() []int { return r.d.Basis }

// Factor returns the underlying factor (shared; do not modify).
func (r *RLS) Factor() *factor.Factor { return r.f }

// HasIntercept reports whether the model has an unpenalized intercept
// (Options.Intercept).
func (r *RLS) HasIntercept() bool { return r.icpt != nil }

// Solution is the model at one λ with its cross-validation shortcuts. With an
// intercept, res and diag are those of Â = A − v vᵀ/s (the package comment).
type Solution struct {
	r      *RLS
	Lambda float64
	c0     float64   // A = c0·I + U diag(g) Uᵀ
	g      []float64 // r
	res    *mat.Dense
	diag   []float64
	v      []float64 // A1 (m), with an intercept
	s      float64   // 1ᵀA1, with an intercept
	b      []float64 // the intercept (t), with one

	fullOnce sync.Once
	full     *mat.Dense // A, formed on first need by LeavePairOut
}

// Solve returns the solution at λ: O(m·r·t) (O(m²t) dual), no refactorization;
// an intercept adds O(m·r) for v = A1 and O(m·t) for its correction.
func (r *RLS) Solve(lambda float64) (*Solution, error) {
	f := r.f
	s := &Solution{r: r, Lambda: lambda}
	var err error
	if s.c0, s.g, err = r.gains(lambda); err != nil {
		return nil, err
	}
	// R = c0·Y + U (g ∘ UᵀY)
	gu := linalg.ScaleRows(r.uty, s.g)
	s.res = linalg.Mul(false, false, f.U, gu)
	if s.c0 != 0 {
		s.res.Add(s.res, r.y)
	}
	// diag(A) = c0 + (U∘U) g
	s.diag = f.Diag(s.g)
	for i := range s.diag {
		s.diag[i] += s.c0
	}
	if r.icpt != nil {
		// v = A1 = c0·1 + U (g ∘ Uᵀ1)  (1 is z)
		gu1 := make([]float64, f.Rank())
		for k, g := range s.g {
			gu1[k] = g * r.icpt.u1[k]
		}
		s.v = make([]float64, f.Rows())
		for i := range s.v {
			p := s.c0 * r.icpt.zi(i)
			for k, u := range f.U.RawRowView(i) {
				p += u * gu1[k]
			}
			s.v[i] = p
		}
		s.applyIntercept()
	}
	return s, nil
}

// applyIntercept turns the residuals R and diag(A) of the solution into
// those of the model with an unpenalized intercept, given v = A1 (s.v):
// s = 1ᵀA1 = c0·q0 + Σ_k (c0 + g_k)(Uᵀ1)_k² (every term ≥ 0: c0 + g_k =
// λ/(e_k+λ) in both forms), b = 1ᵀR/s, R̂ = R − v bᵀ, diag Â = diag A −
// v∘v/s. O(m·t + r).
func (s *Solution) applyIntercept() {
	ic := s.r.icpt
	s.s = s.c0 * ic.q0
	for k, g := range s.g {
		s.s += (s.c0 + g) * ic.u1[k] * ic.u1[k]
	}
	m, t := s.res.Dims()
	s.b = make([]float64, t)
	for i := 0; i < m; i++ {
		zi := ic.zi(i)
		for c, v := range s.res.RawRowView(i) {
			s.b[c] += zi * v
		}
	}
	for c := range s.b {
		s.b[c] /= s.s
	}
	for i := 0; i < m; i++ {
		vi := s.v[i]
		row := s.res.RawRowView(i)
		for c := range row {
			row[c] -= vi * s.b[c]
		}
		s.diag[i] -= vi * vi / s.s
	}
}

// Intercept returns the unpenalized intercept b (t values; shared, do not
// modify), or nil for a model without one.
func (s *Solution) Intercept() []float64 { return s.b }

// gains returns A(λ) = c₀I + U diag(g) Uᵀ's c₀ and g (see the package
// comment), or an error wrapping learn.ErrLambda for a λ that is not
// positive and finite, learn.ErrIndefinite when some e + λ ≤ 0. O(r).
func (r *RLS) gains(lambda float64) (c0 float64, g []float64, err error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return 0, nil, fmt.Errorf("rls: %w", err)
	}
	f := r.f
	g = make([]float64, f.Rank())
	for k, e := range f.E {
		if !(e+lambda > 0) {
			return 0, nil, fmt.Errorf("rls: %w: eigenvalue %g with lambda %g", learn.ErrIndefinite, e, lambda)
		}
		if f.Complement() {
			g[k] = -e / (e + lambda)
		} else {
			g[k] = lambda / (e + lambda)
		}
	}
	if f.Complement() {
		c0 = 1
	}
	return c0, g, nil
}

// Residuals returns R = Y − Ŷ on the training data (shared; do not
// modify). With sample weights it is S⁻¹R̃, a copy: O(m·t).
func (s *Solution) Residuals() *mat.Dense {
	if s.r.sw == nil {
		return s.res
	}
	out := mat.DenseCopyOf(s.res)
	s.r.unscaleRows(nil, out)
	return out
}

// Fitted returns the training predictions Ŷ = Y − R.
func (s *Solution) Fitted() *mat.Dense {
	var out mat.Dense
	out.Sub(s.r.y0, s.Residuals())
	return &out
}

// LeaveOneOut returns the m×t leave-one-out predictions, f_{−i}(x_i) =
// y_i − R_i/A_ii (Rifkin & Lippert 2007, LOOE: c_i / (G⁻¹)_ii); with an
// intercept y_i − R̂_i/Â_ii, the refit intercept included. O(m·t) after
// Solve; the error is always nil (the signature is shared with the ranking
// learners).
func (s *Solution) LeaveOneOut() (*mat.Dense, error) {
	m, t := s.r.y.Dims()
	out := mat.NewDense(m, t, nil)
	s.leaveOneOutRows(nil, out)
	return out, nil
}

// leaveOneOutRows writes the leave-one-out predictions of the rows (every
// row when rows is nil) into the same rows of out (m×t). O(t) a row.
func (s *Solution) leaveOneOutRows(rows []int, out *mat.Dense) {
	_, t := s.r.y.Dims()
	y, res, o := s.r.y.RawMatrix(), s.res.RawMatrix(), out.RawMatrix()
	one := func(i int) {
		yr, rr, orow := y.Data[i*y.Stride:i*y.Stride+t], res.Data[i*res.Stride:i*res.Stride+t], o.Data[i*o.Stride:i*o.Stride+t]
		d := s.diag[i]
		for c := range orow {
			orow[c] = yr[c] - rr[c]/d
		}
		if s.r.sw != nil { // s_i f(x_i) back to f(x_i)
			for c := range orow {
				orow[c] /= s.r.sw[i]
			}
		}
	}
	if rows == nil {
		for i := range s.diag {
			one(i)
		}
		return
	}
	for _, i := range rows {
		one(i)
	}
}

// HoldOut returns the |H|×t predictions for the rows H (in the given order) of
// the model retrained without them: Y_H − (A_HH)⁻¹ R_H (Pahikkala et al. 2008, Theorem 1;
// Pahikkala, Suominen & Boberg 2012, sect. 4); with an intercept
// Y_H − (Â_HH)⁻¹ R̂_H, Â_HH = A_HH − v_H v_Hᵀ/s, the intercept refit on the
// other rows. Cost O(|H|²r + |H|³); for a low-rank factor with r < |H|
// O(|H|r² + r³) through Woodbury (r + 1 columns with an intercept).
func (s *Solution) HoldOut(h []int) (*mat.Dense, error) {
	z, err := s.holdOutResidual(h)
	if err != nil {
		return nil, err
	}
	out := kernel.Rows(s.r.y, h).(*mat.Dense)
	out.Sub(out, z)
	s.r.unscaleRows(h, out)
	return out, nil
}

// holdOutResidual returns Z = (A_HH)⁻¹ R_H (Â and R̂ with an intercept), the
// residuals Y_H − f_{−H}(X_H) of the factored problem (scaled by s_h with
// sample weights), at HoldOut's cost.
func (s *Solution) holdOutResidual(h []int) (*mat.Dense, error) {
	if err := learn.CheckHoldOut(h, s.r.Rows()); err != nil {
		return nil, fmt.Errorf("rls: %w", err)
	}
	u := s.r.f.U
	uh := kernel.Rows(u, h).(*mat.Dense)
	rh := kernel.Rows(s.res, h).(*mat.Dense)
	var z *mat.Dense
	var err error
	if s.c0 != 0 && s.r.f.Rank() < len(h) {
		z, err = s.woodbury(uh, rh, h)
	} else {
		// A_HH = c0 I + U_H diag(g) U_Hᵀ
		ahh := linalg.Mul(false, true, linalg.ScaleCols(uh, s.g), uh)
		for i := range h {
			ahh.Set(i, i, ahh.At(i, i)+s.c0)
		}
		if s.v != nil { // Â_HH = A_HH − v_H v_Hᵀ/s
			for a, i := range h {
				row := ahh.RawRowView(a)
				for c, j := range h {
					row[c] -= s.v[i] * s.v[j] / s.s
				}
			}
		}
		z, err = solveSPD(ahh, rh)
	}
	if err != nil {
		return nil, fmt.Errorf("rls: hold-out of %d rows at lambda %g: %w", len(h), s.Lambda, err)
	}
	return z, nil
}

// woodbury solves (I + U_H diag(g) U_Hᵀ) Z = R_H with g = −h, h ≥ 0:
// Z = R_H + U_H (D⁻¹ − U_HᵀU_H)⁻¹ U_HᵀR_H, D = diag(h) over the h > 0.
// With an intercept the matrix is Â_HH = I + U_H diag(g) U_Hᵀ − v_H v_Hᵀ/s:
// v_H (rows h of v) joins U_H as one more column, of gain −1/s < 0.
func (s *Solution) woodbury(uh, rh *mat.Dense, h []int) (*mat.Dense, error) {
	var keep []int
	for k, g := range s.g {
		if g < 0 {
			keep = append(keep, k)
		}
	}
	gains := make([]float64, 0, len(keep)+1)
	for _, k := range keep {
		gains = append(gains, s.g[k])
	}
	if s.v != nil {
		gains = append(gains, -1/s.s)
	}
	z := mat.DenseCopyOf(rh)
	if len(gains) == 0 {
		return z, nil
	}
	nh, _ := uh.Dims()
	uk := mat.NewDense(nh, len(gains), nil)
	for i := 0; i < nh; i++ {
		src, dst := uh.RawRowView(i), uk.RawRowView(i)
		for c, k := range keep {
			dst[c] = src[k]
		}
		if s.v != nil {
			dst[len(keep)] = s.v[h[i]]
		}
	}
	mm := linalg.Syrk(true, uk)
	mm.Scale(-1, mm)
	for c, g := range gains {
		mm.Set(c, c, mm.At(c, c)-1/g)
	}
	w, err := solveSPD(mm, linalg.Mul(true, false, uk, rh))
	if err != nil {
		return nil, err
	}
	linalg.Gemm(false, false, 1, uk, w, 1, z)
	return z, nil
}

// solveSPD solves A X = B for symmetric positive definite A: Cholesky, falling
// back to LU when rounding makes the Cholesky factorization fail.
func solveSPD(a, b *mat.Dense) (*mat.Dense, error) {
	if x, err := linalg.SolveSPD(a, b); err == nil {
		return x, nil
	}
	var x mat.Dense
	if err := x.Solve(a, b); err != nil {
		return nil, fmt.Errorf("singular hold-out system: %w", err)
	}
	return &x, nil
}

// LeavePairOut returns, for every pair {i, j}, the predictions for x_i and x_j of
// the model retrained without both (p×t each): the 2×2 case of HoldOut (of
// Â with an intercept: Â_ij = A_ij − v_i v_j/s, O(1) more a pair). When the
// pairs are many (≥ m²/8) the matrix A is formed once per solution with one gemm,
// O(m²r), after which each pair costs O(t) (Pahikkala et al. 2008, Theorem 2); otherwise each
// pair costs O(r + t). The m×m matrix is only formed when the memory available
// holds it (factor.CheckMemory); otherwise the O(r + t) path is taken for any
// number of pairs — the same values, more time. Safe for concurrent use.
func (s *Solution) LeavePairOut(pairs []learn.Pair) (pi, pj *mat.Dense, err error) {
	m, t := s.r.y.Dims()
	if err := learn.CheckPairs(pairs, m, 3); err != nil {
		return nil, nil, fmt.Errorf("rls: %w", err)
	}
	u := s.r.f.U
	var offDiag func(i, j int) float64
	var a *mat.Dense
	if len(pairs) >= m*m/8 {
		s.fullOnce.Do(func() {
			if factor.CheckMemory(m, 1) == nil {
				s.full = linalg.Mul(false, true, linalg.ScaleCols(u, s.g), u)
			}
		})
		a = s.full
	}
	if a != nil {
		offDiag = func(i, j int) float64 { return a.At(i, j) }
	} else {
		offDiag = func(i, j int) float64 {
			ui, uj := u.RawRowView(i), u.RawRowView(j)
			v := 0.0
			for k, g := range s.g {
				v += ui[k] * uj[k] * g
			}
			return v
		}
	}
	if s.v != nil {
		offA := offDiag
		offDiag = func(i, j int) float64 { return offA(i, j) - s.v[i]*s.v[j]/s.s }
	}
	pi, pj = mat.NewDense(len(pairs), t, nil), mat.NewDense(len(pairs), t, nil)
	for n, p := range pairs {
		aii, ajj, aij := s.diag[p.I], s.diag[p.J], offDiag(p.I, p.J)
		det := aii*ajj - aij*aij
		yi, yj := s.r.y.RawRowView(p.I), s.r.y.RawRowView(p.J)
		ri, rj := s.res.RawRowView(p.I), s.res.RawRowView(p.J)
		oi, oj := pi.RawRowView(n), pj.RawRowView(n)
		for c := 0; c < t; c++ {
			oi[c] = yi[c] - (ajj*ri[c]-aij*rj[c])/det
			oj[c] = yj[c] - (aii*rj[c]-aij*ri[c])/det
		}
		if s.r.sw != nil {
			for c := 0; c < t; c++ {
				oi[c] /= s.r.sw[p.I]
				oj[c] /= s.r.sw[p.J]
			}
		}
	}
	return pi, pj, nil
}

// Coefficients returns the model's coefficients at λ: dual a = U diag(1/(e+λ)) UᵀY
// (m×t); sparse a over the basis (n×t); linear the primal weights with the bias
// weight last ((d+1)×t). With an intercept they are those of the labels
// Y − 1bᵀ (UᵀY − (Uᵀ1)bᵀ in place of UᵀY), without b (Intercept).
// O(m·r·t) (O(m²t) dual).
func (s *Solution) Coefficients() *mat.Dense {
	f := s.r.f
	psi := make([]float64, f.Rank())
	for k, e := range f.E {
		if f.Form == factor.Dual {
			psi[k] = 1 / (e + s.Lambda)
		} else {
			psi[k] = f.S[k] / (e + s.Lambda)
		}
	}
	t := f.T
	if t == nil {
		t = f.U
	}
	uty := s.r.uty
	if s.b != nil {
		uty = mat.DenseCopyOf(uty)
		for k, u := range s.r.icpt.u1 {
			row := uty.RawRowView(k)
			for c := range row {
				row[c] -= u * s.b[c]
			}
		}
	}
	coef := linalg.Mul(false, false, t, linalg.ScaleRows(uty, psi))
	if s.r.sw != nil && f.Form == factor.Dual { // a = S c
		for i, sw := range s.r.sw {
			row := coef.RawRowView(i)
			for c := range row {
				row[c] *= sw
			}
		}
	}
	return coef
}

// Predictor returns the trained predictor at λ (with the scaler when the data
// were standardized), with the intercept b when the model has one. For the
// linear kernel it is a weight vector whatever the form.
func (s *Solution) Predictor() *model.Predictor {
	p := s.r.meta.Predictor(s.Coefficients(), s.Lambda)
	if s.b != nil {
		p.AddIntercept(s.b)
	}
	return p
}
