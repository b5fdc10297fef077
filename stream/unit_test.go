package stream

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDD checks the double-double operations against big.Float at 200 bits.
func TestDD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exact := func(x dd) *big.Float {
		f := new(big.Float).SetPrec(200).SetFloat64(x.hi)
		return f.Add(f, new(big.Float).SetPrec(200).SetFloat64(x.lo))
	}
	rel := func(got dd, want *big.Float) float64 {
		d := new(big.Float).SetPrec(200).Sub(exact(got), want)
		r, _ := new(big.Float).Quo(d, want).Float64()
		return math.Abs(r)
	}
	for n := 0; n < 2000; n++ {
		a := dd{rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20), 0}
		a.lo = a.hi * 1e-17 * rng.NormFloat64()
		a.hi, a.lo = fastTwoSum(a.hi, a.lo)
		b := dd{rng.NormFloat64(), 0}
		b.lo = b.hi * 1e-17 * rng.NormFloat64()
		b.hi, b.lo = fastTwoSum(b.hi, b.lo)
		ea, eb := exact(a), exact(b)
		cases := []struct {
			name string
			got  dd
			want *big.Float
			tol  float64
		}{
			{"add", a.add(b), new(big.Float).SetPrec(200).Add(ea, eb), 1e-30},
			{"mul", a.mul(b), new(big.Float).SetPrec(200).Mul(ea, eb), 1e-30},
			{"div", a.div(b), new(big.Float).SetPrec(200).Quo(ea, eb), 1e-30},
		}
		for _, c := range cases {
			if c.want.Sign() == 0 {
				continue
			}
			if r := rel(c.got, c.want); r > c.tol {
				t.Fatalf("%s(%v, %v): relative error %.1e", c.name, a, b, r)
			}
		}
	}
}

// TestMomentsMergeMinusEncode: moments of two halves merge into those of
// the whole; the whole minus a half is the other half; encoding round-trips.
func TestMomentsMergeMinusEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	block := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	za, ya := block(20, 3), block(20, 2)
	zb, yb := block(13, 5), block(13, 2) // wider: the moments grow
	a, b, all := NewMoments(0, 2), NewMoments(0, 2), NewMoments(0, 2)
	a.addBlock(za, ya)
	b.addBlock(zb, yb)
	all.addBlock(za, ya)
	all.addBlock(zb, yb)
	merged := a.Clone()
	if err := merged.Merge(b); err != nil {
		t.Fatal(err)
	}
	rest := all.Minus(a)
	enc, _ := all.MarshalBinary()
	var dec Moments
	if err := dec.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if err := dec.UnmarshalBinary(enc[:len(enc)-1]); err == nil {
		t.Error("a truncated encoding decoded")
	}
	for _, pair := range []struct {
		name string
		x, y *Moments
	}{{"merge", merged, all}, {"minus", rest, b}, {"encode", &dec, all}} {
		if pair.x.N != pair.y.N {
			t.Fatalf("%s: n %g vs %g", pair.name, pair.x.N, pair.y.N)
		}
		for i := 0; i < 5; i++ {
			for j := i; j < 5; j++ {
				u, v := pair.x.zzAt(i, j).float(), pair.y.zzAt(i, j).float()
				if math.Abs(u-v) > 1e-14*math.Max(1, math.Abs(v)) {
					t.Fatalf("%s: ZZ[%d,%d] %v vs %v", pair.name, i, j, u, v)
				}
			}
		}
	}
}

// TestFold: the fold depends on a row's content, not on its storage.
func TestFold(t *testing.T) {
	dense := Row{Value: []float64{0, 1.5, 0, -2}, Y: []float64{1}, Group: "q1"}
	sparse := Row{Index: []int{1, 2, 3}, Value: []float64{1.5, 0, -2}, Y: []float64{1}, Group: "q1"}
	if Fold(dense, 7, 10) != Fold(sparse, 7, 10) {
		t.Error("a dense and a sparse row of the same content fall in different folds")
	}
	counts := make([]int, 5)
	for i := 0; i < 5000; i++ {
		counts[Fold(Row{Value: []float64{float64(i)}, Y: []float64{0}}, 1, 5)]++
	}
	for f, n := range counts {
		if n < 900 || n > 1100 {
			t.Errorf("fold %d holds %d of 5000 rows", f, n)
		}
	}
	if GroupFold("a", 1, 7) != GroupFold("a", 1, 7) || Fold(dense, 1, 10) == Fold(dense, 2, 10) && Fold(dense, 3, 10) == Fold(dense, 4, 10) && Fold(dense, 5, 10) == Fold(dense, 6, 10) {
		t.Error("folds ignore the seed")
	}
}

// TestRowEncoding round-trips rows and refuses truncated ones.
func TestRowEncoding(t *testing.T) {
	for _, r := range []Row{
		{Index: []int{0, 4, 9}, Value: []float64{1, -2, 3.5}, Y: []float64{1, 2}, Group: "query 7"},
		{Index: []int{}, Value: []float64{}, Y: []float64{0}},
		{Value: []float64{1, 0, 2}, Y: []float64{-1}, Group: ""},
	} {
		b := EncodeRow(r)
		got, err := DecodeRow(b)
		if err != nil {
			t.Fatal(err)
		}
		if (got.Index == nil) != (r.Index == nil) || len(got.Value) != len(r.Value) || got.Group != r.Group || len(got.Y) != len(r.Y) {
			t.Errorf("round trip of %+v gave %+v", r, got)
		}
		for n := 0; n < len(b); n++ {
			if _, err := DecodeRow(b[:n]); err == nil && n < len(b)-len(r.Group) {
				t.Errorf("a row truncated to %d of %d bytes decoded", n, len(b))
			}
		}
	}
}
