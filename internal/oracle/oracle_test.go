package oracle

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The oracle's own pieces against values worked out by hand.
func TestKernelFormulas(t *testing.T) {
	a, b := []float64{1, 2, -1}, []float64{0.5, -1, 3}
	// x·z = 0.5 − 2 − 3 = −4.5, ‖x − z‖² = 0.25 + 9 + 16 = 25.25
	for _, c := range []struct {
		k    Kernel
		want float64
	}{
		{Kernel{Name: "linear", Bias: 2}, -2.5},
		{Kernel{Name: "linear"}, -4.5},
		{Kernel{Name: "gaussian", Gamma: 0.1}, math.Exp(-2.525)},
		{Kernel{Name: "polynomial", Gamma: 0.5, Coef0: 1, Degree: 2}, 1.5625},
		{Kernel{Name: "polynomial", Gamma: 2, Coef0: 3, Degree: 3}, -216},
	} {
		if got := c.k.Eval(a, b); math.Abs(got-c.want) > 1e-15*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%+v: %v, want %v", c.k, got, c.want)
		}
	}
	x := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	if g := (Kernel{Name: "precomputed"}).Gram(x, []int{2, 0}, []int{1}); g.At(0, 0) != 8 || g.At(1, 0) != 2 {
		t.Errorf("precomputed Gram %v", mat.Formatted(g))
	}
	g := (Kernel{Name: "gaussian", Gamma: 1}).Gram(x, []int{0, 1}, []int{0, 1})
	if g.At(0, 0) != 1 || g.At(1, 1) != 1 || g.At(0, 1) != math.Exp(-27) || g.At(1, 0) != g.At(0, 1) {
		t.Errorf("gaussian Gram %v", mat.Formatted(g))
	}
}

func TestRowsBiasDense(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	if r := Rows(x, []int{2, 0}); !mat.Equal(r, mat.NewDense(2, 2, []float64{5, 6, 1, 2})) {
		t.Errorf("Rows %v", mat.Formatted(r))
	}
	if w := WithBias(x, 4); !mat.Equal(w, mat.NewDense(3, 3, []float64{1, 2, 2, 3, 4, 2, 5, 6, 2})) {
		t.Errorf("WithBias %v", mat.Formatted(w))
	}
	if w := WithBias(x, 0); !mat.Equal(w, x) {
		t.Errorf("WithBias(0) %v", mat.Formatted(w))
	}
	if d := Dense(x.T()); !mat.Equal(d, mat.DenseCopyOf(x.T())) {
		t.Errorf("Dense %v", mat.Formatted(d))
	}
}

// Snap against the definition: sorted, a gap above tol starts a new group,
// and every value takes its group's smallest.
func TestSnap(t *testing.T) {
	if got, n := Snap([]float64{3, 1, 1.5, 10, 2, 10.4}, 0.5); n != 3 || !slices.Equal(got, []float64{3, 1, 1, 10, 1, 10}) {
		t.Errorf("chain: %v, %d groups", got, n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		p := make([]float64, 1+rng.IntN(30))
		for i := range p {
			p[i] = math.Round(rng.NormFloat64()*20) / 10
		}
		tol := []float64{0, 0.1, 0.25}[trial%3]
		got, n := Snap(p, tol)
		s := slices.Clone(p)
		slices.Sort(s)
		groups, first := 1, s[0]
		want := map[float64]float64{s[0]: s[0]}
		for i := 1; i < len(s); i++ {
			if s[i]-s[i-1] > tol {
				groups++
				first = s[i]
			}
			want[s[i]] = first
		}
		for i, v := range p {
			if got[i] != want[v] {
				t.Fatalf("%v tol %g: snapped %v", p, tol, got)
			}
		}
		if n != groups {
			t.Fatalf("%v tol %g: %d groups, want %d", p, tol, n, groups)
		}
	}
}

// Ridge's three ways agree on one problem: the dual, the primal of the
// linear kernel, and the sparse form with every row in the basis.
func TestRidgeForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := Data(rng, 12, 3, 2, false, 0, Smooth)
	train, test := AllRows(9), []int{9, 10, 11}
	lin := Kernel{Name: "linear", Bias: 1}
	dual := Ridge(Problem{X: x, Y: y, K: lin}, train, test, 0.3)
	primal := Ridge(Problem{X: x, Y: y, K: lin, Primal: true}, train, test, 0.3)
	if e := RelErr(primal, dual); e > 1e-12 {
		t.Errorf("primal vs dual: %.2g", e)
	}
	gauss := Kernel{Name: "gaussian", Gamma: 0.4}
	d2 := Ridge(Problem{X: x, Y: y, K: gauss}, train, test, 0.3)
	sp := Ridge(Problem{X: x, Y: y, K: gauss, Basis: train}, train, test, 0.3)
	if e := RelErr(sp, d2); e > 1e-10 {
		t.Errorf("sparse with the full basis vs dual: %.2g", e)
	}
}
