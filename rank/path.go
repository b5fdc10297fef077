package rank

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
)

// pathBudget bounds, in float64 values, what HoldOutPath holds per λ chunk:
// the training predictions and the hold-out predictions of every λ of the
// chunk (2·λs·m·t). A variable so that a test can force several chunks.
var pathBudget = 1 << 22

// krBudget bounds, in float64 values, the block of the Khatri–Rao product a
// worker forms at once, and (times 4) the per-fold matrices X·D_λ·Xᵀ of a λ
// chunk held together; a fold beyond it forms them λ by λ. A variable so
// that a test can force both routes.
var krBudget = 1 << 18

// HoldOutPath cross-validates hold-out folds at every λ of grid in one pass:
// for every fold U (rows of 0..m−1, as HoldOut takes them) and every λ, the
// predictions for U of the model retrained without every edge incident to U,
// handed to visit(n, P) for grid[n] in order, P m×t with the rows of no fold
// NaN (P is reused after visit returns). The predictions equal HoldOut's at
// each λ, to rounding.
//
// The λ-independent part of each fold (HoldOut's cache: T, F, X = FᵀΨ_T, ỹ)
// is formed once and kept for the next chunk, the twin and later passes
// while the kept X's hold at most Ψ's memory (m rows; folds beyond form it
// again per chunk). Then, for a chunk of λ values at once, with D_λ = (Λ+λ)⁻¹:
// the training predictions f_λ = Ψ·D_λ·z of every λ by one gemm (m×k by
// k×λs·t); for each fold the matrices X·D_λ·Xᵀ of every λ by one gemm —
// row (a, b), a ≤ b, of the Khatri–Rao product R = [X_a∘X_b] (s(s+1)/2 × k)
// times the k×λs matrix of the D_λ — instead of one product per λ (a fold
// whose s(s+1)/2·λs exceeds the memory budget forms them λ by λ); the
// downdate's residuals Fᵀf_{λ,T} for every λ by one gemm; a Cholesky solve
// per λ of the s×s system; and D_λXᵀ·solution and Ψ_U times it for every λ by
// two gemms. Cost per λ: O(m·k·t) plus Σ_U (s_U²k/2 + s_U³/3 + (s_U + |U|)·k·t),
// in BLAS-3 products whose sizes do not shrink with the λ grid; the folds
// are shared among the cores (Pahikkala et al. 2009, sect. 3.3; Pahikkala et
// al. 2008, Theorem 1).
func (gm *graphModel) HoldOutPath(folds [][]int, grid []float64, visit func(n int, p *mat.Dense) error) error {
	m, _ := gm.psi.Dims()
	_, t := gm.z.Dims()
	for _, lambda := range grid {
		if err := learn.CheckLambda(lambda); err != nil {
			return fmt.Errorf("rank: %w", err)
		}
	}
	for k, f := range folds {
		if err := learn.CheckHoldOut(f, m); err != nil {
			return fmt.Errorf("rank: fold %d: %w", k, err)
		}
	}
	chunk := max(1, min(len(grid), pathBudget/(2*m*t)))
	outs := make([]*mat.Dense, chunk)
	for n := range outs {
		outs[n] = mat.NewDense(m, t, nil)
	}
	for n0 := 0; n0 < len(grid); n0 += chunk {
		lams := grid[n0:min(len(grid), n0+chunk)]
		if err := gm.holdOutChunk(folds, lams, outs); err != nil {
			return err
		}
		for n := range lams {
			if err := visit(n0+n, outs[n]); err != nil {
				return err
			}
		}
	}
	return nil
}

// forFolds runs do(k) for k = 0..n−1 on every core, the library's BLAS
// limited to one thread meanwhile (many small products gain nothing from
// BLAS threads on top), and returns the error of the first fold that failed.
func forFolds(n int, do func(k int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	linalg.SerialBLAS(func() {
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := w; k < n; k += workers {
					errs[k] = do(k)
				}
			}()
		}
		wg.Wait()
	})
	for k, err := range errs {
		if err != nil {
			return fmt.Errorf("fold %d: %w", k, err)
		}
	}
	return nil
}

// holdOutChunk fills outs[n] (m×t) with every fold's hold-out predictions at
// lams[n], NaN in rows of no fold.
func (gm *graphModel) holdOutChunk(folds [][]int, lams []float64, outs []*mat.Dense) error {
	m, k := gm.psi.Dims()
	_, t := gm.z.Dims()
	nl := len(lams)
	inv := make([][]float64, nl) // D_λ = 1/(Λ+λ), Λ > 0 up to rounding as in solve
	w := mat.NewDense(k, nl*t, nil)
	for n, lambda := range lams {
		inv[n] = make([]float64, k)
		for j, l := range gm.lam {
			inv[n][j] = 1 / (math.Max(l, 0) + lambda)
			zr, wr := gm.z.RawRowView(j), w.RawRowView(j)[n*t:]
			for c := 0; c < t; c++ {
				wr[c] = zr[c] * inv[n][j]
			}
		}
	}
	f := gm.trainingPredictions(folds, w) // f_λ = Ψ D_λ z for every λ: m × λs·t
	for n := 0; n < nl; n++ {
		out := outs[n]
		for i := 0; i < m; i++ {
			row := out.RawRowView(i)
			for c := range row {
				row[c] = math.NaN()
			}
		}
	}
	return forFolds(len(folds), func(fold int) error {
		c, err := gm.pathHoldOut(folds[fold])
		if err != nil {
			return err
		}
		return gm.holdOutFold(c, f, inv, lams, outs)
	})
}

// trainingPredictions returns f = Ψ·w (m × λs·t), the training predictions
// of every λ of a chunk. Folds read only the rows of their U and T: when
// the folds hold out fewer than a quarter of the rows (the tie rule's twin
// repeats one fold in 16), only those rows are formed — O(|∪ U ∪ T|·k·λs·t)
// instead of O(m·k·λs·t) — and the others are left 0, unread.
func (gm *graphModel) trainingPredictions(folds [][]int, w *mat.Dense) *mat.Dense {
	m, _ := gm.psi.Dims()
	held := 0
	for _, u := range folds {
		held += len(u)
	}
	if 4*held >= m {
		return linalg.Mul(false, false, gm.psi, w)
	}
	need := make([]bool, m)
	for _, u := range folds {
		t, _, _ := gm.g.removal(u)
		for _, i := range append(t, u...) {
			need[i] = true
		}
	}
	var idx []int
	for i, ok := range need {
		if ok {
			idx = append(idx, i)
		}
	}
	if 2*len(idx) >= m {
		return linalg.Mul(false, false, gm.psi, w)
	}
	part := linalg.Mul(false, false, rows(gm.psi, idx), w)
	_, c := w.Dims()
	f := mat.NewDense(m, c, nil)
	for h, i := range idx {
		f.SetRow(i, part.RawRowView(h))
	}
	return f
}

// holdOutFold writes one fold's predictions at every λ of the chunk into
// outs, given the training predictions f (m × λs·t) and D_λ.
func (gm *graphModel) holdOutFold(c *holdCache, f *mat.Dense, inv [][]float64, lams []float64, outs []*mat.Dense) error {
	nl := len(lams)
	_, t := gm.z.Dims()
	fu := rows(f, c.u)
	if c.f != nil {
		_, ns := c.f.Dims()
		xdx := xdxPath(c.x, inv) // X D_λ Xᵀ of the n-th λ: xdx(n)
		// residuals ỹ − Fᵀ f_{λ,T} for every λ, solved
		sol := linalg.Mul(true, false, c.f, rows(f, c.t)) // s × λs·t
		for n := 0; n < nl; n++ {
			an := xdx(n)
			an.Scale(-1, an)
			for i := 0; i < ns; i++ {
				an.Set(i, i, an.At(i, i)+1)
			}
			r := sol.Slice(0, ns, n*t, (n+1)*t).(*mat.Dense)
			for i := 0; i < ns; i++ {
				rr, yr := r.RawRowView(i), c.ytil.RawRowView(i)
				for col := range rr {
					rr[col] = yr[col] - rr[col]
				}
			}
			x, err := solveSym(an, r)
			if err != nil {
				return fmt.Errorf("rank: hold-out of %d rows at lambda %g: %w", len(c.u), lams[n], err)
			}
			r.Copy(x)
		}
		v := linalg.Mul(true, false, c.x, sol) // Xᵀ·solution, k × λs·t
		for j := 0; j < len(inv[0]); j++ {
			row := v.RawRowView(j)
			for n := 0; n < nl; n++ {
				d := inv[n][j]
				for col := n * t; col < (n+1)*t; col++ {
					row[col] *= d
				}
			}
		}
		linalg.Gemm(false, false, -1, rows(gm.psi, c.u), v, 1, fu) // f_U − Ψ_U D Xᵀ·solution
	}
	for n := 0; n < nl; n++ {
		for h, i := range c.u {
			copy(outs[n].RawRowView(i), fu.RawRowView(h)[n*t:(n+1)*t]) // rows of distinct folds: no overlap
		}
	}
	return nil
}

// xdxPath returns a function giving X·D_λ·Xᵀ (s×s, a new matrix) for the
// n-th λ of the chunk, D_λ = diag(inv[n]), X s×k. When the s(s+1)/2 × λs
// values fit the budget, all of them are formed first, by one product of the
// Khatri–Rao rows X_a∘X_b (a ≤ b, in blocks of at most krBudget values) with
// the k × λs matrix [inv[n]]: O(s²k·λs/2) in BLAS-3; else each when asked,
// by a symmetric rank-k update of X·D_λ^{1/2} (the same flops, s² memory).
func xdxPath(x *mat.Dense, inv [][]float64) func(n int) *mat.Dense {
	ns, k := x.Dims()
	nl := len(inv)
	np := ns * (ns + 1) / 2
	if np*nl > 4*krBudget {
		return func(n int) *mat.Dense {
			sq := make([]float64, k)
			for j, d := range inv[n] {
				sq[j] = math.Sqrt(d)
			}
			return linalg.Syrk(false, linalg.ScaleCols(x, sq))
		}
	}
	h := mat.NewDense(k, nl, nil)
	for n := range inv {
		for j, d := range inv[n] {
			h.Set(j, n, d)
		}
	}
	b := mat.NewDense(np, nl, nil) // row (a, b): (X D_λ Xᵀ)_ab for every λ
	block := max(1, min(np, krBudget/k))
	r := mat.NewDense(block, k, nil)
	pa, pb := 0, 0 // the next pair (a, b), a ≤ b
	for p0 := 0; p0 < np; p0 += block {
		nr := min(block, np-p0)
		for p := 0; p < nr; p++ {
			xa, xb, rr := x.RawRowView(pa), x.RawRowView(pb), r.RawRowView(p)
			for j := range rr {
				rr[j] = xa[j] * xb[j]
			}
			if pb++; pb == ns {
				pa++
				pb = pa
			}
		}
		linalg.Gemm(false, false, 1, r.Slice(0, nr, 0, k).(*mat.Dense), h, 0, b.Slice(p0, p0+nr, 0, nl).(*mat.Dense))
	}
	return func(n int) *mat.Dense {
		out := mat.NewDense(ns, ns, nil)
		p := 0
		for a := 0; a < ns; a++ {
			for c := a; c < ns; c++ {
				v := b.At(p, n)
				out.Set(a, c, v)
				out.Set(c, a, v)
				p++
			}
		}
		return out
	}
}
