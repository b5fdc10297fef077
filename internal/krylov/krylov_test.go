package krylov

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

const eps = 0x1p-52

// spd returns A = Q diag(e) Qᵀ with a random orthogonal Q and the eigenvalues
// e log-spaced over [scale, scale·κ], so that κ(A) = κ (up to rounding).
func spd(rng *rand.Rand, n int, kappa, scale float64) *mat.SymDense {
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	e := make([]float64, n)
	for i := range e {
		t := 0.0
		if n > 1 {
			t = float64(i) / float64(n-1)
		}
		e[i] = scale * math.Pow(kappa, t)
	}
	var qe mat.Dense
	qe.Mul(&q, mat.NewDiagDense(n, e))
	var a mat.Dense
	a.Mul(&qe, q.T())
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// matOp is a dense matrix as an Operator, counting its applications.
type matOp struct {
	a     mat.Matrix
	calls int
}

func (o *matOp) Apply(dst, v []float64) {
	o.calls++
	n := len(v)
	mat.NewVecDense(n, dst).MulVec(o.a, mat.NewVecDense(n, v))
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// trueResidual returns ‖b − Ax‖/‖b‖.
func trueResidual(a mat.Matrix, b, x []float64) float64 {
	n := len(b)
	r := make([]float64, n)
	mat.NewVecDense(n, r).MulVec(a, mat.NewVecDense(n, x))
	floats.Sub(r, b)
	return floats.Norm(r, 2) / floats.Norm(b, 2)
}

// chebyshev is the iteration count after which the Chebyshev bound
// ‖r_k‖/‖b‖ ≤ √κ·‖e_k‖_A/‖e_0‖_A ≤ 2√κ·ρᵏ, ρ = (√κ−1)/(√κ+1), is below tol.
func chebyshev(kappa, tol float64) int {
	if kappa <= 1 {
		return 1
	}
	sk := math.Sqrt(kappa)
	rho := (sk - 1) / (sk + 1)
	return int(math.Ceil(math.Log(2*sk/tol) / math.Log(1/rho)))
}

// TestAgainstDirect solves random SPD systems of several sizes, condition
// numbers and scales and compares with a Cholesky solve x*. Since
// x − x* = −A⁻¹r, the stopping rule ‖r‖ ≤ Tol·‖b‖ gives
//
//	‖x − x*‖ ≤ κ·Tol·‖x*‖,
//
// (and ‖A(x − x*)‖ = ‖r‖ ≤ Tol·‖b‖ for the products), which is asserted with
// a rounding allowance γ = 16·n·ε·κ added to Tol: the
// residual the recurrence tracks drifts from b − Ax by O(k·ε·κ)‖b‖, and the
// direct solve has an error of O(n·ε·κ)‖x*‖. Also: the returned residual
// meets the rule, the true residual is within γ of it, and the iteration
// count is within the Chebyshev bound (+1), which exact-arithmetic CG meets
// and steepest descent (β = 0) does not.
func TestAgainstDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 40, 150} {
		for _, kappa := range []float64{1, 10, 1e3, 1e5} {
			for _, scale := range []float64{1e-4, 1, 1e6} {
				for _, tol := range []float64{0, 1e-5, 1e-12} {
					if n == 1 && kappa > 1 {
						continue
					}
					name := fmt.Sprintf("n=%d/kappa=%g/scale=%g/tol=%g", n, kappa, scale, tol)
					t.Run(name, func(t *testing.T) {
						a := spd(rng, n, kappa, scale)
						b := randVec(rng, n)
						var ch mat.Cholesky
						if !ch.Factorize(a) {
							t.Fatal("not positive definite")
						}
						xs := mat.NewVecDense(n, nil)
						if err := ch.SolveVecTo(xs, mat.NewVecDense(n, b)); err != nil {
							t.Fatal(err)
						}
						x := randVec(rng, n) // overwritten: the iteration starts from 0
						op := &matOp{a: a}
						// a cap above the Chebyshev bound (κ = 10⁵ needs more than the default 1000)
						res, err := Solve(op, b, x, Settings{Tol: tol, MaxIter: 100000}, nil)
						if err != nil {
							t.Fatal(err)
						}
						rule := tol
						if rule == 0 {
							rule = DefaultTol
						}
						if !res.Converged || res.Residual > rule || res.Stopped {
							t.Errorf("converged %v, residual %.3g (tol %g), stopped %v", res.Converged, res.Residual, rule, res.Stopped)
						}
						if op.calls != res.Iterations {
							t.Errorf("%d operator applications for %d iterations", op.calls, res.Iterations)
						}
						gamma := 16 * float64(n) * eps * kappa
						if tr := trueResidual(a, b, x); tr > res.Residual+gamma {
							t.Errorf("true residual %.3g, recurrence %.3g", tr, res.Residual)
						}
						var d mat.VecDense
						d.SubVec(mat.NewVecDense(n, x), xs)
						if e, bound := mat.Norm(&d, 2)/mat.Norm(xs, 2), kappa*(rule+gamma); e > bound {
							t.Errorf("relative error %.3g above κ·(Tol + γ) = %.3g", e, bound)
						}
						if c := chebyshev(kappa, rule); res.Iterations > c+1 {
							t.Errorf("%d iterations, the Chebyshev bound is %d", res.Iterations, c)
						}
					})
				}
			}
		}
	}
}

// recorded is a Recorder keeping copies of everything it is told.
type recorded struct {
	inits   int
	its     []Iteration // X and Direction copied
	stopAt  int         // return stopErr at this iteration (0: never)
	stopErr error
	initErr error
}

func (r *recorded) Init() error {
	r.inits++
	return r.initErr
}

func (r *recorded) Record(it Iteration) error {
	if r.inits != 1 {
		return fmt.Errorf("Record before Init (%d Init calls)", r.inits)
	}
	it.X = append([]float64(nil), it.X...)
	it.Direction = append([]float64(nil), it.Direction...)
	r.its = append(r.its, it)
	if it.K == r.stopAt {
		return r.stopErr
	}
	return nil
}

func TestRecorder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 30
	a := spd(rng, n, 1e3, 1)
	b := randVec(rng, n)

	// every iteration is recorded, the last (converged) one included
	rec := &recorded{}
	x := make([]float64, n)
	res, err := Solve(&matOp{a: a}, b, x, Settings{}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.inits != 1 || len(rec.its) != res.Iterations || res.Iterations < 2 {
		t.Fatalf("%d Init calls, %d records for %d iterations", rec.inits, len(rec.its), res.Iterations)
	}
	prev := make([]float64, n)
	for i, it := range rec.its {
		if it.K != i+1 {
			t.Fatalf("record %d has K = %d", i, it.K)
		}
		// x_K = x_{K−1} + Step·Direction, bit for bit
		for j := range prev {
			if want := prev[j] + it.Step*it.Direction[j]; it.X[j] != want {
				t.Fatalf("iteration %d: x[%d] = %v, x_{K−1} + Step·Direction = %v", it.K, j, it.X[j], want)
			}
		}
		if tr := trueResidual(a, b, it.X); math.Abs(tr-it.Residual) > 1e-9 {
			t.Errorf("iteration %d: residual %.6g, true %.6g", it.K, it.Residual, tr)
		}
		// the stopping rule: no earlier stop
		if last := i == len(rec.its)-1; last != (it.Residual <= DefaultTol) {
			t.Errorf("iteration %d of %d: residual %.3g", it.K, res.Iterations, it.Residual)
		}
		prev = it.X
	}
	if !floats.Equal(prev, x) || rec.its[len(rec.its)-1].Residual != res.Residual {
		t.Error("the last record is not the result")
	}

	// ErrStop (also wrapped) ends the iteration cleanly at the recorded iterate,
	// the one a run capped there returns
	for _, stopErr := range []error{ErrStop, fmt.Errorf("enough: %w", ErrStop)} {
		const stopAt = 4
		rec := &recorded{stopAt: stopAt, stopErr: stopErr}
		xs := make([]float64, n)
		res, err := Solve(&matOp{a: a}, b, xs, Settings{}, rec)
		if err != nil || !res.Stopped || res.Converged || res.Iterations != stopAt || len(rec.its) != stopAt {
			t.Fatalf("%v: %+v %v after %d records", stopErr, res, err, len(rec.its))
		}
		xc := make([]float64, n)
		capped, _ := Solve(&matOp{a: a}, b, xc, Settings{MaxIter: stopAt}, nil)
		if !floats.Equal(xs, xc) || !floats.Equal(xs, rec.its[stopAt-1].X) || capped.Residual != res.Residual || capped.Stopped {
			t.Errorf("stopped iterate differs from the capped run's (%+v)", capped)
		}
	}

	// any other error aborts and is returned as is
	boom := errors.New("boom")
	rec = &recorded{stopAt: 3, stopErr: boom}
	res, err = Solve(&matOp{a: a}, b, make([]float64, n), Settings{}, rec)
	if err != boom || res.Iterations != 3 || res.Stopped || len(rec.its) != 3 {
		t.Errorf("recorder error: %+v %v after %d records", res, err, len(rec.its))
	}
	op := &matOp{a: a}
	rec = &recorded{initErr: boom}
	res, err = Solve(op, b, make([]float64, n), Settings{}, rec)
	if err != boom || res.Iterations != 0 || len(rec.its) != 0 || op.calls != 0 {
		t.Errorf("Init error: %+v %v, %d records, %d applications", res, err, len(rec.its), op.calls)
	}

	// RecordFunc: a progress report
	var ks []int
	res, err = Solve(&matOp{a: a}, b, make([]float64, n), Settings{Tol: 1e-4},
		RecordFunc(func(it Iteration) error { ks = append(ks, it.K); return nil }))
	if err != nil || len(ks) != res.Iterations || ks[len(ks)-1] != res.Iterations {
		t.Errorf("progress %v for %+v %v", ks, res, err)
	}
}

func TestZeroRightHandSide(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		rng := rand.New(rand.NewPCG(5, uint64(n)))
		x := randVec(rng, n) // overwritten with the solution 0
		op := &matOp{a: mat.NewDiagDense(max(n, 1), nil)}
		rec := &recorded{}
		res, err := Solve(op, make([]float64, n), x, Settings{}, rec)
		if err != nil || res != (Result{Converged: true}) {
			t.Errorf("n = %d: %+v %v", n, res, err)
		}
		if floats.Norm(x, 2) != 0 || op.calls != 0 || rec.inits != 1 || len(rec.its) != 0 {
			t.Errorf("n = %d: x = %v, %d applications, %d inits, %d records", n, x, op.calls, rec.inits, len(rec.its))
		}
	}
}

// TestNotPositiveDefinite: a direction with pᵀAp ≤ 0 is an error at once,
// even with an iteration cap that would otherwise take long to reach. A
// singular A whose null space b meets has pᵀAp > 0 until the iterate
// overflows: a non-finite error, after a few tens of iterations.
func TestNotPositiveDefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	neg := spd(rng, 20, 10, 1)
	neg.ScaleSym(-1, neg)
	cases := []struct {
		name string
		a    mat.Matrix
		b    []float64
		want error
		iter int // completed iterations before the failing one (-1: fewer than 100)
	}{
		{"negative definite", neg, randVec(rng, 20), ErrIndefinite, 0},
		{"indefinite, found at the second step", mat.NewDiagDense(2, []float64{2, -1}), []float64{1, 1}, ErrIndefinite, 1},
		{"zero: semidefinite, b not in the range", mat.NewDiagDense(3, nil), []float64{1, 2, 3}, ErrIndefinite, 0},
		{"singular, b not in the range", mat.NewDiagDense(3, []float64{1, 2, 0}), []float64{1, 1, 1}, ErrNonFinite, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := make([]float64, len(c.b))
			res, err := Solve(&matOp{a: c.a}, c.b, x, Settings{Tol: 1e-300, MaxIter: 1 << 20}, nil)
			if !errors.Is(err, c.want) || res.Converged || (c.iter >= 0 && res.Iterations != c.iter) || res.Iterations >= 100 {
				t.Errorf("%+v %v, want %v after %d iterations", res, err, c.want, c.iter)
			}
		})
	}
	// NaN from the operator, and a non-finite right-hand side
	nan := OperatorFunc(func(dst, v []float64) {
		for i := range dst {
			dst[i] = math.NaN()
		}
	})
	if _, err := Solve(nan, []float64{1, 2}, make([]float64, 2), Settings{MaxIter: 1 << 20}, nil); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN operator: %v", err)
	}
	for _, bad := range []float64{math.Inf(1), math.NaN()} {
		op := &matOp{a: mat.NewDiagDense(2, []float64{1, 1})}
		if _, err := Solve(op, []float64{1, bad}, make([]float64, 2), Settings{}, nil); !errors.Is(err, ErrNonFinite) || op.calls != 0 {
			t.Errorf("b with %v: %v after %d applications", bad, err, op.calls)
		}
	}
}

func TestSettings(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	a := spd(rng, 10, 100, 1)
	b := randVec(rng, 10)
	for _, s := range []Settings{{Tol: -1e-6}, {Tol: math.NaN()}, {Tol: math.Inf(1)}, {MaxIter: -1}} {
		if _, err := Solve(&matOp{a: a}, b, make([]float64, 10), s, nil); !errors.Is(err, ErrSettings) {
			t.Errorf("%+v: %v", s, err)
		}
	}
	// the zero Settings are the defaults
	x0, x1 := make([]float64, 10), make([]float64, 10)
	r0, _ := Solve(&matOp{a: a}, b, x0, Settings{}, nil)
	r1, _ := Solve(&matOp{a: a}, b, x1, Settings{Tol: DefaultTol, MaxIter: DefaultMaxIter}, nil)
	if r0 != r1 || !floats.Equal(x0, x1) || r0.Residual > 1e-10 || r0.Residual < 1e-16 {
		t.Errorf("zero settings %+v, defaults %+v", r0, r1)
	}
	// the iteration cap: the default, and a given one
	const n = 400
	e := make([]float64, n)
	for i := range e {
		e[i] = math.Pow(1e10, float64(i)/(n-1))
	}
	slow := mat.NewDiagDense(n, e)
	res, err := Solve(&matOp{a: slow}, randVec(rng, n), make([]float64, n), Settings{Tol: 1e-300}, nil)
	if err != nil || res.Iterations != DefaultMaxIter || res.Converged || !(res.Residual > 1e-300) {
		t.Errorf("default cap: %+v %v", res, err)
	}
	res, err = Solve(&matOp{a: a}, b, make([]float64, 10), Settings{MaxIter: 3}, nil)
	if err != nil || res.Iterations != 3 || res.Converged || !(res.Residual > DefaultTol) {
		t.Errorf("cap 3: %+v %v", res, err)
	}
	if DefaultTol != 1e-10 || DefaultMaxIter != 1000 {
		t.Errorf("defaults %g, %d: update the documentation of package cg, pairwise.CGOptions and the CLI", DefaultTol, DefaultMaxIter)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for len(x) ≠ len(b)")
		}
	}()
	Solve(&matOp{a: a}, b, make([]float64, 9), Settings{}, nil)
}

// A 2×2 system: CG ends in at most n = 2 iterations.
func ExampleSolve() {
	a := OperatorFunc(func(dst, v []float64) { // A = [4 1; 1 3]
		dst[0] = 4*v[0] + v[1]
		dst[1] = v[0] + 3*v[1]
	})
	b := []float64{1, 2}
	x := make([]float64, 2)
	res, err := Solve(a, b, x, Settings{}, RecordFunc(func(it Iteration) error {
		fmt.Printf("iteration %d: relative residual %.2g\n", it.K, it.Residual)
		return nil
	}))
	if err != nil {
		panic(err)
	}
	fmt.Printf("x = (%.4f, %.4f), converged %v\n", x[0], x[1], res.Converged)
	// Output:
	// iteration 1: relative residual 0.25
	// iteration 2: relative residual 0
	// x = (0.0909, 0.6364), converged true
}
