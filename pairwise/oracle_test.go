package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
)

// The brute force every pairwise shortcut is held to: retraining on the
// explicit pairwise kernel matrix (Kronecker RLS) or the two ridge steps
// (two-step RLS) with the held-out labels, rows or columns removed, solved
// by LU with refinement in twice the working precision (oracle.RefinedSolve).
// It shares nothing with the learners' own data handling: the label grid is
// assembled here from the (row, column, label) triples the test drew
// (labelGrid), never read from a learner (Matrix, lab), and each side's
// kernel matrix is evaluated here entry by entry by the oracle's formula
// (oracleGram), never taken from Side.Matrix.

// lambdas is the λ range of the property tests.
var lambdas = []float64{1e-4, 1e-2, 1, 1e2, 1e4}

// tol is the relative agreement every shortcut must reach: 2·10⁻⁹, within
// 10× of the largest difference measured, 2.4·10⁻¹⁰ (accuracy_test.go).
const tol = 2e-9

// kernelCase is a kernel of the property tests.
type kernelCase struct {
	name string
	k    kernel.Kernel
}

var kernelCases = []kernelCase{
	{"gaussian", kernel.Gaussian{Gamma: 0.5}},
	{"linear", kernel.Linear{Bias: 1}},
	{"polynomial", kernel.Polynomial{Gamma: 0.5, Coef0: 1, Degree: 2}},
	{"precomputed", kernel.Precomputed{}},
}

// randObjects draws n objects of d N(0,1) features; for the precomputed
// kernel it returns the gaussian kernel matrix of such objects instead.
func randObjects(rng *rand.Rand, n, d int, k kernel.Kernel) mat.Matrix {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	if _, ok := k.(kernel.Precomputed); ok {
		g := kernel.Gaussian{Gamma: 0.3}
		km, err := g.Block(x, x)
		if err != nil {
			panic(err)
		}
		return km
	}
	return x
}

// randSides draws an m-object row side and a q-object column side.
func randSides(t testing.TB, rng *rand.Rand, m, q int, k kernel.Kernel) (*Side, *Side) {
	t.Helper()
	rs, err := NewSide(randObjects(rng, m, 3, k), k, false)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewSide(randObjects(rng, q, 2, k), k, false)
	if err != nil {
		t.Fatal(err)
	}
	return rs, cs
}

// gridLabels returns every (row, column) pair in shuffled order with labels
// from a smooth function of the kernel values plus noise.
func gridLabels(rng *rand.Rand, rows, cols *Side) ([]Pair, []float64) {
	m, q := rows.Len(), cols.Len()
	var pairs []Pair
	var y []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs = append(pairs, Pair{i, j})
			y = append(y, math.Sin(float64(i)+2*float64(j))+0.3*rng.NormFloat64())
		}
	}
	rng.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a]; y[a], y[b] = y[b], y[a] })
	return pairs, y
}

// labelGrid assembles the m×q label matrix of a complete set of labelled
// pairs: Y[row, col] = label, mirrored for a homogeneous network (Y[col, row]
// = label, or −label when antisymmetric, whose diagonal is 0). A pair given
// twice with a contradicting label, or a cell no pair fills, panics: the
// brute force needs every label, once.
func labelGrid(m, q int, pairs []Pair, y []float64, sym Symmetry) *mat.Dense {
	if len(pairs) != len(y) {
		panic(fmt.Sprintf("labelGrid: %d pairs, %d labels", len(pairs), len(y)))
	}
	g := mat.NewDense(m, q, nil)
	set := make([]bool, m*q)
	put := func(i, j int, v float64) {
		if set[i*q+j] && g.At(i, j) != v {
			panic(fmt.Sprintf("labelGrid: cell (%d, %d) labelled %v and %v", i, j, g.At(i, j), v))
		}
		g.Set(i, j, v)
		set[i*q+j] = true
	}
	for n, p := range pairs {
		put(p.Row, p.Col, y[n])
		switch sym {
		case Symmetric:
			put(p.Col, p.Row, y[n])
		case Antisymmetric:
			put(p.Col, p.Row, -y[n])
		}
	}
	if sym == Antisymmetric {
		for u := 0; u < m; u++ {
			put(u, u, 0)
		}
	}
	for c, ok := range set {
		if !ok {
			panic(fmt.Sprintf("labelGrid: no label for cell (%d, %d)", c/q, c%q))
		}
	}
	return g
}

// oracleGram is the n×n kernel matrix of a side's objects evaluated by the
// oracle (internal/oracle: the kernel's formula, entry by entry, from its
// description), not by the side.
func oracleGram(s *Side) *mat.Dense {
	sp := s.kern.Spec()
	k := oracle.Kernel{Name: sp.Name, Gamma: sp.Gamma, Bias: sp.Bias, Coef0: sp.Coef0, Degree: sp.Degree}
	x := oracle.Dense(s.x)
	n, _ := x.Dims()
	return k.Gram(x, oracle.AllRows(n), oracle.AllRows(n))
}

// bruteKron trains Kronecker RLS on the pairs train (labels y) and predicts
// the pairs test: 𝕂_{test,train} (𝕂_{train,train} + λI)⁻¹ y.
func bruteKron(rows, cols *Side, train []Pair, y []float64, test []Pair, lambda float64) []float64 {
	km, gm := oracleGram(rows), oracleGram(cols)
	n := len(train)
	a := mat.NewDense(n, n, nil)
	for i, p := range train {
		for j, r := range train {
			v := km.At(p.Row, r.Row) * gm.At(p.Col, r.Col)
			if i == j {
				v += lambda
			}
			a.Set(i, j, v)
		}
	}
	alpha := oracle.RefinedSolve(a, mat.NewDense(n, 1, append([]float64(nil), y...)))
	out := make([]float64, len(test))
	for t, p := range test {
		s := 0.0
		for j, r := range train {
			s += km.At(p.Row, r.Row) * gm.At(p.Col, r.Col) * alpha.At(j, 0)
		}
		out[t] = s
	}
	return out
}

// ridgeOp returns the m'×m operator L of kernel ridge regression with kernel
// K restricted to the training objects train, predicting the objects test:
// L_{test, train} = K_{test,train} (K_{train,train} + λI)⁻¹, zero elsewhere.
func ridgeOp(km *mat.Dense, train, test []int, lambda float64) *mat.Dense {
	n := len(train)
	m, _ := km.Dims()
	a := mat.NewDense(n, n, nil)
	for i, r := range train {
		for j, c := range train {
			a.Set(i, j, km.At(r, c))
		}
		a.Set(i, i, a.At(i, i)+lambda)
	}
	b := mat.NewDense(n, len(test), nil)
	for i, r := range train {
		for j, c := range test {
			b.Set(i, j, km.At(r, c))
		}
	}
	x := oracle.RefinedSolve(a, b) // (K_tt + λ)⁻¹ K_{train,test}
	out := mat.NewDense(len(test), m, nil)
	for j := range test {
		for i, r := range train {
			out.Set(j, r, x.At(i, j))
		}
	}
	return out
}

// bruteTwoStep trains two-step RLS on the rows trainR × columns trainC of
// the full label matrix and predicts testR × testC: L_K Y L_Gᵀ.
func bruteTwoStep(rows, cols *Side, y *mat.Dense, trainR, trainC, testR, testC []int, lr, lc float64) *mat.Dense {
	lk := ridgeOp(oracleGram(rows), trainR, testR, lr)
	lg := ridgeOp(oracleGram(cols), trainC, testC, lc)
	var t, out mat.Dense
	t.Mul(lk, y)
	out.Mul(&t, lg.T())
	return &out
}

// relErr is ‖got − want‖/‖want‖ over the entries where want is not NaN
// (got must be NaN exactly there).
func relErr(got, want []float64) (float64, error) {
	if len(got) != len(want) {
		return 0, fmt.Errorf("%d values, want %d", len(got), len(want))
	}
	num, den := 0.0, 0.0
	for i := range got {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) {
			return 0, fmt.Errorf("entry %d: got %v, want %v", i, got[i], want[i])
		}
		if math.IsNaN(want[i]) {
			continue
		}
		d := got[i] - want[i]
		num += d * d
		den += want[i] * want[i]
	}
	if den == 0 {
		return math.Sqrt(num), nil
	}
	return math.Sqrt(num / den), nil
}

// matRelErr compares matrices entrywise (NaN where the wanted one is NaN).
func matRelErr(got, want *mat.Dense) (float64, error) {
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		return 0, fmt.Errorf("%d×%d, want %d×%d", gr, gc, wr, wc)
	}
	return relErr(mat.DenseCopyOf(got).RawMatrix().Data, mat.DenseCopyOf(want).RawMatrix().Data)
}

// randFolds splits 0..n-1 into k random folds.
func randFolds(rng *rand.Rand, n, k int) [][]int {
	perm := rng.Perm(n)
	folds := make([][]int, k)
	for i, v := range perm {
		folds[i%k] = append(folds[i%k], v)
	}
	return folds
}

func formatG(v float64) string { return fmt.Sprintf("%g", v) }
