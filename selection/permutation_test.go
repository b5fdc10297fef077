package selection

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rls"
)

func permProblem(m int, seed uint64, signal bool) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 17))
	x := mat.NewDense(m, 3, nil)
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		v := rng.NormFloat64()
		if signal {
			v = 2*math.Sin(x.At(i, 0)) + 0.3*v
		}
		y.Set(i, 0, v)
	}
	return x, y
}

func fitRLS(x *mat.Dense, k kernel.Kernel) func(*mat.Dense) *rls.RLS {
	return func(y *mat.Dense) *rls.RLS {
		r, err := rls.Fit(x, y, rls.Options{Kernel: k})
		if err != nil {
			panic(err)
		}
		return r
	}
}

// The permuted outputs, learned together, give the CV values of running each
// permutation on its own.
func TestPermutationTestEqualsSeparateRuns(t *testing.T) {
	x, y := permProblem(30, 1, true)
	k := kernel.Gaussian{Gamma: 0.3}
	grid := []float64{0.01, 0.1, 1, 10}
	for _, sc := range []Scheme{
		{Kind: LOO, Name: "loo"},
		{Kind: Folds, Name: "folds", Folds: [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, {20, 21, 22, 23, 24, 25, 26, 27, 28, 29}}},
	} {
		for _, name := range []string{"mse", "cindex"} {
			meas := mustMeasure(t, name)
			res, err := PermutationTest(fitRLS(x, k)(y), grid, sc, meas, 6, 99, Options{})
			if err != nil {
				t.Fatal(err)
			}
			labels := Permutations(y, 6, 99)
			for c := 0; c <= 6; c++ {
				yc := mat.NewDense(30, 1, mat.Col(nil, c, labels))
				sep, err := Select(fitRLS(x, k)(yc), grid, sc, meas, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got := res.Real
				if c > 0 {
					got = res.Null[c-1]
				}
				if math.Abs(got-sep.Best.Value) > 1e-10*(1+math.Abs(got)) {
					t.Errorf("%s/%s column %d: together %v, separately %v", sc.Name, name, c, got, sep.Best.Value)
				}
			}
		}
	}
}

// Leave-pair-out AUC: the real labels' and every permutation's best value,
// learned together as one model's outputs, are those of selecting on each
// labelling alone (Select at each λ of the grid, the best value the largest),
// and the p-value, null mean and null sd follow from those separate values.
// An AUC is a ratio of counts of pairs, so the values are equal exactly once
// no held-out pair's two predictions are within rounding of a tie: the
// predictions of the two computations differ by their forward errors, of
// order κ·ε ≤ 4.5e-12 here (κ(K + λI) ≤ (m + λ)/λ = 201 for a Gaussian
// kernel, whose entries are ≤ 1, and the ±1 labels; 1e3·κ·ε), and every
// pair's predictions are asserted at least 1e-6 apart.
func TestPermutationTestLPO(t *testing.T) {
	x, y := permProblem(20, 2, true)
	for i := 0; i < 20; i++ {
		y.Set(i, 0, math.Copysign(1, y.At(i, 0)))
	}
	k := kernel.Gaussian{Gamma: 0.3}
	grid := []float64{0.1, 1}
	lpo := Scheme{Kind: LPO, Name: "lpo"}
	auc := mustMeasure(t, "auc")
	res, err := PermutationTest(fitRLS(x, k)(y), grid, lpo, auc, 19, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.PValue > 2.0/20 {
		t.Errorf("LPO-AUC with signal: p = %v", res.PValue)
	}
	if len(res.Null) != 19 || res.Permutations != 19 {
		t.Fatalf("%d null values, %d permutations", len(res.Null), res.Permutations)
	}
	if kappa := (20 + grid[0]) / grid[0]; 1e3*kappa*0x1p-52 > 1e-6/100 {
		t.Fatalf("κ bound %g: rounding not far below the 1e-6 margin", kappa)
	}
	labels := Permutations(y, 19, 3)
	sep := make([]float64, 20)
	gap := math.Inf(1)
	for c := range sep {
		yc := mat.NewDense(20, 1, mat.Col(nil, c, labels))
		sep[c] = math.Inf(-1)
		for _, lambda := range grid {
			r, err := Select(fitRLS(x, k)(yc), []float64{lambda}, lpo, auc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.PairPredictions) != 100 {
				t.Fatalf("column %d, λ %g: %d pairs left out, want 10·10", c, lambda, len(r.PairPredictions))
			}
			for _, pp := range r.PairPredictions {
				gap = math.Min(gap, math.Abs(pp.PI-pp.PJ))
			}
			sep[c] = math.Max(sep[c], r.Best.Value)
		}
	}
	if gap < 1e-6 {
		t.Fatalf("a pair's predictions are %g apart: too close to a tie for the counts to be robust", gap)
	}
	atLeast, mean := 0, 0.0
	for c := 1; c < 20; c++ {
		if sep[c] >= sep[0] {
			atLeast++
		}
		mean += sep[c] / 19
	}
	sd := 0.0
	for c := 1; c < 20; c++ {
		sd += (sep[c] - mean) * (sep[c] - mean) / 18
	}
	sd = math.Sqrt(sd)
	if res.Real != sep[0] {
		t.Errorf("real labels: together %v, separately %v", res.Real, sep[0])
	}
	for c := 1; c < 20; c++ {
		if res.Null[c-1] != sep[c] {
			t.Errorf("permutation %d: together %v, separately %v", c, res.Null[c-1], sep[c])
		}
	}
	// the p-value is a ratio of counts; the mean and sd are sums of 19 values
	// in [0, 1], equal to their rounding (1e-14)
	if want := float64(1+atLeast) / 20; res.PValue != want {
		t.Errorf("p = %v, want %d/20", res.PValue, 1+atLeast)
	}
	if math.Abs(res.NullMean-mean) > 1e-14 || math.Abs(res.NullSD-sd) > 1e-14 {
		t.Errorf("null mean %v sd %v, separately %v %v", res.NullMean, res.NullSD, mean, sd)
	}
}

// With real signal p ≤ 2/(P+1); with labels shuffled before training p is
// spread over (0, 1] across seeds.
func TestPermutationTestCalibration(t *testing.T) {
	k := kernel.Gaussian{Gamma: 0.3}
	grid := []float64{0.1, 1, 10}
	loo := Scheme{Kind: LOO, Name: "loo"}
	mse := mustMeasure(t, "mse")
	x, y := permProblem(40, 5, true)
	res, err := PermutationTest(fitRLS(x, k)(y), grid, loo, mse, 49, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.PValue > 2.0/50 || res.NullMean <= res.Real {
		t.Errorf("signal: p = %v, real %v, null mean %v", res.PValue, res.Real, res.NullMean)
	}
	var ps []float64
	for seed := uint64(0); seed < 20; seed++ {
		x, y := permProblem(40, 100+seed, false)
		res, err := PermutationTest(fitRLS(x, k)(y), grid, loo, mse, 19, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, res.PValue)
	}
	mean, small := 0.0, 0
	for _, p := range ps {
		mean += p / float64(len(ps))
		if p <= 0.1 {
			small++
		}
	}
	if mean < 0.25 || mean > 0.75 || small > 6 {
		t.Errorf("no signal: p-values %v (mean %.2f, %d ≤ 0.1)", ps, mean, small)
	}
}

func TestPermutationTestErrors(t *testing.T) {
	x, y := permProblem(10, 7, true)
	f := fitRLS(x, kernel.Gaussian{Gamma: 0.3})
	loo := Scheme{Kind: LOO, Name: "loo"}
	mse := mustMeasure(t, "mse")
	if _, err := PermutationTest(f(y), []float64{1}, loo, mse, 0, 1, Options{}); !errors.Is(err, ErrScheme) {
		t.Errorf("0 permutations: %v", err)
	}
	if _, err := PermutationTest(f(mat.NewDense(10, 2, nil)), []float64{1}, loo, mse, 3, 1, Options{}); !errors.Is(err, ErrScheme) {
		t.Errorf("two label columns: %v", err)
	}
	if _, err := PermutationTest(f(y), nil, loo, mse, 3, 1, Options{}); !errors.Is(err, ErrGrid) {
		t.Errorf("empty grid: %v", err)
	}
	if _, err := PermutationTest(f(y), []float64{1}, loo, mse, MaxPermutations(10)+1, 1, Options{}); !errors.Is(err, ErrScheme) {
		t.Errorf("too many permutations: %v", err)
	}
	if _, err := PermutationTest(noRelabel{f(y)}, []float64{1}, loo, mse, 3, 1, Options{}); !errors.Is(err, learn.ErrCapability) {
		t.Errorf("learner without Relabel: %v", err)
	}
}

// P = 1000 permutations cost a small multiple of P = 0 (one training either way).
func BenchmarkPermutationTest(b *testing.B) {
	x, y := permProblem(500, 11, true)
	k := kernel.Gaussian{Gamma: 0.3}
	grid, _ := ParseGrid("2^-5..2^5", true)
	loo := Scheme{Kind: LOO, Name: "loo"}
	mse, _ := mustMeasureB("mse")
	for _, p := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			for b.Loop() {
				if p == 0 {
					if _, err := Select(fitRLS(x, k)(y), grid, loo, mse, Options{}); err != nil {
						b.Fatal(err)
					}
					continue
				}
				if _, err := PermutationTest(fitRLS(x, k)(y), grid, loo, mse, p, 1, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// noRelabel hides a learner's capabilities but the contract's three methods.
type noRelabel struct{ l learn.Learner }

func (n noRelabel) Name() learn.Name                          { return n.l.Name() }
func (n noRelabel) Labels() *mat.Dense                        { return n.l.Labels() }
func (n noRelabel) At(lambda float64) (learn.Solution, error) { return n.l.At(lambda) }

// rlsDescriptor is the registered RLS descriptor (package rls registers it).
func rlsDescriptor(t testing.TB) *learn.Descriptor {
	d, err := learn.Lookup(string(learn.RLS))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A permutation test through Search tunes every permutation over exactly
// what the real labels were tuned over: its null value of each labelling is
// the best over every kernel setting of that setting's own permutation test.
func TestSearchPermutationsOverKernelGrid(t *testing.T) {
	x, y := permProblem(25, 3, true)
	specs := []kernel.Spec{{Name: "gaussian", Gamma: 0.05}, {Name: "gaussian", Gamma: 0.5}, {Name: "gaussian", Gamma: 5}}
	grid := []float64{0.01, 0.1, 1, 10}
	loo := Scheme{Kind: LOO, Name: "loo"}
	mse := mustMeasure(t, "mse")
	res, err := Search(Problem{Learner: rlsDescriptor(t), Input: &learn.Input{X: x, Y: y}},
		Settings{Kernels: specs, Lambdas: grid, Scheme: loo, Measure: mse, Permutations: 9, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 10)
	for k := range want {
		want[k] = math.Inf(1)
	}
	for _, spec := range specs {
		kern, _ := kernel.New(spec)
		pr, err := PermutationTest(fitRLS(x, kern)(y), grid, loo, mse, 9, 4, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want[0] = math.Min(want[0], pr.Real)
		for k, v := range pr.Null {
			want[k+1] = math.Min(want[k+1], v)
		}
	}
	got := append([]float64{res.Permutation.Real}, res.Permutation.Null...)
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12*math.Abs(want[k]) {
			t.Errorf("labelling %d: %v, want the best over every setting %v", k, got[k], want[k])
		}
	}
	if math.Abs(res.Permutation.Real-res.Value) > 1e-9*res.Value {
		t.Errorf("real labels %v, search's best %v", res.Permutation.Real, res.Value)
	}
}

// Calibration: on pure-noise data searched over a γ grid × a λ grid, the
// permutation p-value is uniform, so p ≤ 0.05 in about 5 % of data sets —
// within the binomial bounds. (Tuning the permutations at the real labels'
// chosen γ only made it 12 %.)
func TestSearchPermutationCalibration(t *testing.T) {
	const sets, perms = 400, 99
	var specs []kernel.Spec
	for e := -4; e <= 2; e++ {
		specs = append(specs, kernel.Spec{Name: "gaussian", Gamma: math.Ldexp(1, e)})
	}
	var grid []float64
	for e := -6; e <= 6; e += 2 {
		grid = append(grid, math.Ldexp(1, e))
	}
	mse := mustMeasure(t, "mse")
	d := rlsDescriptor(t)
	small := 0
	for set := 0; set < sets; set++ {
		x, y := permProblem(30, uint64(1000+set), false)
		res, err := Search(Problem{Learner: d, Input: &learn.Input{X: x, Y: y}},
			Settings{Kernels: specs, Lambdas: grid, Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse,
				Permutations: perms, Seed: uint64(set)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Permutation.PValue <= 0.05 {
			small++
		}
	}
	lo, hi := binomialBounds(sets, 0.05, 1e-3)
	t.Logf("p ≤ 0.05 in %d of %d data sets (%.1f %%; two-sided 99.9 %% binomial bounds %d..%d)", small, sets, 100*float64(small)/sets, lo, hi)
	if small < lo || small > hi {
		t.Errorf("p ≤ 0.05 in %d of %d pure-noise data sets: outside the binomial bounds %d..%d of 5 %%", small, sets, lo, hi)
	}
}

// binomialBounds returns the smallest lo and largest hi with P(X < lo) ≤ α/2
// and P(X > hi) ≤ α/2 for X ~ Binomial(n, p).
func binomialBounds(n int, p, alpha float64) (lo, hi int) {
	pmf := make([]float64, n+1)
	for k := 0; k <= n; k++ {
		lg, _ := math.Lgamma(float64(n + 1))
		l1, _ := math.Lgamma(float64(k + 1))
		l2, _ := math.Lgamma(float64(n - k + 1))
		pmf[k] = math.Exp(lg - l1 - l2 + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	}
	cum := 0.0
	for lo = 0; lo <= n && cum+pmf[lo] <= alpha/2; lo++ {
		cum += pmf[lo]
	}
	cum = 0
	for hi = n; hi >= 0 && cum+pmf[hi] <= alpha/2; hi-- {
		cum += pmf[hi]
	}
	return lo, hi
}
