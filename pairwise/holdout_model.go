package pairwise

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
)

// Hold-out models of settings B and D: the coefficient matrices of the
// models retrained without a fold of row objects (B), or without a row fold
// and a column fold together (D), from the factorization — what CV+
// prediction intervals for new rows, or new rows and new columns, need
// (package interval). Complete heterogeneous data only.
//
// Each model is an m×q matrix A_{−F} (B) or A_{−F,G} (D) over all training
// objects, f(u, v) = k(u)ᵀ A g(v), with exact zeros in the rows F and the
// columns G its training left out. The models of D are listed row fold
// major: the model of row fold k and column fold l is number k·L + l.
//
//	KronRLS B   the hold-out predictions P_F of setting B (HoldOutRows) put
//	            in place of Y_F: the model trained on all rows with those
//	            labels is the model trained without F (its loss on F is 0),
//	            A = U [(UᵀY'V) ⊘ (e sᵀ + λ)] Vᵀ: O(m·q·(m + q)) per fold —
//	            or, when cheaper (imputeRows: large folds, many columns),
//	            each fold's kept rows eigendecomposed, O(Σ_F (m − |F|)³),
//	            with the whole column side's V, and the closed form.
//	KronRLS D   the held-out rows and columns are coupled through λ (see the
//	            package doc): each row fold's kept rows and each column
//	            fold's kept columns are eigendecomposed once, O(Σ_F m³ +
//	            Σ_G q³), shared by every block, then the closed form on the
//	            kept grid, O(m·q·(m + q)) per block.
//	TwoStep     the ridge inverses H_K = (K + λ_r I)⁻¹, H_G = (G + λ_c I)⁻¹
//	            from the eigendecompositions (O(m³ + q³) once); the inverse
//	            of a kept block embedded in the whole is the Schur
//	            complement H − H_{·F} H_FF⁻¹ H_{F·}, so
//	            A_{−F} = (H_K Y − H_{K,·F} H_{K,FF}⁻¹ (H_K Y)_F) H_G and D
//	            the same on the columns: O(m·q·(m + q) + |F|³) per model.
//
// Size: K·m·q numbers (B, K row folds) or K·L·m·q (D).

// HoldOutModels returns the hold-out models of setting B (colFolds nil) or D
// (see above) and the m×q hold-out predictions of every training pair by
// the model that left it out: setting B's (HoldOutRows) or D's
// (LeaveBothOut), here computed from the models, P_{FG} = K_{F·} A G_{·G}.
// The folds must partition the objects (nil: each object alone).
func (s *KronSolution) HoldOutModels(rowFolds, colFolds [][]int, both bool) ([]*mat.Dense, *mat.Dense, error) {
	k := s.k
	rf, cf, err := holdOutFolds(k.problem, rowFolds, colFolds, both)
	if err != nil {
		return nil, nil, err
	}
	y := k.lab.full
	m, q := y.Dims()
	var models []*mat.Dense
	if !both && imputeRows(rf, m, q) {
		p, err := s.HoldOutRows(rf)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range rf {
			yi := mat.DenseCopyOf(y)
			for _, i := range f {
				copy(yi.RawRowView(i), p.RawRowView(i))
			}
			a, err := kronClosed(k.u, k.er, k.v, k.ec, yi, s.Lambda)
			if err != nil {
				return nil, nil, err
			}
			zeroRows(a, f)
			models = append(models, a)
		}
	} else {
		keepR, keepC := kept(rf, m), kept(cf, q)
		type eig struct {
			u *mat.Dense
			e []float64
		}
		ce := make([]eig, len(cf))
		if !both { // every column kept: the whole side's eigendecomposition
			keepC = [][]int{allIndices(q)}
			ce = []eig{{k.v, k.ec}}
		}
		for l, c := range keepC {
			if ce[l].u != nil {
				continue
			}
			if ce[l].u, ce[l].e, err = k.cols.eigSub(c); err != nil {
				return nil, nil, err
			}
		}
		for _, r := range keepR {
			ur, er, err := k.rows.eigSub(r)
			if err != nil {
				return nil, nil, err
			}
			for l, c := range keepC {
				a, err := kronClosed(ur, er, ce[l].u, ce[l].e, subMatrix(y, r, c), s.Lambda)
				if err != nil {
					return nil, nil, err
				}
				models = append(models, embed(a, r, c, m, q))
			}
		}
	}
	return models, holdOutPredictions(k.rows.k, k.cols.k, models, rf, cf, both), nil
}

// HoldOutModels returns two-step RLS's hold-out models of setting B
// (both false) or D and each training pair's hold-out prediction, as
// KronSolution.HoldOutModels does (see above for the Schur-complement form).
func (s *TwoStepSolution) HoldOutModels(rowFolds, colFolds [][]int, both bool) ([]*mat.Dense, *mat.Dense, error) {
	t := s.t
	rf, cf, err := holdOutFolds(t.problem, rowFolds, colFolds, both)
	if err != nil {
		return nil, nil, err
	}
	hk, err := ridgeInverse(t.u, t.er, s.RowLambda)
	if err != nil {
		return nil, nil, err
	}
	hg, err := ridgeInverse(t.v, t.ec, s.ColLambda)
	if err != nil {
		return nil, nil, err
	}
	hy := linalg.Mul(false, false, hk, t.lab.full)
	var models []*mat.Dense
	for _, f := range rf {
		w, err := schurApply(hk, hy, f) // (K_RR + λ_r I)⁻¹ Y_R, zero rows F
		if err != nil {
			return nil, nil, err
		}
		z := linalg.Mul(false, false, w, hg)
		if !both {
			models = append(models, z)
			continue
		}
		zt := transpose(z) // columns as rows: Hᵀ = H
		for _, g := range cf {
			a, err := schurApply(hg, zt, g)
			if err != nil {
				return nil, nil, err
			}
			models = append(models, transpose(a))
		}
	}
	return models, holdOutPredictions(t.rows.k, t.cols.k, models, rf, cf, both), nil
}

// Labels returns the m×q label matrix the solution was trained on (shared;
// do not modify).
func (s *KronSolution) Labels() *mat.Dense { return s.k.lab.full }

// Labels returns the m×q label matrix (shared; do not modify).
func (s *TwoStepSolution) Labels() *mat.Dense { return s.t.lab.full }

// holdOutFolds checks that the data are complete and heterogeneous and that
// the folds partition the objects (nil: leave-one-out), and returns them.
func holdOutFolds(p problem, rowFolds, colFolds [][]int, both bool) ([][]int, [][]int, error) {
	if p.lab.sym != Heterogeneous {
		return nil, nil, fmt.Errorf("%w: hold-out models of settings rows and both are for two sets of objects", ErrSetting)
	}
	if !p.lab.complete {
		return nil, nil, fmt.Errorf("%w: %s (hold-out models need complete data)", ErrIncomplete, p.lab.missing(5))
	}
	if !both && colFolds != nil {
		return nil, nil, fmt.Errorf("%w: setting rows with column folds", ErrSetting)
	}
	m, q := p.lab.m, p.lab.q
	rf, err := partitionFolds(rowFolds, m, "row")
	if err != nil {
		return nil, nil, err
	}
	if !both {
		return rf, nil, nil
	}
	cf, err := partitionFolds(colFolds, q, "column")
	if err != nil {
		return nil, nil, err
	}
	return rf, cf, nil
}

// partitionFolds returns the folds (nil: each object alone) after checking
// that they partition 0..n−1 and leave something to train on.
func partitionFolds(f [][]int, n int, side string) ([][]int, error) {
	if err := checkFolds(f, n, side); err != nil {
		return nil, err
	}
	if f == nil {
		return loo(n), nil
	}
	seen := make([]bool, n)
	for _, s := range f {
		for _, i := range s {
			seen[i] = true
		}
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("%w: %s object %d is in no fold: hold-out models for intervals need folds that cover every object", ErrSetting, side, i)
		}
	}
	return f, nil
}

// imputeRows chooses Kronecker RLS's route to setting B's models: the
// hold-out predictions imputed into the labels (HoldOutRows, O(Σ_F |F|²·m·q
// + |F|³·q), then O(m·q·(m + q)) per fold) when that costs less than an
// eigendecomposition of the kept rows per fold (O(Σ_F (m − |F|)³), then
// the same closed form): always for one row per fold (O(m·q·(m + q)) in
// all), for K folds of m/K rows when q < K² roughly.
func imputeRows(folds [][]int, m, q int) bool {
	impute, eig := 0.0, 0.0
	for _, f := range folds {
		n := float64(len(f))
		if n == 1 {
			continue // the closed form of HoldOutRows(nil) when all are singletons
		}
		impute += n*n*float64(m*q) + n*n*n*float64(q)
		r := float64(m) - n
		eig += r * r * r
	}
	return impute <= eig
}

func allIndices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// kept returns, for each fold, the objects of 0..n−1 outside it.
func kept(folds [][]int, n int) [][]int {
	out := make([][]int, len(folds))
	for k, f := range folds {
		drop := make([]bool, n)
		for _, i := range f {
			drop[i] = true
		}
		for i := 0; i < n; i++ {
			if !drop[i] {
				out[k] = append(out[k], i)
			}
		}
	}
	return out
}

// kronClosed returns U [(UᵀYV) ⊘ (e sᵀ + λ)] Vᵀ, Kronecker RLS's
// coefficients for the labels Y on the sides' eigendecompositions.
func kronClosed(u *mat.Dense, e []float64, v *mat.Dense, s []float64, y *mat.Dense, lambda float64) (*mat.Dense, error) {
	yt := linalg.Mul(false, false, linalg.Mul(true, false, u, y), v)
	for i, a := range e {
		row := yt.RawRowView(i)
		for j, b := range s {
			d := a*b + lambda
			if !(d > 0) {
				return nil, indefinite(a, b, lambda)
			}
			row[j] /= d
		}
	}
	return linalg.Mul(false, true, linalg.Mul(false, false, u, yt), v), nil
}

// ridgeInverse returns (K + λI)⁻¹ = U diag(1/(e + λ)) Uᵀ.
func ridgeInverse(u *mat.Dense, e []float64, lambda float64) (*mat.Dense, error) {
	n, _ := u.Dims()
	us := mat.NewDense(n, n, nil)
	for k, v := range e {
		d := v + lambda
		if !(d > 0) {
			return nil, fmt.Errorf("pairwise: %w: eigenvalue %g with lambda %g", learn.ErrIndefinite, v, lambda)
		}
		for i := 0; i < n; i++ {
			us.Set(i, k, u.At(i, k)/d)
		}
	}
	return linalg.Mul(false, true, us, u), nil
}

// schurApply returns (H − H_{·F} H_FF⁻¹ H_{F·}) B given HB = H·B, for H the
// inverse of a symmetric positive definite M: the inverse of M without the
// rows and columns F, embedded with zero rows F, applied to B. O(n·|F|·c +
// |F|³) for B of c columns.
func schurApply(h, hb *mat.Dense, f []int) (*mat.Dense, error) {
	hff := subMatrix(h, f, f)
	x, err := solveSPD(hff, rowsOf(hb, f))
	if err != nil {
		return nil, err
	}
	hf := colsOf(h, f)
	out := mat.DenseCopyOf(hb)
	out.Sub(out, linalg.Mul(false, false, hf, x))
	zeroRows(out, f)
	return out, nil
}

// holdOutPredictions returns each training pair's prediction by the model
// that left it out: P_{FG} = K_{F·} A G_{·G} (G all columns in setting B).
func holdOutPredictions(kr, kc *mat.Dense, models []*mat.Dense, rf, cf [][]int, both bool) *mat.Dense {
	m, _ := kr.Dims()
	q, _ := kc.Dims()
	out := mat.NewDense(m, q, nil)
	all := [][]int{nil}
	if both {
		all = cf
	}
	for kf, f := range rf {
		ka := rowsOf(kr, f)
		for l, g := range all {
			t := linalg.Mul(false, false, linalg.Mul(false, false, ka, models[kf*len(all)+l]), kc)
			for a, i := range f {
				src, dst := t.RawRowView(a), out.RawRowView(i)
				if g == nil {
					copy(dst, src)
					continue
				}
				for _, j := range g {
					dst[j] = src[j]
				}
			}
		}
	}
	return out
}

// subMatrix returns A[r, c].
func subMatrix(a *mat.Dense, r, c []int) *mat.Dense {
	out := mat.NewDense(len(r), len(c), nil)
	for i, ri := range r {
		src, dst := a.RawRowView(ri), out.RawRowView(i)
		for j, cj := range c {
			dst[j] = src[cj]
		}
	}
	return out
}

// embed returns the m×q matrix with A at rows r and columns c, zero elsewhere.
func embed(a *mat.Dense, r, c []int, m, q int) *mat.Dense {
	out := mat.NewDense(m, q, nil)
	for i, ri := range r {
		src, dst := a.RawRowView(i), out.RawRowView(ri)
		for j, cj := range c {
			dst[cj] = src[j]
		}
	}
	return out
}

// zeroRows sets the rows f of a to zero.
func zeroRows(a *mat.Dense, f []int) {
	for _, i := range f {
		clear(a.RawRowView(i))
	}
}
