package linalg

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Tridiagonal is the reduction A = Q T Qᵀ of a symmetric n×n matrix A to a
// symmetric tridiagonal matrix T (diagonal D, off-diagonal E) by n − 1
// Householder reflections (LAPACK dsytrd; Golub & Van Loan, Matrix
// Computations, §8.3.1). The reduction costs (4/3)n³ flops — the first of
// the three steps of an eigendecomposition with eigenvectors, which then
// finds T's eigenvectors and multiplies them by Q (2n³ more): a caller that
// only needs to solve shifted systems (αA + λI)x = b, for many α and λ,
// solves them with T in O(n) each after applying Q to the right-hand sides
// (MulQ: 2·k·n² flops for k of them), without A's eigenvectors. Q is kept
// as its reflectors (formed explicitly in the pure-Go build, which has no
// routine applying them). Memory: the n×n reflector array.
type Tridiagonal struct {
	// D (n) and E (n − 1) are T's diagonal and off-diagonal.
	D, E []float64
	n    int
	refl blas64.General // the reflectors in the backend's layout, or Q itself (formed)
	tau  []float64
	// formed: refl holds Q (row-major); MulQ multiplies by it
	formed bool
}

// TridiagonalInPlace reduces the symmetric n×n matrix a (both triangles
// hold A; it is overwritten by the reflectors) to tridiagonal form. O(n³).
func TridiagonalInPlace(a *mat.Dense) (*Tridiagonal, error) {
	n, c := a.Dims()
	if n != c {
		return nil, fmt.Errorf("%w: tridiagonal reduction of a %d×%d matrix", ErrShape, n, c)
	}
	t := &Tridiagonal{D: make([]float64, n), E: make([]float64, max(n-1, 0)), n: n, refl: a.RawMatrix(), tau: make([]float64, max(n-1, 0))}
	switch n {
	case 0:
		return t, nil
	case 1: // T = A, Q = [1]
		t.D[0], t.refl.Data[0], t.formed = t.refl.Data[0], 1, true
		return t, nil
	}
	if err := tridiag(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Len is n.
func (t *Tridiagonal) Len() int { return t.n }

// MulQ overwrites the k×n matrix m with m·Q, or with m·Qᵀ when trans is
// true. O(k·n²).
func (t *Tridiagonal) MulQ(m *mat.Dense, trans bool) error {
	k, c := m.Dims()
	if c != t.n {
		return fmt.Errorf("%w: MulQ of a %d×%d matrix by a %d×%d Q", ErrShape, k, c, t.n, t.n)
	}
	if k == 0 || t.n == 0 {
		return nil
	}
	if t.formed {
		q := mat.NewDense(t.n, t.n, t.refl.Data)
		r := Mul(false, trans, m, q)
		m.Copy(r)
		return nil
	}
	return mulQ(t, m.RawMatrix(), trans)
}

// CountBelow returns the number of eigenvalues of T (those of A) below σ:
// by Sylvester's law of inertia, the number of negative pivots of the
// LDLᵀ factorization of T − σI (the Sturm count; a pivot that vanishes
// is taken as a tiny negative one, as LAPACK's dlaneg does). O(n).
func (t *Tridiagonal) CountBelow(sigma float64) int {
	const safmin = 2.2250738585072014e-308 // the smallest normal number
	pivmin := safmin
	for _, e := range t.E {
		pivmin = max(pivmin, e*e*safmin)
	}
	count := 0
	p := 0.0
	for i, d := range t.D {
		if i == 0 {
			p = d - sigma
		} else {
			p = d - sigma - t.E[i-1]*t.E[i-1]/p
		}
		if math.Abs(p) < pivmin {
			p = -pivmin
		}
		if p < 0 {
			count++
		}
	}
	return count
}

// GershgorinMax is an upper bound on T's (and A's) eigenvalues: the
// largest of d_i + |e_{i−1}| + |e_i| (Gershgorin's circles). O(n).
func (t *Tridiagonal) GershgorinMax() float64 {
	b := math.Inf(-1)
	for i, d := range t.D {
		r := d
		if i > 0 {
			r += math.Abs(t.E[i-1])
		}
		if i < len(t.E) {
			r += math.Abs(t.E[i])
		}
		b = max(b, r)
	}
	return b
}

// SolveShifted overwrites b with the solution x of (α·T + λI) x = b,
// which must be positive definite, by its LDLᵀ factorization (the
// recurrence of LAPACK's dpttrf and dptts2: backward stable for a
// positive definite tridiagonal matrix). work holds n − 1 numbers. It
// returns false, b partly overwritten, when a pivot is not positive (the
// matrix is not numerically positive definite). O(n).
func (t *Tridiagonal) SolveShifted(alpha, lambda float64, b, work []float64) bool {
	n := t.n
	if len(b) != n || len(work) < max(n-1, 0) {
		panic(fmt.Sprintf("linalg: SolveShifted of order %d with %d right-hand side entries and %d of workspace", n, len(b), len(work)))
	}
	if n == 0 {
		return true
	}
	p := alpha*t.D[0] + lambda
	if !(p > 0) {
		return false
	}
	// forward: y_i = b_i − l_{i−1} y_{i−1}, l_{i−1} = α e_{i−1} / p_{i−1},
	// p_i = α d_i + λ − l_{i−1} α e_{i−1}; work keeps l, b keeps y_i / p_i
	for i := 1; i < n; i++ {
		e := alpha * t.E[i-1]
		l := e / p
		work[i-1] = l
		b[i] -= l * b[i-1]
		b[i-1] /= p
		p = alpha*t.D[i] + lambda - l*e
		if !(p > 0) {
			return false
		}
	}
	b[n-1] /= p
	// backward: x_i = y_i/p_i − l_i x_{i+1}
	for i := n - 2; i >= 0; i-- {
		b[i] -= work[i] * b[i+1]
	}
	return true
}
