package rls

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// The batch path (SolvePath, AtGrid) is tested two ways: against the per-λ
// path (Solve) within a rounding bound derived below, and against brute-force
// retraining (the oracle, which shares no code with either) within the
// oracle tolerance of the package's other retraining tests. Its row blocks
// are made a few rows high (pathBlockFloats lowered) so that every problem
// crosses several block boundaries, the last one partial.

// pathLambdas are the oracle's λ range, 1e-6 … 1e4, with values between.
var pathGrid = []float64{1e-6, 3e-5, 1e-3, 0.05, 1, 7, 1e2, 2e3, 1e4}

// smallBlocks makes solveChunk's row blocks rows high for the test.
func smallBlocks(t *testing.T, r *RLS, rows int) {
	t.Helper()
	old := pathBlockFloats
	pathBlockFloats = rows * r.f.Rank()
	t.Cleanup(func() { pathBlockFloats = old })
}

// gamma is γ_n = nu/(1 − nu), u = 2⁻⁵³: the bound on the relative error of a
// sum of n products in floating point, whatever the order (Higham 2002, 3.1).
func gamma(n int) float64 {
	const u = 0x1p-53
	return float64(n) * u / (1 - float64(n)*u)
}

// pathBound is the largest difference two evaluations of the same solution
// may show when they sum in different orders. Both compute, per row i and
// output c, with the same rounded products gu_kc = g_k·(UᵀY)_kc,
//
//	R_ic = c₀Y_ic + Σ_k U_ik gu_kc          |ΔR_ic| ≤ 2γ_{r+1}(c₀|Y_ic| + Σ_k |U_ik gu_kc|)
//	d_i  = c₀ + Σ_k U_ik² g_k               |Δd_i|  ≤ 2γ_{r+2}(c₀ + Σ_k U_ik²|g_k|)
//
// (each within γ of the exact value, U_ik² one rounding more), and the LOO
// prediction Y_ic − R_ic/d_i then differs by at most
//
//	|ΔR_ic|/|d_i| + |R_ic|·|Δd_i|/(|d_i|(|d_i| − |Δd_i|)) + 2u(|Y_ic| + 2|R_ic/d_i|)
//
// (the perturbed quotient, plus the final division and subtraction rounded
// on each side; +Inf where |Δd_i| ≥ |d_i|: no bound).
func pathBound(s *Solution) (dr *mat.Dense, dd []float64, dl *mat.Dense) {
	r := s.r
	m, t := r.y.Dims()
	rk := r.f.Rank()
	const u = 0x1p-53
	dr, dl, dd = mat.NewDense(m, t, nil), mat.NewDense(m, t, nil), make([]float64, m)
	for i := 0; i < m; i++ {
		ui := r.f.U.RawRowView(i)
		sd := s.c0
		for k, v := range ui {
			sd += v * v * math.Abs(s.g[k])
		}
		dd[i] = 2 * gamma(rk+2) * sd
		for c := 0; c < t; c++ {
			sr := s.c0 * math.Abs(r.y.At(i, c))
			for k, v := range ui {
				sr += math.Abs(v * s.g[k] * r.uty.At(k, c))
			}
			e := 2 * gamma(rk+1) * sr
			dr.Set(i, c, e)
			d, res := math.Abs(s.diag[i]), math.Abs(s.res.At(i, c))
			lb := math.Inf(1)
			if dd[i] < d {
				lb = e/d + res*dd[i]/(d*(d-dd[i])) + 2*u*(math.Abs(r.y.At(i, c))+2*res/d)
			}
			dl.Set(i, c, lb)
		}
	}
	return dr, dd, dl
}

// checkAgainstSolve compares a batch solution with Solve's at the same λ:
// λ, c₀ and the gains exactly (the same function computes them), the
// residuals, diag A and the LOO predictions within pathBound, and returns
// the largest ratio of a difference to its bound.
func checkAgainstSolve(t *testing.T, name string, got *Solution) float64 {
	t.Helper()
	want, err := got.r.Solve(got.Lambda)
	if err != nil {
		t.Fatalf("%s λ=%g: %v", name, got.Lambda, err)
	}
	if got.c0 != want.c0 || len(got.g) != len(want.g) {
		t.Fatalf("%s λ=%g: c0 %g, %d gains; Solve: %g, %d", name, got.Lambda, got.c0, len(got.g), want.c0, len(want.g))
	}
	for k := range got.g {
		if got.g[k] != want.g[k] {
			t.Fatalf("%s λ=%g: gain %d = %v, Solve's %v", name, got.Lambda, k, got.g[k], want.g[k])
		}
	}
	dr, dd, dl := pathBound(want)
	lg, lw := loo(t, got), loo(t, want)
	worst := 0.0
	ratio := func(what string, i, c int, a, b, bound float64) {
		d := math.Abs(a - b)
		if d > bound || math.IsNaN(d) {
			t.Errorf("%s λ=%g: %s[%d,%d] = %.17g, Solve's %.17g: difference %.2e above its bound %.2e", name, got.Lambda, what, i, c, a, b, d, bound)
		}
		if bound > 0 && !math.IsInf(bound, 1) {
			worst = math.Max(worst, d/bound)
		}
	}
	m, tt := want.res.Dims()
	for i := 0; i < m; i++ {
		ratio("diag", i, 0, got.diag[i], want.diag[i], dd[i])
		for c := 0; c < tt; c++ {
			ratio("residual", i, c, got.res.At(i, c), want.res.At(i, c), dr.At(i, c))
			ratio("LOO", i, c, lg.At(i, c), lw.At(i, c), dl.At(i, c))
		}
	}
	return worst
}

// SolvePath and AtGrid equal Solve at every λ, in every form, within the
// rounding bound; the bound is tight enough to mean something (the largest
// difference is logged against it, and a wrong term — see the mutations in
// the commit message — exceeds it by orders of magnitude).
func TestSolvePathEqualsSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	worst := 0.0
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fit(t, p)
			smallBlocks(t, r, 7)
			sols, err := r.SolvePath(pathGrid)
			if err != nil {
				t.Fatal(err)
			}
			if len(sols) != len(pathGrid) {
				t.Fatalf("%d solutions for %d λ", len(sols), len(pathGrid))
			}
			at := r.AtGrid(pathGrid)
			for n, lambda := range pathGrid {
				if sols[n].Lambda != lambda {
					t.Fatalf("solution %d at λ=%g, want %g", n, sols[n].Lambda, lambda)
				}
				worst = math.Max(worst, checkAgainstSolve(t, p.name+" SolvePath", sols[n]))
				s, err := at(lambda)
				if err != nil {
					t.Fatal(err)
				}
				worst = math.Max(worst, checkAgainstSolve(t, p.name+" AtGrid", s.(*Solution)))
			}
		})
	}
	t.Logf("largest difference from Solve: %.2e of its bound", worst)
	// sizes at which both paths call the loaded BLAS (products above
	// linalg's pure-Go threshold) and sum in different orders, with the
	// default blocks (several of them for the dual form)
	big := rand.New(rand.NewPCG(35, 35))
	worst = 0
	for _, c := range []struct {
		m, d, t int
		opt     Options
	}{
		{3000, 30, 1, Options{Kernel: kernel.Linear{Bias: 1}}},
		{3000, 30, 2, Options{Kernel: kernel.Linear{Bias: 0.5}}},
		{700, 5, 1, Options{Kernel: kernel.Gaussian{Gamma: 0.1}}},
		{2000, 10, 1, Options{Kernel: kernel.Gaussian{Gamma: 0.1}, Form: learn.Sparse, Basis: big.Perm(2000)[:150]}},
	} {
		x, y := randProblem(big, c.m, c.d, c.t, false)
		r, err := Fit(x, y, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		sols, err := r.SolvePath(pathGrid)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sols {
			worst = math.Max(worst, checkAgainstSolve(t, fmt.Sprintf("%s m=%d t=%d", c.opt.Kernel.Spec(), c.m, c.t), s))
		}
	}
	t.Logf("largest difference from Solve at the larger sizes: %.2e of its bound", worst)
}

// The batch solutions are whole solutions: their LOO, hold-out and
// leave-pair-out predictions and their coefficients equal retraining by
// the oracle, at λ from 1e-6 to 1e4, within the tolerance of the package's
// retraining tests (tolerance).
func TestSolvePathEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fit(t, p)
			smallBlocks(t, r, 5)
			m, tt := p.y.Dims()
			h := rng.Perm(m)[:max(2, m/3)]
			pr := rng.Perm(m)[:2]
			pairs := []learn.Pair{{I: pr[0], J: pr[1]}}
			sols, err := r.SolvePath(pathGrid)
			if err != nil {
				t.Fatal(err)
			}
			all := allRows(m)
			for n, lambda := range pathGrid {
				s, tol := sols[n], tolerance(p, lambda)
				want := mat.NewDense(m, tt, nil)
				for i := 0; i < m; i++ {
					want.SetRow(i, naivePredict(p, complementRows([]int{i}, m), []int{i}, lambda).RawRowView(0))
				}
				if e := relErr(loo(t, s), want); e > tol {
					t.Errorf("λ=%g: LOO rel. error %.2e (tolerance %.2e)", lambda, e, tol)
				}
				got, err := s.HoldOut(h)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(got, naivePredict(p, complementRows(h, m), h, lambda)); e > tol {
					t.Errorf("λ=%g: hold-out of %d rows rel. error %.2e", lambda, len(h), e)
				}
				pi, pj, err := s.LeavePairOut(pairs)
				if err != nil {
					t.Fatal(err)
				}
				wp := naivePredict(p, complementRows(pr, m), pr, lambda)
				gp := mat.NewDense(2, tt, nil)
				gp.SetRow(0, pi.RawRowView(0))
				gp.SetRow(1, pj.RawRowView(0))
				if e := relErr(gp, wp); e > tol {
					t.Errorf("λ=%g: pair %v rel. error %.2e", lambda, pr, e)
				}
				fitted, err := s.Predictor().Predict(p.x)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(fitted, naivePredict(p, all, all, lambda)); e > tol {
					t.Errorf("λ=%g: predictor rel. error %.2e", lambda, e)
				}
			}
		})
	}
}

// An invalid λ: SolvePath fails with Solve's error and returns nothing;
// AtGrid solves the λ before it, fails on it and goes on after it, chunks
// notwithstanding; a λ asked out of the grid's order is solved alone.
func TestSolvePathInvalidLambda(t *testing.T) {
	// a precomputed diagonal kernel with the eigenvalue −1: rank 20, so AtGrid
	// takes 5 λ a chunk and the invalid λ falls inside the first one
	kmat, y := mat.NewDense(20, 20, nil), mat.NewDense(20, 1, nil)
	for i := 0; i < 20; i++ {
		kmat.Set(i, i, float64(i+1)/4)
		y.Set(i, 0, float64(i%3))
	}
	kmat.Set(3, 3, -1)
	r, err := Fit(kmat, y, Options{Kernel: kernel.Precomputed{}})
	if err != nil {
		t.Fatal(err)
	}
	if per := r.newGridPath(nil).per; per != 5 {
		t.Fatalf("%d λ per chunk, want 5", per)
	}
	for _, c := range []struct {
		grid []float64
		bad  int
		want error
	}{
		{[]float64{1.5, 2, 0.5, 3, 4, 5, 6}, 2, learn.ErrIndefinite},
		{[]float64{2, 3, 4, 5, 1, 6, 7}, 4, learn.ErrIndefinite}, // e + λ = 0 exactly, last of a chunk
		{[]float64{2, 3, 4, 5, 6, 1, 7}, 5, learn.ErrIndefinite}, // first of the second chunk
		{[]float64{2, 3, -1, 4}, 2, learn.ErrLambda},
		{[]float64{math.NaN(), 2}, 0, learn.ErrLambda},
		{[]float64{2, math.Inf(1)}, 1, learn.ErrLambda},
	} {
		sols, err := r.SolvePath(c.grid)
		if !errors.Is(err, c.want) || sols != nil {
			t.Errorf("SolvePath(%v): %d solutions, err %v; want none and %v", c.grid, len(sols), err, c.want)
		}
		if _, serr := r.Solve(c.grid[c.bad]); err == nil || serr == nil || err.Error() != serr.Error() {
			t.Errorf("SolvePath(%v): err %v, Solve's %v", c.grid, err, serr)
		}
		gp := r.newGridPath(c.grid)
		for n, lambda := range c.grid {
			s, err := gp.at(lambda)
			if gp.next != n+1 {
				t.Errorf("AtGrid(%v) at %v: next λ expected is number %d, want %d", c.grid, lambda, gp.next, n+1)
			}
			if n == c.bad {
				if !errors.Is(err, c.want) || s != nil {
					t.Errorf("AtGrid(%v) at %v: %v, err %v; want %v", c.grid, lambda, s, err, c.want)
				}
				continue
			}
			if err != nil {
				t.Fatalf("AtGrid(%v) at %v: %v", c.grid, lambda, err)
			}
			checkAgainstSolve(t, "indefinite", s.(*Solution))
		}
	}
	// out of order, repeated, and past the end of the grid
	x, yy := randProblem(rand.New(rand.NewPCG(33, 33)), 30, 4, 2, false)
	r, err = Fit(x, yy, Options{Kernel: kernel.Linear{Bias: 1}})
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{0.1, 1, 10, 100}
	at := r.AtGrid(grid)
	for _, lambda := range []float64{0.1, 10, 1, 1, 10, 100, 3, 100} {
		s, err := at(lambda)
		if err != nil {
			t.Fatal(err)
		}
		if s.(*Solution).Lambda != lambda {
			t.Fatalf("asked %g, got the solution at %g", lambda, s.(*Solution).Lambda)
		}
		checkAgainstSolve(t, "out of order", s.(*Solution))
	}
	if sols, err := r.SolvePath(nil); err != nil || len(sols) != 0 {
		t.Errorf("SolvePath(nil): %d solutions, %v", len(sols), err)
	}
}

// AtGrid's chunks hold at most r/2 floats per row: c·(t+1) ≤ r/2 for c λ
// per chunk (one at least), for the forms' ranks; the first call computes
// the first chunk, and the next chunk is computed when it is used up.
func TestAtGridChunk(t *testing.T) {
	for _, c := range []struct {
		m, d, t, want int
		k             kernel.Kernel
	}{
		{200, 50, 1, 12, kernel.Linear{Bias: 1}},    // r = 51: ⌊51/4⌋
		{200, 50, 3, 6, kernel.Linear{Bias: 1}},     // ⌊51/8⌋
		{200, 2, 1, 1, kernel.Linear{Bias: 1}},      // r = 3: at least one
		{60, 3, 1, 15, kernel.Gaussian{Gamma: 0.3}}, // dual, r = m
	} {
		x, y := randProblem(rand.New(rand.NewPCG(34, 34)), c.m, c.d, c.t, false)
		r, err := Fit(x, y, Options{Kernel: c.k})
		if err != nil {
			t.Fatal(err)
		}
		grid := make([]float64, 40)
		for n := range grid {
			grid[n] = math.Ldexp(1, n-20)
		}
		gp := r.newGridPath(grid)
		for n, lambda := range grid {
			if _, err := gp.at(lambda); err != nil {
				t.Fatal(err)
			}
			left := c.want - 1 - n%c.want
			if rest := len(grid) - n - 1; rest < left {
				left = rest
			}
			if len(gp.sols) != left {
				t.Fatalf("%v m=%d d=%d t=%d: after λ %d, %d solutions left in the chunk, want %d (%d λ per chunk)",
					c.k.Spec(), c.m, c.d, c.t, n, len(gp.sols), left, c.want)
			}
		}
	}
}

// holdOutPath runs HoldOutPath and returns a copy of every λ's predictions
// (P is reused between visits).
func holdOutPath(t *testing.T, r *RLS, folds [][]int, grid []float64) []*mat.Dense {
	t.Helper()
	var out []*mat.Dense
	err := r.HoldOutPath(folds, grid, func(n int, p *mat.Dense) error {
		if n != len(out) {
			t.Fatalf("visit %d after %d visits", n, len(out))
		}
		out = append(out, mat.DenseCopyOf(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(grid) {
		t.Fatalf("%d visits for %d λ", len(out), len(grid))
	}
	return out
}

// HoldOutPath (selection's one-pass route for leave-one-out and folds)
// equals retraining by the oracle at λ from 1e-6 to 1e4, for single-row
// folds (leave-one-out, of every row and of some rows), folds of several
// rows (a partition, and folds leaving rows out of every fold) and both
// mixed, with NaN in the rows of no fold; over several chunks of λ and row
// blocks of a few rows.
func TestHoldOutPathEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 36))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fit(t, p)
			smallBlocks(t, r, 5)
			m, tt := p.y.Dims()
			perm := rng.Perm(m)
			loo, some, parts, mixed := make([][]int, m), [][]int{}, [][]int{}, [][]int{}
			for i := range loo {
				loo[i] = []int{i}
			}
			for _, i := range perm[:m/2] {
				some = append(some, []int{i})
			}
			for k := 0; k < 3; k++ {
				parts = append(parts, nil)
			}
			for n, i := range perm {
				parts[n%3] = append(parts[n%3], i)
			}
			mixed = append(mixed, perm[:3], []int{perm[3]}, perm[5:7]) // perm[4] and the rest in no fold
			two := [][]int{perm[:3], perm[3:5]}                        // the rest in no fold
			for _, c := range []struct {
				name  string
				folds [][]int
			}{{"loo", loo}, {"some rows", some}, {"3 folds", parts}, {"mixed", mixed}, {"2 folds", two}} {
				got := holdOutPath(t, r, c.folds, pathGrid)
				for n, lambda := range pathGrid {
					want := nanDense(m, tt)
					for _, f := range c.folds {
						pred := naivePredict(p, complementRows(f, m), f, lambda)
						for a, i := range f {
							want.SetRow(i, pred.RawRowView(a))
						}
					}
					g, w := mat.DenseCopyOf(got[n]), mat.DenseCopyOf(want)
					for i := 0; i < m; i++ {
						if math.IsNaN(w.At(i, 0)) != math.IsNaN(g.At(i, 0)) {
							t.Fatalf("%s λ=%g: row %d is %v, want %v", c.name, lambda, i, g.RawRowView(i), w.RawRowView(i))
						}
						if math.IsNaN(w.At(i, 0)) {
							for c := 0; c < tt; c++ {
								if !math.IsNaN(g.At(i, c)) {
									t.Fatalf("row %d of no fold: %v, want NaN", i, g.RawRowView(i))
								}
							}
							g.SetRow(i, make([]float64, tt))
							w.SetRow(i, make([]float64, tt))
						}
					}
					if e, tol := relErr(g, w), tolerance(p, lambda); e > tol {
						t.Errorf("%s λ=%g: rel. error %.2e (tolerance %.2e)", c.name, lambda, e, tol)
					}
				}
			}
		})
	}
}

func nanDense(m, t int) *mat.Dense {
	out := mat.NewDense(m, t, nil)
	for i := range out.RawMatrix().Data {
		out.RawMatrix().Data[i] = math.NaN()
	}
	return out
}

// Over many λ (several of AtGrid's chunks), HoldOutPath's leave-one-out
// predictions are Solve's LeaveOneOut at each λ within the rounding bound of
// the batch against Solve (pathBound), and its fold predictions are, bit for
// bit, HoldOut's on AtGrid's solutions (the same chunks, the same
// arithmetic; single-row folds LeaveOneOut's): every fold's rows land where
// they belong at every λ. Their
// accuracy is TestHoldOutPathEqualsRetraining's.
func TestHoldOutPathEqualsPerLambda(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 37))
	x, y := randProblem(rng, 300, 9, 2, false)
	grid := make([]float64, 40)
	for n := range grid {
		grid[n] = math.Ldexp(1, n-25)
	}
	for _, opt := range []Options{{Kernel: kernel.Linear{Bias: 1}}, {Kernel: kernel.Gaussian{Gamma: 0.1}}} {
		r, err := Fit(x, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		single := make([][]int, 300)
		for i := range single {
			single[i] = []int{i}
		}
		perm := rng.Perm(300)
		folds := [][]int{perm[:40], perm[40:47]} // disjoint: a row of two folds keeps the last one's prediction
		gotLOO, gotFolds := holdOutPath(t, r, single, grid), holdOutPath(t, r, folds, grid)
		at := r.AtGrid(grid)
		for n, lambda := range grid {
			s, err := r.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			_, _, bound := pathBound(s)
			want := loo(t, s)
			for i := 0; i < 300; i++ {
				for c := 0; c < 2; c++ {
					if d := math.Abs(gotLOO[n].At(i, c) - want.At(i, c)); !(d <= bound.At(i, c)) {
						t.Fatalf("%s λ=%g: LOO[%d,%d] = %v, LeaveOneOut's %v: difference %.2e above its bound %.2e",
							opt.Kernel.Spec(), lambda, i, c, gotLOO[n].At(i, c), want.At(i, c), d, bound.At(i, c))
					}
				}
			}
			sg, err := at(lambda)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(gotLOO[n], loo(t, sg.(*Solution))) { // single-row folds by the LOO formula
				t.Fatalf("%s λ=%g: leave-one-out differs from LeaveOneOut on AtGrid's solution", opt.Kernel.Spec(), lambda)
			}
			for _, f := range folds {
				h, err := sg.(*Solution).HoldOut(f)
				if err != nil {
					t.Fatal(err)
				}
				for a, i := range f {
					if !slices.Equal(gotFolds[n].RawRowView(i), h.RawRowView(a)) {
						t.Fatalf("%s λ=%g: row %d of a fold of %d: %v, HoldOut's %v", opt.Kernel.Spec(), lambda, i, len(f), gotFolds[n].RawRowView(i), h.RawRowView(a))
					}
				}
			}
		}
	}
}

// HoldOutPath checks every λ and fold before any work (no visit), and a
// visit's error ends the pass with it.
func TestHoldOutPathRefuses(t *testing.T) {
	x, y := randProblem(rand.New(rand.NewPCG(38, 38)), 20, 3, 1, false)
	r, err := Fit(x, y, Options{Kernel: kernel.Linear{Bias: 1}})
	if err != nil {
		t.Fatal(err)
	}
	visited := 0
	visit := func(int, *mat.Dense) error { visited++; return nil }
	for _, c := range []struct {
		folds [][]int
		grid  []float64
		want  error
	}{
		{[][]int{{0}, {1}}, []float64{1, 0, 2}, learn.ErrLambda},
		{[][]int{{0}, {1}}, []float64{1, math.NaN()}, learn.ErrLambda},
		{[][]int{{0}, {20}}, []float64{1, 2}, learn.ErrHoldOut},
		{[][]int{{0}, {-1}}, []float64{1, 2}, learn.ErrHoldOut},
		{[][]int{{0, 1}, {3, 4, 3}}, []float64{1, 2}, learn.ErrHoldOut},
		{[][]int{{0, 1}, {}}, []float64{1, 2}, learn.ErrHoldOut},
		{[][]int{allRows(20)}, []float64{1, 2}, learn.ErrHoldOut},
	} {
		visited = 0
		if err := r.HoldOutPath(c.folds, c.grid, visit); !errors.Is(err, c.want) || visited != 0 {
			t.Errorf("folds %v, grid %v: err %v after %d visits, want %v before any", c.folds, c.grid, err, visited, c.want)
		}
	}
	stop := errors.New("stop")
	visited = 0
	err = r.HoldOutPath([][]int{{0}, {1, 2}}, pathGrid, func(n int, _ *mat.Dense) error {
		visited++
		if n == 4 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || visited != 5 {
		t.Errorf("visit failing at λ 4: err %v after %d visits, want stop after 5", err, visited)
	}
	if err := r.HoldOutPath(nil, pathGrid, visit); err != nil {
		t.Errorf("no folds: %v", err)
	}
}
