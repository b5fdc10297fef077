package pairwise

import (
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// modelSide describes a side for a model file: kernel, width, scaler and
// training objects.
func (s *Side) modelSide() *model.PairSide {
	return &model.PairSide{Kernel: s.kern.Spec(), Width: s.Width(), Scaler: s.scaler, Points: s.points}
}

func pairModel(name learn.Name, rows, cols *Side, sym Symmetry, lambda, colLambda float64, a *mat.Dense) *model.PairPredictor {
	p := &model.PairPredictor{Learner: string(name), Lambda: lambda, ColLambda: colLambda, Output: "y",
		Rows: rows.modelSide(), A: a}
	p.Cols = p.Rows
	if sym != Heterogeneous {
		p.Symmetry = sym.String()
		if a != nil { // symmetric (antisymmetric) in exact arithmetic: make it so
			n, _ := a.Dims()
			s := 1.0
			if sym == Antisymmetric {
				s = -1
			}
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					v := (a.At(i, j) + s*a.At(j, i)) / 2
					a.Set(i, j, v)
					a.Set(j, i, s*v)
				}
				if sym == Antisymmetric {
					a.Set(i, i, 0)
				}
			}
		}
	} else {
		p.Cols = cols.modelSide()
	}
	return p
}

// PairModel returns the model as a pairwise predictor, f(u, v) = k(u)ᵀ A g(v),
// ready to save or to predict pairs of training or new objects.
// O(m·q·(m + q)) for the coefficients.
func (s *KronSolution) PairModel() *model.PairPredictor {
	return pairModel(learn.KronRLS, s.k.rows, s.k.cols, s.k.lab.sym, s.Lambda, 0, s.Coefficients())
}

// PairModel returns the model as a pairwise predictor (see KronSolution.PairModel).
func (s *TwoStepSolution) PairModel() *model.PairPredictor {
	return pairModel(learn.TwoStep, s.t.rows, s.t.cols, s.t.lab.sym, s.RowLambda, s.ColLambda, s.Coefficients())
}
