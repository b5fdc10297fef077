package mmc

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
)

// triBlock is the size below which the triangular inverse and product
// below fall back to one BLAS call on the whole block.
const triBlock = 96

// invLower overwrites the lower-triangular n×n L (a view: its strict upper
// triangle is zero and stays so) with L⁻¹, by the blocked recursion
//
//	[L11 0; L21 L22]⁻¹ = [X11 0; X21 X22],  X11 = L11⁻¹, X22 = L22⁻¹,
//	X21 = −L22⁻¹ (L21 X11)
//
// (Golub & Van Loan, Matrix Computations, sect. 3.1): a product and a
// triangular solve per level, n³/4 multiply-adds in all against n³/2 for a
// triangular solve with the identity.
func invLower(l *mat.Dense) {
	n, _ := l.Dims()
	if n <= triBlock {
		x := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			x.Set(i, i, 1)
		}
		linalg.SolveLower(l, false, x)
		for i := 0; i < n; i++ {
			copy(l.RawRowView(i)[:i+1], x.RawRowView(i)[:i+1])
		}
		return
	}
	n1 := n / 2
	l11 := l.Slice(0, n1, 0, n1).(*mat.Dense)
	l21 := l.Slice(n1, n, 0, n1).(*mat.Dense)
	l22 := l.Slice(n1, n, n1, n).(*mat.Dense)
	invLower(l11)
	t := linalg.Mul(false, false, l21, l11) // L21 X11
	linalg.SolveLower(l22, false, t)        // L22⁻¹ L21 X11
	for i := 0; i < n-n1; i++ {
		row, src := l21.RawRowView(i), t.RawRowView(i)
		for j := range row {
			row[j] = -src[j]
		}
	}
	invLower(l22)
}

// lowerGram overwrites the lower-triangular n×n X (a view) with the lower
// triangle of XᵀX, by the blocked recursion
//
//	XᵀX = [X11ᵀX11 + X21ᵀX21, ·; X22ᵀX21, X22ᵀX22]
//
// (LAPACK's dlauum computes the same in place): a symmetric rank-k update
// and a product per level, n³/4 multiply-adds against n³/2 for the
// symmetric product of the whole matrix. The strict upper triangle is not
// touched.
func lowerGram(x *mat.Dense) {
	n, _ := x.Dims()
	if n <= triBlock {
		g := linalg.Syrk(true, x) // the strict upper triangle of x is zero
		for i := 0; i < n; i++ {
			copy(x.RawRowView(i)[:i+1], g.RawRowView(i)[:i+1])
		}
		return
	}
	n1 := n / 2
	x11 := x.Slice(0, n1, 0, n1).(*mat.Dense)
	x21 := x.Slice(n1, n, 0, n1).(*mat.Dense)
	x22 := x.Slice(n1, n, n1, n).(*mat.Dense)
	lowerGram(x11)
	r := x11.RawMatrix()
	blas64.Syrk(blas.Trans, 1, x21.RawMatrix(), 1, blas64.Symmetric{Uplo: blas.Lower, N: n1, Stride: r.Stride, Data: r.Data})
	t := linalg.Mul(true, false, x22, x21) // X22ᵀ X21 (X22's strict upper triangle is zero)
	for i := 0; i < n-n1; i++ {
		copy(x21.RawRowView(i), t.RawRowView(i))
	}
	lowerGram(x22)
}
