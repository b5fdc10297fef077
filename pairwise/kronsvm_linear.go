package pairwise

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
)

// KronSVMLinear is the primal (linear) form of KronSVM — RLScore's KronSVM
// given features X1, X2: with row features X (m×d) and column features Z
// (q×e), the model f(x, z) = xᵀWz (W d×e, w = vec W) minimizes
//
//	J(W) = ½ ( Σ_h max(0, 1 − y_h f_h)² + λ‖W‖²_F ),   f_h = x_{r_h}ᵀ W z_{c_h},
//
// over the n labelled pairs. The Newton step, solved exactly, is the ridge
// regression on the pairs S inside the margin (y_h f_h < 1):
// (Φ_SᵀΦ_S + λI) w = Φ_Sᵀ y_S with Φ_S's rows z_{c_h} ⊗ x_{r_h}; it is solved
// by conjugate gradients warm-started at the previous w, each product by
// the vec trick in the cheaper order: Φw from XW (m×e, O(m·d·e)) and one
// row product per pair (O(n·e)), or from ZWᵀ (q×d, O(q·d·e)) and O(n·d);
// Φᵀu = XᵀBZ likewise, B the m×q matrix of u at the pairs. Per iteration
// O(min(m·d·e + |S|·e, q·d·e + |S|·d)), memory O(d·e + max(m·e, q·d)).
// Newton stops when a step leaves S unchanged (the optimality condition
// Φ_Sᵀ(f_S − y_S) + λw = 0 then holds to the last solve's tolerance).
// Without a bias feature f(0, z) = 0: add a constant column to X or Z for
// one.
type KronSVMLinear struct {
	x, z  *mat.Dense
	pairs []Pair
	y     []float64
	// work: XW or ZWᵀ, and BZ or BᵀX
	pw, bt *mat.Dense
}

// FitKronSVMLinear checks the features, pairs and labels (−1 or +1: ErrLabel
// names the first other) of the primal form. O(n + m·d + q·e).
func FitKronSVMLinear(x, z *mat.Dense, pairs []Pair, y []float64) (*KronSVMLinear, error) {
	if x == nil || z == nil || x.IsEmpty() || z.IsEmpty() {
		return nil, fmt.Errorf("pairwise: %w: KronSVM's linear form needs row and column features", learnErrShape)
	}
	for _, f := range []*mat.Dense{x, z} {
		if err := matrix.Check(f); err != nil {
			return nil, fmt.Errorf("pairwise: %w: %w", learnErrShape, err)
		}
		r, c := f.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if v := f.At(i, j); v-v != 0 {
					return nil, fmt.Errorf("pairwise: %w: feature (%d, %d) is %v", learnErrShape, i, j, v)
				}
			}
		}
	}
	if err := checkSVMLabels(pairs, y); err != nil {
		return nil, err
	}
	m, _ := x.Dims()
	q, _ := z.Dims()
	if _, err := newLabels(m, q, pairs, y, Heterogeneous); err != nil {
		return nil, err
	}
	return &KronSVMLinear{x: x, z: z, pairs: pairs, y: y}, nil
}

// rowsFirst says whether XW (and BZ) is the cheaper order for n pairs.
func (l *KronSVMLinear) rowsFirst(n int) bool {
	m, d := l.x.Dims()
	q, e := l.z.Dims()
	return m*d*e+n*e <= q*d*e+n*d
}

// predict sets f_h = x_{r_h}ᵀ W z_{c_h} for the pairs.
func (l *KronSVMLinear) predict(w *mat.Dense, pairs []Pair, f []float64) {
	if l.rowsFirst(len(pairs)) {
		if l.pw == nil || !sameDims(l.pw, l.x, l.z, true) {
			l.pw = mat.NewDense(l.x.RawMatrix().Rows, l.z.RawMatrix().Cols, nil)
		}
		l.pw.Mul(l.x, w) // XW, m×e
		for h, p := range pairs {
			f[h] = dot(l.pw.RawRowView(p.Row), l.z.RawRowView(p.Col))
		}
		return
	}
	if l.pw == nil || !sameDims(l.pw, l.x, l.z, false) {
		l.pw = mat.NewDense(l.z.RawMatrix().Rows, l.x.RawMatrix().Cols, nil)
	}
	l.pw.Mul(l.z, w.T()) // ZWᵀ, q×d
	for h, p := range pairs {
		f[h] = dot(l.x.RawRowView(p.Row), l.pw.RawRowView(p.Col))
	}
}

// sameDims reports whether the work matrix has the shape of XW (rows first)
// or ZWᵀ.
func sameDims(w, x, z *mat.Dense, rowsFirst bool) bool {
	r, c := w.Dims()
	m, d := x.Dims()
	q, e := z.Dims()
	if rowsFirst {
		return r == m && c == e
	}
	return r == q && c == d
}

// adjoint sets g = XᵀBZ (d×e), B the m×q matrix of u at the pairs.
func (l *KronSVMLinear) adjoint(pairs []Pair, u []float64, g *mat.Dense) {
	m, d := l.x.Dims()
	q, e := l.z.Dims()
	if l.rowsFirst(len(pairs)) {
		if l.bt == nil || l.bt.RawMatrix().Rows != m || l.bt.RawMatrix().Cols != e {
			l.bt = mat.NewDense(m, e, nil)
		}
		l.bt.Zero()
		for h, p := range pairs {
			row, c := l.bt.RawRowView(p.Row), u[h]
			for j, v := range l.z.RawRowView(p.Col) {
				row[j] += c * v
			}
		}
		g.Mul(l.x.T(), l.bt) // Xᵀ(BZ)
		return
	}
	if l.bt == nil || l.bt.RawMatrix().Rows != q || l.bt.RawMatrix().Cols != d {
		l.bt = mat.NewDense(q, d, nil)
	}
	l.bt.Zero()
	for h, p := range pairs {
		row, c := l.bt.RawRowView(p.Col), u[h]
		for j, v := range l.x.RawRowView(p.Row) {
			row[j] += c * v
		}
	}
	g.Mul(l.bt.T(), l.z) // (BᵀX)ᵀZ
}

// Solve trains the primal support vector machine at λ > 0 from W = 0 (see
// KronSVMLinear for the iteration and its cost). The result's W is the
// model; its Coef are a_h = (y_h − f_h)/λ inside the margin, zero outside,
// the dual coefficients of the same model (W = Σ_h a_h x_{r_h} z_{c_h}ᵀ at
// the optimum).
func (l *KronSVMLinear) Solve(lambda float64, opt SVMOptions) (*SVMResult, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	_, d := l.x.Dims()
	_, e := l.z.Dims()
	n := len(l.pairs)
	res := &SVMResult{lin: l, Lambda: lambda, W: mat.NewDense(d, e, nil), Coef: make([]float64, n)}
	w := res.W.RawMatrix().Data
	var svPairs []Pair
	var ys, fs []float64
	b, ax := mat.NewDense(d, e, nil), mat.NewDense(d, e, nil)
	vin, vout := mat.NewDense(d, e, nil), mat.NewDense(d, e, nil)
	fv := make([]float64, n)
	dw, df := make([]float64, d*e), make([]float64, n)
	dwm := mat.NewDense(d, e, dw)
	f, err := newton(l.y, lambda, opt, res,
		func(f []float64) { l.predict(res.W, l.pairs, f) },
		func(sv []int, f []float64) (float64, float64) {
			// g = Φ_Sᵀ(f_S − y_S) + λw, relative to ‖Φ_Sᵀy_S‖
			svPairs, ys, fs = svPairs[:0], ys[:0], fs[:0]
			for _, h := range sv {
				svPairs, ys, fs = append(svPairs, l.pairs[h]), append(ys, l.y[h]), append(fs, f[h]-l.y[h])
			}
			l.adjoint(svPairs, fs, ax)
			l.adjoint(svPairs, ys, b)
			g, bd := ax.RawMatrix().Data, b.RawMatrix().Data
			r := 0.0
			for i, v := range g {
				d := v + lambda*w[i]
				r += d * d
			}
			return math.Sqrt(r), math.Sqrt(dot(bd, bd))
		},
		func(sv []int, f []float64, eta float64) (newtonStep, error) {
			o := opt
			o.Tol = eta
			svPairs, ys, fs = svPairs[:0], ys[:0], fs[:0]
			for _, h := range sv {
				svPairs, ys, fs = append(svPairs, l.pairs[h]), append(ys, l.y[h]), append(fs, f[h])
			}
			l.adjoint(svPairs, ys, b)  // Φ_Sᵀy_S
			l.adjoint(svPairs, fs, ax) // Φ_SᵀΦ_S w
			apply := func(dst, v []float64) {
				copy(vin.RawMatrix().Data, v)
				l.predict(vin, svPairs, fv[:len(svPairs)])
				l.adjoint(svPairs, fv[:len(svPairs)], vout)
				copy(dst, vout.RawMatrix().Data)
			}
			copy(dw, w)
			it, ok, err := cgStep(apply, lambda, b.RawMatrix().Data, dw, ax.RawMatrix().Data, o)
			if err != nil {
				return newtonStep{it: it}, err
			}
			for i := range dw {
				dw[i] -= w[i]
			}
			l.predict(dwm, l.pairs, df)
			return newtonStep{it: it, ok: ok, df: df, c0: dot(w, dw), c2: dot(dw, dw)}, nil
		},
		func(t float64) {
			for i := range w {
				w[i] += t * dw[i]
			}
		})
	if err != nil {
		return nil, err
	}
	l.predict(res.W, l.pairs, f)
	for h, v := range l.y {
		if v*f[h] < 1 {
			res.Coef[h] = (v - f[h]) / lambda
		}
	}
	res.Objective = 0.5 * (hingeSquared(l.y, f) + lambda*dot(w, w))
	return res, nil
}

// PredictLinear returns f = xᵀWz for the pairs (rows[k], cols[k]) of the
// row features x and column features z of a primal KronSVM.
// O(min(m·d·e + n·e, q·d·e + n·d)).
func (r *SVMResult) PredictLinear(x, z *mat.Dense, rows, cols []int) ([]float64, error) {
	if r.W == nil {
		return nil, fmt.Errorf("pairwise: %w: a dual KronSVM has no weight matrix: use PairModel", learnErrShape)
	}
	d, e := r.W.Dims()
	m, dx := x.Dims()
	q, ez := z.Dims()
	if dx != d || ez != e || len(rows) != len(cols) {
		return nil, fmt.Errorf("pairwise: %w: features of width %d and %d for a %d×%d weight matrix, %d rows for %d columns", learnErrShape, dx, ez, d, e, len(rows), len(cols))
	}
	pairs := make([]Pair, len(rows))
	for i := range rows {
		if rows[i] < 0 || rows[i] >= m || cols[i] < 0 || cols[i] >= q {
			return nil, fmt.Errorf("%w: pair %d (%d, %d) outside %d rows × %d columns", ErrPair, i, rows[i], cols[i], m, q)
		}
		pairs[i] = Pair{rows[i], cols[i]}
	}
	l := &KronSVMLinear{x: x, z: z}
	f := make([]float64, len(pairs))
	l.predict(r.W, pairs, f)
	return f, nil
}
