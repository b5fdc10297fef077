// Package pairkernel multiplies vectors by pairwise kernel matrices that are
// weighted sums of sampled Kronecker products, without forming them, by the
// generalized vec trick (Airola & Pahikkala 2018; Viljanen, Airola &
// Pahikkala, "Generalized vec trick for fast learning of pairwise kernel
// models", Machine Learning 111:543–573, 2022), and trains regularized
// least squares on n observed pairs of objects with such a kernel by
// conjugate gradients.
//
// A pair x = (d, t) joins a row object d and a column object t. A pairwise
// kernel is a sum of terms, each a product of two object kernels,
//
//	k((d,t),(d',t')) = Σ_s w_s · A_s(d, d') · B_s(t, t')     (not swapped)
//	                 or w_s · A_s(d, t') · B_s(t, d')        (swapped),
//
// and on n pairs its kernel matrix is Σ_s w_s (A_s ⊗ B_s)[S, S] (Viljanen et
// al. 2022 show every kernel they review is such a sum). Swapped terms
// compare a pair's row object with the other pair's column object, so they
// need one object set for rows and columns (a homogeneous network). The
// named kernels are built by Kind.Terms and Kind.Base.
package pairkernel

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
)

// ErrShape is wrapped by every error about mismatched sizes or indices.
var ErrShape = errors.New("pairkernel: shape mismatch")

// Term is one summand w · (A ⊗ B)[S, S'] of a pairwise kernel: Weight w, Row
// the index of the row-object kernel A and Col the index of the
// column-object kernel B in the operator's kernel list. Not swapped, the
// entry between pairs (d,t) and (d',t') is w·A(d,d')·B(t,t'); Swapped, it is
// w·A(d,t')·B(t,d').
type Term struct {
	Weight   float64
	Row, Col int
	Swapped  bool
}

// Pairs lists pairs of objects: pair p is (Rows[p], Cols[p]), indices into
// the object sets the kernels are defined on.
type Pairs struct {
	Rows, Cols []int
}

// Len is the number of pairs.
func (p Pairs) Len() int { return len(p.Rows) }

// Operator is the n_out×n_in matrix
//
//	M[p, r] = Σ_s w_s · A_s(d_p, ·) · B_s(t_p, ·)
//
// between output pairs (d_p, t_p) and input pairs (d'_r, t'_r), with
// A_s(d_p, d'_r)·B_s(t_p, t'_r) for a plain term and A_s(d_p, t'_r)·B_s(t_p, d'_r)
// for a swapped one. Kernels[i] is an object kernel matrix whose rows index
// the output pairs' objects and whose columns index the input pairs'
// objects: for training both are the training objects (square kernels),
// for prediction the rows are the new objects (cross kernels).
type Operator struct {
	kernels []*mat.Dense
	terms   []Term
	out, in Pairs
	// trans[i] is kernels[i]ᵀ (kernels[i] itself when symmetric), for the
	// products' contiguous row operations
	trans []*mat.Dense
	// groups are the terms by kernel pair: one intermediate each
	groups []group
	// work holds the largest intermediate matrix of the sparse groups'
	// products and its transpose
	work []float64
}

// group is the terms of one (row kernel, column kernel) pair: they share
// one intermediate matrix of sampledKron, their weights folded into its
// first phase — for the symmetric kernel's two terms 3·n·m multiply-adds
// instead of 4.
type group struct {
	row, col int
	terms    []Term
	viaT     bool
	// t is the intermediate T (over the operator's work); vd is set when
	// the first phase is one dense product T = V·Bᵀ (V scattered into it),
	// u when the second is one dense product U = A·T (dense)
	t, vd, u *mat.Dense
}

// NewOperator checks the terms, the kernels' sizes and every pair index
// against them, and returns the operator. It keeps the slices given (do
// not modify them afterwards). O(n_out + n_in) per term, plus one exact
// symmetry test of each kernel, O(a·b), and a transposed copy of each
// kernel that is not symmetric (cross kernels; training kernels are).
func NewOperator(kernels []*mat.Dense, terms []Term, out, in Pairs) (*Operator, error) {
	if len(terms) == 0 {
		return nil, fmt.Errorf("%w: no kernel terms", ErrShape)
	}
	if len(out.Rows) != len(out.Cols) || len(in.Rows) != len(in.Cols) {
		return nil, fmt.Errorf("%w: pair lists of unequal row and column lengths (%d, %d output; %d, %d input)",
			ErrShape, len(out.Rows), len(out.Cols), len(in.Rows), len(in.Cols))
	}
	for s, t := range terms {
		if t.Row < 0 || t.Row >= len(kernels) || t.Col < 0 || t.Col >= len(kernels) {
			return nil, fmt.Errorf("%w: term %d refers to kernels %d and %d of %d", ErrShape, s, t.Row, t.Col, len(kernels))
		}
		if kernels[t.Row] == nil || kernels[t.Col] == nil {
			return nil, fmt.Errorf("%w: term %d refers to a missing kernel", ErrShape, s)
		}
		a, b := kernels[t.Row].Dims()
		c, e := kernels[t.Col].Dims()
		inA, inB := in.Rows, in.Cols
		if t.Swapped {
			inA, inB = in.Cols, in.Rows
		}
		if err := checkIndex(out.Rows, a, s, "output row objects", "rows of its row kernel"); err != nil {
			return nil, err
		}
		if err := checkIndex(out.Cols, c, s, "output column objects", "rows of its column kernel"); err != nil {
			return nil, err
		}
		if err := checkIndex(inA, b, s, "input objects", "columns of its row kernel"); err != nil {
			return nil, err
		}
		if err := checkIndex(inB, e, s, "input objects", "columns of its column kernel"); err != nil {
			return nil, err
		}
	}
	o := &Operator{kernels: kernels, terms: terms, out: out, in: in, trans: make([]*mat.Dense, len(kernels))}
	size := 0
	for _, t := range terms {
		gi := -1
		for i, g := range o.groups {
			if g.row == t.Row && g.col == t.Col {
				gi = i
			}
		}
		if gi < 0 {
			o.groups = append(o.groups, group{row: t.Row, col: t.Col})
			gi = len(o.groups) - 1
		}
		o.groups[gi].terms = append(o.groups[gi].terms, t)
	}
	for i := range o.groups {
		g := &o.groups[i]
		a, b := kernels[g.row].Dims()
		c, e := kernels[g.col].Dims()
		g.viaT = viaT(a, b, c, e, in.Len(), out.Len())
		for _, k := range []int{g.row, g.col} {
			if o.trans[k] == nil {
				o.trans[k] = transposeOf(kernels[k])
			}
		}
		if g.viaT {
			size = max(size, c*b)
		} else {
			size = max(size, a*e)
		}
	}
	o.work = make([]float64, 2*size)
	var vdSize, uSize int
	for i := range o.groups {
		g := &o.groups[i]
		ra, ca, rb, cb := phaseDims(kernels[g.row], kernels[g.col], g.viaT)
		g.t = mat.NewDense(ca, rb, o.work[:ca*rb])
		if dense(ca*cb, len(g.terms)*in.Len()) {
			vdSize = max(vdSize, ca*cb)
		}
		if dense(ra*rb, out.Len()) {
			uSize = max(uSize, ra*rb)
		}
	}
	vdBuf, uBuf := make([]float64, vdSize), make([]float64, uSize)
	for i := range o.groups {
		g := &o.groups[i]
		ra, ca, rb, cb := phaseDims(kernels[g.row], kernels[g.col], g.viaT)
		if dense(ca*cb, len(g.terms)*in.Len()) {
			g.vd = mat.NewDense(ca, cb, vdBuf[:ca*cb])
		}
		if dense(ra*rb, out.Len()) {
			g.u = mat.NewDense(ra, rb, uBuf[:ra*rb])
		}
	}
	return o, nil
}

func checkIndex(idx []int, n, term int, what, against string) error {
	for p, i := range idx {
		if i < 0 || i >= n {
			return fmt.Errorf("%w: term %d: pair %d's %s index %d is outside the %d %s", ErrShape, term, p, what, i, n, against)
		}
	}
	return nil
}

// Dims returns (n_out, n_in).
func (o *Operator) Dims() (int, int) { return o.out.Len(), o.in.Len() }

// MulVec sets dst = M v (len(dst) = n_out, len(v) = n_in) by the generalized
// vec trick, one sampled Kronecker product per kernel pair, its terms
// sharing the intermediate matrix (Airola & Pahikkala 2018; Viljanen et al.
// 2022): with A of size a×b and B of size c×e, either
//
//	T = V Bᵀ restricted (b×c, O(n_in·c)),  dst_p += A[d_p,:]·T[:,t_p] (O(n_out·b)),
//
// or S = A V (a×e, O(n_in·a)), dst_p += S[d_p,:]·B[t_p,:] (O(n_out·e)),
// whichever costs less, V being the sparse b×e matrix holding Σ_s w_s v_r
// at (d'_r, t'_r) (at (t'_r, d'_r) for a swapped term). Cost per kernel
// pair O(min(s·n_in·c + n_out·b, s·n_in·a + n_out·e)) for its s terms, i.e.
// O(n·(m + q)) per term for n pairs of m row and q column objects, against
// O(n²) for the dense product, plus O(b·c) (or O(a·e)) for one transpose
// of the intermediate matrix, so that both phases are contiguous row
// operations (axpy, dot). Where the pairs are many against the objects
// (dense: n_in·s > b·e/4, n_out > a·c/4 for the T route) a phase is
// one gemm instead — T = V·Bᵀ with V dense (b·e·c multiply-adds), and
// the whole A·T (a·b·c) whose output pairs' entries are read — which the
// BLAS runs several times faster per multiply-add: at n = 4000 pairs of
// 100 objects, 0.09 ms against 0.34 ms the sparse phases took. Memory:
// the intermediate matrix and its transpose (the largest chosen, 2·b·c or
// 2·a·e), plus the dense V and A·T where chosen, reused; no allocation
// per product beyond the few scalar cells a run-time BLAS call passes by
// reference (under a kilobyte per product). Not safe for concurrent use.
func (o *Operator) MulVec(dst, v []float64) {
	if len(dst) != o.out.Len() || len(v) != o.in.Len() {
		panic(fmt.Sprintf("pairkernel: MulVec of a %d×%d operator with vectors of lengths %d and %d", o.out.Len(), o.in.Len(), len(dst), len(v)))
	}
	clear(dst)
	for i := range o.groups {
		g := &o.groups[i]
		a, b := o.kernels[g.row], o.kernels[g.col]
		sampledKron(a, b, o.trans[g.row], o.trans[g.col], o.out.Rows, o.out.Cols, o.in, g, v, dst, o.work)
	}
}

// sampledKron adds Σ_s w_s·(A ⊗ B)[S_out, S_in^s] v to dst for the terms of
// one kernel pair (group g), where output pair p is (outA[p], outB[p]) and
// input pair r of a plain term is (in.Rows[r], in.Cols[r]) —
// (in.Cols[r], in.Rows[r]) of a swapped one:
// dst_p += Σ_s w_s Σ_r A[outA_p, inA_r] B[outB_p, inB_r] v_r. at and bt are
// Aᵀ and Bᵀ (the same matrices when symmetric). The terms share one
// intermediate matrix T = V·Bᵀ, V the sparse matrix of Σ_s w_s v_r at
// (inA_r, inB_r), and dst_p = (A·T)[outA_p, outB_p]. Each of the two phases
// runs sparse — a row update of T per input pair and term (gonum's
// vectorized axpy) and a dot product per output pair, on Tᵀ's contiguous
// rows — or, where the group's dense matrix is small against the pairs
// (dense: g.vd, g.u), as one gemm through the BLAS: V scattered into a
// dense matrix (its repeated cells summed) times Bᵀ, and the whole A·T of
// which the output pairs' entries are read.
func sampledKron(a, b, at, bt *mat.Dense, outA, outB []int, in Pairs, g *group, v []float64, dst, work []float64) {
	// The S = A V route is the T route with the roles of the two kernels
	// (and of each pair's two objects) exchanged: Sᵀ = V ᵀ Aᵀ.
	exchange := !g.viaT
	if exchange {
		a, b, at, bt, outA, outB = b, a, bt, at, outB, outA
	}
	ca, rb := g.t.Dims()
	t := g.t.RawMatrix().Data
	if g.vd != nil {
		vd := g.vd.RawMatrix().Data
		clear(vd)
		_, cb := g.vd.Dims()
		for _, term := range g.terms {
			inA, inB := termPairs(in, term, exchange)
			for r, x := range v {
				vd[inA[r]*cb+inB[r]] += term.Weight * x
			}
		}
		linalg.Gemm(false, false, 1, g.vd, bt, 0, g.t)
	} else {
		clear(t)
		for _, term := range g.terms {
			inA, inB := termPairs(in, term, exchange)
			for r, x := range v {
				if x != 0 && term.Weight != 0 {
					k := inA[r]
					floats.AddScaled(t[k*rb:(k+1)*rb], term.Weight*x, bt.RawRowView(inB[r]))
				}
			}
		}
	}
	if g.u != nil {
		linalg.Gemm(false, false, 1, a, g.t, 0, g.u)
		for p, i := range outA {
			dst[p] += g.u.At(i, outB[p])
		}
		return
	}
	tt := work[ca*rb : 2*ca*rb]
	transpose(tt, t, ca, rb)
	for p, i := range outA {
		j := outB[p]
		dst[p] += floats.Dot(a.RawRowView(i), tt[j*ca:(j+1)*ca])
	}
}

// termPairs returns the input pairs' objects as the term sees them (the
// swapped term's exchanged), exchanged again for the S route.
func termPairs(in Pairs, term Term, exchange bool) (inA, inB []int) {
	if term.Swapped != exchange {
		return in.Cols, in.Rows
	}
	return in.Rows, in.Cols
}

// transpose sets dst (c×r) to src (r×c)ᵀ, both row-major.
func transpose(dst, src []float64, r, c int) {
	const blk = 32
	for i0 := 0; i0 < r; i0 += blk {
		for j0 := 0; j0 < c; j0 += blk {
			for i := i0; i < min(i0+blk, r); i++ {
				row := src[i*c : (i+1)*c]
				for j := j0; j < min(j0+blk, c); j++ {
					dst[j*r+i] = row[j]
				}
			}
		}
	}
}

// transposeOf returns kᵀ, or k itself when it is exactly symmetric.
func transposeOf(k *mat.Dense) *mat.Dense {
	r, c := k.Dims()
	if r == c && mat.Equal(k, k.T()) {
		return k
	}
	t := mat.NewDense(c, r, nil)
	t.Copy(k.T())
	return t
}

// phaseDims returns the phases' sizes for the kernels A (row, ra×ca) and
// B (column, rb×cb) of a group — the exchanged kernels' when not viaT: T is
// ca×rb, V ca×cb and U = A·T ra×rb.
func phaseDims(a, b *mat.Dense, viaT bool) (ra, ca, rb, cb int) {
	if !viaT {
		a, b = b, a
	}
	ra, ca = a.Dims()
	rb, cb = b.Dims()
	return ra, ca, rb, cb
}

// dense reports whether a phase is cheaper as one gemm with a dense
// matrix of size cells (the common dimension k the same either way) than
// as its sparse form over nnz pairs: the sparse phases run row by row on
// gonum's two-wide vectorized loops, the gemm blocked on the BLAS's
// kernels, measured about four times faster per multiply-add at these sizes
// (n = 4000 pairs of 100 objects: 1.0·10⁶ multiply-adds of gemm in 0.24 of
// the time 0.4·10⁶ of dot products took).
func dense(cells, nnz int) bool {
	if forceRoute != 0 {
		return forceRoute > 0
	}
	return cells < 4*nnz
}

// forceRoute overrides dense for the tests: 1 every phase dense, −1 every
// phase sparse, 0 the cost rule.
var forceRoute int

// viaT reports whether the product by A (ra×ca) ⊗ B (rb×cb) on nIn input
// and nOut output pairs is cheaper through T = V Bᵀ (nIn·rb + nOut·ca
// multiply-adds) than through S = A V (nIn·ra + nOut·cb).
func viaT(ra, ca, rb, cb, nIn, nOut int) bool {
	return nIn*rb+nOut*ca <= nIn*ra+nOut*cb
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
