package basis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

func TestRandom(t *testing.T) {
	tests := []struct {
		name string
		m, n int
		seed uint64
	}{
		{"one of one", 1, 1, 0},
		{"all rows", 10, 10, 3},
		{"few of many", 1000, 7, 42},
		{"half", 50, 25, 1},
		{"seed zero", 20, 5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Random(tc.m, tc.n, tc.seed)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != tc.n {
				t.Fatalf("len = %d, want %d", len(b), tc.n)
			}
			for i, v := range b {
				if v < 0 || v >= tc.m {
					t.Fatalf("row %d out of [0,%d)", v, tc.m)
				}
				if i > 0 && b[i-1] >= v {
					t.Fatalf("not strictly ascending (distinct, sorted): %v", b)
				}
			}
			again, _ := Random(tc.m, tc.n, tc.seed)
			if !slices.Equal(b, again) {
				t.Fatalf("not deterministic: %v vs %v", b, again)
			}
		})
	}
	// Different seeds give different subsets (overwhelmingly likely for 10 of 1000).
	a, _ := Random(1000, 10, 1)
	b, _ := Random(1000, 10, 2)
	if slices.Equal(a, b) {
		t.Fatalf("seeds 1 and 2 gave the same basis %v", a)
	}
}

// TestRandomUniform checks that every row is drawn about equally often.
func TestRandomUniform(t *testing.T) {
	const m, n, reps = 10, 3, 20000
	count := make([]int, m)
	for s := uint64(0); s < reps; s++ {
		b, err := Random(m, n, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range b {
			count[v]++
		}
	}
	want := float64(reps*n) / m // 6000, sd ≈ 71
	for i, c := range count {
		if math.Abs(float64(c)-want) > 6*math.Sqrt(want) {
			t.Errorf("row %d drawn %d times, want ≈ %.0f", i, c, want)
		}
	}
}

func TestRandomErrors(t *testing.T) {
	tests := []struct {
		name string
		m, n int
	}{
		{"n zero", 5, 0},
		{"n negative", 5, -1},
		{"n above m", 5, 6},
		{"m zero", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Random(tc.m, tc.n, 1); !errors.Is(err, ErrBasis) {
				t.Fatalf("err = %v, want ErrBasis", err)
			}
		})
	}
}

func TestPerGroup(t *testing.T) {
	tests := []struct {
		name   string
		groups []int
	}{
		{"singletons", []int{0, 1, 2, 3}},
		{"one group", []int{7, 7, 7, 7, 7}},
		{"contiguous", []int{0, 0, 0, 1, 1, 2, 2, 2, 2}},
		{"interleaved, arbitrary labels", []int{5, -3, 5, 100, -3, 5, 100, 0}},
	}
	for _, tc := range tests {
		for _, seed := range []uint64{0, 1, 99} {
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, seed), func(t *testing.T) {
				b, err := PerGroup(tc.groups, seed)
				if err != nil {
					t.Fatal(err)
				}
				distinct := map[int]bool{}
				for _, g := range tc.groups {
					distinct[g] = true
				}
				if len(b) != len(distinct) {
					t.Fatalf("%d rows for %d groups: %v", len(b), len(distinct), b)
				}
				seen := map[int]bool{}
				for i, r := range b {
					if r < 0 || r >= len(tc.groups) {
						t.Fatalf("row %d out of range", r)
					}
					if i > 0 && b[i-1] >= r {
						t.Fatalf("not strictly ascending: %v", b)
					}
					g := tc.groups[r]
					if seen[g] {
						t.Fatalf("group %d chosen twice: %v", g, b)
					}
					seen[g] = true
				}
				again, _ := PerGroup(tc.groups, seed)
				if !slices.Equal(b, again) {
					t.Fatalf("not deterministic: %v vs %v", b, again)
				}
			})
		}
	}
	// The members are random: over many seeds every row of a group gets picked.
	groups := []int{0, 0, 0, 0, 1, 1}
	picked := map[int]bool{}
	for s := uint64(0); s < 200; s++ {
		b, _ := PerGroup(groups, s)
		for _, r := range b {
			picked[r] = true
		}
	}
	if len(picked) != len(groups) {
		t.Fatalf("over 200 seeds only rows %v were picked", picked)
	}
}

func TestPerGroupErrors(t *testing.T) {
	for _, g := range [][]int{nil, {}} {
		if _, err := PerGroup(g, 1); !errors.Is(err, ErrBasis) {
			t.Fatalf("PerGroup(%v): err = %v, want ErrBasis", g, err)
		}
	}
}

func TestDrawCandidates(t *testing.T) {
	selected := make([]bool, 20)
	for _, i := range []int{0, 3, 4, 10, 19} {
		selected[i] = true
	}
	for _, c := range []int{0, 1, 5, 15, 30} {
		got := drawCandidates(newRNG(5), selected, c)
		if want := min(c, 15); len(got) != want {
			t.Fatalf("c = %d: %d candidates, want %d", c, len(got), want)
		}
		seen := map[int]bool{}
		for _, h := range got {
			if selected[h] || seen[h] {
				t.Fatalf("c = %d: candidate %d selected or repeated: %v", c, h, got)
			}
			seen[h] = true
		}
		if again := drawCandidates(newRNG(5), selected, c); !slices.Equal(got, again) {
			t.Fatalf("not deterministic")
		}
	}
}

// problem returns m rows of d standard normal features and t smooth outputs with noise.
func problem(m, d, t int, seed uint64) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 77))
	x := mat.NewDense(m, d, nil)
	y := mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		for c := 0; c < t; c++ {
			y.Set(i, c, math.Sin(row[0]+float64(c))+0.5*row[1%d]*row[(c+1)%d]+0.1*rng.NormFloat64())
		}
	}
	return x, y
}

// bruteErr is TrainingErr(B) by retraining from scratch: a = (K_{·B}ᵀK_{·B} +
// λK_BB)⁻¹K_{·B}ᵀY, error ‖Y − K_{·B}a‖²_F.
func bruteErr(t *testing.T, kfull, y *mat.Dense, b []int, lambda float64) float64 {
	t.Helper()
	m, _ := kfull.Dims()
	kb := mat.NewDense(m, len(b), nil)
	for i := 0; i < m; i++ {
		for j, r := range b {
			kb.Set(i, j, kfull.At(i, r))
		}
	}
	kbb := mat.NewDense(len(b), len(b), nil)
	for i, r := range b {
		for j, c := range b {
			kbb.Set(i, j, kfull.At(r, c))
		}
	}
	var lhs, rhs, a, res mat.Dense
	lhs.Mul(kb.T(), kb)
	kbb.Scale(lambda, kbb)
	lhs.Add(&lhs, kbb)
	rhs.Mul(kb.T(), y)
	if err := a.Solve(&lhs, &rhs); err != nil {
		t.Fatalf("brute-force solve with basis %v: %v", b, err)
	}
	res.Mul(kb, &a)
	res.Sub(y, &res)
	return sumSq(&res)
}

// sumSq returns ‖A‖²_F.
func sumSq(a *mat.Dense) float64 {
	r, c := a.Dims()
	s := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s += a.At(i, j) * a.At(i, j)
		}
	}
	return s
}

// bruteGreedy is Algorithm 1 with retraining for every candidate: the same
// generator and drawCandidates give the same candidates as Greedy.
func bruteGreedy(t *testing.T, x, y *mat.Dense, k kernel.Kernel, n int, opt GreedyOptions) []int {
	t.Helper()
	kfull, err := k.Block(x, k.Points(x))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := x.Dims()
	c := opt.Candidates
	if c == 0 {
		c = 60
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15)) // the documented seeding
	selected := make([]bool, m)
	var b []int
	for len(b) < n {
		cands := drawCandidates(rng, selected, min(c, m-len(b)))
		best, bestErr := -1, math.Inf(1)
		for _, h := range cands {
			if e := bruteErr(t, kfull, y, append(slices.Clone(b), h), opt.Lambda); e < bestErr {
				best, bestErr = h, e
			}
		}
		b = append(b, best)
		selected[best] = true
	}
	return b
}

type greedyCase struct {
	name       string
	m, d, t, n int
	opt        GreedyOptions
}

func greedyCases() []greedyCase {
	var cases []greedyCase
	for _, lambda := range []float64{1e-3, 1, 10} {
		for _, out := range []int{1, 3} {
			for _, seed := range []uint64{1, 2, 3} {
				m, n, cands := 40+int(seed)*13, 5+int(seed)*2+out, 0
				if seed == 2 {
					cands = 7 // a real random subset of the remaining rows
				}
				cases = append(cases, greedyCase{
					name: fmt.Sprintf("lambda=%g/t=%d/seed=%d", lambda, out, seed),
					m:    m, d: 4, t: out, n: n,
					opt: GreedyOptions{Lambda: lambda, Candidates: cands, Seed: seed},
				})
			}
		}
	}
	return cases
}

func TestGreedyMatchesBruteForce(t *testing.T) {
	for _, tc := range greedyCases() {
		t.Run(tc.name, func(t *testing.T) {
			x, y := problem(tc.m, tc.d, tc.t, tc.opt.Seed+100)
			k := kernel.Gaussian{Gamma: 1 / float64(tc.d)}
			got, err := Greedy(x, y, k, tc.n, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteGreedy(t, x, y, k, tc.n, tc.opt)
			if !slices.Equal(got, want) {
				t.Fatalf("Greedy = %v\nbrute  = %v", got, want)
			}
		})
	}
}

// TestGreedyPrecomputed: the precomputed kernel matrix gives the same selection
// as the kernel itself (basis points via kernel.Rows(k.Points(x), idx)).
func TestGreedyPrecomputed(t *testing.T) {
	x, y := problem(60, 3, 2, 9)
	g := kernel.Gaussian{Gamma: 1.0 / 3}
	kx, err := g.Block(x, x)
	if err != nil {
		t.Fatal(err)
	}
	opt := GreedyOptions{Lambda: 0.5, Candidates: 20, Seed: 4}
	a, err := Greedy(x, y, g, 10, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Greedy(kx, y, kernel.Precomputed{}, 10, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Fatalf("gaussian %v, precomputed %v", a, b)
	}
}

// TestIncrementalErr checks the incremental TrainingErr of every candidate of the
// first steps against retraining, relative 1e-8.
func TestIncrementalErr(t *testing.T) {
	for _, tc := range greedyCases() {
		t.Run(tc.name, func(t *testing.T) {
			x, y := problem(tc.m, tc.d, tc.t, tc.opt.Seed+100)
			k := kernel.Gaussian{Gamma: 1 / float64(tc.d)}
			kfull, _ := k.Block(x, x)
			g, err := newGreedy(x, y, k, tc.n, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			rng := newRNG(tc.opt.Seed)
			for step := 0; step < min(4, tc.n); step++ {
				cands := drawCandidates(rng, g.taken, 15)
				ev, err := g.evaluate(cands)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ev.rows, cands) || len(ev.dependent) != 0 {
					t.Fatalf("step %d: candidates %v evaluated as %v, dependent %v", step, cands, ev.rows, ev.dependent)
				}
				for j, h := range cands {
					want := bruteErr(t, kfull, y, append(slices.Clone(g.basis), h), tc.opt.Lambda)
					if d := math.Abs(ev.errs[j] - want); d > 1e-8*want {
						t.Errorf("step %d, candidate %d: incremental %.15g, retrained %.15g (rel %.2g)", step, h, ev.errs[j], want, d/want)
					}
				}
				g.add(ev, argmin(ev.errs))
				// The kept residuals are those of the retrained model on the new basis.
				want := bruteErr(t, kfull, y, g.basis, tc.opt.Lambda)
				got := sumSq(g.r)
				if math.Abs(got-want) > 1e-8*want {
					t.Errorf("step %d: ‖R‖² = %.15g, retrained %.15g", step, got, want)
				}
			}
		})
	}
}

// TestGreedyDuplicates: with every point present twice (dependent candidates),
// Greedy returns n distinct rows, never two copies of one point; with fewer
// distinct points than n it fails with ErrBasis.
func TestGreedyDuplicates(t *testing.T) {
	tests := []struct {
		name     string
		distinct int
		copies   int
		n        int
		cands    int
		wantErr  bool
	}{
		{"pairs, few candidates", 30, 2, 20, 3, false},
		{"pairs, default candidates", 30, 2, 30, 0, false},
		{"triples, one candidate", 12, 3, 12, 1, false},
		{"too few distinct points", 5, 3, 6, 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			xd, yd := problem(tc.distinct, 2, 1, 5)
			m := tc.distinct * tc.copies
			x := mat.NewDense(m, 2, nil)
			y := mat.NewDense(m, 1, nil)
			for i := 0; i < m; i++ {
				x.SetRow(i, xd.RawRowView(i%tc.distinct))
				y.Set(i, 0, yd.At(i%tc.distinct, 0))
			}
			for seed := uint64(0); seed < 5; seed++ {
				b, err := Greedy(x, y, kernel.Gaussian{Gamma: 0.5}, tc.n, GreedyOptions{Lambda: 0.1, Candidates: tc.cands, Seed: seed})
				if tc.wantErr {
					if !errors.Is(err, ErrBasis) {
						t.Fatalf("err = %v, want ErrBasis", err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(b) != tc.n {
					t.Fatalf("%d rows, want %d", len(b), tc.n)
				}
				points := map[int]bool{}
				for _, r := range b {
					if points[r%tc.distinct] {
						t.Fatalf("two copies of point %d in %v", r%tc.distinct, b)
					}
					points[r%tc.distinct] = true
				}
			}
		})
	}
}

// TestGreedyBeatsRandom: on a smooth target the greedy basis fits the training
// data better than a random one of the same size in at least 8 of 10 seeds.
func TestGreedyBeatsRandom(t *testing.T) {
	const m, d, n, lambda = 300, 2, 10, 1e-2
	k := kernel.Gaussian{Gamma: 0.5}
	wins := 0
	var sumG, sumR float64
	for seed := uint64(0); seed < 10; seed++ {
		x, y := problem(m, d, 1, seed+500)
		kfull, _ := k.Block(x, x)
		gb, err := Greedy(x, y, k, n, GreedyOptions{Lambda: lambda, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		rb, err := Random(m, n, seed)
		if err != nil {
			t.Fatal(err)
		}
		eg, er := bruteErr(t, kfull, y, gb, lambda), bruteErr(t, kfull, y, rb, lambda)
		sumG += eg
		sumR += er
		if eg <= er {
			wins++
		}
	}
	t.Logf("greedy ≤ random in %d of 10 seeds; mean training error greedy %.4g, random %.4g", wins, sumG/10, sumR/10)
	if wins < 8 {
		t.Fatalf("greedy ≤ random in only %d of 10 seeds", wins)
	}
}

func TestGreedyErrors(t *testing.T) {
	x, y := problem(20, 2, 1, 1)
	short := mat.NewDense(19, 1, nil)
	nan := mat.DenseCopyOf(y)
	nan.Set(3, 0, math.NaN())
	g := kernel.Gaussian{Gamma: 1}
	ok := GreedyOptions{Lambda: 1}
	tests := []struct {
		name string
		x    mat.Matrix
		y    *mat.Dense
		k    kernel.Kernel
		n    int
		opt  GreedyOptions
	}{
		{"n zero", x, y, g, 0, ok},
		{"n negative", x, y, g, -2, ok},
		{"n above m", x, y, g, 21, ok},
		{"lambda zero", x, y, g, 3, GreedyOptions{}},
		{"lambda negative", x, y, g, 3, GreedyOptions{Lambda: -1}},
		{"lambda NaN", x, y, g, 3, GreedyOptions{Lambda: math.NaN()}},
		{"lambda Inf", x, y, g, 3, GreedyOptions{Lambda: math.Inf(1)}},
		{"candidates negative", x, y, g, 3, GreedyOptions{Lambda: 1, Candidates: -1}},
		{"y rows differ", x, short, g, 3, ok},
		{"y nil", x, nil, g, 3, ok},
		{"y NaN", x, nan, g, 3, ok},
		{"kernel nil", x, y, nil, 3, ok},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Greedy(tc.x, tc.y, tc.k, tc.n, tc.opt); !errors.Is(err, ErrBasis) {
				t.Fatalf("err = %v, want ErrBasis", err)
			}
		})
	}
}

func ExampleRandom() {
	b, err := Random(100, 5, 42)
	if err != nil {
		panic(err)
	}
	fmt.Println(b)
	// Output: [2 10 33 71 87]
}
