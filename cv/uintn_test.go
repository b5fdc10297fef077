package cv

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// lemire is the definition of Lemire's multiply-and-reject method in
// arbitrary precision: for a 64-bit draw x, the product x·n is split into
// hi = ⌊x·n / 2⁶⁴⌋ and lo = x·n mod 2⁶⁴; the draw is rejected iff
// lo < 2⁶⁴ mod n, else hi is returned.
func lemire(next func() uint64, n uint64) uint64 {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	bn := new(big.Int).SetUint64(n)
	thresh := new(big.Int).Mod(two64, bn)
	for {
		p := new(big.Int).Mul(new(big.Int).SetUint64(next()), bn)
		hi, lo := new(big.Int).QuoRem(p, two64, new(big.Int))
		if lo.Cmp(thresh) >= 0 {
			return hi.Uint64()
		}
	}
}

// TestUintnIsLemire checks uintn against the arbitrary-precision definition
// on the same PCG stream, for bounds whose rejection zone 2⁶⁴ mod n is large
// (so rejections, and draws exactly at the threshold, occur) and for small
// ones. For n = 3·2⁶², x·n mod 2⁶⁴ is (3x mod 4)·2⁶²: a quarter of the draws
// are rejected (lo = 0) and a quarter land exactly on the threshold 2⁶² and
// must be accepted.
func TestUintnIsLemire(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 10, 1000, 1<<32 + 1, 3 << 62, 1<<63 + 1, 1<<63 + 12345, 1<<64 - 3, 5 << 61} {
		for seed := uint64(0); seed < 40; seed++ {
			r, ref := rand.NewPCG(seed, 99), rand.NewPCG(seed, 99)
			for draw := 0; draw < 5; draw++ {
				got, want := uintn(r, n), lemire(ref.Uint64, n)
				if got != want {
					t.Fatalf("n = %d, seed %d, draw %d: uintn = %d, Lemire's method %d", n, seed, draw, got, want)
				}
				if got >= n {
					t.Fatalf("n = %d: uintn = %d out of range", n, got)
				}
			}
			// both consumed the same number of draws
			if a, b := r.Uint64(), ref.Uint64(); a != b {
				t.Fatalf("n = %d, seed %d: streams out of step", n, seed)
			}
		}
	}
}
