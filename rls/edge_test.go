package rls

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// A nearly diagonal kernel (narrow gaussian in 30 dimensions) makes predictions
// tiny and basis rows' leverage ≈ 1: the shortcuts still agree with retraining,
// measured against the scale of the held-out labels.
func TestNearlyDiagonalKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x, y := randProblem(rng, 17, 30, 2, false)
	basis := rng.Perm(17)[:4]
	for _, p := range []problem{
		{x: x, y: y, kern: kernel.Gaussian{Gamma: 0.3}, form: learn.Sparse, basis: basis},
		{x: x, y: y, kern: kernel.Gaussian{Gamma: 0.3}, form: learn.Dual},
	} {
		r := fit(t, p)
		for _, lambda := range lambdas {
			s, err := r.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range [][]int{{basis[0]}, {basis[0], basis[1]}, {0, 1, 2, 3, 4, 5, 6}, basis} {
				got, err := s.HoldOut(h)
				if err != nil {
					t.Fatal(err)
				}
				want := naivePredict(p, complementRows(h, 17), h, lambda)
				var d mat.Dense
				d.Sub(got, want)
				scale := mat.Norm(kernel.Rows(y, h), 2) + mat.Norm(want, 2)
				if e := mat.Norm(&d, 2) / scale; e > 1e-8 {
					t.Errorf("%v λ=%g H=%v: error %.2e of the label scale", p.form, lambda, h, e)
				}
			}
		}
	}
}

// Repeating a basis vector adds nothing to the function space: the factor drops
// the dependent direction and the model equals the one with the basis once.
func TestDuplicateBasisPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	x, y := randProblem(rng, 30, 4, 1, false)
	xd := x.(*mat.Dense)
	xd.SetRow(5, xd.RawRowView(3)) // rows 3 and 5 are the same point
	k := kernel.Gaussian{Gamma: 0.25}
	once, err := Fit(x, y, Options{Kernel: k, Basis: []int{1, 3, 8, 12}})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Fit(x, y, Options{Kernel: k, Basis: []int{1, 3, 8, 12, 5}})
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range lambdas {
		a, _ := once.Solve(lambda)
		b, _ := twice.Solve(lambda)
		if e := relErr(loo(t, b), loo(t, a)); e > 1e-8 {
			t.Errorf("λ=%g: LOO differs by %.2e", lambda, e)
		}
		pa, _ := a.Predictor().Predict(x)
		pb, _ := b.Predictor().Predict(x)
		if e := relErr(pb, pa); e > 1e-8 {
			t.Errorf("λ=%g: predictions differ by %.2e", lambda, e)
		}
	}
}

func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	x, y := randProblem(rng, 10, 3, 1, false)
	g := kernel.Gaussian{Gamma: 1}
	r, err := Fit(x, y, Options{Kernel: g})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := r.Solve(l); !errors.Is(err, learn.ErrLambda) {
			t.Errorf("Solve(%v): err = %v, want learn.ErrLambda", l, err)
		}
	}
	s, err := r.Solve(1)
	if err != nil {
		t.Fatal(err)
	}
	holdOuts := []struct {
		name string
		h    []int
	}{
		{"empty", []int{}},
		{"duplicate", []int{1, 2, 1}},
		{"negative", []int{-1}},
		{"out of range", []int{10}},
		{"all rows", allRows(10)},
	}
	for _, c := range holdOuts {
		if _, err := s.HoldOut(c.h); !errors.Is(err, learn.ErrHoldOut) {
			t.Errorf("HoldOut %s: err = %v, want learn.ErrHoldOut", c.name, err)
		}
	}
	for _, pairs := range [][]learn.Pair{nil, {{I: 1, J: 1}}, {{I: 0, J: 10}}, {{I: -1, J: 2}}} {
		if _, _, err := s.LeavePairOut(pairs); !errors.Is(err, learn.ErrHoldOut) {
			t.Errorf("LeavePairOut %v: err = %v, want learn.ErrHoldOut", pairs, err)
		}
	}
	fits := []struct {
		name string
		x    mat.Matrix
		y    *mat.Dense
		opt  Options
		want error
	}{
		{"row mismatch", x, mat.NewDense(9, 1, nil), Options{Kernel: g}, learn.ErrShape},
		{"NaN label", x, mat.NewDense(10, 1, append(make([]float64, 9), math.NaN())), Options{Kernel: g}, learn.ErrShape},
		{"too many basis vectors", x, y, Options{Kernel: g, Basis: allRows(11)}, learn.ErrBasis},
		{"basis out of range", x, y, Options{Kernel: g, Basis: []int{0, 10}}, learn.ErrBasis},
		{"basis duplicate", x, y, Options{Kernel: g, Basis: []int{2, 2}}, learn.ErrBasis},
		{"empty basis", x, y, Options{Kernel: g, Basis: []int{}, Form: learn.Sparse}, learn.ErrBasis},
	}
	for _, c := range fits {
		if _, err := Fit(c.x, c.y, c.opt); !errors.Is(err, c.want) {
			t.Errorf("Fit %s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := Fit(x, y, Options{Kernel: g, Form: learn.Linear}); err == nil {
		t.Error("linear form with a gaussian kernel: no error")
	}
	if _, err := Fit(x, y, Options{}); err == nil {
		t.Error("no kernel: no error")
	}
	// an indefinite precomputed kernel is refused at a λ that does not fix it
	kmat := mat.NewDense(3, 3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}) // eigenvalues −1, 1, 3
	ri, err := Fit(kmat, mat.NewDense(3, 1, []float64{1, 2, 3}), Options{Kernel: kernel.Precomputed{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ri.Solve(0.5); !errors.Is(err, learn.ErrIndefinite) {
		t.Errorf("indefinite kernel: err = %v, want learn.ErrIndefinite", err)
	}
	s2, err := ri.Solve(2)
	if err != nil {
		t.Fatalf("indefinite kernel made definite by λ=2: %v", err)
	}
	// By hand: K + 2I = [[3,2,0],[2,3,0],[0,0,3]], so a = (K + 2I)⁻¹y =
	// (−1/5, 4/5, 1) and the fitted values Ka = (7/5, 2/5, 1). Leaving a row
	// out leaves K + 2I = 3I on the other two (k₁₃ = k₂₃ = 0): row 1 gets
	// k₁₂·y₂/3 = 4/3, row 2 k₂₁·y₁/3 = 2/3, row 3 nothing, 0. The values are
	// exact to a few roundings of numbers of order 1.
	for _, c := range []struct {
		name string
		got  *mat.Dense
		want []float64
	}{
		{"fitted", s2.Fitted(), []float64{7.0 / 5, 2.0 / 5, 1}},
		{"leave-one-out", loo(t, s2), []float64{4.0 / 3, 2.0 / 3, 0}},
	} {
		for i, w := range c.want {
			if g := c.got.At(i, 0); math.Abs(g-w) > 1e-14 {
				t.Errorf("indefinite kernel at λ=2: %s row %d = %.17g, want %.17g", c.name, i, g, w)
			}
		}
	}
}

// The precomputed kernel gives the same model as the kernel it was computed from.
func TestPrecomputedEqualsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	x, y := randProblem(rng, 25, 4, 2, false)
	g := kernel.Gaussian{Gamma: 0.2}
	kmat, _ := g.Block(x, x)
	a, err := Fit(x, y, Options{Kernel: g})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(kmat, y, Options{Kernel: kernel.Precomputed{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, basis := range [][]int{nil, {0, 4, 9, 13}} {
		if basis != nil {
			a, _ = Fit(x, y, Options{Kernel: g, Basis: basis})
			b, _ = Fit(kmat, y, Options{Kernel: kernel.Precomputed{}, Basis: basis})
		}
		sa, _ := a.Solve(0.1)
		sb, _ := b.Solve(0.1)
		if e := relErr(loo(t, sb), loo(t, sa)); e > 1e-10 {
			t.Errorf("basis %v: LOO differs by %.2e", basis, e)
		}
		// predict new points: the precomputed model takes their kernel rows against the training data
		xn, _ := randProblem(rng, 5, 4, 1, false)
		kn, _ := g.Block(xn, x)
		pa, _ := sa.Predictor().Predict(xn)
		pb, err := sb.Predictor().Predict(kn)
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(pb, pa); e > 1e-10 {
			t.Errorf("basis %v: predictions differ by %.2e", basis, e)
		}
	}
}

func loo(t *testing.T, s *Solution) *mat.Dense {
	t.Helper()
	p, err := s.LeaveOneOut()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWithLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	x, y := randProblem(rng, 25, 3, 1, false)
	_, y2 := randProblem(rng, 25, 3, 3, false)
	for _, opt := range []Options{{Kernel: kernel.Gaussian{Gamma: 0.3}}, {Kernel: kernel.Gaussian{Gamma: 0.3}, Basis: []int{1, 4, 9, 16}}, {Kernel: kernel.Linear{Bias: 1}}} {
		r, _ := Fit(x, y, opt)
		r2, err := r.WithLabels(y2, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := Fit(x, y2, opt)
		a, _ := r2.Solve(0.1)
		b, _ := f.Solve(0.1)
		if e := relErr(loo(t, a), loo(t, b)); e > 1e-12 {
			t.Errorf("%v: %.2e", opt.Kernel.Spec(), e)
		}
	}
	r, _ := Fit(x, y, Options{Kernel: kernel.Linear{}})
	if _, err := r.WithLabels(mat.NewDense(3, 1, nil), nil); !errors.Is(err, learn.ErrShape) {
		t.Errorf("wrong rows: %v", err)
	}
}
