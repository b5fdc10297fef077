package rls

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
)

// SolvePath returns the solutions at every λ of lambdas, in order: those of
// Solve at each λ (equal up to rounding, the sums being taken in another
// order), computed together with level-3 BLAS. With G the r×L matrix of the
// gains, A(λ_l) = c₀I + U diag(G_{·l}) Uᵀ (see the package comment; Rifkin &
// Lippert 2007, "Varying λ"),
//
//	residuals  [R(λ_1) … R(λ_L)] = c₀[Y … Y] + U [G_{·1}∘UᵀY … G_{·L}∘UᵀY]   one (m×r)·(r×Lt) product
//	diagonals  [diag A(λ_1) … diag A(λ_L)] = c₀ + (U∘U) G                    one (m×r)·(r×L) product
//
// so U is read once for all λ where Solve reads it twice per λ (diag A(λ)
// = 1 − h(λ) in the low-rank forms, h_i(λ) = Σ_k U_ik² e_k/(e_k + λ) the
// leverages of the ridge fit: every λ's in one product). U∘U is formed a
// block of rows at a time, never whole. Cost O(m·r·L·(t+1)) flops, all in
// gemm, plus O(m·L·t) to lay the results out; memory: the solutions'
// residuals and diagonals, m·L·(t+1) floats, and O(r + L·t) floats per row
// of a block of about 2¹⁷/r rows. An invalid λ is Solve's error for it (the
// first in the order given), and no solution is returned. With an intercept
// v(λ_l) = A(λ_l)1 comes from the same product, Uᵀ1 being one more column of
// UᵀY (t + 1 columns per λ), and each solution is corrected as Solve's.
func (r *RLS) SolvePath(lambdas []float64) ([]*Solution, error) {
	c0, gs, err := r.pathGains(lambdas)
	if err != nil {
		return nil, err
	}
	return r.solveChunk(lambdas, c0, gs), nil
}

// pathGains returns the gains of every λ (gains), or the first λ's error.
func (r *RLS) pathGains(lambdas []float64) (float64, [][]float64, error) {
	c0, gs := 0.0, make([][]float64, len(lambdas))
	for l, lambda := range lambdas {
		var err error
		if c0, gs[l], err = r.gains(lambda); err != nil {
			return 0, nil, err
		}
	}
	return c0, gs, nil
}

// pathBlockFloats is about the number of floats of U∘U formed at a time by
// solveChunk (1 MiB): a block of rows of it and of U stay in cache between
// their two products. A variable so that tests can make blocks of a few rows.
var pathBlockFloats = 1 << 17

// solveChunk computes the solutions at lambdas (all valid; c0 and the gains
// gs from gains) as SolvePath documents.
func (r *RLS) solveChunk(lambdas []float64, c0 float64, gs [][]float64) []*Solution {
	f := r.f
	m, t := r.y.Dims()
	rk, nl := f.Rank(), len(lambdas)
	tw := t // columns of W per λ: UᵀY's, and Uᵀ1 with an intercept
	if r.icpt != nil {
		tw++
	}
	sols := make([]*Solution, nl)
	for l, lambda := range lambdas {
		sols[l] = &Solution{r: r, Lambda: lambda, c0: c0, g: gs[l], res: mat.NewDense(m, t, nil), diag: make([]float64, m)}
		if r.icpt != nil {
			sols[l].v = make([]float64, m)
		}
	}
	if nl == 0 {
		return sols
	}
	// every factor has r ≥ 1 (package factor refuses an empty one)
	// G (r×L) and W = [G_{·l} ∘ [UᵀY, Uᵀ1]]_l (r×L·tw)
	g, w := mat.NewDense(rk, nl, nil), mat.NewDense(rk, nl*tw, nil)
	for k := 0; k < rk; k++ {
		grow, wrow, urow := g.RawRowView(k), w.RawRowView(k), r.uty.RawRowView(k)
		for l := range gs {
			grow[l] = gs[l][k]
			for j, v := range urow {
				wrow[l*tw+j] = gs[l][k] * v
			}
			if r.icpt != nil {
				wrow[l*tw+t] = gs[l][k] * r.icpt.u1[k]
			}
		}
	}
	rows := min(m, max(1, pathBlockFloats/rk))
	rb, sq, db := mat.NewDense(rows, nl*tw, nil), mat.NewDense(rows, rk, nil), mat.NewDense(rows, nl, nil)
	for i0 := 0; i0 < m; i0 += rows {
		b := min(rows, m-i0)
		ub := f.U.Slice(i0, i0+b, 0, rk).(*mat.Dense)
		rbv := rb.Slice(0, b, 0, nl*tw).(*mat.Dense)
		sqv := sq.Slice(0, b, 0, rk).(*mat.Dense)
		dbv := db.Slice(0, b, 0, nl).(*mat.Dense)
		for i := 0; i < b; i++ {
			src, dst := ub.RawRowView(i), sqv.RawRowView(i)
			for k, v := range src {
				dst[k] = v * v
			}
		}
		linalg.Gemm(false, false, 1, ub, w, 0, rbv)
		linalg.Gemm(false, false, 1, sqv, g, 0, dbv)
		rr, dr, yr := rbv.RawMatrix(), dbv.RawMatrix(), r.y.RawMatrix()
		for l, s := range sols {
			res := s.res.RawMatrix().Data[i0*t : (i0+b)*t] // NewDense: stride t
			diag := s.diag[i0 : i0+b]
			for i := range diag {
				diag[i] = dr.Data[i*dr.Stride+l] + c0
				if s.v != nil {
					s.v[i0+i] = rr.Data[i*rr.Stride+l*tw+t] + c0*r.icpt.zi(i0+i)
				}
				src, out := rr.Data[i*rr.Stride+l*tw:i*rr.Stride+l*tw+t], res[i*t:(i+1)*t]
				if c0 == 0 {
					for j := range out { // t is small: no memmove call
						out[j] = src[j]
					}
					continue
				}
				y := yr.Data[(i0+i)*yr.Stride : (i0+i)*yr.Stride+t]
				for j := range out {
					out[j] = src[j] + y[j]
				}
			}
		}
	}
	if r.icpt != nil {
		for _, s := range sols {
			s.applyIntercept()
		}
	}
	return sols
}

// AtGrid returns At for a caller that visits the λ of grid in order, as
// selection's λ loop does: the solutions are computed by SolvePath in
// chunks of consecutive grid values, each chunk holding at most r/2 floats
// per row (c·(t+1) ≤ r/2 for c λ per chunk, at least one; c·(t+2) with an
// intercept, whose v is one more column), so that a chunk
// takes at most half the memory of U (or, with many outputs, one λ's
// solution, as Solve) while U is read once per chunk instead of twice per λ. A λ that is not the next grid value is solved
// alone (Solve); an invalid one gets Solve's error when it is asked for,
// and the λ before it are solved. The returned function is not safe for
// concurrent use; the solutions are.
func (r *RLS) AtGrid(grid []float64) func(lambda float64) (learn.Solution, error) {
	return r.newGridPath(grid).at
}

func (r *RLS) newGridPath(grid []float64) *gridPath {
	_, t := r.y.Dims()
	if r.icpt != nil {
		t++
	}
	return &gridPath{r: r, grid: grid, per: max(1, r.f.Rank()/(2*(t+1)))}
}

// gridPath is the state of AtGrid's function.
type gridPath struct {
	r    *RLS
	grid []float64
	per  int         // λ per chunk
	next int         // index in grid of the λ expected next
	sols []*Solution // the solutions of grid[next : next+len(sols)]
}

func (p *gridPath) at(lambda float64) (learn.Solution, error) {
	if p.next >= len(p.grid) || !(p.grid[p.next] == lambda || math.IsNaN(lambda) && math.IsNaN(p.grid[p.next])) {
		s, err := p.r.Solve(lambda)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	if len(p.sols) == 0 {
		chunk := p.grid[p.next:min(len(p.grid), p.next+p.per)]
		var c0 float64
		var gs [][]float64
		for _, l := range chunk { // the valid λ up to the first invalid one
			c, g, err := p.r.gains(l)
			if err != nil {
				break
			}
			c0, gs = c, append(gs, g)
		}
		if len(gs) == 0 {
			p.next++
			_, _, err := p.r.gains(lambda)
			return nil, err
		}
		p.sols = p.r.solveChunk(chunk[:len(gs)], c0, gs)
	}
	s := p.sols[0]
	p.sols[0], p.sols = nil, p.sols[1:] // handed over: the caller decides how long it lives
	p.next++
	return s, nil
}

// HoldOutPath cross-validates hold-out folds at every λ of grid in one pass
// (the capability selection.FoldPathValidator, which Select uses for
// leave-one-out and folds): visit(n, P) is called for grid[n] in order with
// P (m×t) holding, for the rows of every fold, the predictions of the model
// retrained without that fold — HoldOut's at that λ, to rounding, and
// LeaveOneOut's (Y_i − R_i/A_ii; with an intercept Y_i − R̂_i/Â_ii, the
// intercept refit) where a fold is a single row — and NaN in
// the rows of no fold; P is reused once visit returns, and an error from
// visit ends the pass with it. The solutions come from the batch path in
// AtGrid's chunks (SolvePath: every λ of a chunk from one pass over U),
// each dropped once visited. Every λ and every fold is checked before any
// work: an invalid λ is Solve's error, a bad fold learn.CheckHoldOut's.
// Cost per λ: O(m·r·t) in gemm for the chunk, then O(t) per single-row fold
// and HoldOut's O(|H|²r + |H|³) (low rank: O(|H|r² + r³)) per larger fold.
func (r *RLS) HoldOutPath(folds [][]int, grid []float64, visit func(n int, p *mat.Dense) error) error {
	m, t := r.y.Dims()
	c0, gs, err := r.pathGains(grid)
	if err != nil {
		return err
	}
	var single []int // the rows of the single-row folds
	var larger []int // the indices of the other folds
	for k, f := range folds {
		if len(f) == 1 { // learn.CheckHoldOut's checks, without its map
			if i := f[0]; i < 0 || i >= m {
				return fmt.Errorf("rls: fold %d: %w: row %d outside [0,%d)", k, learn.ErrHoldOut, i, m)
			}
		} else if err := learn.CheckHoldOut(f, m); err != nil {
			return fmt.Errorf("rls: fold %d: %w", k, err)
		}
		if len(f) == 1 {
			single = append(single, f[0])
		} else {
			larger = append(larger, k)
		}
	}
	p := mat.NewDense(m, t, nil) // NaN but in the folds' rows, which every λ overwrites
	for i := range p.RawMatrix().Data {
		p.RawMatrix().Data[i] = math.NaN()
	}
	per := r.newGridPath(grid).per
	for n0 := 0; n0 < len(grid); n0 += per {
		n1 := min(len(grid), n0+per)
		sols := r.solveChunk(grid[n0:n1], c0, gs[n0:n1])
		for n, s := range sols {
			if len(single) > 0 {
				s.leaveOneOutRows(single, p)
			}
			for _, k := range larger {
				h, err := s.HoldOut(folds[k])
				if err != nil {
					return fmt.Errorf("fold %d: %w", k, err)
				}
				for a, i := range folds[k] {
					copy(p.RawRowView(i), h.RawRowView(a))
				}
			}
			sols[n] = nil
			if err := visit(n0+n, p); err != nil {
				return err
			}
		}
	}
	return nil
}
