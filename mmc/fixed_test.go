package mmc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// TestFixedRows: with Options.Fixed the rows listed keep their cluster of
// Init in the labelling found — from the given start (a poor one) and from seeded
// random starts (some seed's best start is a random one, so the random
// starts' fixing is exercised) — on the stored-R and on the U (sparse)
// search; the result's J is its labelling's J by a fresh solve; fixing
// rows the unfixed search moves changes the result; bad fixed rows are
// ErrInit.
func TestFixedRows(t *testing.T) {
	const m, c, lambda = 60, 3, 0.5
	x := randData(m, 2, c, 11)
	k := kernel.Gaussian{Gamma: 0.3}
	kk := effectiveKernel(t, x, k, nil)
	randomBest := false
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		// a poor start: the free rows all in cluster 0, so that random
		// starts can win
		init := make([]int, m)
		var fixed []int
		for i := 0; i < m; i += 4 {
			fixed = append(fixed, i)
			init[i] = rng.IntN(c)
		}
		for _, dense := range []bool{true, false} {
			opt := Options{Clusters: c, Init: init, Fixed: fixed, Restarts: 8, Seed: seed, Dense: &dense}
			l, err := Fit(x, learn.Options{Kernel: k}, opt)
			if err != nil {
				t.Fatal(err)
			}
			sol, err := l.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range fixed {
				if sol.Labels[i] != init[i] {
					t.Fatalf("seed %d dense %v: fixed row %d moved from cluster %d to %d (best start %d)", seed, dense, i, init[i], sol.Labels[i], sol.Best)
				}
			}
			if got := naiveObjective(t, kk, lambda, sol.Labels, c); math.Abs(got-sol.Objective) > 1e-9*math.Abs(got) {
				t.Errorf("seed %d: J = %v, retrained %v", seed, sol.Objective, got)
			}
			randomBest = randomBest || sol.Starts[sol.Best].Random
			// without the fixing, the search moves some of those rows
			free, err := Fit(x, learn.Options{Kernel: k}, Options{Clusters: c, Init: init, Restarts: 8, Seed: seed, Dense: &dense})
			if err != nil {
				t.Fatal(err)
			}
			fs, err := free.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			moved := 0
			for _, i := range fixed {
				if fs.Labels[i] != init[i] {
					moved++
				}
			}
			if moved == 0 {
				t.Errorf("seed %d: the unfixed search moves none of the rows fixed: the case tests nothing", seed)
			}
		}
	}
	if !randomBest {
		t.Error("no seed's best start is a random one: the random starts' fixing is not exercised")
	}
	init := make([]int, m)
	for _, bad := range [][]int{{-1}, {m}, {3, 3}} {
		if _, err := (Options{Clusters: c, Init: init, Fixed: bad, Lambda: 1}).Normalize(m); !errors.Is(err, ErrInit) {
			t.Errorf("fixed %v: %v", bad, err)
		}
	}
	if _, err := (Options{Clusters: c, Fixed: []int{1}, Lambda: 1}).Normalize(m); !errors.Is(err, ErrInit) {
		t.Errorf("fixed rows without Init: %v", err)
	}
}
