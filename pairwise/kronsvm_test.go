package pairwise

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// svmCase is fresh incomplete pair data: m×d row and q×e column features,
// n distinct pairs with ±1 labels from a bilinear rule with 10% flipped.
type svmCase struct {
	x, z  *mat.Dense
	pairs []Pair
	y     []float64
}

func randSVMCase(seed uint64, m, d, q, e, n int) svmCase {
	rng := rand.New(rand.NewPCG(seed, 25))
	draw := func(r, c int) *mat.Dense {
		a := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		return a
	}
	c := svmCase{x: draw(m, d), z: draw(q, e)}
	for _, k := range rng.Perm(m * q)[:n] {
		p := Pair{k / q, k % q}
		s := c.x.At(p.Row, 0)*c.z.At(p.Col, 0) + 0.5*c.x.At(p.Row, d-1)*c.z.At(p.Col, e-1)
		y := 1.0
		if s < 0 {
			y = -1
		}
		if rng.Float64() < 0.1 {
			y = -y
		}
		c.pairs, c.y = append(c.pairs, p), append(c.y, y)
	}
	return c
}

func svmSides(t testing.TB, c svmCase, k kernel.Kernel) (*Side, *Side) {
	t.Helper()
	rows, err := NewSide(c.x, k, false)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := NewSide(c.z, k, false)
	if err != nil {
		t.Fatal(err)
	}
	return rows, cols
}

// denseKron forms the n×n pairwise kernel 𝕂[h, h'] = K[r_h, r_h']·G[c_h, c_h'].
func denseKron(k, g *mat.Dense, pairs []Pair) *mat.Dense {
	n := len(pairs)
	out := mat.NewDense(n, n, nil)
	for i, p := range pairs {
		for j, p2 := range pairs {
			out.Set(i, j, k.At(p.Row, p2.Row)*g.At(p.Col, p2.Col))
		}
	}
	return out
}

// svmObjective is J(a) = ½(Σ max(0, 1 − y f)² + λ aᵀ𝕂a), f = 𝕂a, densely.
func svmObjective(kk *mat.Dense, y, a []float64, lambda float64) float64 {
	n := len(a)
	f := mat.NewVecDense(n, nil)
	f.MulVec(kk, mat.NewVecDense(n, a))
	return 0.5 * (hingeSquared(y, f.RawVector().Data) + lambda*dot(a, f.RawVector().Data))
}

// TestKronSVMBrute checks the dual solution against the explicit n×n
// pairwise kernel matrix: the training predictions equal 𝕂a formed densely,
// the optimality conditions hold densely — a_h = 0 outside the margin,
// f_h − y_h + λa_h = 0 inside it (so the gradient 𝕂(D(f − y) + λa)
// vanishes) — and no random perturbation of a lowers the objective
// J evaluated densely. Gaussian and linear kernels, λ from 1e-2 to 10.
func TestKronSVMBrute(t *testing.T) {
	for ci, tc := range []struct {
		c      svmCase
		k      kernel.Kernel
		lambda float64
	}{
		{randSVMCase(1, 7, 3, 6, 2, 25), kernel.Gaussian{Gamma: 0.5}, 1},
		{randSVMCase(2, 9, 4, 5, 3, 30), kernel.Gaussian{Gamma: 0.2}, 0.01},
		{randSVMCase(3, 6, 2, 8, 4, 20), kernel.Linear{Bias: 1}, 10},
		{randSVMCase(4, 10, 3, 10, 3, 100), kernel.Gaussian{Gamma: 1}, 0.1},
		{randSVMCase(11, 12, 2, 10, 2, 80), kernel.Gaussian{Gamma: 2}, 0.001},
		// full Newton steps cycle here between margin sets (RLScore's
		// iteration ends at J = 10.879); the line search reaches 10.802
		{randSVMCase(7, 15, 2, 6, 12, 50), kernel.Linear{}, 0.01},
	} {
		rows, cols := svmSides(t, tc.c, tc.k)
		s, err := FitKronSVM(rows, cols, tc.c.pairs, tc.c.y)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Solve(tc.lambda, SVMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged {
			t.Fatalf("case %d: not converged in %d Newton steps", ci, r.NewtonSteps)
		}
		kk := denseKron(rows.Matrix(), cols.Matrix(), tc.c.pairs)
		n := len(tc.c.y)
		fd := mat.NewVecDense(n, nil)
		fd.MulVec(kk, mat.NewVecDense(n, r.Coef))
		f := r.Fitted()
		scale := mat.Norm(kk, math.Inf(1)) * math.Max(1, floatsMaxAbs(r.Coef))
		worst, kkt := 0.0, 0.0
		for h := range n {
			worst = math.Max(worst, math.Abs(f[h]-fd.AtVec(h)))
			m := tc.c.y[h] * fd.AtVec(h)
			switch {
			case m < 1-1e-9:
				kkt = math.Max(kkt, math.Abs(fd.AtVec(h)-tc.c.y[h]+tc.lambda*r.Coef[h]))
			case m > 1+1e-9: // the residual's component λa_h
				kkt = math.Max(kkt, math.Abs(tc.lambda*r.Coef[h]))
			}
		}
		if worst > 1e-12*scale {
			t.Errorf("case %d: vec-trick predictions differ from the dense 𝕂a by %.3g", ci, worst)
		}
		if kkt > 1e-8 {
			t.Errorf("case %d: optimality condition violated by %.3g", ci, kkt)
		}
		j := svmObjective(kk, tc.c.y, r.Coef, tc.lambda)
		if math.Abs(j-r.Objective) > 1e-10*math.Max(1, j) {
			t.Errorf("case %d: objective %v, dense %v", ci, r.Objective, j)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 7))
		for range 50 {
			a2 := append([]float64(nil), r.Coef...)
			for h := range a2 {
				a2[h] += 1e-4 * rng.NormFloat64()
			}
			if j2 := svmObjective(kk, tc.c.y, a2, tc.lambda); j2 < j-1e-12*math.Max(1, j) {
				t.Fatalf("case %d: a perturbed a lowers the objective: %v < %v", ci, j2, j)
			}
		}
		t.Logf("case %d: %d Newton steps, %d CG iterations, %d of %d pairs inside the margin, KKT %.2g",
			ci, r.NewtonSteps, r.CGIterations, r.SupportVectors, n, kkt)
	}
}

func floatsMaxAbs(a []float64) float64 {
	m := 0.0
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// TestKronSVMLinearEqualsDual: the primal form on features X, Z and the
// dual form with the linear kernels XXᵀ, ZZᵀ minimize the same objective,
// so their predictions — on the training pairs and on pairs of new objects
// through the dual's model — agree to 1e-8, and the primal's optimality
// condition Φ_Sᵀ(f_S − y_S) + λw = 0 holds (W = Σ_h a_h x z ᵀ with its a).
// Both vec-trick orders are used (d·e small and large against m, q).
func TestKronSVMLinearEqualsDual(t *testing.T) {
	for ci, tc := range []struct {
		c      svmCase
		lambda float64
	}{
		{randSVMCase(5, 12, 3, 9, 4, 60), 0.1},
		{randSVMCase(6, 5, 20, 14, 2, 40), 1},
		{randSVMCase(7, 15, 2, 6, 12, 50), 0.01},
	} {
		c := tc.c
		lin, err := FitKronSVMLinear(c.x, c.z, c.pairs, c.y)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := lin.Solve(tc.lambda, SVMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rows, cols := svmSides(t, c, kernel.Linear{})
		s, err := FitKronSVM(rows, cols, c.pairs, c.y)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := s.Solve(tc.lambda, SVMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !rp.Converged || !rd.Converged {
			t.Fatalf("case %d: converged primal %v dual %v", ci, rp.Converged, rd.Converged)
		}
		if d := maxRel(rp.Fitted(), rd.Fitted()); d > 1e-8 {
			t.Errorf("case %d: training predictions differ by %.3g", ci, d)
		}
		if d := math.Abs(rp.Objective-rd.Objective) / rd.Objective; d > 1e-10 {
			t.Errorf("case %d: objectives %v and %v", ci, rp.Objective, rd.Objective)
		}
		// W from the primal's dual coefficients
		_, dd := c.x.Dims()
		_, e := c.z.Dims()
		w := mat.NewDense(dd, e, nil)
		for h, p := range c.pairs {
			var o mat.Dense
			o.Outer(rp.Coef[h], mat.NewVecDense(dd, c.x.RawRowView(p.Row)), mat.NewVecDense(e, c.z.RawRowView(p.Col)))
			w.Add(w, &o)
		}
		// W − Σ a x zᵀ = (Φ_Sᵀ(f_S − y_S) + λw)/λ, the optimality residual
		// over λ: at most Tol·‖Φ_Sᵀy_S‖/λ ≈ 1e-10·10/0.01 relative here
		if d := relDiff(w, rp.W); d > 1e-6 {
			t.Errorf("case %d: W differs from Σ a x zᵀ by %.3g", ci, d)
		}
		// new objects
		nc := randSVMCase(uint64(100+ci), 4, dd, 5, e, 20)
		var ri, cj []int
		for _, p := range nc.pairs {
			ri, cj = append(ri, p.Row), append(cj, p.Col)
		}
		pp, err := rp.PredictLinear(nc.x, nc.z, ri, cj)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := rd.PairModel().Predict(nc.x, nc.z, ri, cj)
		if err != nil {
			t.Fatal(err)
		}
		// each form's predictions are within about Tol·‖y‖/λ of the
		// optimum's (its optimality residual over λ): 100·Tol/λ
		if d := maxRel(pp, pd); d > 1e-8/tc.lambda {
			t.Errorf("case %d: new pairs' predictions differ by %.3g", ci, d)
		}
	}
}

// TestSampledKronOrders: both orders of the generalized vec trick equal the
// dense product (G ⊗ K)[S_out, S_in] v on arbitrary index lists (repeated
// pairs, outputs not among the inputs).
func TestSampledKronOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	c := randSVMCase(9, 8, 3, 11, 3, 40)
	rows, cols := svmSides(t, c, kernel.Gaussian{Gamma: 0.3})
	vk := newSampledKron(rows.Matrix(), cols.Matrix())
	for _, sizes := range [][2]int{{3, 70}, {70, 3}, {40, 40}} {
		in, out := make([]Pair, sizes[0]), make([]Pair, sizes[1])
		v := make([]float64, sizes[0])
		for i := range in {
			in[i], v[i] = Pair{rng.IntN(8), rng.IntN(11)}, rng.NormFloat64()
		}
		for i := range out {
			out[i] = Pair{rng.IntN(8), rng.IntN(11)}
		}
		got := make([]float64, len(out))
		vk.mul(in, v, out, got)
		for o, po := range out {
			want := 0.0
			for p, pi := range in {
				want += rows.Matrix().At(po.Row, pi.Row) * cols.Matrix().At(po.Col, pi.Col) * v[p]
			}
			if math.Abs(got[o]-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("sizes %v: out[%d] = %v, dense %v", sizes, o, got[o], want)
			}
		}
	}
}

// TestKronSVMRefusals: labels other than ±1, bad settings, bad shapes and
// pairs are errors naming the reason, never panics.
func TestKronSVMRefusals(t *testing.T) {
	c := randSVMCase(10, 5, 2, 4, 2, 10)
	rows, cols := svmSides(t, c, kernel.Linear{})
	y := append([]float64(nil), c.y...)
	y[3] = 0.5
	if _, err := FitKronSVM(rows, cols, c.pairs, y); !errors.Is(err, ErrLabel) {
		t.Errorf("label 0.5: %v", err)
	}
	if _, err := FitKronSVMLinear(c.x, c.z, c.pairs, y); !errors.Is(err, ErrLabel) {
		t.Errorf("linear, label 0.5: %v", err)
	}
	y[3] = math.NaN()
	if _, err := FitKronSVM(rows, cols, c.pairs, y); !errors.Is(err, ErrLabel) {
		t.Errorf("label NaN: %v", err)
	}
	if _, err := FitKronSVM(rows, nil, c.pairs, c.y); err == nil {
		t.Error("no column side accepted")
	}
	bad := append([]Pair(nil), c.pairs...)
	bad[0] = Pair{5, 0}
	if _, err := FitKronSVM(rows, cols, bad, c.y); !errors.Is(err, ErrPair) {
		t.Errorf("pair outside: %v", err)
	}
	bad[0] = c.pairs[1]
	if _, err := FitKronSVMLinear(c.x, c.z, bad, c.y); !errors.Is(err, ErrPair) {
		t.Errorf("repeated pair: %v", err)
	}
	s, err := FitKronSVM(rows, cols, c.pairs, c.y)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := s.Solve(l, SVMOptions{}); err == nil {
			t.Errorf("λ = %v accepted", l)
		}
	}
	for _, o := range []SVMOptions{{NewtonSteps: -1}, {MaxIter: -2}, {Tol: -1}, {Tol: math.Inf(1)}} {
		if _, err := s.Solve(1, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	x := mat.DenseCopyOf(c.x)
	x.Set(0, 0, math.Inf(1))
	if _, err := FitKronSVMLinear(x, c.z, c.pairs, c.y); err == nil {
		t.Error("infinite feature accepted")
	}
	r, err := s.Solve(1, SVMOptions{NewtonSteps: 1})
	if err != nil || r.NewtonSteps != 1 || r.Converged {
		t.Errorf("one Newton step: %+v, %v", r, err)
	}
	if _, err := r.PredictLinear(c.x, c.z, []int{0}, []int{0}); err == nil {
		t.Error("a dual result predicted as linear")
	}
}

// TestKronSVMLineSearch: when a pair crosses the margin on (0, 1], the
// exact line search's t minimizes the piecewise quadratic
// φ(t) = ½Σ max(0, 1 − y(f + t·df))² + λ(t·c0 + ½t²c2) — no point of a fine
// grid on [0, 2t + 1] is lower — and otherwise it is the full step, 1; on
// random directions with many margin crossings.
func TestKronSVMLineSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for trial := range 200 {
		n := 1 + rng.IntN(30)
		y, f, df := make([]float64, n), make([]float64, n), make([]float64, n)
		for h := range n {
			y[h] = float64(2*rng.IntN(2) - 1)
			f[h], df[h] = 2*rng.NormFloat64(), 4*rng.NormFloat64()
		}
		lambda, c2 := 0.1+rng.Float64(), 0.1+rng.Float64()
		c0 := rng.NormFloat64()
		phi := func(s float64) float64 {
			v := 0.0
			for h := range y {
				if z := 1 - y[h]*(f[h]+s*df[h]); z > 0 {
					v += z * z
				}
			}
			return v/2 + lambda*(s*c0+s*s*c2/2)
		}
		ts := lineSearch(y, f, df, lambda, c0, c2)
		crosses := false // a pair crosses the margin on (0, 1]
		for h := range y {
			if v := y[h] * df[h]; v != 0 {
				if th := (1 - y[h]*f[h]) / v; th > 0 && th <= 1 {
					crosses = true
				}
			}
		}
		if !crosses {
			if ts != 1 {
				t.Fatalf("trial %d: no pair crosses the margin on (0, 1], t = %v", trial, ts)
			}
			continue
		}
		best := phi(ts)
		hi := 2*ts + 1
		for i := 0; i <= 4000; i++ {
			s := hi * float64(i) / 4000
			if p := phi(s); p < best-1e-12*math.Max(1, math.Abs(best)) {
				t.Fatalf("trial %d: φ(%v) = %v < φ(t = %v) = %v", trial, s, p, ts, best)
			}
		}
	}
}

// TestKronSVMStopsAtTol: at a loose tolerance the returned solution's
// optimality residual ‖D_S(f − y) + λa‖/‖y‖, formed densely, is within the
// tolerance (twice, for the recurrence's rounding), and Residual reports it.
func TestKronSVMStopsAtTol(t *testing.T) {
	for ci, c := range []svmCase{randSVMCase(13, 12, 2, 10, 2, 80), randSVMCase(14, 20, 3, 9, 2, 120)} {
		rows, cols := svmSides(t, c, kernel.Gaussian{Gamma: 2})
		s, err := FitKronSVM(rows, cols, c.pairs, c.y)
		if err != nil {
			t.Fatal(err)
		}
		const tol, lambda = 1e-5, 0.01
		r, err := s.Solve(lambda, SVMOptions{Tol: tol})
		if err != nil || !r.Converged {
			t.Fatalf("case %d: %v", ci, err)
		}
		kk := denseKron(rows.Matrix(), cols.Matrix(), c.pairs)
		n := len(c.y)
		fd := mat.NewVecDense(n, nil)
		fd.MulVec(kk, mat.NewVecDense(n, r.Coef))
		res := 0.0
		for h := range n {
			d := lambda * r.Coef[h]
			if c.y[h]*fd.AtVec(h) < 1 {
				d += fd.AtVec(h) - c.y[h]
			}
			res += d * d
		}
		res = math.Sqrt(res / float64(n))
		if res > 2*tol || math.Abs(res-r.Residual) > 1e-3*tol {
			t.Errorf("case %d: dense residual %.3g, reported %.3g, tolerance %g", ci, res, r.Residual, tol)
		}
	}
}

// TestKronSVMMonotone: each Newton step lowers the objective (the line
// search is exact on the objective, so it never rises; the full steps
// alone do not have this property) — on data where full steps cycle and
// where many pairs cross the margin, dual and primal.
func TestKronSVMMonotone(t *testing.T) {
	for ci, c := range []svmCase{randSVMCase(7, 15, 2, 6, 12, 50), randSVMCase(11, 12, 2, 10, 2, 80)} {
		rows, cols := svmSides(t, c, kernel.Linear{})
		s, err := FitKronSVM(rows, cols, c.pairs, c.y)
		if err != nil {
			t.Fatal(err)
		}
		l, err := FitKronSVMLinear(c.x, c.z, c.pairs, c.y)
		if err != nil {
			t.Fatal(err)
		}
		for _, lambda := range []float64{0.01, 3, 30} {
			prevD, prevP := math.Inf(1), math.Inf(1)
			for k := 1; k <= 10; k++ {
				rd, err := s.Solve(lambda, SVMOptions{NewtonSteps: k})
				if err != nil {
					t.Fatal(err)
				}
				rp, err := l.Solve(lambda, SVMOptions{NewtonSteps: k})
				if err != nil {
					t.Fatal(err)
				}
				if rd.Objective > prevD*(1+1e-12) || rp.Objective > prevP*(1+1e-12) {
					t.Fatalf("case %d, λ %v: step %d raises the objective: dual %v → %v, primal %v → %v", ci, lambda, k, prevD, rd.Objective, prevP, rp.Objective)
				}
				prevD, prevP = rd.Objective, rp.Objective
			}
		}
	}
}
