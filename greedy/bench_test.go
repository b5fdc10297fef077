package greedy

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/matrix"
)

// benchData draws m rows of d N(0,1) features and a label that depends on 10
// of them plus noise.
func benchData(m, d int) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(uint64(m), uint64(d)))
	x := mat.NewDense(m, d, nil)
	raw := x.RawMatrix().Data
	for n := range raw {
		raw[n] = rng.NormFloat64()
	}
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		v := rng.NormFloat64()
		for j := 0; j < 10; j++ {
			v += float64(10-j) / 5 * x.At(i, j*(d/10))
		}
		y.Set(i, 0, v)
	}
	return x, y
}

func benchSelect(b *testing.B, x, y *mat.Dense, opt Options) {
	b.Helper()
	for b.Loop() {
		if _, err := Select(x, y, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// The size of the comparison with RLScore's GreedyRLS: m = 2000,
// d = 1000, K = 50, leave-one-out mse at one λ; and the same with 10-fold CV.
//
//	go test -tags openblas -run xxx -bench 'Select2000' -benchtime 3x ./greedy
func BenchmarkSelect2000x1000K50(b *testing.B) {
	x, y := benchData(2000, 1000)
	folds, err := cv.KFold(2000, 10, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		folds [][]int
	}{{"loo", nil}, {"kfold10", folds}} {
		for _, mem := range []struct {
			name string
			m    Memory
		}{{"cache", Cache}, {"lean", Lean}} {
			b.Run(c.name+"/"+mem.name, func(b *testing.B) {
				benchSelect(b, x, y, Options{Lambdas: []float64{1}, Bias: 1, K: 50, Folds: c.folds, Memory: mem.m})
			})
		}
	}
}

// A λ grid shares the passes over the data: 8 λ at once against one.
//
//	go test -tags openblas -run xxx -bench 'Grid' -benchtime 3x ./greedy
func BenchmarkGrid(b *testing.B) {
	x, y := benchData(2000, 1000)
	grid := []float64{1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4}
	for _, mem := range []Memory{Cache, Lean} {
		b.Run(fmt.Sprintf("lambdas=8/memory=%d", mem), func(b *testing.B) {
			benchSelect(b, x, y, Options{Lambdas: grid, Bias: 1, K: 20, Memory: mem})
		})
		b.Run(fmt.Sprintf("lambdas=1/memory=%d", mem), func(b *testing.B) {
			benchSelect(b, x, y, Options{Lambdas: grid[3:4], Bias: 1, K: 20, Memory: mem})
		})
	}
}

// Cost growth: each of m, d and K doubled from m = 1000, d = 2000, K = 20.
// Cached: O(K·m·d); lean: O(K²·m·d).
//
//	go test -tags openblas -run xxx -bench 'Growth' -benchtime 3x ./greedy
func BenchmarkGrowth(b *testing.B) {
	type size struct{ m, d, k int }
	for _, s := range []size{{1000, 2000, 20}, {2000, 2000, 20}, {1000, 4000, 20}, {1000, 2000, 40}} {
		x, y := benchData(s.m, s.d)
		for _, mem := range []struct {
			name string
			m    Memory
		}{{"cache", Cache}, {"lean", Lean}} {
			b.Run(fmt.Sprintf("%s/m=%d/d=%d/K=%d", mem.name, s.m, s.d, s.k), func(b *testing.B) {
				benchSelect(b, x, y, Options{Lambdas: []float64{1}, Bias: 1, K: s.k, Memory: mem.m})
			})
		}
	}
}

// The memory case: m = 2000, d = 200,000 dense (3.2 GB of data), K =
// 20. Auto picks the lean form (the cache would be another 3.2 GB). Peak
// memory with
//
//	go test -tags openblas -c -o /tmp/greedy.test ./greedy
//	/usr/bin/time -v /tmp/greedy.test -test.run xxx -test.bench Wide -test.benchtime 1x
func BenchmarkWide(b *testing.B) {
	if testing.Short() {
		b.Skip("3.2 GB of data")
	}
	x, y := benchData(2000, 200000)
	b.ResetTimer()
	benchSelect(b, x, y, Options{Lambdas: []float64{1}, Bias: 1, K: 20})
}

// Sparse data: m = 2000, d = 20,000, 1 % of the entries non-zero, K = 20. The
// products with X cost O(nnz) per direction; the criterion of every candidate
// stays O(m·t), dense.
//
//	go test -tags openblas -run xxx -bench 'Sparse' -benchtime 3x ./greedy
func BenchmarkSparse(b *testing.B) {
	const m, d = 2000, 20000
	rng := rand.New(rand.NewPCG(7, 7))
	indptr := []int{0}
	var idx []int
	var val []float64
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		v := rng.NormFloat64()
		for j := 0; j < d; j++ {
			if rng.Float64() < 0.01 {
				x := rng.NormFloat64()
				idx, val = append(idx, j), append(val, x)
				if j%2000 == 0 {
					v += 3 * x
				}
			}
		}
		indptr = append(indptr, len(idx))
		y.Set(i, 0, v)
	}
	x, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		b.Fatal(err)
	}
	for _, mem := range []struct {
		name string
		m    Memory
	}{{"cache", Cache}, {"lean", Lean}} {
		b.Run(mem.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Select(x, y, Options{Lambdas: []float64{1}, Bias: 1, K: 20, Memory: mem.m}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
