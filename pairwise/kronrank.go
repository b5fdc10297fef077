package pairwise

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// KronRank is Kronecker RankRLS for conditional ranking on complete data
// (Pahikkala, Waegeman, Airola, Salakoski & De Baets 2010; Pahikkala,
// Airola, Stock, De Baets & Waegeman 2013): the row objects are the
// queries and, inside each row, the column objects are ranked. It is the
// minimizer over f(u, v) = Σ_ij A_ij k(u, u_i) g(v, v_j) of
//
//	Σ_i (y_i − f_i)ᵀ C (y_i − f_i) + λ‖f‖²,   C = I_q − 11ᵀ/q,
//
// y_i and f_i the q labels and predictions of row i: (y − f)ᵀ C (y − f) is
// (1/q) Σ_{j<l} ((Y_ij − Y_il) − (F_ij − F_il))², the RankRLS loss over
// every pair of columns inside the row, and L = I_m ⊗ C the Laplacian of the
// whole loss. Its dual coefficients are vec(A) = (L(K⊗G) + λI)⁻¹ L vec(Y).
//
// The closed form: the loss sees G only through the centered column kernel
// G_c = C G C (A = A C at the optimum, since λA = (Y − K A G) C, so
// K A G C = K A G_c), and the problem is Kronecker RLS on K, G_c and the
// row-centered labels Y C. With K = U diag(e) Uᵀ and G_c = V diag(s) Vᵀ,
//
//	A = U [(Uᵀ Y C V) ⊘ (e sᵀ + λ)] Vᵀ,
//
// and the predictions are k(u)ᵀ A g(v) with the uncentered G (a per-row
// constant that does not change any ranking inside a row, kept so that the
// model's scores are those of the dual solution above). The components of
// the null space of G_c (s_l at rounding level, see nullSpace) predict 0
// for every pair and are left out of A: A equals the dual solution above
// up to them, its scores equal the dual solution's. Fitting costs the
// row side's eigendecomposition (Side.Eigen, shared); the column side's
// O(q³) step comes on first need (centered): G_c's eigendecomposition and
// O(m·q·(m + q)) for UᵀYCV when cross-validating (or for the twin), or,
// for Solve before any of those, the tridiagonal reduction of G_c on 1^⊥
// (a third of the flops; see Solve). Solve costs O(m·q·(m + q)) per λ.
// Memory: the sides' kernel matrices and the row side's eigenvectors (and
// U∘U), q² for V or for the reduction's reflectors, m·q for UᵀYCV or
// UᵀYHQ; Solve adds two m×q matrices, CrossValidate q² for G V and a few
// m×q per λ. Only two sets
// of objects (no homogeneous network) and complete data are taken. It implements learn.Learner with the labels
// in the order of the pairs given.
type KronRank struct {
	rows, cols *Side
	lab        *labels

	u, u2 *mat.Dense // row eigenvectors U and U∘U (the row side's, shared)
	e     []float64  // row eigenvalues
	c     *centered  // the column side's G_c, its forms computed on first need

	mu *sync.Mutex // guards sp and mq (a pointer: the twin copies the struct)
	sp *rankSpectral
	mq *mat.Dense // Uᵀ Y H Q, m×(q−1), for the tridiagonal route
}

// rankSpectral is what the eigen route needs: G_c = V diag(s) Vᵀ, the null
// components (see nullSpace) and UᵀYCV (m×q).
type rankSpectral struct {
	v    *mat.Dense
	s    []float64
	null []bool
	yt   *mat.Dense
}

// centered holds a column side's centered kernel matrix G_c = C G C in the
// two forms KronRank uses, each computed once on first need and shared by
// every learner on the side: its eigendecomposition V diag(s) Vᵀ (O(q³),
// for cross-validation and the twin) and the tridiagonal reduction
// HᵀGH = Q T Qᵀ of its restriction to 1^⊥ (H as in LinearKronRank; a
// third of the eigendecomposition's cost, for Solve at single λ values).
type centered struct {
	g *mat.Dense // G (the side's, shared)

	mu      sync.Mutex
	v       *mat.Dense
	s       []float64
	eigErr  error
	eigDone bool
	tri     *linalg.Tridiagonal
	triOK   bool // HᵀGH numerically nonsingular: the tridiagonal route applies
	triErr  error
	triDone bool
}

// centerKernel returns C G C for C = I − 11ᵀ/q: each entry minus its row
// mean and its column mean, plus the grand mean. O(q²).
func centerKernel(g *mat.Dense) *mat.Dense {
	q, _ := g.Dims()
	rowMean := make([]float64, q)
	grand := 0.0
	for i := 0; i < q; i++ {
		s := 0.0
		for _, x := range g.RawRowView(i) {
			s += x
		}
		rowMean[i] = s / float64(q)
		grand += s
	}
	grand /= float64(q) * float64(q)
	colMean := make([]float64, q)
	for i := 0; i < q; i++ {
		for j, x := range g.RawRowView(i) {
			colMean[j] += x
		}
	}
	for j := range colMean {
		colMean[j] /= float64(q)
	}
	out := mat.NewDense(q, q, nil)
	for i := 0; i < q; i++ {
		src, dst := g.RawRowView(i), out.RawRowView(i)
		for j, x := range src {
			dst[j] = x - rowMean[i] - colMean[j] + grand
		}
	}
	// symmetric in exact arithmetic: make it so for the eigensolver
	for i := 0; i < q; i++ {
		for j := 0; j < i; j++ {
			a := (out.At(i, j) + out.At(j, i)) / 2
			out.Set(i, j, a)
			out.Set(j, i, a)
		}
	}
	return out
}

// newCentered returns the column side's centered kernel matrix holder;
// nothing is computed yet. O(1).
func newCentered(cols *Side) (*centered, error) {
	return &centered{g: cols.Matrix()}, nil
}

// eigen returns G_c = V diag(s) Vᵀ, computing it on the first call:
// O(q³).
func (c *centered) eigen() (*mat.Dense, []float64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.eigDone {
		c.eigDone = true
		q, _ := c.g.Dims()
		v := centerKernel(c.g) // overwritten by V
		s, err := linalg.EigSymInPlace(v)
		if err != nil {
			c.eigErr = fmt.Errorf("pairwise: eigendecomposition of the centered %d×%d column kernel: %w", q, q, err)
		} else {
			c.v, c.s = v, s
		}
	}
	return c.v, c.s, c.eigErr
}

// hasEigen reports whether the eigendecomposition has been computed.
func (c *centered) hasEigen() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eigDone && c.eigErr == nil
}

// tridiagonal returns the reduction HᵀGH = Q T Qᵀ ((q−1)×(q−1)), computing
// it on the first call ((4/3)·q³ flops), and whether it is numerically
// nonsingular — no eigenvalue of T below (q−1)·ε times a bound on the
// largest (CountBelow, GershgorinMax), so that nullSpace would leave no
// component of it out; when it is not, Solve takes the eigen route.
func (c *centered) tridiagonal() (*linalg.Tridiagonal, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.triDone {
		c.triDone = true
		gh := householderBoth(c.g)
		n, _ := gh.Dims()
		tri, err := linalg.TridiagonalInPlace(gh)
		if err != nil {
			c.triErr = fmt.Errorf("pairwise: tridiagonal reduction of the centered %d×%d column kernel: %w", n+1, n+1, err)
		} else {
			c.tri = tri
			c.triOK = tri.CountBelow(float64(n)*2.220446049250313e-16*tri.GershgorinMax()) == 0
		}
	}
	return c.tri, c.triOK, c.triErr
}

// householderBoth returns HᵀGH ((q−1)×(q−1)) for the symmetric q×q G, H
// the last q − 1 columns of the reflection P = I − u uᵀ/β (u = 1 + √q e₁,
// β = √q(√q + 1); householderCenter): the trailing block of
// P G P = G − u wᵀ − w uᵀ + (uᵀGu/β) u uᵀ/β with w = G u/β, made exactly
// symmetric. O(q²).
func householderBoth(g *mat.Dense) *mat.Dense {
	q, _ := g.Dims()
	rq := math.Sqrt(float64(q))
	beta := rq * (rq + 1)
	u := make([]float64, q)
	for i := range u {
		u[i] = 1
	}
	u[0] = 1 + rq
	w := make([]float64, q) // G u / β
	for i := 0; i < q; i++ {
		s := 0.0
		for j, x := range g.RawRowView(i) {
			s += x * u[j]
		}
		w[i] = s / beta
	}
	ugu := 0.0 // uᵀ G u / β
	for i, x := range w {
		ugu += u[i] * x
	}
	ugu /= beta
	out := mat.NewDense(q-1, q-1, nil)
	for i := 1; i < q; i++ {
		src, dst := g.RawRowView(i), out.RawRowView(i-1)
		for j := 1; j < q; j++ { // u_i = u_j = 1 here
			dst[j-1] = src[j] - w[j] - w[i] + ugu
		}
	}
	for i := 0; i < q-1; i++ {
		for j := 0; j < i; j++ {
			a := (out.At(i, j) + out.At(j, i)) / 2
			out.Set(i, j, a)
			out.Set(j, i, a)
		}
	}
	return out
}

// centerRows returns Y C: each row of Y minus its mean. O(m·q).
func centerRows(y *mat.Dense) *mat.Dense {
	m, q := y.Dims()
	out := mat.NewDense(m, q, nil)
	for i := 0; i < m; i++ {
		src, dst := y.RawRowView(i), out.RawRowView(i)
		mean := 0.0
		for _, x := range src {
			mean += x
		}
		mean /= float64(q)
		for j, x := range src {
			dst[j] = x - mean
		}
	}
	return out
}

// FitKronRank trains Kronecker RankRLS for conditional ranking (see
// KronRank) on the labelled pairs, which must cover every (row, column)
// pair, of two sets of objects. Cost: the row side's eigendecomposition
// O(m³) (shared with any other learner on the side); the centered column
// kernel's O(q³) step and O(m·q·(m + q)) come with the first Solve or
// CrossValidate (see KronRank).
func FitKronRank(rows, cols *Side, pairs []Pair, y []float64) (*KronRank, error) {
	if rows == nil || cols == nil {
		return nil, errSide
	}
	lab, err := newLabels(rows.Len(), cols.Len(), pairs, y, Heterogeneous)
	if err != nil {
		return nil, err
	}
	c, err := newCentered(cols)
	if err != nil {
		return nil, err
	}
	return fitKronRank(rows, cols, lab, c)
}

// fitKronRank is FitKronRank on checked labels and the column side's
// centered eigendecomposition.
func fitKronRank(rows, cols *Side, lab *labels, c *centered) (*KronRank, error) {
	if !lab.complete {
		return nil, fmt.Errorf("%w: %s (conditional ranking needs complete data)", ErrIncomplete, lab.missing(5))
	}
	if lab.m != rows.Len() || lab.q != cols.Len() {
		return nil, fmt.Errorf("pairwise: %w: labels of %d×%d pairs for sides of %d and %d objects", learnErrShape, lab.m, lab.q, rows.Len(), cols.Len())
	}
	if lab.q < 2 {
		return nil, fmt.Errorf("pairwise: %w: conditional ranking ranks the columns inside each row: %d column object", learnErrShape, lab.q)
	}
	u, e, err := rows.Eigen()
	if err != nil {
		return nil, err
	}
	return &KronRank{rows: rows, cols: cols, lab: lab, u: u, u2: rows.u2, e: e, c: c, mu: new(sync.Mutex)}, nil
}

// spectral returns the eigen route's quantities, computing them on the
// first call: the column side's eigendecomposition (shared) and UᵀYCV,
// O(m·q·(m + q)).
func (k *KronRank) spectral() (*rankSpectral, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.sp != nil {
		return k.sp, nil
	}
	v, s, err := k.c.eigen()
	if err != nil {
		return nil, err
	}
	yt := linalg.Mul(false, false, linalg.Mul(true, false, k.u, centerRows(k.lab.full)), v)
	k.sp = &rankSpectral{v: v, s: s, null: nullSpace(s), yt: yt}
	return k.sp, nil
}

// nullSpace marks the eigenvalues of G_c at rounding level, s_l ≤
// q·ε·max|s| (the null space of C G C: the vector 1 and, for a kernel of
// rank below q − 1, the directions w ⊥ 1 with G w = 0). Their components
// of A are (Y C v_l v_lᵀ)/λ — U diag(1/(e·0 + λ)) Uᵀ = I/λ — and predict
// 0 for every pair in exact arithmetic (g(v)ᵀ w = φ(v)ᵀ Φᵀ w = 0 for
// w ∈ null(CGC) ⊥ 1, and Y C 1 = 0), but they are O(‖Y‖/λ) and cancel
// only to ε‖Y‖‖K‖‖G‖/λ: they are left out of A and of the hold-out
// predictions, which keeps the scores to rounding of their own size.
// O(q).
func nullSpace(s []float64) []bool {
	smax := 0.0
	for _, v := range s {
		smax = math.Max(smax, math.Abs(v))
	}
	cut := float64(len(s)) * 2.220446049250313e-16 * smax
	out := make([]bool, len(s))
	for l, v := range s {
		out[l] = v <= cut
	}
	return out
}

// Name is learn.KronRank.
func (k *KronRank) Name() learn.Name { return learn.KronRank }

// Labels returns the n×1 labels in the order of the pairs given.
func (k *KronRank) Labels() *mat.Dense { return k.lab.vector() }

// Pairs returns the labelled pairs in their given order (shared).
func (k *KronRank) Pairs() []Pair { return k.lab.given }

// Matrix returns the m×q label matrix (shared; do not modify).
func (k *KronRank) Matrix() *mat.Dense { return k.lab.full }

// Sides returns the row and column sides.
func (k *KronRank) Sides() (rows, cols *Side) { return k.rows, k.cols }

// At is Solve as the learn.Learner contract.
func (k *KronRank) At(lambda float64) (learn.Solution, error) {
	s, err := k.Solve(lambda)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// KronRankSolution is Kronecker RankRLS at one λ: its m×q coefficients A
// (Solve), from which every score is k(u)ᵀ A g(v).
type KronRankSolution struct {
	Lambda float64
	k      *KronRank
	a      *mat.Dense // m×q dual coefficients
}

// rankFilter returns f_kl = 1/(e_k s_l + λ), and 0 in the columns l that
// null marks (nil: none; rankFilter2 also zeroes marked rows); a non-positive e_k s_l + λ (an indefinite
// kernel) is an error wrapping learn.ErrIndefinite. O(m·q).
func rankFilter(e, s []float64, null []bool, lambda float64) (*mat.Dense, error) {
	return rankFilter2(e, s, nil, null, lambda)
}

// rankFilter2 is rankFilter with the rows that rowNull marks zero too.
func rankFilter2(e, s []float64, rowNull, null []bool, lambda float64) (*mat.Dense, error) {
	f := mat.NewDense(len(e), len(s), nil)
	for i, a := range e {
		if rowNull != nil && rowNull[i] {
			continue
		}
		row := f.RawRowView(i)
		for j, b := range s {
			if null != nil && null[j] {
				continue
			}
			d := a*b + lambda
			if !(d > 0) {
				return nil, indefinite(a, b, lambda)
			}
			row[j] = 1 / d
		}
	}
	return f, nil
}

// Solve returns the model at λ: A = U [(UᵀYCV) ⊘ (e sᵀ + λ)] Vᵀ, by the
// eigen route once the column side's eigendecomposition exists (after
// cross-validation, say). Before that — a fit at single λ values — it
// takes the tridiagonal route when HᵀGH is numerically nonsingular: with
// G_c = H (HᵀGH) Hᵀ and HᵀGH = Q T Qᵀ, A = U Z Qᵀ Hᵀ where row i of Z
// solves (e_i T + λI) z_i = (Uᵀ Y H Q)_i, O(q) each — the same A (the
// direction 1, G_c's one structural null component, is left out exactly)
// without the O(q³) eigenvectors; the first call reduces HᵀGH (a third of
// an eigendecomposition's flops) and forms UᵀYHQ. O(m·q·(m + q)) per λ.
func (k *KronRank) Solve(lambda float64) (*KronRankSolution, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	if !k.c.hasEigen() {
		tri, ok, err := k.c.tridiagonal()
		if err != nil {
			return nil, err
		}
		if ok {
			return k.solveTri(tri, lambda)
		}
	}
	sp, err := k.spectral()
	if err != nil {
		return nil, err
	}
	f, err := rankFilter(k.e, sp.s, sp.null, lambda)
	if err != nil {
		return nil, err
	}
	f.MulElem(f, sp.yt)
	a := linalg.Mul(false, true, linalg.Mul(false, false, k.u, f), sp.v)
	return &KronRankSolution{Lambda: lambda, k: k, a: a}, nil
}

// solveTri is Solve's tridiagonal route (see Solve). O(m·q·(m + q)), plus
// UᵀYHQ on the first call.
func (k *KronRank) solveTri(tri *linalg.Tridiagonal, lambda float64) (*KronRankSolution, error) {
	k.mu.Lock()
	if k.mq == nil {
		_, yh := householderCenter(k.cols.Matrix(), k.lab.full) // Y H; its Z part unused
		mq := linalg.Mul(true, false, k.u, yh)
		if err := tri.MulQ(mq, false); err != nil {
			k.mu.Unlock()
			return nil, err
		}
		k.mq = mq
	}
	mq := k.mq
	k.mu.Unlock()
	m, n := mq.Dims()
	z := mat.NewDense(m, n, nil)
	work := make([]float64, n)
	for i, e := range k.e {
		row := z.RawRowView(i)
		copy(row, mq.RawRowView(i))
		if !tri.SolveShifted(e, lambda, row, work) {
			return nil, fmt.Errorf("pairwise: %w: row eigenvalue %g with λ = %g: the shifted column system is not positive definite", learn.ErrIndefinite, e, lambda)
		}
	}
	uz := linalg.Mul(false, false, k.u, z)
	if err := tri.MulQ(uz, true); err != nil {
		return nil, err
	}
	return &KronRankSolution{Lambda: lambda, k: k, a: expandH(uz)}, nil
}

// expandH returns B Hᵀ (m×q) for B m×(q−1), H as in householderCenter:
// column j ≥ 1 is B's column j − 1 minus σ, column 0 is −(1 + √q)·σ, σ the
// row sums of B over β. O(m·q).
func expandH(b *mat.Dense) *mat.Dense {
	m, n := b.Dims()
	q := n + 1
	rq := math.Sqrt(float64(q))
	beta := rq * (rq + 1)
	out := mat.NewDense(m, q, nil)
	for i := 0; i < m; i++ {
		src, dst := b.RawRowView(i), out.RawRowView(i)
		sigma := 0.0
		for _, x := range src {
			sigma += x
		}
		sigma /= beta
		dst[0] = -(1 + rq) * sigma
		for j, x := range src {
			dst[j+1] = x - sigma
		}
	}
	return out
}

// Coefficients returns the m×q dual coefficients A (shared; do not modify):
// f(u, v) = k(u)ᵀ A g(v).
func (s *KronRankSolution) Coefficients() *mat.Dense { return s.a }

// Fitted returns F = K A G, the scores of the m×q training pairs.
// O(m·q·(m + q)).
func (s *KronRankSolution) Fitted() *mat.Dense {
	return linalg.Mul(false, false, linalg.Mul(false, false, s.k.rows.Matrix(), s.a), s.k.cols.Matrix())
}

// PairModel returns the model as a pairwise predictor, f(u, v) = k(u)ᵀ A g(v),
// ready to save or to predict pairs of training or new objects. O(1).
func (s *KronRankSolution) PairModel() *model.PairPredictor {
	return pairModel(learn.KronRank, s.k.rows, s.k.cols, Heterogeneous, s.Lambda, 0, s.a)
}

// Predictor returns the model as an expansion over the n labelled pairs
// (the learn.Solution contract; PairModel predicts new objects). O(n).
func (s *KronRankSolution) Predictor() *model.Predictor {
	return pairExpansion(learn.KronRank, s.k.lab, s.a, s.Lambda)
}

// CrossValidate runs setting B, the only design with an exact shortcut for
// conditional ranking: each fold of row objects (d.RowFolds, nil: each row
// alone) is left out with all its pairs and its rows are predicted, against
// every training column, by the model retrained on the other rows. For each
// λ of the grid visit(i, P) gets the m×q CV predictions (NaN for rows no
// fold holds out; valid during the call only).
//
// Leaving rows out keeps the columns, so C and G_c = V diag(s) Vᵀ do not
// change: in the basis V the problem splits into q kernel RLS problems on
// the rows, column l with kernel s_l K, labels y_l = Y C v_l and
// coefficients a_l = M_l⁻¹ y_l, M_l = s_l K + λI. For held-out rows H,
// the block inverse gives the retrained K_HT a_l^{(−H)} = (K a_l)_H −
// (K M_l⁻¹)_HH [(M_l⁻¹)_HH]⁻¹ (a_l)_H, all blocks of U diag(·) Uᵀ, and the
// predictions are Z Vᵀ G for Z = [K_HT a_l^{(−H)}]_l. Cost per λ
// O(m·q·(m + q)) for single rows (the diagonals (U∘U)·filter), plus
// O(h²·m·q + h³·q) per fold of h rows.
//
// Settings pairs (A), cols (C) and both (D) are refused (an error wrapping
// ErrSetting): leaving a pair or a column out of a row changes the
// centering of that row's loss (its Laplacian over the remaining columns),
// which the eigenbases above do not follow.
func (k *KronRank) CrossValidate(d Design, grid []float64, visit func(i int, p *mat.Dense) error) error {
	if d.Setting != Rows {
		return fmt.Errorf("%w: conditional ranking (kronrank) cross-validates setting rows (new row objects ranked over the training columns) only; "+
			"setting %q leaves pairs or columns out of a row, which changes the centering of that row's ranking loss: no exact shortcut", ErrSetting, d.Setting)
	}
	if d.ColFolds != nil {
		return fmt.Errorf("%w: setting rows takes row folds, not column folds", ErrSetting)
	}
	if err := checkLambdas(grid); err != nil {
		return err
	}
	m, q := k.lab.m, k.lab.q
	if err := checkFolds(d.RowFolds, m, "row"); err != nil {
		return err
	}
	sp, err := k.spectral()
	if err != nil {
		return err
	}
	gv := linalg.Mul(false, false, k.cols.Matrix(), sp.v) // G V, q×q
	for i, lambda := range grid {
		// the full filter: a null column's M_l = λI is what retraining
		// solves; its z_l (O(‖Y‖/λ), predicting 0) is dropped below
		f, err := rankFilter(k.e, sp.s, nil, lambda)
		if err != nil {
			return err
		}
		ef := scaleRowsBy(f, k.e) // e_k f_kl
		b := mat.NewDense(m, q, nil)
		b.MulElem(f, sp.yt)
		av := linalg.Mul(false, false, k.u, b)                    // A V
		kav := linalg.Mul(false, false, k.u, scaleRowsBy(b, k.e)) // K A V
		var p *mat.Dense
		if d.RowFolds == nil {
			dg := linalg.Mul(false, false, k.u2, f)   // diag (M_l⁻¹)
			dkg := linalg.Mul(false, false, k.u2, ef) // diag (K M_l⁻¹)
			z := mat.NewDense(m, q, nil)
			for r := 0; r < m; r++ {
				zr, kr, ar, g1, g2 := z.RawRowView(r), kav.RawRowView(r), av.RawRowView(r), dg.RawRowView(r), dkg.RawRowView(r)
				for l := range zr {
					zr[l] = kr[l] - g2[l]/g1[l]*ar[l]
				}
			}
			sp.dropNull(z)
			p = linalg.Mul(false, true, z, gv)
		} else {
			p = nanDense(m, q)
			for _, fold := range d.RowFolds {
				corr, err := blockSolve(rowsOf(k.u, fold), f, rowsOf(av, fold), ef)
				if err != nil {
					return err
				}
				z := rowsOf(kav, fold)
				z.Sub(z, corr)
				sp.dropNull(z)
				pz := linalg.Mul(false, true, z, gv)
				for a, r := range fold {
					copy(p.RawRowView(r), pz.RawRowView(a))
				}
			}
		}
		if err := visit(i, p); err != nil {
			return err
		}
	}
	return nil
}

// dropNull zeroes the columns of Z (h×q, in the basis V) that sp.null
// marks. O(h·q).
func (sp *rankSpectral) dropNull(z *mat.Dense) {
	r, _ := z.Dims()
	for i := 0; i < r; i++ {
		row := z.RawRowView(i)
		for l, n := range sp.null {
			if n {
				row[l] = 0
			}
		}
	}
}

// CrossValidateDesign is CrossValidate as learn.DesignValidator: for each
// λ = lambdas[i] it hands visit(i, 0, P) the n×1 CV predictions of the n
// labelled pairs in their given order. Only setting "rows" is taken (see
// CrossValidate); colLambdas must be nil. Cost: CrossValidate's plus O(n)
// per λ.
func (k *KronRank) CrossValidateDesign(d learn.Design, lambdas, colLambdas []float64, visit func(i, j int, p *mat.Dense) error) error {
	if colLambdas != nil {
		return fmt.Errorf("%w: conditional ranking has one λ; got %d column λ values", ErrSetting, len(colLambdas))
	}
	pk := newPicker(k.lab)
	return k.CrossValidate(design(d), lambdas, func(i int, p *mat.Dense) error {
		return visit(i, 0, pk.pick(p))
	})
}

// Perturbed is the twin of learn.Perturber: Kronecker RankRLS on the labels
// times s whose eigenvalues e (of K) and s (of C G C) are moved up by about
// their rounding error (factor.PerturbUp), sharing the eigenvectors and the
// sides. In exact arithmetic, and without the perturbation, its CV
// predictions are s times the learner's. O(m·q).
func (k *KronRank) Perturbed(s float64) (learn.Learner, error) {
	if err := checkScale(s); err != nil {
		return nil, err
	}
	sp, err := k.spectral()
	if err != nil {
		return nil, err
	}
	tw := *k
	tw.mu, tw.mq = new(sync.Mutex), nil
	tw.lab = k.lab.scaled(s)
	tw.e = factor.PerturbUp(k.e)
	yt := mat.NewDense(k.lab.m, k.lab.q, nil)
	yt.Scale(s, sp.yt)
	tw.sp = &rankSpectral{v: sp.v, s: factor.PerturbUp(sp.s), null: sp.null, yt: yt}
	return &tw, nil
}

var (
	_ learn.Learner         = (*KronRank)(nil)
	_ learn.DesignValidator = (*KronRank)(nil)
	_ learn.Perturber       = (*KronRank)(nil)

	_ interface{ PairModel() *model.PairPredictor } = (*KronRankSolution)(nil)
)
