package pairwise

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/progress"
)

// CrossValidate runs the design at every λ of the grid and hands visit the
// m×q matrix of cross-validation predictions (NaN for pairs no fold
// predicts; valid only during the call). Settings A–C are shortcuts on one
// factorization: per λ, A costs O(m·q·(m + q)) (homogeneous O(m⁴); on two
// sets of objects in three m×q buffers reused along the whole grid), B and C
// the same for leave-one-out and O(Σ_F |F|²·m·q) for folds. Setting D and
// vertices have no shortcut without a factorization per fold (the held-out
// rows and columns are coupled through λ); see LeaveBothOut for the method
// and its cost.
func (k *KronRLS) CrossValidate(d Design, grid []float64, visit func(i int, p *mat.Dense) error) error {
	if err := checkLambdas(grid); err != nil {
		return err
	}
	if err := d.check(k.lab.m, k.lab.q, k.lab.sym); err != nil {
		return err
	}
	switch d.Setting {
	case Both, Vertices:
		var preds []*mat.Dense
		var err error
		if d.Setting == Both {
			preds, err = k.LeaveBothOut(d.RowFolds, d.ColFolds, grid)
		} else {
			preds, err = k.LeaveVertexOut(d.RowFolds, grid)
		}
		if err != nil {
			return err
		}
		for i, p := range preds {
			if err := visit(i, p); err != nil {
				return err
			}
		}
		return nil
	}
	if d.Setting == Pairs && k.lab.sym == Heterogeneous {
		return k.leavePairOutPath(grid, visit)
	}
	for i, lambda := range grid {
		s, err := k.Solve(lambda)
		if err != nil {
			return err
		}
		var p *mat.Dense
		switch d.Setting {
		case Pairs:
			p, err = s.LeaveOneOutMatrix()
		case Rows:
			p, err = s.HoldOutRows(d.RowFolds)
		case Cols:
			p, err = s.HoldOutCols(d.ColFolds)
		}
		if err != nil {
			return fmt.Errorf("pairwise: %s at λ = %g: %w", d, lambda, err)
		}
		if err := visit(i, p); err != nil {
			return err
		}
	}
	return nil
}

// leavePairOutPath is setting A on two sets of objects along the grid: at
// each λ the residuals R = U (UᵀYV ∘ g) Vᵀ, the diagonal D = (U∘U) g (V∘V)ᵀ
// of 𝒜 = λ(G⊗K + λI)⁻¹ and the predictions Y − R ⊘ D (Stock et al. 2018),
// each product the one Solve and LeaveOneOutMatrix form — so the values are
// theirs bit for bit — in pairPath's streams. With a BLAS library of two
// threads the path runs two streams, each on single-threaded products
// (linalg.SerialSection meanwhile): for these shapes two independent
// single-threaded products run faster than one product on two threads (at
// 300 × 1000, 88 against 76 Gflop/s here), and one stream's element-wise
// work overlaps the other's products. With one thread, or more than two,
// the path runs one stream on the library's threads. Per λ: 4·m·q·(m + q)
// flops in four gemm calls plus O(m·q); memory 3·m·q per stream besides the
// factorization (two streams: at most the sides' own 3(m² + q²)).
func (k *KronRLS) leavePairOutPath(grid []float64, visit func(i int, p *mat.Dense) error) error {
	streams := 1
	if linalg.Info().Threads == 2 && len(grid) > 1 {
		streams = 2
		defer linalg.SerialSection()()
	}
	return k.pairPath(grid, streams, visit)
}

// pairPath computes setting A along the grid in the given number of
// streams, stream s taking λ_s, λ_{s+streams}, …, each with three m×q
// buffers allocated once: one pass writes the filter g and UᵀYV ∘ g
// (filterInto), R is formed over the latter and D over the former, and the
// predictions take the buffer of the first products. visit gets λ_i's
// predictions in grid order on the caller's goroutine (one of the buffers,
// valid during the call only); while it runs, the stream that computed
// them writes its next λ's filter into its two other buffers. An error —
// an indefinite filter at λ_i, or visit's — is returned after the visits
// of λ_0 … λ_{i−1}, as in order, and every stream has stopped by the time
// pairPath returns.
func (k *KronRLS) pairPath(grid []float64, streams int, visit func(i int, p *mat.Dense) error) error {
	m, q, n := k.lab.m, k.lab.q, len(grid)
	y, yt := k.lab.full.RawMatrix().Data, k.yt.RawMatrix().Data
	type stream struct {
		t     *mat.Dense
		ready chan error    // λ's predictions in t, or the error that ended the stream
		ack   chan struct{} // visit is done with t
	}
	ss := make([]*stream, min(streams, n))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for s := range ss {
		st := &stream{t: mat.NewDense(m, q, nil), ready: make(chan error, 1), ack: make(chan struct{})}
		ss[s] = st
		g, x := mat.NewDense(m, q, nil), mat.NewDense(m, q, nil)
		gd, xd, td := g.RawMatrix().Data, x.RawMatrix().Data, st.t.RawMatrix().Data
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := s
			err := filterInto(gd, xd, yt, k.er, k.ec, grid[i])
			for {
				if err != nil {
					st.ready <- err
					return
				}
				linalg.Gemm(false, false, 1, k.u, x, 0, st.t)  // U (UᵀYV ∘ g)
				linalg.Gemm(false, true, 1, st.t, k.v, 0, x)   // R
				linalg.Gemm(false, false, 1, k.u2, g, 0, st.t) // (U∘U) g
				linalg.Gemm(false, true, 1, st.t, k.v2, 0, g)  // D
				looInto(td, y, xd, gd)
				st.ready <- nil
				if i += len(ss); i >= n {
					return
				}
				err = filterInto(gd, xd, yt, k.er, k.ec, grid[i]) // while visit reads t
				select {
				case <-st.ack:
				case <-stop:
					return
				}
			}
		}()
	}
	for i := range grid {
		st := ss[i%len(ss)]
		if err := <-st.ready; err != nil {
			return err
		}
		if err := visit(i, st.t); err != nil {
			return err
		}
		if i+len(ss) < n {
			st.ack <- struct{}{}
		}
	}
	return nil
}

// filterInto writes, for the m eigenvalues er and the q eigenvalues ec, the
// filter g_kl = λ/(e_k s_l + λ) (kronFilterInto, the same values) into g and
// UᵀYV ∘ g into x (yt holding UᵀYV), all m×q row-major, in one pass; the
// first non-positive e_k s_l + λ in row-major order is kronFilterInto's
// error. O(m·q).
func filterInto(g, x, yt, er, ec []float64, lambda float64) error {
	q := len(ec)
	for i, a := range er {
		gr, xr, yr := g[i*q:(i+1)*q], x[i*q:(i+1)*q], yt[i*q:(i+1)*q]
		for j, b := range ec {
			d := a*b + lambda
			if !(d > 0) {
				return indefinite(a, b, lambda)
			}
			v := lambda / d
			gr[j] = v
			xr[j] = yr[j] * v
		}
	}
	return nil
}

// looInto writes the leave-one-out predictions p = y − r ⊘ d (element-wise,
// LeaveOneOutMatrix's expression). O(len(p)).
func looInto(p, y, r, d []float64) {
	y, r, d = y[:len(p)], r[:len(p)], d[:len(p)]
	for j := range p {
		p[j] = y[j] - r[j]/d[j]
	}
}

// LeaveBothOut returns setting D at every λ of the grid (one m×q matrix per
// λ): for each row fold F_r and column fold F_c (nil: each object alone) the
// predictions for F_r × F_c of the model trained on the other rows and
// columns.
//
// Method. For a column fold F_c with remaining columns T, the model M_c on
// all rows × T has the eigenvectors U of K and W of G_TT = W diag(τ) Wᵀ
// (one eigendecomposition per column fold, shared by every row fold and
// every λ). Taking the rows F_r out of M_c is a hold-out of F_r × T, block
// diagonal in W: with φ_kl = 1/(e_k τ_l + λ), Ã = UᵀY_·T W ∘ φ and the
// |F_r|×|F_r| blocks Q_l = U_F diag(φ_·l) U_Fᵀ, N_l = U_F diag(e∘φ_·l) U_Fᵀ,
// the downdated model predicts any column v, old or new, as
//
//	f(u, v) = [(U_F diag(e) Ã)_·l − N_l Q_l⁻¹ (U_F Ã)_·l]_l · (Wᵀ G_T,v)
//
// (the prediction of a reduced model at a new point x is f(x) − βₓᵀ Q_HH⁻¹ α_H
// with βₓ = (Q 𝕂_·x)_H). The orientation — which side is eigendecomposed per
// fold — is chosen by the cost estimate below.
//
// Cost: per fold of the eigendecomposed side (say columns, n_c folds of the
// q columns, T of size q'): O(q'³ + m·q'²) once, then per λ O(m²·q') with
// every row alone or O(Σ_F |F|²·m·q') with row folds. Leave-one-out on
// both sides is therefore O(q⁴ + m·q³) plus O(m²·q²) per λ (the smaller side
// is eigendecomposed), against O(m·q·(m³ + q³)) for retraining every pair's
// model.
func (k *KronRLS) LeaveBothOut(rowFolds, colFolds [][]int, grid []float64) ([]*mat.Dense, error) {
	if err := checkLambdas(grid); err != nil {
		return nil, err
	}
	d := Design{Setting: Both, RowFolds: rowFolds, ColFolds: colFolds}
	if err := d.check(k.lab.m, k.lab.q, k.lab.sym); err != nil {
		return nil, err
	}
	m, q := k.lab.m, k.lab.q
	rf, cf := rowFolds, colFolds
	if rf == nil {
		rf = loo(m)
	}
	if cf == nil {
		cf = loo(q)
	}
	if bothCost(m, q, rf, cf, len(grid)) <= bothCost(q, m, cf, rf, len(grid)) {
		e := &engine{u: k.u, e: k.er, u2: k.u2, uty: k.utY(), cols: k.cols, m: m, q: q, progress: k.Progress, perturb: k.perturbed}
		return e.run(rf, cf, false, grid)
	}
	e := &engine{u: k.v, e: k.ec, u2: k.v2, uty: linalg.Mul(true, true, k.v, k.lab.full), cols: k.rows, m: q, q: m,
		progress: k.Progress, perturb: k.perturbed}
	preds, err := e.run(cf, rf, false, grid)
	if err != nil {
		return nil, err
	}
	for i, p := range preds {
		preds[i] = transpose(p)
	}
	return preds, nil
}

// LeaveVertexOut returns leave-vertex-out cross-validation of a homogeneous
// network at every λ (one m×m matrix per λ): for each fold F of vertices
// (nil: each vertex alone), row u ∈ F holds the predictions f(u, v) for every
// vertex v of the model trained on the network without F — every pair
// touching F left out (Stock et al. 2018, sect. 6). The method is
// LeaveBothOut's with the same fold removed from both sides: O(m⁴) once plus
// O(m³) per λ for single vertices.
func (k *KronRLS) LeaveVertexOut(folds [][]int, grid []float64) ([]*mat.Dense, error) {
	if err := checkLambdas(grid); err != nil {
		return nil, err
	}
	d := Design{Setting: Vertices, RowFolds: folds}
	if err := d.check(k.lab.m, k.lab.q, k.lab.sym); err != nil {
		return nil, err
	}
	if folds == nil {
		folds = loo(k.lab.m)
	}
	e := &engine{u: k.u, e: k.er, u2: k.u2, uty: k.utY(), cols: k.cols, m: k.lab.m, q: k.lab.q, progress: k.Progress, perturb: k.perturbed}
	return e.run(folds, folds, true, grid)
}

// utY returns UᵀY, formed once.
func (k *KronRLS) utY() *mat.Dense {
	k.utyOnce.Do(func() { k.uty = linalg.Mul(true, false, k.u, k.lab.full) })
	return k.uty
}

// bothCost estimates the flops of LeaveBothOut eigendecomposing the column
// side per column fold (m rows, q columns).
func bothCost(m, q int, rf, cf [][]int, lambdas int) float64 {
	fm, fl := float64(m), float64(lambdas)
	inner := 0.0
	if allSingletons(rf) {
		inner = 4 * fm * fm
	} else {
		for _, f := range rf {
			n := float64(len(f))
			inner += 2*n*n*fm + n*n*n/3 + 2*n*fm
		}
	}
	total := 0.0
	for _, f := range cf {
		qp := float64(q - len(f))
		total += 9*qp*qp*qp + fm*qp*qp + float64(len(f))*qp*qp + fl*(inner*qp+fm*float64(len(f))*qp)
	}
	return total
}

// engine computes, for column folds F_c, the predictions of the Kronecker
// model trained without F_c and a row fold F_r, for F_r × F_c (or, for
// vertices, F_r = F_c against every column).
type engine struct {
	u    *mat.Dense // m×m eigenvectors of the row kernel
	e    []float64  // its eigenvalues
	u2   *mat.Dense // U∘U
	uty  *mat.Dense // UᵀY, m×q
	cols *Side
	m, q int
	// progress, when set, is told the column folds done.
	progress progress.Observer
	// perturb moves the eigenvalues of each fold's G_TT up by their
	// rounding error (factor.PerturbUp), for a Perturbed twin.
	perturb bool
}

func (en *engine) run(rowFolds, colFolds [][]int, vertices bool, grid []float64) ([]*mat.Dense, error) {
	m, q := en.m, en.q
	out := make([]*mat.Dense, len(grid))
	for i := range out {
		out[i] = nanDense(m, q)
	}
	all := make([]int, q)
	for j := range all {
		all[j] = j
	}
	for fi, fc := range colFolds {
		en.progress.Step("column folds", fi, len(colFolds))
		tc := cv.Complement(fc, q)
		w, tau, err := en.cols.eigSub(tc)
		if err != nil {
			return nil, err
		}
		if en.perturb {
			tau = factor.PerturbUp(tau)
		}
		yh := linalg.Mul(false, false, colsOf(en.uty, tc), w) // m×q'
		pc, rf := fc, rowFolds
		if vertices {
			pc, rf = all, [][]int{fc}
		}
		gamma := linalg.Mul(false, false, en.cols.sub(pc, tc), w) // |pc|×q'
		batch := !vertices && allSingletons(rf) && len(rf) > 1
		for li, lambda := range grid {
			phi, err := kronPhi(en.e, tau, lambda)
			if err != nil {
				return nil, err
			}
			at := mulElem(yh, phi)
			lat := scaleRowsBy(at, en.e)
			lphi := scaleRowsBy(phi, en.e)
			if batch {
				z := linalg.Mul(false, false, en.u, at)
				b := linalg.Mul(false, false, en.u, lat)
				qm := linalg.Mul(false, false, en.u2, phi)
				nm := linalg.Mul(false, false, en.u2, lphi)
				for i := 0; i < m; i++ {
					br, zr, qr, nr := b.RawRowView(i), z.RawRowView(i), qm.RawRowView(i), nm.RawRowView(i)
					for l := range br {
						br[l] -= nr[l] * zr[l] / qr[l]
					}
				}
				p := linalg.Mul(false, true, b, gamma) // m×|pc|
				for _, f := range rf {
					i := f[0]
					for a, j := range pc {
						out[li].Set(i, j, p.At(i, a))
					}
				}
				continue
			}
			for _, f := range rf {
				uf := rowsOf(en.u, f)
				z := linalg.Mul(false, false, uf, at)
				b := linalg.Mul(false, false, uf, lat)
				c, err := blockSolve(uf, phi, z, lphi)
				if err != nil {
					return nil, err
				}
				b.Sub(b, c)
				p := linalg.Mul(false, true, b, gamma) // |F|×|pc|
				for a, i := range f {
					for c, j := range pc {
						out[li].Set(i, j, p.At(a, c))
					}
				}
			}
		}
	}
	return out, nil
}

// kronPhi returns φ_kl = 1/(e_k τ_l + λ).
func kronPhi(e, tau []float64, lambda float64) (*mat.Dense, error) {
	g, err := kronFilter(e, tau, lambda)
	if err != nil {
		return nil, err
	}
	g.Scale(1/lambda, g)
	return g, nil
}
