package stream

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// TestCheckpointEngine drives a Plan the way a distributed engine does —
// workers rebuilt from a Checkpoint, accumulators encoded, decoded and merged
// on the driver, groups assembled by hand — and holds it to Run.
func TestCheckpointEngine(t *testing.T) {
	cases := []struct {
		learner learn.Name
		cv      string
		meas    string
		basis   int
	}{
		{learn.RLS, "kfold:5", "mse", 0},
		{learn.RLS, "loo", "cindex", 0},
		{learn.GlobalRank, "lgo", "cindex", 20},
		{learn.QueryRank, "lqo", "disagreement", 0},
		{learn.QueryRank, "kfold:3", "mse", 0},
		{learn.RLS, "lgo", "mse", 0},
		{learn.GlobalRank, "kfold:4", "cindex", 0},
	}
	for n, c := range cases {
		t.Run(string(c.learner)+"/"+c.cv, func(t *testing.T) {
			x, y, q := synth(uint64(40+n), 150, 4, 1, true, c.learner == learn.QueryRank, 90, 3)
			_, shards := writeShards(t, t.TempDir(), x, y, q, false, 3)
			meas, _ := measure.ByName(c.meas)
			spec := kernel.Spec{Name: "linear", Bias: 1}
			if c.basis > 0 {
				spec = kernel.Spec{Name: "gaussian", Gamma: 0.2}
			}
			opt := Options{Learner: c.learner, Kernel: spec, BasisN: c.basis, CV: c.cv, Seed: 9,
				Lambdas: []float64{0.01, 1, 100}, Measure: meas, Standardize: true}
			want, err := Run(context.Background(), opt, Source{Files: shards, Format: "svmlight"}, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var chunks [][]Row
			for _, s := range shards {
				f, err := dataset.OpenData(s)
				if err != nil {
					t.Fatal(err)
				}
				err = dataset.ReadChunks(f, s, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{}, 40, func(d *dataset.Data, _ int) error {
					chunks = append(chunks, Rows(d))
					return nil
				})
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			driver, err := NewPlan(opt)
			if err != nil {
				t.Fatal(err)
			}
			var all []Row
			for _, ch := range chunks {
				all = append(all, ch...)
			}
			if err := driver.SetPilot(all[:min(len(all), driver.PilotRows())]); err != nil {
				t.Fatal(err)
			}
			for pass, more := driver.Next(); more; pass, more = driver.Next() {
				cp, err := driver.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				var store *Store
				if pass.Predictions {
					if store, err = NewStore(t.TempDir(), 3, 1); err != nil {
						t.Fatal(err)
					}
				}
				merged, err := driver.NewAccumulator()
				if err != nil {
					t.Fatal(err)
				}
				byKey := map[string][]byte{} // the pieces, combined per key as a pipeline does
				groups := map[string][]Row{}
				for _, r := range all {
					groups[r.Group] = append(groups[r.Group], r)
				}
				for w := 0; w < 3; w++ { // three workers, each from the checkpoint
					wp, err := Resume(cp)
					if err != nil {
						t.Fatal(err)
					}
					a, err := wp.NewAccumulator()
					if err != nil {
						t.Fatal(err)
					}
					var sw *StoreWriter
					if store != nil {
						sw, _ = store.Writer()
						a.Emit = sw.Write
					}
					if pass.Grouped {
						for k, g := range sortedKeys(groups) {
							if k%3 == w {
								if err := a.AddGroup(groups[g]); err != nil {
									t.Fatal(err)
								}
							}
						}
					} else {
						for k, ch := range chunks {
							if k%3 == w {
								if err := a.AddChunk(rowsData(ch)); err != nil {
									t.Fatal(err)
								}
							}
						}
					}
					if sw != nil {
						sw.Close()
					}
					if n%2 == 0 {
						pieces, err := a.Pieces()
						if err != nil {
							t.Fatal(err)
						}
						for _, pc := range pieces {
							if prev, ok := byKey[pc.Key]; ok {
								if pc.Data, err = MergePieces(prev, pc.Data); err != nil {
									t.Fatal(err)
								}
							}
							byKey[pc.Key] = pc.Data
						}
						continue
					}
					enc, err := a.MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					dec, err := driver.DecodeAccumulator(enc)
					if err != nil {
						t.Fatal(err)
					}
					if err := merged.Merge(dec); err != nil {
						t.Fatal(err)
					}
				}
				if n%2 == 0 {
					var pieces []Piece
					for _, k := range sortedKeys(byKey) {
						pieces = append(pieces, Piece{Key: k, Data: byKey[k]})
					}
					if merged, err = driver.Join(pieces); err != nil {
						t.Fatal(err)
					}
				}
				if err := driver.Finish(merged, store); err != nil {
					t.Fatal(err)
				}
				if store != nil {
					store.Close()
				}
			}
			got, err := driver.Result()
			if err != nil {
				t.Fatal(err)
			}
			for l := range want.Curve {
				a, b := got.Curve[l].Value, want.Curve[l].Value
				if math.Abs(a-b) > 1e-12*math.Abs(b) {
					t.Errorf("λ = %g: %v, Run gives %v", want.Curve[l].Lambda, a, b)
				}
				if got.Curve[l].Indistinguishable != want.Curve[l].Indistinguishable {
					t.Errorf("λ = %g: indistinguishable %v, Run gives %v", want.Curve[l].Lambda, got.Curve[l].Indistinguishable, want.Curve[l].Indistinguishable)
				}
			}
		})
	}
	_ = os.Remove
}

// rowsData turns rows back into a chunk (sparse rows: CSR).
func rowsData(rows []Row) *dataset.Data {
	w := 0
	for _, r := range rows {
		w = max(w, r.Width())
	}
	d := &dataset.Data{X: rowsMatrix(rows, rows[0].Index != nil, w)}
	t := len(rows[0].Y)
	yv := make([]float64, 0, len(rows)*t)
	codes := map[string]int{}
	for _, r := range rows {
		yv = append(yv, r.Y...)
		c, ok := codes[r.Group]
		if !ok {
			c = len(d.QueryNames)
			codes[r.Group] = c
			d.QueryNames = append(d.QueryNames, r.Group)
		}
		d.Queries = append(d.Queries, c)
	}
	d.Y = matDense(len(rows), t, yv)
	return d
}
