package linalg

import (
	"math/rand/v2"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"
)

// gemmCalib is the size of the product timed for EstimateGemm.
const gemmCalib = 256

var (
	calibMu  sync.Mutex
	eigSecs  = map[int]float64{} // seconds of one eigendecomposition, by size
	gemmOnce sync.Once
	gemmSecs float64 // seconds of one gemmCalib³ product
	warmOnce sync.Once
)

// warm runs the backend once before anything is timed: the first call of a
// library loaded at run time starts its threads and faults its code in.
func warm() {
	warmOnce.Do(func() { _, _ = EigSymInPlace(randomSym(64)) })
}

// EstimateEigSym is the expected wall time of EigSymInPlace on an m×m
// matrix with this process's backend: an eigendecomposition of a random
// symmetric n₀×n₀ matrix, n₀ = m/4 clamped to [200, 800], is timed (once per
// n₀ and process: at most 1/64 of the estimated work) and scaled by (m/n₀)³,
// the solver's cost being O(m³). The backend's efficiency changes with m
// (threads, caches), so the estimate is good to a factor of about two — a
// progress report's ETA, not a benchmark.
func EstimateEigSym(m int) time.Duration {
	n0 := min(max(m/4, 200), 800)
	calibMu.Lock()
	secs, ok := eigSecs[n0]
	if !ok {
		warm()
		a := randomSym(n0)
		t := time.Now()
		_, _ = EigSymInPlace(a)
		secs = time.Since(t).Seconds()
		eigSecs[n0] = secs
	}
	calibMu.Unlock()
	r := float64(m) / float64(n0)
	return time.Duration(secs * r * r * r * float64(time.Second))
}

// EstimateGemm is the expected wall time of an m×k by k×n matrix product
// (Gemm) with this process's backend: a 256³ product is timed on the first
// call and scaled by m·n·k/256³.
func EstimateGemm(m, n, k int) time.Duration {
	gemmOnce.Do(func() {
		warm()
		a, b := randomSym(gemmCalib), randomSym(gemmCalib)
		c := mat.NewDense(gemmCalib, gemmCalib, nil)
		t := time.Now()
		Gemm(false, false, 1, a, b, 0, c)
		gemmSecs = time.Since(t).Seconds()
	})
	r := float64(m) * float64(n) * float64(k) / (gemmCalib * gemmCalib * gemmCalib)
	return time.Duration(gemmSecs * r * float64(time.Second))
}

// randomSym is a seeded random symmetric n×n matrix.
func randomSym(n int) *mat.Dense {
	rng := rand.New(rand.NewPCG(1, 2))
	a := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range i + 1 {
			v := rng.NormFloat64()
			a.Set(i, j, v)
			a.Set(j, i, v)
		}
	}
	return a
}
