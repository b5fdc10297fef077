// Package factor builds the one low-rank factor every rlskit learner works on:
//
//	K ≈ U diag(E) Uᵀ,   U ∈ ℝ^{m×r} with orthonormal columns,
//
// together with the map T from U-coordinates to the model's coefficients, so that
// for any regularization parameter λ the coefficients are T diag(ψ(λ)) UᵀY.
//
// Three forms (Rifkin & Lippert 2007, "Varying λ", "Linear kernel, SVD approach", subset of regressors):
//   - Dual: K = U diag(e) Uᵀ, the eigendecomposition of the m×m kernel matrix (r = m);
//     coefficients a = U diag(1/(e+λ)) UᵀY over all training points. O(m³).
//   - Linear: X̃ = [X, √bias·1] = U diag(s) Vᵀ, thin SVD (r = d+1 ≤ m), E = s²;
//     primal weights w̃ = V diag(s/(s²+λ)) UᵀY. O(m·r²).
//   - Sparse (subset of regressors, basis B of n rows): K_BB = Q diag(μ) Qᵀ,
//     Φ = K_{·B} Q diag(μ)^{-1/2} (eigenvalues μ ≤ tol dropped), Φ = U diag(s) Vᵀ, E = s²;
//     basis coefficients a = Q diag(μ)^{-1/2} V diag(s/(s²+λ)) UᵀY. O(m·n²).
//
// When r < m the factor has a complement P⊥ = I − UUᵀ: the kernel is zero there.
package factor

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
)

// ErrShape is returned when inputs do not fit together.
var ErrShape = errors.New("factor: dimension mismatch")

// ErrNotSymmetric is returned when a kernel matrix is not symmetric.
var ErrNotSymmetric = errors.New("factor: kernel matrix is not symmetric")

// Form names how a factor was obtained.
type Form int

const (
	// Dual is the eigendecomposition of the full kernel matrix.
	Dual Form = iota
	// Linear is the thin SVD of the data with a bias feature.
	Linear
	// Sparse is the subset-of-regressors (Nyström) factor over a basis.
	Sparse
)

func (f Form) String() string {
	switch f {
	case Dual:
		return "dual"
	case Linear:
		return "linear"
	case Sparse:
		return "sparse"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Factor is K ≈ U diag(E) Uᵀ with the coefficient map T.
type Factor struct {
	Form Form
	// U is m×r with orthonormal columns.
	U *mat.Dense
	// E holds the r eigenvalues of K along U (s² for the SVD forms).
	E []float64
	// S holds the singular values (Linear, Sparse); nil for Dual.
	S []float64
	// T maps U-coordinates to coefficients: Dual: nil (T = U), Linear: V
	// ((d+1)×r), Sparse: Q diag(μ)^{-1/2} V (n×r).
	T *mat.Dense
	// G (Sparse only, r×n) maps basis coefficients to U-coordinates:
	// K_{·B} = U diag(S) G and GᵀG = K_BB (G = Vᵀ diag(μ)^{1/2} Qᵀ).
	G *mat.Dense
	// Lev holds ‖U_i‖², the leverage of row i; 1 for every row of a Dual factor.
	Lev []float64
}

// Perturbed returns a copy of the factor (sharing U, T, G) whose eigenvalues
// are moved up by different amounts in (0, r·ε·max|e|] — about the rounding
// error of computing them, and unequal so that a cluster of (near) equal
// eigenvalues, whose eigenvectors are arbitrary, is split the way rounding
// may split it: comparing results on the two factors measures their
// sensitivity to that error. Deterministic. O(r).
func (f *Factor) Perturbed() *Factor {
	out := *f
	out.E = PerturbUp(f.E)
	return &out
}

// PerturbUp returns e with e_k moved up by δ·u_k, δ = len(e)·ε·max|e| and
// u_k ∈ (0, 1] a fixed low-discrepancy sequence (see Factor.Perturbed). O(len(e)).
func PerturbUp(e []float64) []float64 {
	emax := 0.0
	for _, v := range e {
		emax = math.Max(emax, math.Abs(v))
	}
	delta := float64(max(len(e), 1)) * 2.220446049250313e-16 * emax
	out := make([]float64, len(e))
	for k, v := range e {
		u := math.Mod(float64(k+1)*0.6180339887498949, 1) // golden-ratio sequence
		out[k] = v + delta*(0.05+0.95*u)
	}
	return out
}

// Diag returns diag(U diag(φ) Uᵀ)_i = Σ_k U_ik² φ_k for every row: O(m·r),
// without storing U∘U.
func (f *Factor) Diag(phi []float64) []float64 {
	m := f.Rows()
	out := make([]float64, m)
	for i := 0; i < m; i++ {
		v := 0.0
		for k, u := range f.U.RawRowView(i) {
			v += u * u * phi[k]
		}
		out[i] = v
	}
	return out
}

// Rows returns m, the number of training rows.
func (f *Factor) Rows() int { r, _ := f.U.Dims(); return r }

// Rank returns r, the number of columns of U.
func (f *Factor) Rank() int { return len(f.E) }

// Complement reports whether P⊥ = I − UUᵀ is non-zero (r < m).
func (f *Factor) Complement() bool { return f.Form != Dual }

// NewDual eigendecomposes the symmetric m×m kernel matrix K (not modified). It
// fails with ErrNotSymmetric when |K_ij − K_ji| > 1e-10·max|K|. O(m³) through linalg.
func NewDual(k *mat.Dense) (*Factor, error) { return newDual(k, false) }

// newDual is NewDual; with owned it eigendecomposes K in place (K becomes U),
// which keeps the peak at the kernel matrix plus the eigensolver's workspace.
func newDual(k *mat.Dense, owned bool) (*Factor, error) {
	if k == nil || k.IsEmpty() {
		return nil, fmt.Errorf("%w: no kernel matrix", ErrShape)
	}
	m, c := k.Dims()
	if m != c {
		return nil, fmt.Errorf("%w: kernel matrix is %d×%d", ErrShape, m, c)
	}
	if err := checkSymmetric(k); err != nil {
		return nil, err
	}
	u := k
	var e []float64
	var err error
	if owned {
		e, err = linalg.EigSymInPlace(k)
	} else {
		e, u, err = linalg.EigSym(k)
	}
	if err != nil {
		return nil, fmt.Errorf("factor: eigendecomposition of the %d×%d kernel matrix: %w", m, m, err)
	}
	f := &Factor{Form: Dual, U: u, E: e}
	f.Lev = make([]float64, m)
	for i := range f.Lev {
		f.Lev[i] = 1
	}
	return f, nil
}

// checkSymmetric refuses a K with |K_ij − K_ji| > 10⁻¹⁰·max|K| (or NaN) for
// some i > j, with ErrNotSymmetric naming the first such pair in row-major
// order. O(m²).
func checkSymmetric(k *mat.Dense) error {
	m, _ := k.Dims()
	tol := 1e-10 * maxAbs(k)
	raw := k.RawMatrix()
	for i := 0; i < m; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+i]
		for j, v := range row {
			if d := math.Abs(v - raw.Data[j*raw.Stride+i]); d > tol || math.IsNaN(d) {
				return fmt.Errorf("%w: K[%d,%d] = %v but K[%d,%d] = %v", ErrNotSymmetric, i, j, k.At(i, j), j, i, k.At(j, i))
			}
		}
	}
	return nil
}

// maxAbs is max|K_ij| as folding math.Max over the entries gives it: +Inf
// when an entry is infinite, else NaN when one is NaN (math.Max's special
// cases make the fold's value independent of the order), else the largest
// magnitude — in compares, where math.Max is a call per entry (1000×1000:
// 2.6 ms against 10 ms).
func maxAbs(k *mat.Dense) float64 {
	m, _ := k.Dims()
	mx, nan := 0.0, false
	for i := 0; i < m; i++ {
		for _, v := range k.RawRowView(i) {
			if a := math.Abs(v); a > mx {
				mx = a
			} else if a != a {
				nan = true
			}
		}
	}
	if nan && !math.IsInf(mx, 1) {
		return math.NaN()
	}
	return mx
}

// NewLinear factors the m×r feature matrix F (for the linear kernel, the data
// with the bias column appended) by a thin SVD: F = U diag(s) Vᵀ, T = V. O(m·r²).
func NewLinear(features *mat.Dense) (*Factor, error) {
	if features == nil || features.IsEmpty() {
		return nil, fmt.Errorf("%w: no data", ErrShape)
	}
	u, s, v, err := linalg.SVD(features)
	if err != nil {
		return nil, fmt.Errorf("factor: SVD of the data: %w", err)
	}
	return lowRank(Linear, u, s, v), nil
}

// NewSparse builds the subset-of-regressors factor from K_{·B} (m×n, kernel
// between all rows and the basis) and K_BB (n×n). Eigenvalues of K_BB at or below
// n·ε·max(μ) are dropped (duplicate or dependent basis vectors). O(m·n² + n³).
func NewSparse(kmb, kbb *mat.Dense) (*Factor, error) {
	m, n := kmb.Dims()
	if r, c := kbb.Dims(); r != n || c != n {
		return nil, fmt.Errorf("%w: K_BB is %d×%d for %d basis vectors", ErrShape, r, c, n)
	}
	if n > m {
		return nil, fmt.Errorf("%w: %d basis vectors for %d rows", ErrShape, n, m)
	}
	if err := checkSymmetric(kbb); err != nil {
		return nil, err
	}
	w, g, err := BasisMap(kbb)
	if err != nil {
		return nil, err
	}
	phi := linalg.Mul(false, false, kmb, w)
	u, s, v, err := linalg.SVD(phi)
	if err != nil {
		return nil, fmt.Errorf("factor: SVD of the basis features: %w", err)
	}
	f := lowRank(Sparse, u, s, linalg.Mul(false, false, w, v))
	f.G = linalg.Mul(true, true, v, g) // G = Vᵀ diag(√μ) Q_keepᵀ
	return f, nil
}

// BasisMap eigendecomposes the basis kernel matrix K_BB = Q diag(μ) Qᵀ (n×n,
// symmetric), drops the eigenvalues at or below n·ε·max μ (duplicate or
// dependent basis vectors), and returns W = Q_keep diag(μ_keep)^{-1/2} — the
// basis feature map z = Wᵀ k(B, x) of the subset-of-regressors model — and
// Q_keep diag(μ_keep)^{1/2}. O(n³) through linalg.
func BasisMap(kbb *mat.Dense) (w, wi *mat.Dense, err error) {
	n, _ := kbb.Dims()
	mu, q, err := linalg.EigSym(kbb)
	if err != nil {
		return nil, nil, fmt.Errorf("factor: eigendecomposition of K_BB: %w", err)
	}
	tol := float64(n) * 2.2e-16 * math.Max(mu[n-1], 0)
	var keep []int
	for j, v := range mu {
		if v > tol {
			keep = append(keep, j)
		}
	}
	if len(keep) == 0 {
		return nil, nil, fmt.Errorf("factor: the basis kernel matrix K_BB is zero")
	}
	w, wi = mat.NewDense(n, len(keep), nil), mat.NewDense(n, len(keep), nil)
	for c, j := range keep {
		sc := math.Sqrt(mu[j])
		for i := 0; i < n; i++ {
			w.Set(i, c, q.At(i, j)/sc)
			wi.Set(i, c, q.At(i, j)*sc)
		}
	}
	return w, wi, nil
}

func lowRank(form Form, u *mat.Dense, s []float64, t *mat.Dense) *Factor {
	f := &Factor{Form: form, U: u, S: s, T: t}
	f.E = make([]float64, len(s))
	for k, v := range s {
		f.E[k] = v * v
	}
	m, _ := u.Dims()
	f.Lev = make([]float64, m)
	for i := range f.Lev {
		l := 0.0
		for _, v := range u.RawRowView(i) {
			l += v * v
		}
		f.Lev[i] = l
	}
	return f
}
