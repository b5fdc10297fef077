package stream

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
)

// TestRankMomentsMergeAcrossWidths: the rank moments of queries over 2
// features merged with those of queries over 3 (the first's third feature
// zero in every row) are the moments of all the queries over 3 — H and B
// as Σ_q n_q Σ_{i∈q} (z_i − z̄_q)(z_i − z̄_q)ᵀ and (…)(y_i − ȳ_q)ᵀ summed
// here directly — in either order of the merge; removing one set leaves
// the other; the encoding round-trips.
func TestRankMomentsMergeAcrossWidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	type query struct{ z, y *mat.Dense }
	draw := func(n, p int) query {
		z, y := mat.NewDense(n, p, nil), mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < p; j++ {
				z.Set(i, j, 2+rng.NormFloat64())
			}
			y.Set(i, 0, rng.NormFloat64())
		}
		return query{z, y}
	}
	narrow := []query{draw(4, 2), draw(3, 2), draw(1, 2)}
	wide := []query{draw(5, 3), draw(2, 3)}
	pad := func(q query) query {
		n, p := q.z.Dims()
		z := mat.NewDense(n, 3, nil)
		z.Slice(0, n, 0, p).(*mat.Dense).Copy(q.z)
		return query{z, q.y}
	}
	a, b := NewRankMoments(2, 1), NewRankMoments(3, 1)
	for _, q := range narrow {
		a.addQuery(q.z, q.y, false)
	}
	for _, q := range wide {
		b.addQuery(q.z, q.y, false)
	}
	// the direct sums over every query, padded to 3 features
	h, c := mat.NewDense(3, 3, nil), mat.NewDense(3, 1, nil)
	rows := 0.0
	for _, q := range append(append([]query(nil), wide...), narrow...) {
		q = pad(q)
		n, _ := q.z.Dims()
		rows += float64(n)
		mu, ybar := make([]float64, 3), 0.0
		for i := 0; i < n; i++ {
			for j := range mu {
				mu[j] += q.z.At(i, j) / float64(n)
			}
			ybar += q.y.At(i, 0) / float64(n)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				dj := q.z.At(i, j) - mu[j]
				for k := 0; k < 3; k++ {
					h.Set(j, k, h.At(j, k)+float64(n)*dj*(q.z.At(i, k)-mu[k]))
				}
				c.Set(j, 0, c.At(j, 0)+float64(n)*dj*(q.y.At(i, 0)-ybar))
			}
		}
	}
	check := func(name string, m *RankMoments, wantH, wantB *mat.Dense, wantN, wantQ float64) {
		t.Helper()
		gh, gb := m.matrices()
		if m.N != wantN || m.Q != wantQ || m.P != 3 {
			t.Errorf("%s: %g rows, %g queries, %d features; want %g, %g, 3", name, m.N, m.Q, m.P, wantN, wantQ)
		}
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				if math.Abs(gh.At(j, k)-wantH.At(j, k)) > 1e-12*mat.Norm(wantH, math.Inf(1)) {
					t.Errorf("%s: H[%d,%d] %v, want %v", name, j, k, gh.At(j, k), wantH.At(j, k))
				}
			}
			if math.Abs(gb.At(j, 0)-wantB.At(j, 0)) > 1e-12*mat.Norm(wantB, math.Inf(1)) {
				t.Errorf("%s: B[%d] %v, want %v", name, j, gb.At(j, 0), wantB.At(j, 0))
			}
		}
	}
	narrowFirst := a.Clone()
	if err := narrowFirst.Merge(b); err != nil {
		t.Fatal(err)
	}
	wideFirst := b.Clone()
	if err := wideFirst.Merge(a); err != nil {
		t.Fatal(err)
	}
	check("narrow merged with wide", narrowFirst, h, c, rows, 5)
	check("wide merged with narrow", wideFirst, h, c, rows, 5)
	bh, bb := b.matrices()
	check("all minus the narrow queries", narrowFirst.Minus(a), bh, bb, b.N, b.Q)
	if a.P != 2 {
		t.Errorf("merging into a copy widened the original to %d features", a.P)
	}
	enc, _ := narrowFirst.MarshalBinary()
	var dec RankMoments
	if err := dec.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	check("decoded", &dec, h, c, rows, 5)
	if again, _ := dec.MarshalBinary(); !bytes.Equal(again, enc) {
		t.Error("rank moments re-encoded differ from their encoding")
	}
	if err := dec.UnmarshalBinary(enc[:len(enc)-8]); err == nil {
		t.Error("a truncated encoding decoded")
	}
}

// TestScaleStatsMergeAndEncode: standardization statistics gathered over
// two shares of the rows, each encoded and decoded, then merged, give
// model.FitScaler's scaler of all the rows — dense rows, sparse rows that
// store most entries (centred) and sparse rows that store few (scaled by
// the root mean square) — with constant features, features stored in every
// row at one value, a feature whose spread is subnormal (scaled by 1, as
// model.FitScaler scales a spread that is not a normal float64), and
// features no row stores; and the encoding of the
// merged statistics round-trips byte for byte.
func TestScaleStatsMergeAndEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const m, d = 40, 7
	for _, c := range []struct {
		name   string
		sparse bool
		keep   float64 // share of the varying entries stored (sparse)
	}{
		{"dense", false, 1},
		{"sparse centred", true, 0.9},
		{"sparse uncentred", true, 0.2},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := mat.NewDense(m, d, nil)
			for i := 0; i < m; i++ {
				x.Set(i, 0, 3)                               // constant, stored in every row
				x.Set(i, 1, math.Ldexp(1+rng.Float64(), 40)) // large
				for j := 2; j < d-1; j++ {                   // feature d−1: no row holds it
					if !c.sparse || rng.Float64() < c.keep {
						x.Set(i, j, rng.NormFloat64()*math.Ldexp(1, 3*j-20))
					}
				}
			}
			for i := 0; i < m; i++ {
				x.Set(i, d-2, float64(i%2)*3e-310) // spread 1.5e-310: subnormal
			}
			csr := func(lo, hi int) mat.Matrix {
				if !c.sparse {
					return x.Slice(lo, hi, 0, d)
				}
				out := &matrix.CSR{R: hi - lo, C: d, Indptr: []int{0}}
				for i := lo; i < hi; i++ {
					for j := 0; j < d; j++ {
						if v := x.At(i, j); v != 0 {
							out.Indices, out.Values = append(out.Indices, j), append(out.Values, v)
						}
					}
					out.Indptr = append(out.Indptr, len(out.Indices))
				}
				return out
			}
			var shift []float64
			if !c.sparse {
				shift = mat.Row(nil, 0, x) // the pilot's mean: here its first row
			}
			var parts []*ScaleStats
			for _, r := range [][2]int{{0, 15}, {15, m}} {
				s := newScaleStats(c.sparse, shift)
				s.add(csr(r[0], r[1]))
				enc, _ := s.MarshalBinary()
				dec := &ScaleStats{}
				if err := dec.UnmarshalBinary(enc); err != nil {
					t.Fatal(err)
				}
				if again, _ := dec.MarshalBinary(); !bytes.Equal(again, enc) {
					t.Error("statistics re-encoded differ from their encoding")
				}
				for _, n := range []int{0, 39, len(enc) - 8, len(enc) - 1} {
					if err := (&ScaleStats{}).UnmarshalBinary(enc[:n]); err == nil {
						t.Errorf("an encoding truncated to %d of %d bytes decoded", n, len(enc))
					}
				}
				dec.shift = shift
				parts = append(parts, dec)
			}
			parts[0].Merge(parts[1])
			got, want := parts[0].Scaler(), model.FitScaler(csr(0, m))
			if (got.Mean == nil) != (want.Mean == nil) || len(got.Scale) != len(want.Scale) || len(got.Index) != len(want.Index) {
				t.Fatalf("scaler %+v, model.FitScaler %+v", got, want)
			}
			for j := range want.Scale {
				if math.Abs(got.Scale[j]-want.Scale[j]) > 1e-12*want.Scale[j] {
					t.Errorf("scale %d: %v, model.FitScaler %v", j, got.Scale[j], want.Scale[j])
				}
				if want.Mean != nil && math.Abs(got.Mean[j]-want.Mean[j]) > 1e-12*math.Max(math.Abs(want.Mean[j]), want.Scale[j]) {
					t.Errorf("mean %d: %v, model.FitScaler %v", j, got.Mean[j], want.Mean[j])
				}
				if want.Index != nil && got.Index[j] != want.Index[j] {
					t.Errorf("index %d: %d, model.FitScaler %d", j, got.Index[j], want.Index[j])
				}
			}
		})
	}
}

// TestPredictionEncoding: a hold-out prediction round-trips through
// EncodePrediction and DecodePrediction; an encoded sparse row, or a
// truncated prediction, is not a prediction.
func TestPredictionEncoding(t *testing.T) {
	p := Prediction{Y: []float64{1, -2}, Group: "query 7", P: []float64{0.5, 1, -2, 3e-300}}
	got, err := DecodePrediction(EncodePrediction(p))
	if err != nil {
		t.Fatal(err)
	}
	if got.Group != p.Group || !slices.Equal(got.Y, p.Y) || !slices.Equal(got.P, p.P) {
		t.Errorf("round trip of %+v gave %+v", p, got)
	}
	if _, err := DecodePrediction(EncodeRow(Row{Index: []int{2}, Value: []float64{1}, Y: []float64{1}})); err == nil {
		t.Error("a sparse row decoded as a prediction")
	}
	enc := EncodePrediction(p)
	if _, err := DecodePrediction(enc[:len(enc)-1]); err == nil {
		t.Error("a truncated prediction decoded")
	}
}
