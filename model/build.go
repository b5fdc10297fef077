package model

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// Expansion describes a trained model by what its coefficients multiply, as a
// learner knows it; New turns it into a Predictor.
type Expansion struct {
	Learner string
	Kernel  kernel.Kernel
	Lambda  float64
	// Width is d, the number of features of a data row.
	Width   int
	Outputs []string
	// Scaler, when set, is applied to data rows before the model sees them.
	Scaler *Scaler
	// Coef holds one row per expansion point (n×t), or with Primal the weights
	// of the d features followed by the weight of the √Bias feature ((d+1)×t,
	// or d×t when Bias is 0).
	Coef *mat.Dense
	// Points are the expansion points (n rows: *mat.Dense, *matrix.CSR or
	// *kernel.UnitRows); unused with Primal.
	Points mat.Matrix
	// Primal says Coef holds primal weights of the linear kernel with bias Bias.
	Primal bool
	Bias   float64
}

// New builds the predictor of an expansion. For the linear kernel the result is
// always a weight vector — W = Pointsᵀ·Coef, b = bias·ΣCoef for an expansion
// (for sparse points only over the columns that hold values, WIndex); the primal
// weights as they are — so prediction costs O(d·t) per row. Cost: O(n·d·t) for
// a dense linear-kernel expansion, O(nnz·t) sparse, O(d·t) primal, none
// otherwise (the coefficients and points are shared, not copied).
func New(e Expansion) *Predictor {
	p := &Predictor{Learner: e.Learner, Kernel: e.Kernel.Spec(), Lambda: e.Lambda, Width: e.Width,
		Outputs: e.Outputs, Scaler: e.Scaler}
	_, t := e.Coef.Dims()
	lin, isLinear := e.Kernel.(kernel.Linear)
	switch {
	case e.Primal:
		p.W = mat.DenseCopyOf(e.Coef.Slice(0, e.Width, 0, t))
		p.B = make([]float64, t)
		if e.Bias != 0 {
			sb := math.Sqrt(e.Bias)
			for c := range p.B {
				p.B[c] = sb * e.Coef.At(e.Width, c)
			}
		}
	case isLinear:
		switch pts := e.Points.(type) {
		case *matrix.CSR:
			// only the columns that hold values get weights: O(nnz·t) whatever the width
			cols := pts.Columns()
			p.WIndex, p.W = cols.Cols, cols.MulTDense(e.Coef)
		default:
			p.W = mat.NewDense(e.Width, t, nil)
			p.W.Mul(pts.T(), e.Coef)
		}
		p.B = make([]float64, t)
		for c := range p.B {
			p.B[c] = lin.Bias * mat.Sum(e.Coef.ColView(c))
		}
	default:
		p.Points, p.A = e.Points, e.Coef
	}
	return p
}
