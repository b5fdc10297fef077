package pairwise

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
)

// Hold-out models of settings B, C and D: the coefficient matrices of the
// models retrained without a fold of row objects (B), a fold of column
// objects (C), or a row fold and a column fold together (D), from the
// factorization — what CV+ prediction intervals for new rows, new columns,
// or new rows with new columns need (package interval). Complete
// heterogeneous data only.
//
// Each model is an m×q matrix A_{−F} (B), A_{−G} (C) or A_{−F,G} (D) over
// all training objects, f(u, v) = k(u)ᵀ A g(v), with exact zeros in the
// rows F and the columns G its training left out. The models of D are
// listed row fold major: the model of row fold k and column fold l is
// number k·L + l.
//
//	KronRLS B   the hold-out predictions P_F of setting B (HoldOutRows) put
//	            in place of Y_F: the model trained on all rows with those
//	            labels is the model trained without F (its loss on F is 0),
//	            A = U [(UᵀY'V) ⊘ (e sᵀ + λ)] Vᵀ: O(m·q·(m + q)) per fold —
//	            or, when cheaper (imputeRows: large folds, many columns),
//	            each fold's kept rows eigendecomposed, O(Σ_F (m − |F|)³),
//	            with the whole column side's V, and the closed form.
//	KronRLS C   the same on the columns (G⊗K and K⊗G are the same system
//	            with the pairs reordered): setting C's hold-out predictions
//	            (HoldOutCols) imputed into Y's columns G, or each fold's kept
//	            columns eigendecomposed, O(Σ_G (q − |G|)³), with the whole
//	            row side's U.
//	KronRLS D   the held-out rows and columns are coupled through λ (see the
//	            package doc): each row fold's kept rows and each column
//	            fold's kept columns are eigendecomposed once, O(Σ_F m³ +
//	            Σ_G q³), shared by every block, then the closed form on the
//	            kept grid, O(m·q·(m + q)) per block.
//	TwoStep     the ridge inverses H_K = (K + λ_r I)⁻¹, H_G = (G + λ_c I)⁻¹
//	            from the eigendecompositions (O(m³ + q³) once); the inverse
//	            of a kept block embedded in the whole is the Schur
//	            complement H − H_{·F} H_FF⁻¹ H_{F·}, so
//	            A_{−F} = (H_K Y − H_{K,·F} H_{K,FF}⁻¹ (H_K Y)_F) H_G, C the
//	            same on the columns of H_K Y H_G, and D both: O(m·q·(m + q)
//	            + |F|³) per model.
//
// Size: K·m·q numbers (B, K row folds; C, K column folds) or K·L·m·q (D).

// HoldOutModels returns the hold-out models of the design d — setting
// "rows" (B, d.RowFolds), "cols" (C, d.ColFolds) or "both" (D, both; see
// above) — and the m×q hold-out predictions of every training pair by the
// model that left it out: the setting's own cross-validation (HoldOutRows,
// HoldOutCols, LeaveBothOut), here computed from the models, P_{FG} =
// K_{F·} A G_{·G}. The folds must partition the objects (nil: each object
// alone).
func (s *KronSolution) HoldOutModels(d learn.Design) ([]*mat.Dense, *mat.Dense, error) {
	k := s.k
	rb, cb, err := holdOutFolds(k.problem, d)
	if err != nil {
		return nil, nil, err
	}
	y := k.lab.full
	m, q := y.Dims()
	var models []*mat.Dense
	switch setting := Setting(d.Setting); {
	case setting == Rows && imputeRows(rb, m, q):
		p, err := s.HoldOutRows(rb)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range rb {
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
	case setting == Cols && imputeRows(cb, q, m):
		p, err := s.HoldOutCols(cb)
		if err != nil {
			return nil, nil, err
		}
		for _, g := range cb {
			yi := mat.DenseCopyOf(y)
			for i := 0; i < m; i++ {
				src, dst := p.RawRowView(i), yi.RawRowView(i)
				for _, j := range g {
					dst[j] = src[j]
				}
			}
			a, err := kronClosed(k.u, k.er, k.v, k.ec, yi, s.Lambda)
			if err != nil {
				return nil, nil, err
			}
			zeroCols(a, g)
			models = append(models, a)
		}
	default:
		type eig struct {
			u *mat.Dense
			e []float64
		}
		// each block's kept objects eigendecomposed once; a nil block (the
		// side not held out) keeps every object: the whole side's
		keepC := kept(cb, q)
		ce := make([]eig, len(cb))
		for l, g := range cb {
			ce[l] = eig{k.v, k.ec}
			if g != nil {
				if ce[l].u, ce[l].e, err = k.cols.eigSub(keepC[l]); err != nil {
					return nil, nil, err
				}
			}
		}
		keepR := kept(rb, m)
		for b, r := range keepR {
			re := eig{k.u, k.er}
			if rb[b] != nil {
				if re.u, re.e, err = k.rows.eigSub(r); err != nil {
					return nil, nil, err
				}
			}
			for l, c := range keepC {
				a, err := kronClosed(re.u, re.e, ce[l].u, ce[l].e, subMatrix(y, r, c), s.Lambda)
				if err != nil {
					return nil, nil, err
				}
				models = append(models, embed(a, r, c, m, q))
			}
		}
	}
	return models, holdOutPredictions(k.rows.k, k.cols.k, models, rb, cb), nil
}

// HoldOutModels returns two-step RLS's hold-out models of the design d
// (setting rows, cols or both) and each training pair's hold-out
// prediction, as KronSolution.HoldOutModels does (see above for the
// Schur-complement form).
func (s *TwoStepSolution) HoldOutModels(d learn.Design) ([]*mat.Dense, *mat.Dense, error) {
	t := s.t
	rb, cb, err := holdOutFolds(t.problem, d)
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
	for _, f := range rb {
		w := hy // (K_RR + λ_r I)⁻¹ Y_R, zero rows F; every row kept when f is nil
		if f != nil {
			if w, err = schurApply(hk, hy, f); err != nil {
				return nil, nil, err
			}
		}
		z := linalg.Mul(false, false, w, hg)
		if len(cb) == 1 && cb[0] == nil { // every column kept
			models = append(models, z)
			continue
		}
		zt := transpose(z) // columns as rows: Hᵀ = H
		for _, g := range cb {
			a, err := schurApply(hg, zt, g)
			if err != nil {
				return nil, nil, err
			}
			models = append(models, transpose(a))
		}
	}
	return models, holdOutPredictions(t.rows.k, t.cols.k, models, rb, cb), nil
}

// Labels returns the m×q label matrix the solution was trained on (shared;
// do not modify).
func (s *KronSolution) Labels() *mat.Dense { return s.k.lab.full }

// Labels returns the m×q label matrix (shared; do not modify).
func (s *TwoStepSolution) Labels() *mat.Dense { return s.t.lab.full }

// holdOutFolds checks that the data are complete and heterogeneous, that
// the design's setting is rows, cols or both with folds of the sides it
// holds out only, and that the folds partition the objects (nil:
// leave-one-out). It returns the row blocks and the column blocks of the
// models, a side not held out being one nil block (every object kept): the
// model of row block k and column block l is number k·len(cols) + l.
func holdOutFolds(p problem, d learn.Design) (rows, cols [][]int, err error) {
	if p.lab.sym != Heterogeneous {
		return nil, nil, fmt.Errorf("%w: hold-out models of settings rows, cols and both are for two sets of objects", ErrSetting)
	}
	if !p.lab.complete {
		return nil, nil, fmt.Errorf("%w: %s (hold-out models need complete data)", ErrIncomplete, p.lab.missing(5))
	}
	all := [][]int{nil}
	rows, cols = all, all
	switch Setting(d.Setting) {
	case Rows:
		if d.ColFolds != nil {
			return nil, nil, fmt.Errorf("%w: setting rows with column folds", ErrSetting)
		}
		rows, err = partitionFolds(d.RowFolds, p.lab.m, "row")
	case Cols:
		if d.RowFolds != nil {
			return nil, nil, fmt.Errorf("%w: setting cols with row folds", ErrSetting)
		}
		cols, err = partitionFolds(d.ColFolds, p.lab.q, "column")
	case Both:
		if rows, err = partitionFolds(d.RowFolds, p.lab.m, "row"); err == nil {
			cols, err = partitionFolds(d.ColFolds, p.lab.q, "column")
		}
	default:
		return nil, nil, fmt.Errorf("%w: hold-out models are for settings rows, cols and both, not %q", ErrSetting, d.Setting)
	}
	if err != nil {
		return nil, nil, err
	}
	return rows, cols, nil
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

// imputeRows chooses Kronecker RLS's route to setting B's models (and, with
// the sides swapped, imputeRows(G, q, m), to setting C's): the
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
// that left it out: P_{FG} = K_{F·} A G_{·G} for the model of row block F
// and column block G (holdOutFolds' blocks; nil: every object).
func holdOutPredictions(kr, kc *mat.Dense, models []*mat.Dense, rb, cb [][]int) *mat.Dense {
	m, _ := kr.Dims()
	q, _ := kc.Dims()
	out := mat.NewDense(m, q, nil)
	for kf, f := range rb {
		if f == nil {
			f = allIndices(m)
		}
		ka := rowsOf(kr, f)
		for l, g := range cb {
			t := linalg.Mul(false, false, linalg.Mul(false, false, ka, models[kf*len(cb)+l]), kc)
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

// zeroCols sets the columns g of a to zero.
func zeroCols(a *mat.Dense, g []int) {
	m, _ := a.Dims()
	for i := 0; i < m; i++ {
		row := a.RawRowView(i)
		for _, j := range g {
			row[j] = 0
		}
	}
}

// zeroRows sets the rows f of a to zero.
func zeroRows(a *mat.Dense, f []int) {
	for _, i := range f {
		clear(a.RawRowView(i))
	}
}
