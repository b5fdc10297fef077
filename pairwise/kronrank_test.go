package pairwise

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// rankProblem is a small conditional-ranking problem: raw objects, the
// kernels, and the complete label grid.
type rankProblem struct {
	x1, x2   *mat.Dense
	k1, k2   kernel.Kernel
	rows     *Side
	cols     *Side
	y        *mat.Dense // m×q
	pairs    []Pair     // shuffled
	pairsY   []float64
	m, q     int
	lambda   float64
	rowDescr string
}

func newRankProblem(t *testing.T, seed uint64, m, q, d1, d2 int, k1, k2 kernel.Kernel) *rankProblem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 25))
	dense := func(r, c int) *mat.Dense {
		out := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				out.Set(i, j, rng.NormFloat64())
			}
		}
		return out
	}
	p := &rankProblem{x1: dense(m, d1), x2: dense(q, d2), k1: k1, k2: k2, m: m, q: q, y: mat.NewDense(m, q, nil)}
	var err error
	if p.rows, err = NewSide(p.x1, k1, false); err != nil {
		t.Fatal(err)
	}
	if p.cols, err = NewSide(p.x2, k2, false); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			p.y.Set(i, j, math.Sin(p.x1.At(i, 0)*p.x2.At(j, 0))+0.5*float64(j%3)+0.3*rng.NormFloat64())
			p.pairs = append(p.pairs, Pair{i, j})
		}
	}
	rng.Shuffle(len(p.pairs), func(a, b int) { p.pairs[a], p.pairs[b] = p.pairs[b], p.pairs[a] })
	for _, pr := range p.pairs {
		p.pairsY = append(p.pairsY, p.y.At(pr.Row, pr.Col))
	}
	return p
}

// bruteRank solves the conditional-ranking RankRLS densely, from its
// definition: the explicit mq×mq pairwise kernel K⊗G (row-major pair
// index i·q + j) and Laplacian L = I_m ⊗ (I_q − 11ᵀ/q), coefficients
// a = (L(K⊗G) + λI)⁻¹ L y by LU with refinement (oracle.RefinedSolve). It
// returns the m×q coefficients. O((mq)³).
func bruteRank(km, gm, y *mat.Dense, lambda float64) *mat.Dense {
	m, q := y.Dims()
	n := m * q
	kk := mat.NewDense(n, n, nil)
	lap := mat.NewDense(n, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			for k := 0; k < m; k++ {
				for l := 0; l < q; l++ {
					kk.Set(i*q+j, k*q+l, km.At(i, k)*gm.At(j, l))
				}
			}
			for l := 0; l < q; l++ {
				v := -1 / float64(q)
				if l == j {
					v++
				}
				lap.Set(i*q+j, i*q+l, v)
			}
		}
	}
	var a mat.Dense
	a.Mul(lap, kk)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+lambda)
	}
	yv := mat.NewDense(n, 1, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			yv.Set(i*q+j, 0, y.At(i, j))
		}
	}
	var ly mat.Dense
	ly.Mul(lap, yv)
	x := oracle.RefinedSolve(&a, &ly)
	return mat.NewDense(m, q, x.RawMatrix().Data)
}

// relDiff returns max|a − b| / max|b|.
func relDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) / math.Max(mat.Norm(b, math.Inf(1)), 1e-300)
}

func maxRel(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	return num / den
}

func rankKernels(t *testing.T) map[string][2]kernel.Kernel {
	t.Helper()
	g, err := kernel.New(kernel.Spec{Name: "gaussian", Gamma: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	lin, err := kernel.New(kernel.Spec{Name: "linear", Bias: 0})
	if err != nil {
		t.Fatal(err)
	}
	linb, err := kernel.New(kernel.Spec{Name: "linear", Bias: 1})
	if err != nil {
		t.Fatal(err)
	}
	return map[string][2]kernel.Kernel{
		"gaussian×gaussian": {g, g},
		// columns of rank 2 < q: C G C has a null space beyond 1
		"gaussian×linear":      {g, lin},
		"linear+bias×gaussian": {linb, g},
	}
}

// TestKronRankEqualsBruteForce: the dual coefficients, the scores of the
// training pairs and the scores of new pairs (new rows × new columns) equal
// the dense solve of (L(K⊗G) + λI) a = L y to 1e-9 of their scale, for three
// kernel pairs and λ from 1e-2 to 1e2. The dense system's condition number
// is at most (‖K‖‖G‖ + λ)/λ ≤ 1e4 here, so both sides carry ≲ 1e-11 of
// rounding.
func TestKronRankEqualsBruteForce(t *testing.T) {
	for name, ks := range rankKernels(t) {
		for _, shape := range [][2]int{{5, 4}, {4, 7}, {6, 6}} {
			p := newRankProblem(t, uint64(shape[0]*10+shape[1]), shape[0], shape[1], 3, 2, ks[0], ks[1])
			kr, err := FitKronRank(p.rows, p.cols, p.pairs, p.pairsY)
			if err != nil {
				t.Fatal(err)
			}
			for _, lambda := range []float64{1e-2, 1, 100} {
				s, err := kr.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteRank(p.rows.Matrix(), p.cols.Matrix(), p.y, lambda)
				// A may leave out components of null(CGC), which G maps to 0
				var ag, wg mat.Dense
				ag.Mul(s.Coefficients(), p.cols.Matrix())
				wg.Mul(want, p.cols.Matrix())
				if d := relDiff(&ag, &wg); d > 1e-9 {
					t.Errorf("%s %v λ=%g: coefficients (times G) differ from brute force by %.3g", name, shape, lambda, d)
				}
				var kw, fw mat.Dense
				kw.Mul(p.rows.Matrix(), want)
				fw.Mul(&kw, p.cols.Matrix())
				if d := relDiff(s.Fitted(), &fw); d > 1e-9 {
					t.Errorf("%s %v λ=%g: training scores differ from brute force by %.3g", name, shape, lambda, d)
				}
				// new objects through the model
				rng := rand.New(rand.NewPCG(7, uint64(lambda*100)))
				nu, nv := mat.NewDense(3, 3, nil), mat.NewDense(4, 2, nil)
				for _, x := range []*mat.Dense{nu, nv} {
					r, c := x.Dims()
					for i := 0; i < r; i++ {
						for j := 0; j < c; j++ {
							x.Set(i, j, rng.NormFloat64())
						}
					}
				}
				var ri, ci []int
				for i := 0; i < 3; i++ {
					for j := 0; j < 4; j++ {
						ri, ci = append(ri, i), append(ci, j)
					}
				}
				got, err := s.PairModel().Predict(nu, nv, ri, ci)
				if err != nil {
					t.Fatal(err)
				}
				kn, _ := ks[0].Block(nu, p.x1)
				gn, _ := ks[1].Block(nv, p.x2)
				var kw2, pn mat.Dense
				kw2.Mul(kn, want)
				pn.Mul(&kw2, gn.T())
				exp := make([]float64, len(ri))
				for t := range ri {
					exp[t] = pn.At(ri[t], ci[t])
				}
				if d := maxRel(got, exp); d > 1e-9 {
					t.Errorf("%s %v λ=%g: new pairs differ from brute force by %.3g", name, shape, lambda, d)
				}
			}
		}
	}
}

// retrainRows fits KronRank on the rows not in h (sides built afresh from
// the raw objects) and returns its scores of the rows h against every
// column: K(h, T) A G.
func retrainRows(t *testing.T, p *rankProblem, h []int, lambda float64) *mat.Dense {
	t.Helper()
	held := map[int]bool{}
	for _, i := range h {
		held[i] = true
	}
	var keep []int
	for i := 0; i < p.m; i++ {
		if !held[i] {
			keep = append(keep, i)
		}
	}
	x1 := mat.NewDense(len(keep), p.x1.RawMatrix().Cols, nil)
	for a, i := range keep {
		x1.SetRow(a, p.x1.RawRowView(i))
	}
	rows, err := NewSide(x1, p.k1, false)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []Pair
	var y []float64
	for a, i := range keep {
		for j := 0; j < p.q; j++ {
			pairs = append(pairs, Pair{a, j})
			y = append(y, p.y.At(i, j))
		}
	}
	kr, err := FitKronRank(rows, p.cols, pairs, y)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kr.Solve(lambda)
	if err != nil {
		t.Fatal(err)
	}
	xh := mat.NewDense(len(h), p.x1.RawMatrix().Cols, nil)
	for a, i := range h {
		xh.SetRow(a, p.x1.RawRowView(i))
	}
	kh, _ := p.k1.Block(xh, x1)
	var ka, out mat.Dense
	ka.Mul(kh, s.Coefficients())
	out.Mul(&ka, p.cols.Matrix())
	return &out
}

// TestKronRankHoldOutRows: setting B's shortcut — single rows and folds of
// rows — equals retraining without the held-out rows (new sides, new
// eigendecompositions) and scoring them against every column, to 1e-9 of
// the scale, along a λ grid; also through CrossValidateDesign in the
// shuffled order of the pairs given.
func TestKronRankHoldOutRows(t *testing.T) {
	for name, ks := range rankKernels(t) {
		p := newRankProblem(t, 11, 7, 5, 3, 2, ks[0], ks[1])
		kr, err := FitKronRank(p.rows, p.cols, p.pairs, p.pairsY)
		if err != nil {
			t.Fatal(err)
		}
		grid := []float64{1e-2, 0.5, 30}
		for _, folds := range [][][]int{nil, {{0, 3}, {1, 5, 6}, {2}, {4}}} {
			use := folds
			if use == nil {
				use = loo(p.m)
			}
			err := kr.CrossValidate(Design{Setting: Rows, RowFolds: folds}, grid, func(i int, got *mat.Dense) error {
				for _, h := range use {
					want := retrainRows(t, p, h, grid[i])
					if d := relDiff(rowsOf(got, h), want); d > 1e-9 {
						t.Errorf("%s folds %v λ=%g: fold %v differs from retraining by %.3g", name, folds != nil, grid[i], h, d)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		// the design's pooled predictions, in the order of the pairs given
		err = kr.CrossValidateDesign(learn.Design{Setting: "rows"}, grid[:1], nil, func(_, _ int, got *mat.Dense) error {
			for a, pr := range p.pairs {
				want := retrainRows(t, p, []int{pr.Row}, grid[0]).At(0, pr.Col)
				if d := math.Abs(got.At(a, 0)-want) / (math.Abs(want) + 1); d > 1e-9 {
					t.Errorf("%s: pair %v: %g, retrained %g", name, pr, got.At(a, 0), want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestKronRankRefusals: the designs without an exact shortcut, column
// folds, incomplete data, one column, and inputs the descriptor refuses
// are errors naming the reason, never panics.
func TestKronRankRefusals(t *testing.T) {
	g, _ := kernel.New(kernel.Spec{Name: "gaussian", Gamma: 0.3})
	p := newRankProblem(t, 3, 5, 4, 2, 2, g, g)
	kr, err := FitKronRank(p.rows, p.cols, p.pairs, p.pairsY)
	if err != nil {
		t.Fatal(err)
	}
	visit := func(int, *mat.Dense) error { return nil }
	for _, d := range []Design{{Setting: Pairs}, {Setting: Cols}, {Setting: Both}, {Setting: Vertices},
		{Setting: Rows, ColFolds: [][]int{{0}}}, {Setting: Rows, RowFolds: [][]int{{0, 9}}}} {
		if err := kr.CrossValidate(d, []float64{1}, visit); !errors.Is(err, ErrSetting) {
			t.Errorf("%v: got %v, want ErrSetting", d, err)
		}
	}
	if err := kr.CrossValidate(Design{Setting: Rows}, []float64{-1}, visit); err == nil {
		t.Error("λ = −1 accepted")
	}
	if _, err := kr.Solve(0); err == nil {
		t.Error("λ = 0 accepted")
	}
	if err := kr.CrossValidateDesign(learn.Design{Setting: "rows"}, []float64{1}, []float64{1}, func(int, int, *mat.Dense) error { return nil }); !errors.Is(err, ErrSetting) {
		t.Errorf("column λ grid: %v", err)
	}
	if _, err := FitKronRank(p.rows, p.cols, p.pairs[:len(p.pairs)-1], p.pairsY[:len(p.pairs)-1]); !errors.Is(err, ErrIncomplete) {
		t.Errorf("incomplete: %v", err)
	}
	if _, err := FitKronRank(nil, p.cols, p.pairs, p.pairsY); err == nil {
		t.Error("no row side accepted")
	}
	one, _ := NewSide(mat.NewDense(1, 2, []float64{1, 2}), g, false)
	var pairs []Pair
	var y []float64
	for i := 0; i < 5; i++ {
		pairs, y = append(pairs, Pair{i, 0}), append(y, float64(i))
	}
	if _, err := FitKronRank(p.rows, one, pairs, y); err == nil {
		t.Error("one column accepted")
	}
	// the descriptor
	d := KronRankDescriptor()
	in := &learn.Input{X: p.x1, Y: mat.NewDense(len(p.pairsY), 1, p.pairsY)}
	for _, pr := range p.pairs {
		in.Pairs = append(in.Pairs, learn.ObjectPair{Row: pr.Row, Col: pr.Col})
	}
	if _, err := d.New(in); err == nil {
		t.Error("no column objects (homogeneous) accepted")
	}
	in.Cols = p.x2
	in.Symmetry = "symmetric"
	if _, err := d.New(in); err == nil {
		t.Error("symmetry accepted")
	}
	in.Symmetry = ""
	for _, bad := range []*learn.Input{nil, {}, {X: p.x1, Cols: p.x2}} {
		if _, err := d.New(bad); err == nil {
			t.Errorf("input %+v accepted", bad)
		}
	}
	method, err := d.New(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := method(learn.Setting{Kernel: g}); err == nil {
		t.Error("no column kernel accepted")
	}
	l, err := method(learn.Setting{Kernel: g, ColKernel: g})
	if err != nil {
		t.Fatal(err)
	}
	if l.Name() != learn.KronRank {
		t.Errorf("name %s", l.Name())
	}
}

// TestKronRankTwin: the perturbed twin's CV predictions are s times the
// learner's up to the perturbation (relative 1e-8 here), and not exactly
// (at s = 1 an unperturbed twin would repeat the learner bit for bit).
func TestKronRankTwin(t *testing.T) {
	g, _ := kernel.New(kernel.Spec{Name: "gaussian", Gamma: 0.3})
	p := newRankProblem(t, 5, 6, 5, 2, 2, g, g)
	kr, err := FitKronRank(p.rows, p.cols, p.pairs, p.pairsY)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Perturbed(0); err == nil {
		t.Error("scale 0 accepted")
	}
	d := learn.Design{Setting: "rows"}
	var a *mat.Dense
	if err := kr.CrossValidateDesign(d, []float64{0.3}, nil, func(_, _ int, p *mat.Dense) error { a = mat.DenseCopyOf(p); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []float64{1, -3} {
		tw, err := kr.Perturbed(sc)
		if err != nil {
			t.Fatal(err)
		}
		var b *mat.Dense
		if err := tw.(learn.DesignValidator).CrossValidateDesign(d, []float64{0.3}, nil, func(_, _ int, p *mat.Dense) error { b = mat.DenseCopyOf(p); return nil }); err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Scale(sc, a)
		if r := relDiff(b, &want); r > 1e-8 || (sc == 1 && r == 0) {
			t.Errorf("twin at scale %g differs from the learner times the scale by %.3g (want in (0, 1e-8])", sc, r)
		}
	}
}

// TestKronRankRoutes: Solve at single λ values before any cross-validation
// takes the tridiagonal route when the centered column kernel is
// nonsingular on 1^⊥ (a Gaussian column kernel) and the eigen route when
// it is not (a linear column kernel of rank 2 < q − 1), and both equal the
// dense solve (bruteRank) to 1e-9 — the bound of TestKronRankEqualsBruteForce
// (condition number ≤ 1e4 here); on the nonsingular side the coefficients
// of the two routes (the eigen route forced by a cross-validation first)
// agree to 1e-11 for λ from 1e-2 to 1e2, and the first route's fit never
// computed the eigendecomposition.
func TestKronRankRoutes(t *testing.T) {
	ks := rankKernels(t)
	for _, c := range []struct {
		name string
		tri  bool
	}{{"gaussian×gaussian", true}, {"gaussian×linear", false}} {
		kk := ks[c.name]
		p := newRankProblem(t, 77, 6, 9, 3, 2, kk[0], kk[1])
		first, err := FitKronRank(p.rows, p.cols, p.pairs, p.pairsY)
		if err != nil {
			t.Fatal(err)
		}
		grid := []float64{1e-2, 1, 100}
		var tri []*KronRankSolution
		for _, lambda := range grid {
			s, err := first.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			tri = append(tri, s)
			want := bruteRank(p.rows.Matrix(), p.cols.Matrix(), p.y, lambda)
			var ag, wg mat.Dense
			ag.Mul(s.Coefficients(), p.cols.Matrix())
			wg.Mul(want, p.cols.Matrix())
			if d := relDiff(&ag, &wg); d > 1e-9 {
				t.Errorf("%s λ=%g: coefficients (times G) differ from brute force by %.3g", c.name, lambda, d)
			}
		}
		if got := !first.c.hasEigen(); got != c.tri {
			t.Errorf("%s: tridiagonal route %v, want %v", c.name, got, c.tri)
		}
		if !c.tri {
			continue
		}
		// a fresh column side, cross-validated first: the eigen route
		cols2, _ := NewSide(p.x2, kk[1], false)
		second, err := FitKronRank(p.rows, cols2, p.pairs, p.pairsY)
		if err != nil {
			t.Fatal(err)
		}
		if err := second.CrossValidate(Design{Setting: Rows}, grid[:1], func(int, *mat.Dense) error { return nil }); err != nil {
			t.Fatal(err)
		}
		for i, lambda := range grid {
			s, err := second.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(tri[i].Coefficients(), s.Coefficients()); d > 1e-11 {
				t.Errorf("λ=%g: tridiagonal and eigen routes differ by %.3g", lambda, d)
			}
		}
	}
}
