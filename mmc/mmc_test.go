package mmc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rls"
)

// randData draws m rows of d standard normal features around c centres.
func randData(m, d, c int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64()+3*float64((i%c+j)%c))
		}
	}
	return x
}

// naiveObjective is J (1) by retraining: λ Σ_c y_cᵀ(K + λI)⁻¹y_c with the
// explicit kernel matrix K and a fresh solve. O(m³).
func naiveObjective(t *testing.T, k *mat.Dense, lambda float64, labels []int, c int) float64 {
	t.Helper()
	m, _ := k.Dims()
	a := mat.DenseCopyOf(k)
	for i := 0; i < m; i++ {
		a.Set(i, i, a.At(i, i)+lambda)
	}
	y := mat.NewDense(m, c, nil)
	for i, l := range labels {
		for b := 0; b < c; b++ {
			y.Set(i, b, -1)
		}
		y.Set(i, l, 1)
	}
	var sol mat.Dense
	if err := sol.Solve(a, y); err != nil {
		t.Fatal(err)
	}
	j := 0.0
	for i := 0; i < m; i++ {
		for b := 0; b < c; b++ {
			j += y.At(i, b) * sol.At(i, b)
		}
	}
	return lambda * j
}

// effectiveKernel is the kernel matrix the factor represents: U diag(E) Uᵀ
// is K for Dual; for the low-rank forms it is built from the data (X̃X̃ᵀ,
// or K_{·B} K_BB⁺ K_{B·}) so that the factor is checked too.
func effectiveKernel(t *testing.T, x *mat.Dense, k kernel.Kernel, basis []int) *mat.Dense {
	t.Helper()
	km, err := k.Block(x, k.Points(x))
	if err != nil {
		t.Fatal(err)
	}
	if basis == nil {
		return km
	}
	m, _ := km.Dims()
	n := len(basis)
	kmb, kbb := mat.NewDense(m, n, nil), mat.NewDense(n, n, nil)
	for i := 0; i < m; i++ {
		for j, b := range basis {
			kmb.Set(i, j, km.At(i, b))
		}
	}
	for i, a := range basis {
		for j, b := range basis {
			kbb.Set(i, j, km.At(a, b))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(kbb); err != nil {
		t.Fatal(err)
	}
	var tmp, out mat.Dense
	tmp.Mul(kmb, &inv)
	out.Mul(&tmp, kmb.T())
	return &out
}

type setup struct {
	name  string
	k     kernel.Kernel
	req   factor.Request
	basis []int
}

func setups() []setup {
	return []setup{
		{"gaussian dual", kernel.Gaussian{Gamma: 0.3}, factor.Request{Form: factor.Dual}, nil},
		{"linear", kernel.Linear{Bias: 1}, factor.Request{Form: factor.Linear}, nil},
		{"gaussian sparse", kernel.Gaussian{Gamma: 0.3}, factor.Request{Form: factor.Sparse, Basis: []int{0, 3, 5, 8, 13, 17, 20, 22}}, []int{0, 3, 5, 8, 13, 17, 20, 22}},
	}
}

// TestMoveEqualsRetraining: every candidate move's ΔJ by (2) equals the
// difference of the retrained objectives, and after each move the kept W,
// RY, diag R and J equal those of a fresh setup — with R stored and
// without, on the dual, linear and sparse factors.
func TestMoveEqualsRetraining(t *testing.T) {
	const m, c, lambda = 24, 3, 0.7
	x := randData(m, 3, c, 5)
	for _, s := range setups() {
		d, err := factor.Build(x, s.k, s.req)
		if err != nil {
			t.Fatal(err)
		}
		kk := effectiveKernel(t, x, s.k, s.basis)
		g := Gains(d.E, lambda)
		kr, err := KernelR(kk, lambda)
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"factor", "U diag(g) Uᵀ", "Cholesky", "lazy"} {
			var st *state
			switch how {
			case "lazy":
				st = newLazyState(d.U, g, RandomLabels(m, c, 7, 0), c)
			case "factor":
				st = newState(d.U, g, nil, RandomLabels(m, c, 7, 0), c)
			case "U diag(g) Uᵀ":
				st = newState(nil, nil, FactorR(d.Factor, g), RandomLabels(m, c, 7, 0), c)
			default:
				st = newState(nil, nil, kr, RandomLabels(m, c, 7, 0), c)
			}
			dense := how
			rng := rand.New(rand.NewPCG(11, 2))
			for step := 0; step < 12; step++ {
				j0 := naiveObjective(t, kk, lambda, st.y, c)
				scale := math.Max(1, math.Abs(j0))
				// bound: J is a sum of m·c terms, each computed to a few ulps of m·c·scale
				tol := 1e-11 * float64(m*c) * scale
				if got := st.objective(); math.Abs(got-j0) > tol {
					t.Fatalf("%s R by %s step %d: J = %v, retrained %v", s.name, dense, step, got, j0)
				}
				for i := 0; i < m; i++ {
					for b := 0; b < c; b++ {
						if b == st.y[i] {
							continue
						}
						lab := append([]int(nil), st.y...)
						lab[i] = b
						want := naiveObjective(t, kk, lambda, lab, c) - j0
						if got := 4 * st.delta(i, b); math.Abs(got-want) > tol {
							t.Fatalf("%s R by %s step %d: ΔJ(%d→%d) = %v, retrained %v", s.name, dense, step, i, b, got, want)
						}
					}
				}
				i := rng.IntN(m)
				b := (st.y[i] + 1 + rng.IntN(c-1)) % c
				st.move(i, b)
				if st.lazy {
					fresh := newLazyState(d.U, g, st.y, c)
					for k := range st.w {
						if math.Abs(st.w[k]-fresh.w[k]) > tol {
							t.Fatalf("%s step %d: W[%d] = %v, fresh %v", s.name, step, k, st.w[k], fresh.w[k])
						}
					}
					continue
				}
				fresh := newState(d.U, g, nil, st.y, c)
				for k := range st.ry {
					if math.Abs(st.ry[k]-fresh.ry[k]) > tol {
						t.Fatalf("%s R by %s step %d: RY[%d] = %v, fresh %v", s.name, dense, step, k, st.ry[k], fresh.ry[k])
					}
				}
				for b := 0; b < c; b++ {
					if st.counts[b] != fresh.counts[b] {
						t.Fatalf("%s R by %s step %d: counts %v, fresh %v", s.name, dense, step, st.counts, fresh.counts)
					}
				}
			}
		}
	}
}

// naiveRotate is the search of the package comment written from its
// definition: every claim evaluates J (1) by retraining for each candidate
// row and takes the lowest, the lower index on ties. O(m⁴·c) per claim.
func naiveRotate(t *testing.T, k *mat.Dense, lambda float64, labels []int, c, rounds int) []int {
	y := append([]int(nil), labels...)
	m := len(y)
	counts := make([]int, c)
	for _, a := range y {
		counts[a]++
	}
	for r := 0; r < rounds; r++ {
		h := int(float64(m) / float64(c) / math.Pow(2, float64(r)))
		for b := 0; b < c; b++ {
			for n := m/c - counts[b] + h; n > 0; n-- {
				best, bi := math.Inf(1), -1
				for i := range y {
					if y[i] == b {
						continue
					}
					lab := append([]int(nil), y...)
					lab[i] = b
					if j := naiveObjective(t, k, lambda, lab, c); j < best {
						best, bi = j, i
					}
				}
				counts[y[bi]]--
				counts[b]++
				y[bi] = b
			}
		}
	}
	return y
}

// TestSearchEqualsNaiveSearch: the search with the exact moves ends at the
// labelling of the search that retrains for every candidate, on the dual
// (Cholesky), linear and sparse forms, from several starts.
func TestSearchEqualsNaiveSearch(t *testing.T) {
	const m, c, lambda, rounds = 18, 3, 0.4, 6
	x := randData(m, 2, c, 9)
	forms := []struct {
		name  string
		o     learn.Options
		basis []int
	}{
		{"dual", learn.Options{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Dual}, nil},
		{"linear", learn.Options{Kernel: kernel.Linear{Bias: 1}, Form: learn.Linear}, nil},
		{"sparse", learn.Options{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Sparse, Basis: []int{1, 4, 6, 9, 12, 15}}, []int{1, 4, 6, 9, 12, 15}},
	}
	for _, f := range forms {
		kk := effectiveKernel(t, x, f.o.Kernel, f.basis)
		for s := uint64(0); s < 3; s++ {
			init := RandomLabels(m, c, 21, s)
			l, err := Fit(x, f.o, Options{Clusters: c, Init: init, Rounds: rounds})
			if err != nil {
				t.Fatal(err)
			}
			sol, err := l.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveRotate(t, kk, lambda, init, c, rounds)
			for i := range want {
				if sol.Labels[i] != want[i] {
					t.Fatalf("%s start %d: labels %v, naive search %v", f.name, s, sol.Labels, want)
				}
			}
			j := naiveObjective(t, kk, lambda, want, c)
			if math.Abs(sol.Objective-j) > 1e-10*float64(m*c)*math.Max(1, j) {
				t.Fatalf("%s start %d: J = %v, retrained %v", f.name, s, sol.Objective, j)
			}
		}
	}
}

// TestPredictorIsRLS: the model of a clustering is the one-versus-all RLS
// model of its labels — its predictions on new rows equal package rls's
// trained on the labelling (dual, linear and sparse forms) — and each
// row's predicted cluster is the argmax output.
func TestPredictorIsRLS(t *testing.T) {
	const m, c, lambda = 30, 3, 0.8
	x := randData(m, 3, c, 13)
	xn := randData(12, 3, c, 14)
	for _, o := range []learn.Options{
		{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Dual},
		{Kernel: kernel.Linear{Bias: 1}, Form: learn.Linear},
		{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Sparse, Basis: []int{0, 2, 5, 7, 11, 19, 23, 29}},
		{Kernel: kernel.Gaussian{Gamma: 0.2}, Standardize: true},
	} {
		l, err := Fit(x, o, Options{Clusters: c, Restarts: 2, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		sol, err := l.Solve(lambda)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sol.Predictor().Predict(xn)
		if err != nil {
			t.Fatal(err)
		}
		r, err := rls.Fit(x, OneVsAll(sol.Labels, c), o)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := r.Solve(lambda)
		if err != nil {
			t.Fatal(err)
		}
		want, err := rs.Predictor().Predict(xn)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got, want, 1e-9) {
			t.Fatalf("form %d: predictions\n%v\nrls\n%v", o.Form, mat.Formatted(got), mat.Formatted(want))
		}
		p := sol.Predictor()
		if p.ClassLabel != ClassLabel || len(p.Classes) != c || p.Classes[c-1] != float64(c-1) {
			t.Fatalf("form %d: classes %v of %q", o.Form, p.Classes, p.ClassLabel)
		}
	}
}

// TestClaimTiesGoToLowerIndex: with R = ½·11ᵀ (exact in binary) every row
// of a cluster has the same gain (2) to the bit, and a claim takes the
// lowest row index, as RLScore's strict comparison does — scanning every
// row, and scanning the clusters' member lists (the search's way; the
// lists are reordered by the moves), the same rows.
func TestClaimTiesGoToLowerIndex(t *testing.T) {
	const m = 8
	r := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			r.Set(i, j, 0.5)
		}
	}
	labels := []int{1, 1, 0, 0, 1, 0, 0, 1}
	for _, lists := range []bool{false, true} {
		st := newState(nil, nil, r, labels, 2)
		if lists {
			st.listMembers(nil)
		}
		for _, want := range []int{2, 3, 5} {
			if got, ok := st.claim(1); !ok || got != want {
				t.Fatalf("lists %v: claim took row %d (%v), want %d: labels %v", lists, got, ok, want, st.y)
			}
		}
		for _, want := range []int{0, 1} {
			if got, ok := st.claim(0); !ok || got != want {
				t.Fatalf("lists %v: claim into 0 took row %d, want %d", lists, got, want)
			}
		}
	}
}

// TestKernelRBlocks: KernelR gives R = K(K+λI)⁻¹ — checked as R(K+λI) = K,
// which holds to rounding, and symmetry — at sizes from 1 to above the
// blocks of LAPACK's blocked routines (64 in OpenBLAS's dpotri; odd sizes
// included).
func TestKernelRBlocks(t *testing.T) {
	for _, m := range []int{1, 5, 96, 97, 195, 391} {
		x := randData(m, 3, 3, uint64(m))
		k, err := kernel.Gaussian{Gamma: 0.1}.Block(x, x)
		if err != nil {
			t.Fatal(err)
		}
		const lambda = 0.3
		r, err := KernelR(k, lambda)
		if err != nil {
			t.Fatal(err)
		}
		a := mat.DenseCopyOf(k)
		for i := 0; i < m; i++ {
			a.Set(i, i, a.At(i, i)+lambda)
		}
		var prod mat.Dense
		prod.Mul(r, a)
		// R(K+λI) = K; the error of the computed inverse is about m·ε·κ(K+λI)·‖K‖
		kmax := mat.Norm(k, math.Inf(1))
		tol := 1e-12 * float64(m) * kmax * kmax / lambda
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				if d := math.Abs(prod.At(i, j) - k.At(i, j)); d > tol {
					t.Fatalf("m = %d: (R(K+λI))[%d,%d] = %v, K = %v", m, i, j, prod.At(i, j), k.At(i, j))
				}
				if r.At(i, j) != r.At(j, i) {
					t.Fatalf("m = %d: R not symmetric at [%d,%d]", m, i, j)
				}
			}
		}
	}
}

// TestClusterKernelEqualsFit: ClusterKernel on the kernel matrix is the
// dual learner's search (Fit, Solve) and Cluster's on the dual factor:
// the same labels and J.
func TestClusterKernelEqualsFit(t *testing.T) {
	const m, c, lambda = 40, 3, 0.5
	x := randData(m, 2, c, 23)
	k := kernel.Gaussian{Gamma: 0.3}
	km, err := k.Block(x, x)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Clusters: c, Lambda: lambda, Restarts: 3, Seed: 2}
	a, err := ClusterKernel(km, opt)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Fit(x, learn.Options{Kernel: k, Form: learn.Dual}, Options{Clusters: c, Restarts: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Solve(lambda)
	if err != nil {
		t.Fatal(err)
	}
	d, err := factor.Build(x, k, factor.Request{Form: factor.Dual})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Cluster(d.Factor, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Labels {
		if a.Labels[i] != b.Labels[i] || a.Labels[i] != f.Labels[i] {
			t.Fatalf("labels %v, Fit %v, Cluster %v", a.Labels, b.Labels, f.Labels)
		}
	}
	if a.Objective != b.Objective || math.Abs(a.Objective-f.Objective) > 1e-10*a.Objective {
		t.Fatalf("J %v, Fit %v, Cluster %v", a.Objective, b.Objective, f.Objective)
	}
	if _, err := ClusterKernel(mat.NewDense(2, 3, nil), opt); err == nil {
		t.Fatal("a non-square kernel matrix was accepted")
	}
}

// TestBadOptions: every invalid option is refused with its sentinel error,
// no panic.
func TestBadOptions(t *testing.T) {
	x := randData(6, 2, 2, 1)
	d, err := factor.Build(x, kernel.Gaussian{Gamma: 1}, factor.Request{Form: factor.Dual})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opt  Options
		want error
	}{
		{Options{Clusters: 1, Lambda: 1}, ErrClusters},
		{Options{Clusters: -2, Lambda: 1}, ErrClusters},
		{Options{Clusters: 7, Lambda: 1}, ErrClusters},
		{Options{Clusters: 2, Lambda: 1, Restarts: -1}, ErrRestarts},
		{Options{Clusters: 2, Lambda: 1, Init: []int{0, 1}}, ErrInit},
		{Options{Clusters: 2, Lambda: 1, Init: []int{0, 1, 2, 0, 1, 0}}, ErrInit},
		{Options{Clusters: 2, Lambda: 1, Init: []int{0, 1, -1, 0, 1, 0}}, ErrInit},
	} {
		if _, err := Cluster(d.Factor, c.opt); !errors.Is(err, c.want) {
			t.Errorf("%+v: error %v, want %v", c.opt, err, c.want)
		}
	}
	for _, lambda := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := Cluster(d.Factor, Options{Clusters: 2, Lambda: lambda}); err == nil {
			t.Errorf("λ = %v accepted", lambda)
		}
		if _, err := NewInteractive(d.Factor, lambda, nil, 2); err == nil {
			t.Errorf("interactive λ = %v accepted", lambda)
		}
	}
	if _, err := NewInteractive(d.Factor, 1, nil, 1); !errors.Is(err, ErrClusters) {
		t.Errorf("one class: %v", err)
	}
	if _, err := NewInteractive(d.Factor, 1, []int{0, 0, 3, 0, 0, 0}, 2); !errors.Is(err, ErrInit) {
		t.Errorf("label 3 of 2 classes: %v", err)
	}
	in, err := NewInteractive(d.Factor, 1, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []learn.Step{{Op: "claim", N: -1, Class: 1}, {Op: "claim", N: 1, Class: 2}, {Op: "all", Class: -1},
		{Op: "descend", Limit: -1}, {Op: "jump"}, {Op: "ws"}} {
		if _, err := in.Apply(s); !errors.Is(err, ErrWorkingSet) {
			t.Errorf("step %+v: error %v", s, err)
		}
	}
	indef := mat.NewDense(2, 2, []float64{1, 3, 3, 1}) // eigenvalues 4 and −2
	if _, err := KernelR(indef, 1); !errors.Is(err, learn.ErrIndefinite) {
		t.Errorf("indefinite K + λI: error %v", err)
	}
	if _, err := Fit(x, learn.Options{}, Options{}); err == nil {
		t.Error("Fit without a kernel accepted")
	}
	if _, err := Fit(nil, learn.Options{Kernel: kernel.Gaussian{Gamma: 1}}, Options{}); err == nil {
		t.Error("Fit of nil rows accepted")
	}
}

// TestEqualEndsTie: starts that end at the same labelling report the same
// J to the bit, and the first of them is kept.
func TestEqualEndsTie(t *testing.T) {
	x := randData(60, 2, 3, 41)
	l, err := Fit(x, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.2}}, Options{Clusters: 3, Restarts: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := l.Solve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	ties := 0
	for s, st := range sol.Starts {
		if st.Objective < sol.Objective || st.Objective == sol.Objective && s < sol.Best {
			t.Fatalf("start %d has J %v, kept start %d J %v", s, st.Objective, sol.Best, sol.Objective)
		}
		if st.Objective == sol.Objective && s != sol.Best {
			ties++
		}
	}
	if ties == 0 {
		t.Fatalf("no two starts tie (%+v): the test does not test ties", sol.Starts)
	}
}
