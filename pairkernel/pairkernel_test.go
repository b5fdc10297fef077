package pairkernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gauss returns the Gaussian kernel matrix exp(−γ‖a_i − b_j‖²) between the
// rows of a and b.
func gauss(a, b *mat.Dense, gamma float64) *mat.Dense {
	ra, d := a.Dims()
	rb, _ := b.Dims()
	k := mat.NewDense(ra, rb, nil)
	for i := range ra {
		for j := range rb {
			s := 0.0
			for c := range d {
				x := a.At(i, c) - b.At(j, c)
				s += x * x
			}
			k.Set(i, j, math.Exp(-gamma*s))
		}
	}
	return k
}

func randPoints(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

func randPairs(rng *rand.Rand, n, m, q int) Pairs {
	p := Pairs{Rows: make([]int, n), Cols: make([]int, n)}
	for i := range n {
		p.Rows[i], p.Cols[i] = rng.IntN(m), rng.IntN(q)
	}
	return p
}

// pairKernel is the kind's defining formula (Viljanen et al. 2022, Table
// 1), from the object kernels' entries: k and g between the output pair's
// objects (first index) and the input pair's (second); same(u, v) is the
// identity relation of the cartesian kernel. Written from the definition,
// not from Kind.Terms, so that it checks them.
func pairKernel(kind Kind, w []float64, ks, gs []*mat.Dense, sameR, sameC func(i, j int) bool, d, t, d2, t2 int) float64 {
	k := ks[0]
	switch kind {
	case Kronecker:
		return k.At(d, d2) * gs[0].At(t, t2)
	case Cartesian:
		v := 0.0
		if sameC(t, t2) {
			v += k.At(d, d2)
		}
		if sameR(d, d2) {
			v += gs[0].At(t, t2)
		}
		return v
	case Symmetric:
		return 0.5 * (k.At(d, d2)*k.At(t, t2) + k.At(d, t2)*k.At(t, d2))
	case Antisymmetric:
		return 0.5 * (k.At(d, d2)*k.At(t, t2) - k.At(d, t2)*k.At(t, d2))
	case Ranking:
		return k.At(d, d2) + k.At(t, t2) - k.At(d, t2) - k.At(t, d2)
	case Sum:
		v := 0.0
		for i, wi := range w {
			v += wi * ks[i].At(d, d2) * gs[i].At(t, t2)
		}
		return v
	}
	panic(kind)
}

// problem is a random data set for one kind: training kernels over m row
// and q column objects (q = m, one kernel, for the homogeneous kinds), n
// training pairs, and cross kernels from m2 (q2) test objects of which the
// first two are training objects 1 and 0 (for δ) and the rest new.
type problem struct {
	kind         Kind
	w            []float64
	ks, gs       []*mat.Dense // training kernels
	cks, cgs     []*mat.Dense // cross kernels (test × training objects)
	sameR, sameC []int        // test object → training object or −1
	train, test  Pairs
	m, q, m2, q2 int
}

func newProblem(rng *rand.Rand, kind Kind, n, m, q, nt, m2, q2 int) *problem {
	pr := &problem{kind: kind, m: m, q: q, m2: m2, q2: q2}
	if kind.Homogeneous() {
		q, q2 = m, m2
		pr.q, pr.q2 = m, m2
	}
	nk := 1
	if kind == Sum {
		nk = 3
		pr.w = []float64{0.5, 0.3, 0.2}
	}
	for range nk {
		x := randPoints(rng, m, 3)
		xt := randPoints(rng, m2, 3)
		x.SetRow(0, xt.RawRowView(1)) // test objects 0, 1 = training objects 1, 0
		x.SetRow(1, xt.RawRowView(0))
		gamma := 0.1 + 0.4*rng.Float64()
		pr.ks = append(pr.ks, gauss(x, x, gamma))
		pr.cks = append(pr.cks, gauss(xt, x, gamma))
		if kind.Homogeneous() {
			continue
		}
		z := randPoints(rng, q, 2)
		zt := randPoints(rng, q2, 2)
		z.SetRow(0, zt.RawRowView(1))
		z.SetRow(1, zt.RawRowView(0))
		pr.gs = append(pr.gs, gauss(z, z, gamma))
		pr.cgs = append(pr.cgs, gauss(zt, z, gamma))
	}
	same := func(k int) []int {
		s := make([]int, k)
		for i := range s {
			s[i] = -1
		}
		s[0], s[1] = 1, 0
		return s
	}
	pr.sameR, pr.sameC = same(m2), same(q2)
	pr.train = randPairs(rng, n, m, q)
	pr.test = randPairs(rng, nt, m2, q2)
	return pr
}

// dense returns the explicit kernel matrix between out and in pairs from
// the definition; cross selects the test × training kernels.
func (pr *problem) dense(out, in Pairs, cross bool) *mat.Dense {
	ks, gs := pr.ks, pr.gs
	sameR := func(i, j int) bool { return i == j }
	sameC := sameR
	if cross {
		ks, gs = pr.cks, pr.cgs
		sameR = func(i, j int) bool { return pr.sameR[i] == j }
		sameC = func(i, j int) bool { return pr.sameC[i] == j }
	}
	k := mat.NewDense(out.Len(), in.Len(), nil)
	for p := range out.Len() {
		for r := range in.Len() {
			k.Set(p, r, pairKernel(pr.kind, pr.w, ks, gs, sameR, sameC, out.Rows[p], out.Cols[p], in.Rows[r], in.Cols[r]))
		}
	}
	return k
}

func (pr *problem) base(t testing.TB, cross bool) []*mat.Dense {
	t.Helper()
	var b []*mat.Dense
	var err error
	if cross {
		b, err = pr.kind.Base(pr.cks, pr.cgs, pr.sameR, pr.sameC)
	} else {
		b, err = pr.kind.Base(pr.ks, pr.gs, nil, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (pr *problem) terms(t testing.TB) []Term {
	t.Helper()
	terms, err := pr.kind.Terms(pr.w)
	if err != nil {
		t.Fatal(err)
	}
	return terms
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// TestMulVecEqualsDense: the generalized vec trick equals the product by
// the explicit pairwise kernel matrix built from each kind's definition,
// to 1e-12 relative to the sum of the absolute terms (the rounding of a
// sum of n products of O(1) numbers is below n·2⁻⁵³ of it), for the
// training operator (square) and for prediction operators (new objects),
// the latter shaped to take each of the two orderings of the product (the
// terms of one kernel pair sharing one intermediate matrix) — each through
// the routes the cost rule picks, then with every phase forced sparse
// (row updates and dot products) and forced dense (the two gemms).
func TestMulVecEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	shapes := []struct{ n, m, q, nt, m2, q2 int }{
		{40, 7, 5, 30, 3, 12},   // few new row objects
		{40, 7, 5, 30, 12, 3},   // few new column objects
		{60, 4, 9, 1, 2, 2},     // one output pair
		{30, 6, 5, 20, 6, 5},    // square cross kernels that are not symmetric
		{90, 33, 34, 10, 3, 40}, // more objects than the transpose's 32-block
	}
	defer func() { forceRoute = 0 }()
	for _, route := range []int{0, 1, -1} {
		for _, kind := range Kinds() {
			for si, sh := range shapes {
				t.Run(fmt.Sprintf("%s/%d/route%d", kind, si, route), func(t *testing.T) {
					forceRoute = route
					pr := newProblem(rng, kind, sh.n, sh.m, sh.q, sh.nt, sh.m2, sh.q2)
					terms := pr.terms(t)
					for _, cross := range []bool{false, true} {
						out := pr.train
						if cross {
							out = pr.test
						}
						op, err := NewOperator(pr.base(t, cross), terms, out, pr.train)
						if err != nil {
							t.Fatal(err)
						}
						d := pr.dense(out, pr.train, cross)
						v := randVec(rng, pr.train.Len())
						got := make([]float64, out.Len())
						for i := range got {
							got[i] = math.NaN() // MulVec must overwrite
						}
						op.MulVec(got, v)
						for p := range got {
							want, scale := 0.0, 1.0
							for r, x := range v {
								want += d.At(p, r) * x
								scale += math.Abs(d.At(p, r) * x)
							}
							if !(math.Abs(got[p]-want) <= 1e-12*scale) {
								t.Fatalf("cross=%v pair %d: vec trick %v, dense %v (diff %.3g, scale %.3g)", cross, p, got[p], want, got[p]-want, scale)
							}
						}
					}
				})
			}
		}
	}
}

// denseSolve returns α = (K + λI)⁻¹ y by a Cholesky factorization.
func denseSolve(t testing.TB, k *mat.Dense, y []float64, lambda float64) []float64 {
	t.Helper()
	n, _ := k.Dims()
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, 0.5*(k.At(i, j)+k.At(j, i)))
		}
		a.SetSym(i, i, a.At(i, i)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("K + λI is not positive definite")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

// TestFitEqualsDenseSolve: the conjugate-gradient model equals the dense
// solve of (K + λI)α = y with the explicit kernel matrix. By Options.Tol's
// bound, with r the returned α's residual, the training predictions are
// within ‖r‖ and the test predictions within ‖C‖_F‖r‖/λ (‖C‖₂ ≤ ‖C‖_F);
// each is checked against that bound (plus 1e-10 for the dense solve's
// rounding) and against 1e-6, the acceptance tolerance, which Tol = 1e-10
// meets on these problems.
func TestFitEqualsDenseSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 4))
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			pr := newProblem(rng, kind, 80, 9, 8, 25, 6, 5)
			y := randVec(rng, pr.train.Len())
			const lambda = 0.5
			m, err := Fit(pr.base(t, false), pr.terms(t), pr.train, y, lambda, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !m.Converged || m.Residual > 1e-9 {
				t.Fatalf("not converged: %d iterations, residual %g", m.Iterations, m.Residual)
			}
			k := pr.dense(pr.train, pr.train, false)
			alpha := denseSolve(t, k, y, lambda)
			rnorm := m.Residual * math.Sqrt(dot(y, y))
			for _, cross := range []bool{false, true} {
				out := pr.train
				if cross {
					out = pr.test
				}
				c := pr.dense(out, pr.train, cross)
				bound := rnorm
				if cross {
					bound = mat.Norm(c, 2) * rnorm / lambda
				}
				bound += 1e-10
				got, err := m.Predict(pr.base(t, cross), out)
				if err != nil {
					t.Fatal(err)
				}
				var want mat.VecDense
				want.MulVec(c, mat.NewVecDense(len(alpha), alpha))
				diff := 0.0
				for p := range got {
					diff += (got[p] - want.AtVec(p)) * (got[p] - want.AtVec(p))
				}
				diff = math.Sqrt(diff)
				if !(diff <= bound) || !(diff <= 1e-6) {
					t.Fatalf("cross=%v: predictions differ from the dense solve's by %.3g (bound %.3g)", cross, diff, bound)
				}
			}
		})
	}
}

// TestSymmetries: with the symmetric kernel f(d,t) = f(t,d), with the
// antisymmetric one f(d,t) = −f(t,d) and f(d,d) = 0, and with the ranking
// kernel f(d,t) = −f(t,d), for any coefficients (exactly, up to rounding).
func TestSymmetries(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 5))
	for _, c := range []struct {
		kind Kind
		sign float64
	}{{Symmetric, 1}, {Antisymmetric, -1}, {Ranking, -1}} {
		pr := newProblem(rng, c.kind, 50, 8, 8, 20, 5, 5)
		terms := pr.terms(t)
		m := &Model{Terms: terms, Train: pr.train, Coef: randVec(rng, pr.train.Len())}
		swapped := Pairs{Rows: pr.test.Cols, Cols: pr.test.Rows}
		f, err := m.Predict(pr.base(t, true), pr.test)
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.Predict(pr.base(t, true), swapped)
		if err != nil {
			t.Fatal(err)
		}
		for p := range f {
			if math.Abs(f[p]-c.sign*g[p]) > 1e-12*(1+math.Abs(f[p])) {
				t.Fatalf("%s: f(d,t) = %v, f(t,d) = %v", c.kind, f[p], g[p])
			}
		}
	}
}

// TestBadInput: wrong indices, sizes, weights and labels are errors naming
// the problem, never panics.
func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 6))
	pr := newProblem(rng, Kronecker, 20, 5, 4, 5, 3, 3)
	base := pr.base(t, false)
	terms := pr.terms(t)
	y := randVec(rng, 20)
	bad := Pairs{Rows: append([]int(nil), pr.train.Rows...), Cols: append([]int(nil), pr.train.Cols...)}
	bad.Cols[3] = 4 // 4 column objects: index 4 is outside
	cases := map[string]func() error{
		"column index":       func() error { _, err := Fit(base, terms, bad, y, 1, Options{}); return err },
		"input column index": func() error { _, err := NewOperator(base, terms, pr.train, bad); return err },
		"output row index": func() error {
			o := Pairs{Rows: []int{5}, Cols: []int{0}} // 5 row objects
			_, err := NewOperator(base, terms, o, pr.train)
			return err
		},
		"negative index": func() error {
			b := Pairs{Rows: []int{-1}, Cols: []int{0}}
			_, err := NewOperator(base, terms, b, b)
			return err
		},
		"unequal lists": func() error {
			_, err := NewOperator(base, terms, Pairs{Rows: []int{0}}, pr.train)
			return err
		},
		"term kernel": func() error {
			_, err := NewOperator(base, []Term{{Weight: 1, Row: 0, Col: 2}}, pr.train, pr.train)
			return err
		},
		"no terms": func() error { _, err := NewOperator(base, nil, pr.train, pr.train); return err },
		"labels":   func() error { _, err := Fit(base, terms, pr.train, y[:3], 1, Options{}); return err },
		"nan label": func() error {
			z := append([]float64(nil), y...)
			z[2] = math.NaN()
			_, err := Fit(base, terms, pr.train, z, 1, Options{})
			return err
		},
		"lambda":      func() error { _, err := Fit(base, terms, pr.train, y, 0, Options{}); return err },
		"weights":     func() error { _, err := Kronecker.Terms([]float64{1}); return err },
		"no weights":  func() error { _, err := Sum.Terms(nil); return err },
		"inf weight":  func() error { _, err := Sum.Terms([]float64{math.Inf(1)}); return err },
		"kind":        func() error { _, err := ParseKind("kron"); return err },
		"base count":  func() error { _, err := Symmetric.Base(pr.ks, pr.gs, nil, nil); return err },
		"sum count":   func() error { _, err := Sum.Base(pr.ks, nil, nil, nil); return err },
		"delta map":   func() error { _, err := Cartesian.Base(pr.cks, pr.cgs, []int{0}, nil); return err },
		"delta range": func() error { _, err := Cartesian.Base(pr.cks, pr.cgs, []int{0, 1, 5}, nil); return err },
		"delta rect":  func() error { _, err := Cartesian.Base(pr.cks, pr.cgs, nil, nil); return err },
		"swap shape": func() error {
			// a swapped term on a heterogeneous problem: column objects index the 5 row-kernel columns? 4 < 5, so use 9 column objects
			k := []*mat.Dense{mat.NewDense(5, 5, nil), mat.NewDense(9, 9, nil)}
			p := Pairs{Rows: []int{0, 1}, Cols: []int{8, 2}}
			_, err := NewOperator(k, []Term{{Weight: 1, Row: 0, Col: 1, Swapped: true}}, p, p)
			return err
		},
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		} else if name != "lambda" && name != "nan label" && name != "kind" && name != "weights" && name != "no weights" && name != "inf weight" && !errors.Is(err, ErrShape) {
			t.Errorf("%s: %v does not wrap ErrShape", name, err)
		}
	}
}

// TestHalfConvention: the symmetric kernel written without ½ at λ gives the
// model of the named (½) kernel at λ/2 (Kind's doc): the same predictions,
// to the two fits' residual bound.
func TestHalfConvention(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 14))
	pr := newProblem(rng, Symmetric, 50, 8, 8, 10, 4, 4)
	y := randVec(rng, pr.train.Len())
	base := pr.base(t, false)
	half, err := Fit(base, pr.terms(t), pr.train, y, 0.25, Options{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Fit(base, []Term{{Weight: 1}, {Weight: 1, Swapped: true}}, pr.train, y, 0.5, Options{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := half.Predict(pr.base(t, true), pr.test)
	b, _ := whole.Predict(pr.base(t, true), pr.test)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-8 {
			t.Fatalf("prediction %d: %v with ½ at λ/2, %v without at λ", i, a[i], b[i])
		}
	}
}
