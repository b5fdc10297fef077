package stream

import (
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// TestTakePiecesTwiceGroupSizes: an accumulator that serves two elements of
// a pipeline — TakePieces after each — gives pieces whose join counts every
// group's rows once: the group sizes of the leave-group-out statistics pass
// are the rows of each query id counted here directly.
func TestTakePiecesTwiceGroupSizes(t *testing.T) {
	meas, _ := measure.ByName("mse")
	p, err := NewPlan(Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "lgo",
		Lambdas: []float64{0.1, 1}, Measure: meas})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 6))
	var rows []Row
	want := map[string]int64{}
	for i := 0; i < 24; i++ {
		g := string(rune('a' + i%4))
		if i >= 12 {
			g = string(rune('a' + i%3)) // the second element repeats three of the groups
		}
		want[g]++
		rows = append(rows, Row{Value: []float64{rng.NormFloat64(), rng.NormFloat64()}, Y: []float64{rng.NormFloat64()}, Group: g})
	}
	if err := p.SetPilot(rows); err != nil {
		t.Fatal(err)
	}
	if pass, ok := p.Next(); !ok || pass.Kind != StatsPass {
		t.Fatalf("first pass %v (%v), want the statistics pass", pass.Kind, ok)
	}
	a, err := p.NewAccumulator()
	if err != nil {
		t.Fatal(err)
	}
	var pieces []Piece
	for _, part := range [][]Row{rows[:12], rows[12:]} {
		if err := a.AddChunk(rowsData(part)); err != nil {
			t.Fatal(err)
		}
		ps, err := a.TakePieces()
		if err != nil {
			t.Fatal(err)
		}
		pieces = append(pieces, ps...)
	}
	joined, err := p.Join(pieces)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(joined, nil); err != nil {
		t.Fatal(err)
	}
	if got := p.GroupSizes(); !maps.Equal(got, want) {
		t.Errorf("group sizes %v, want %v", got, want)
	}
}

// TestScalerConstantStoredColumn: sparse data that stores most entries is
// centred like dense data; a column stored in every row with one value
// (0.3: its computed spread is rounding, not 0) is that value's constant
// column — mean 0.3, scale 1 — as model.FitScaler, the in-memory
// standardization, makes it; the other column matches FitScaler to rounding.
// The statistics come in two chunks (counts summed across chunks).
func TestScalerConstantStoredColumn(t *testing.T) {
	build := func(first, n int) *matrix.CSR {
		indptr, idx, vals := []int{0}, []int{}, []float64{}
		for i := first; i < first+n; i++ {
			idx = append(idx, 0, 1)
			vals = append(vals, 0.3, float64(i+1)/3)
			indptr = append(indptr, len(idx))
		}
		x, err := matrix.NewCSR(n, 2, indptr, idx, vals)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	s := newScaleStats(true, nil)
	s.add(build(0, 2))
	s.add(build(2, 3))
	got, want := s.Scaler(), model.FitScaler(build(0, 5))
	if got == nil || len(got.Mean) != 2 || len(want.Mean) != 2 {
		t.Fatalf("scaler %+v, want a centred one like %+v", got, want)
	}
	if got.Mean[0] != 0.3 || got.Scale[0] != 1 || want.Mean[0] != 0.3 || want.Scale[0] != 1 {
		t.Errorf("constant column: mean %v scale %v (FitScaler %v, %v), want 0.3 and 1", got.Mean[0], got.Scale[0], want.Mean[0], want.Scale[0])
	}
	for _, c := range []struct{ got, want float64 }{{got.Mean[1], want.Mean[1]}, {got.Scale[1], want.Scale[1]}} {
		if math.Abs(c.got-c.want) > 1e-14*math.Abs(c.want) {
			t.Errorf("second column: %v, FitScaler %v", c.got, c.want)
		}
	}
}

// TestRankMomentsMergeAcrossWidthsTwoOutputs: rank moments of two outputs
// over 2 features merged with those over 3 are the moments of all the
// queries over 3 — H = Σ_q n_q Σ_{i∈q} d dᵀ and B = Σ_q n_q Σ_{i∈q} d eᵀ
// (d, e the row's features and labels about the query's means) summed here
// directly — in either order of the merge.
func TestRankMomentsMergeAcrossWidthsTwoOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	const T = 2
	type query struct{ z, y *mat.Dense }
	draw := func(n, p int) query {
		z, y := mat.NewDense(n, p, nil), mat.NewDense(n, T, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < p; j++ {
				z.Set(i, j, 1+rng.NormFloat64())
			}
			for c := 0; c < T; c++ {
				y.Set(i, c, rng.NormFloat64())
			}
		}
		return query{z, y}
	}
	narrow, wide := []query{draw(4, 2), draw(3, 2)}, []query{draw(5, 3), draw(2, 3)}
	h, b := mat.NewDense(3, 3, nil), mat.NewDense(3, T, nil)
	for _, q := range append(append([]query(nil), narrow...), wide...) {
		n, p := q.z.Dims()
		at := func(i, j int) float64 { // padded with zeros to 3 features
			if j < p {
				return q.z.At(i, j)
			}
			return 0
		}
		mu, ybar := make([]float64, 3), make([]float64, T)
		for i := 0; i < n; i++ {
			for j := range mu {
				mu[j] += at(i, j) / float64(n)
			}
			for c := range ybar {
				ybar[c] += q.y.At(i, c) / float64(n)
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				dj := at(i, j) - mu[j]
				for k := 0; k < 3; k++ {
					h.Set(j, k, h.At(j, k)+float64(n)*dj*(at(i, k)-mu[k]))
				}
				for c := 0; c < T; c++ {
					b.Set(j, c, b.At(j, c)+float64(n)*dj*(q.y.At(i, c)-ybar[c]))
				}
			}
		}
	}
	a, w := NewRankMoments(2, T), NewRankMoments(3, T)
	for _, q := range narrow {
		a.addQuery(q.z, q.y, false)
	}
	for _, q := range wide {
		w.addQuery(q.z, q.y, false)
	}
	for name, pair := range map[string][2]*RankMoments{"narrow first": {a, w}, "wide first": {w, a}} {
		m := pair[0].Clone()
		if err := m.Merge(pair[1]); err != nil {
			t.Fatal(err)
		}
		gh, gb := m.matrices()
		if r, c := gb.Dims(); m.P != 3 || r != 3 || c != T {
			t.Fatalf("%s: %d features, B %d×%d; want 3 and 3×%d", name, m.P, r, c, T)
		}
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				if math.Abs(gh.At(j, k)-h.At(j, k)) > 1e-12*mat.Norm(h, math.Inf(1)) {
					t.Errorf("%s: H[%d,%d] %v, want %v", name, j, k, gh.At(j, k), h.At(j, k))
				}
			}
			for c := 0; c < T; c++ {
				if math.Abs(gb.At(j, c)-b.At(j, c)) > 1e-12*mat.Norm(b, math.Inf(1)) {
					t.Errorf("%s: B[%d,%d] %v, want %v", name, j, c, gb.At(j, c), b.At(j, c))
				}
			}
		}
	}
}

// TestReadShardCounterTotal: the byte counter of a local file is told every
// byte of it — the sum of its calls is the file's size — also when the file
// ends in lines that hold no rows (comments well beyond the reader's buffer,
// read after the last chunk is handed on).
func TestReadShardCounterTotal(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 10; i++ {
		sb.WriteString("1 1:0.5 2:1\n")
	}
	for sb.Len() < 1<<20 {
		sb.WriteString("# a comment line, no row in it ..........................................\n")
	}
	name := filepath.Join(t.TempDir(), "trailing.svm")
	if err := os.WriteFile(name, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var total int64
	rows := 0
	err := ReadShard(Source{Format: "svmlight"}, name, 5, func(n int64) { total += n }, func(d *dataset.Data, _ int) error {
		rows += d.Rows()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != 10 || total != int64(sb.Len()) {
		t.Errorf("%d rows, counter told %d bytes; want 10 rows and the file's %d bytes", rows, total, sb.Len())
	}
}

// TestTakePiecesPipelineEqualsOneAccumulator: every pass fed to one
// accumulator as two pipeline elements — TakePieces after each, all pieces
// joined — gives the result of the same rows fed to one accumulator at once
// (each fold's, group's and query fold's statistics counted once).
func TestTakePiecesPipelineEqualsOneAccumulator(t *testing.T) {
	cases := []struct {
		learner learn.Name
		cv      string
	}{{learn.RLS, "kfold:3"}, {learn.RLS, "lgo"}, {learn.QueryRank, "kfold:3"}}
	for n, c := range cases {
		t.Run(string(c.learner)+"/"+c.cv, func(t *testing.T) {
			meas, _ := measure.ByName("mse")
			opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: c.cv, Seed: 5,
				Lambdas: []float64{0.01, 1, 100}, Measure: meas}
			rng := rand.New(rand.NewPCG(uint64(n), 77))
			var rows []Row
			for i := 0; i < 60; i++ {
				x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				rows = append(rows, Row{Value: x, Y: []float64{x[0] - 2*x[1] + 0.3*rng.NormFloat64()}, Group: string(rune('a' + i/6))})
			}
			run := func(elements int) *Result {
				p, err := NewPlan(opt)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.SetPilot(rows); err != nil {
					t.Fatal(err)
				}
				for pass, more := p.Next(); more; pass, more = p.Next() {
					var store *Store
					if pass.Predictions {
						if store, err = NewStore(t.TempDir(), 2, 1); err != nil {
							t.Fatal(err)
						}
					}
					a, err := p.NewAccumulator()
					if err != nil {
						t.Fatal(err)
					}
					var sw *StoreWriter
					if store != nil {
						sw, _ = store.Writer()
						a.Emit = sw.Write
					}
					var pieces []Piece
					per := len(rows) / elements
					for e := 0; e < elements; e++ {
						part := rows[e*per : (e+1)*per]
						if pass.Grouped {
							for g := 0; g < len(part); g += 6 {
								if err := a.AddGroup(part[g : g+6]); err != nil {
									t.Fatal(err)
								}
							}
						} else if err := a.AddChunk(rowsData(part)); err != nil {
							t.Fatal(err)
						}
						ps, err := a.TakePieces()
						if err != nil {
							t.Fatal(err)
						}
						pieces = append(pieces, ps...)
					}
					if sw != nil {
						sw.Close()
					}
					joined, err := p.Join(pieces)
					if err != nil {
						t.Fatal(err)
					}
					if err := p.Finish(joined, store); err != nil {
						t.Fatal(err)
					}
					if store != nil {
						store.Close()
					}
				}
				res, err := p.Result()
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			want, got := run(1), run(2)
			if got.Rows != want.Rows || len(got.Curve) != len(want.Curve) {
				t.Fatalf("%d rows, %d λ; one accumulator: %d, %d", got.Rows, len(got.Curve), want.Rows, len(want.Curve))
			}
			for l := range want.Curve {
				if a, b := got.Curve[l].Value, want.Curve[l].Value; math.Abs(a-b) > 1e-9*math.Abs(b) {
					t.Errorf("λ = %g: %v, one accumulator %v", want.Curve[l].Lambda, a, b)
				}
			}
		})
	}
}
