package measure

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// bruteAUC is the O(m²) definition of AUC: the mean over (positive, negative)
// pairs of 1 if the positive is predicted higher, ½ on a tie.
func bruteAUC(y, p []float64) (float64, bool) {
	var s, n float64
	for i := range y {
		for j := range y {
			if y[i] > 0 && y[j] <= 0 {
				n++
				s += step(p[i] - p[j])
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return s / n, true
}

// bruteCIndex is the O(m²) definition of the concordance index.
func bruteCIndex(y, p []float64) (float64, bool) {
	var s, n float64
	for i := range y {
		for j := range y {
			if y[i] < y[j] {
				n++
				s += step(p[j] - p[i])
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return s / n, true
}

// bruteDisagreement averages 1 − bruteCIndex over the queries that have a
// pair with different labels.
func bruteDisagreement(y, p []float64, q []int) (float64, bool) {
	groups := map[int][]int{}
	for i, id := range q {
		groups[id] = append(groups[id], i)
	}
	var s, n float64
	for _, rows := range groups {
		var ys, ps []float64
		for _, i := range rows {
			ys = append(ys, y[i])
			ps = append(ps, p[i])
		}
		if c, ok := bruteCIndex(ys, ps); ok {
			s += 1 - c
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return s / n, true
}

func step(d float64) float64 {
	switch {
	case d > 0:
		return 1
	case d == 0:
		return 0.5
	}
	return 0
}

// randInts returns n integer-valued floats in [lo, lo+k), giving many ties.
func randInts(rnd *rand.Rand, n, lo, k int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(lo + rnd.IntN(k))
	}
	return x
}

func TestBruteForce(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	type fn func(y, p []float64, q []int) (float64, error)
	type bfn func(y, p []float64, q []int) (float64, bool)
	checks := []struct {
		name  string
		fast  fn
		brute bfn
	}{
		{"AUC", func(y, p []float64, _ []int) (float64, error) { return AUC(y, p) },
			func(y, p []float64, _ []int) (float64, bool) { return bruteAUC(y, p) }},
		{"CIndex", func(y, p []float64, _ []int) (float64, error) { return CIndex(y, p) },
			func(y, p []float64, _ []int) (float64, bool) { return bruteCIndex(y, p) }},
		{"Disagreement", Disagreement, bruteDisagreement},
	}
	var defined [3]int
	for trial := range 2000 {
		m := 1 + rnd.IntN(60)
		y := randInts(rnd, m, -1, 1+rnd.IntN(5))
		p := randInts(rnd, m, -3, 1+rnd.IntN(7))
		q := make([]int, m)
		nq := 1 + rnd.IntN(6)
		for i := range q {
			q[i] = rnd.IntN(nq)*7 - 10 // arbitrary, possibly negative ids
		}
		for k, c := range checks {
			got, err := c.fast(y, p, q)
			want, ok := c.brute(y, p, q)
			if !ok {
				if !errors.Is(err, ErrUndefined) {
					t.Fatalf("trial %d %s: err = %v, want ErrUndefined\ny=%v\np=%v\nq=%v", trial, c.name, err, y, p, q)
				}
				continue
			}
			defined[k]++
			if err != nil {
				t.Fatalf("trial %d %s: unexpected error %v\ny=%v\np=%v\nq=%v", trial, c.name, err, y, p, q)
			}
			if !near(got, want) {
				t.Fatalf("trial %d %s = %.17g, brute force %.17g\ny=%v\np=%v\nq=%v", trial, c.name, got, want, y, p, q)
			}
		}
	}
	for k, c := range checks {
		if defined[k] < 1000 {
			t.Errorf("%s defined in only %d trials", c.name, defined[k])
		}
	}
}

// TestAUCEqualsCIndex checks that for two-valued labels, {0,1} or {-1,+1},
// AUC and the concordance index coincide.
func TestAUCEqualsCIndex(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for trial := range 1000 {
		m := 2 + rnd.IntN(50)
		y01 := randInts(rnd, m, 0, 2)
		ypm := make([]float64, m)
		for i, v := range y01 {
			ypm[i] = 2*v - 1
		}
		p := randInts(rnd, m, 0, 1+rnd.IntN(6))
		for _, y := range [][]float64{y01, ypm} {
			a, errA := AUC(y, p)
			c, errC := CIndex(y, p)
			if errors.Is(errA, ErrUndefined) != errors.Is(errC, ErrUndefined) {
				t.Fatalf("trial %d: AUC err %v, CIndex err %v", trial, errA, errC)
			}
			if errA == nil && !near(a, c) {
				t.Fatalf("trial %d: AUC %.17g != CIndex %.17g\ny=%v\np=%v", trial, a, c, y, p)
			}
		}
	}
}

// TestSpearmanRange checks symmetry, range and invariance under monotone
// transforms on random tied data.
func TestSpearmanRange(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for trial := range 500 {
		m := 2 + rnd.IntN(30)
		y := randInts(rnd, m, 0, 1+rnd.IntN(6))
		p := randInts(rnd, m, 0, 1+rnd.IntN(6))
		r1, err1 := Spearman(y, p)
		r2, err2 := Spearman(p, y)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("trial %d: errors %v, %v", trial, err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, ErrUndefined) {
				t.Fatalf("trial %d: err = %v", trial, err1)
			}
			continue
		}
		if !near(r1, r2) || r1 < -1 || r1 > 1 {
			t.Fatalf("trial %d: Spearman %v, swapped %v", trial, r1, r2)
		}
		cube := make([]float64, m)
		for i, v := range p {
			cube[i] = v*v*v + 5
		}
		if r3, _ := Spearman(y, cube); !near(r1, r3) {
			t.Fatalf("trial %d: monotone transform changed Spearman %v -> %v", trial, r1, r3)
		}
	}
}

func BenchmarkCIndex(b *testing.B) {
	rnd := rand.New(rand.NewPCG(7, 8))
	const m = 100000
	y := randInts(rnd, m, 0, 1000)
	p := randInts(rnd, m, 0, 1000)
	for b.Loop() {
		if _, err := CIndex(y, p); err != nil {
			b.Fatal(err)
		}
	}
}
