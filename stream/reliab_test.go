package stream

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/progress"
)

// writeFile writes text to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStreamReliabTwoShardsOfDifferentWidth is issue 20's reproducer: the
// shards "1 1:1 / 2 1:2 / 3 1:0.5" and "1 1:1 7:3 / 5 2:1" (the second wider,
// features 3–6 in no row) give the in-memory fit's leave-one-out mse
// (3.859, NumPy agreeing) and weights, in every chunking and for every
// learner of the squared and all-pairs losses and scheme that runs on five
// rows.
func TestStreamReliabTwoShardsOfDifferentWidth(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.svm", "1 1:1\n2 1:2\n3 1:0.5\n")
	b := writeFile(t, dir, "b.svm", "1 1:1 7:3\n5 2:1\n")
	whole := writeFile(t, dir, "whole.svm", "1 1:1\n2 1:2\n3 1:0.5\n1 1:1 7:3\n5 2:1\n")
	d, err := dataset.ReadFile(whole, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mse, _ := measure.ByName("mse")
	for _, c := range []streamCase{
		{learner: learn.RLS, cv: "loo", bias: 1, t: 1},
		{learner: learn.RLS, cv: "kfold:2", bias: 1, t: 1},
		{learner: learn.RLS, cv: "loo", bias: 0, t: 1, std: true},
		{learner: learn.GlobalRank, cv: "loo", t: 1},
		{learner: learn.GlobalRank, cv: "kfold:3", t: 1, std: true},
	} {
		for _, chunk := range []int{1, 2, 100} {
			t.Run(fmt.Sprintf("%s/%s/std%v/chunk%d", c.learner, c.cv, c.std, chunk), func(t *testing.T) {
				opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: c.bias}, CV: c.cv, Seed: 1,
					Lambdas: []float64{1e-3, 1, 30}, Measure: mse, Standardize: c.std}
				got, err := Run(context.Background(), opt, Source{Files: []string{a, b}, Format: "svmlight"}, RunOptions{Workers: 2, ChunkRows: chunk})
				if err != nil {
					t.Fatal(err)
				}
				want := inMemory(t, c, d, opt, nil)
				compareFits(t, c.cv, "mse", got, want, d, func(l float64) bool { return c.learner == learn.RLS || l >= 1 })
				compareDirect(t, c, opt.Seed, mse, got, d)
				if c.learner == learn.RLS && c.cv == "loo" && c.bias == 1 && !c.std {
					if v := got.Curve[1].Value; math.Abs(v-3.85916110387956) > 1e-12 {
						t.Errorf("λ = 1: leave-one-out mse %.15g, want 3.85916110387956", v)
					}
				}
			})
		}
	}
}

// TestStreamReliabFeatureOfTheFirstRows is issue 20's second reproducer,
// smaller: one plain svmlight file that the stream cuts into byte ranges,
// with a feature present only in its first rows (inside the pilot of 1024
// rows) and features 4–8 in no row. The shifted statistics of a training
// set without that feature, or of any set for the absent ones, are rounding
// noise about the pilot's mean, which the rankers' solve amplified by n/λ
// into weights off by 1e-7 here (7.7e-4 on 45 MB); now they are constant
// columns solved exactly: weights and CV curves equal the in-memory ones to
// 1e-9 and a direct retraining's.
func TestStreamReliabFeatureOfTheFirstRows(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	const m = 3000
	for i := 0; i < m; i++ {
		x := []float64{rng.NormFloat64() + 3, rng.NormFloat64(), rng.NormFloat64()}
		y := x[0] - x[1] + 0.3*rng.NormFloat64()
		fmt.Fprintf(&sb, "%g qid:%d", y, rng.IntN(300))
		for j, v := range x {
			fmt.Fprintf(&sb, " %d:%g", j+1, v)
		}
		if i < 20 {
			fmt.Fprintf(&sb, " 9:%g", 1+rng.Float64())
		}
		sb.WriteString("\n")
	}
	whole := writeFile(t, dir, "d.svm", sb.String())
	d, err := dataset.ReadFile(whole, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func(b int64) { splitBytes = b }(splitBytes)
	for _, c := range []streamCase{
		{learner: learn.GlobalRank, cv: "kfold:4", t: 1},
		{learner: learn.GlobalRank, cv: "lgo", t: 1},
		{learner: learn.GlobalRank, cv: "none", t: 1},
		{learner: learn.RLS, cv: "lgo", bias: 1, t: 1},
		{learner: learn.RLS, cv: "kfold:4", bias: 1, t: 1, std: true},
	} {
		t.Run(string(c.learner)+"/"+c.cv, func(t *testing.T) {
			lambdas := []float64{1e-3, 1, 100}
			if c.cv == "none" {
				lambdas = []float64{1e-3}
			}
			mse, _ := measure.ByName("mse")
			opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: c.bias}, CV: c.cv, Seed: 5, Lambdas: lambdas, Measure: mse, Standardize: c.std}
			splitBytes = 4096
			got, err := Run(context.Background(), opt, Source{Files: []string{whole}, Format: "svmlight"}, RunOptions{Workers: 3, ChunkRows: 64})
			splitBytes = 1 << 62
			if err != nil {
				t.Fatal(err)
			}
			want := inMemory(t, c, d, opt, nil)
			// the in-memory globalrank's own shortcuts lose digits at small λ
			// (TestStreamReliabProperty): its curve is held at λ ≥ 1
			compareFits(t, c.cv, "mse", got, want, d, func(l float64) bool { return c.learner == learn.RLS || l >= 1 })
			compareDirect(t, c, opt.Seed, mse, got, d)
			w := fullWeights(got.Predictor)
			for j := 3; j < 8; j++ {
				if v := w.At(j, 0); v != 0 {
					t.Errorf("feature %d, in no row: weight %g, want 0", j+1, v)
				}
			}
		})
	}
}

// TestStreamReliabLabelOnlyRows is issue 20 item 9: svmlight rows without
// features ("1", "2": scikit-learn writes all-zero rows so) panicked the
// stream ("mat: zero length in matrix dimension") when a chunk held only
// such rows before any feature of its file — at the start of a shard or a
// byte range. They fit, as in memory, for every learner, in chunks of one
// row; a file of label-only rows alone is an error, not a panic.
func TestStreamReliabLabelOnlyRows(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 4))
	var lines []string
	for i := 0; i < 60; i++ {
		q := "qid:" + strconv.Itoa(i%6)
		if i < 3 || i%7 == 0 {
			lines = append(lines, fmt.Sprintf("%d %s", rng.IntN(3), q))
			continue
		}
		lines = append(lines, fmt.Sprintf("%d %s 1:%g 3:%g", rng.IntN(3), q, rng.NormFloat64()+1, rng.NormFloat64()))
	}
	a := writeFile(t, dir, "a.svm", strings.Join(lines[:30], "\n")+"\n")
	b := writeFile(t, dir, "b.svm", "1 qid:9\n2 qid:9\n"+strings.Join(lines[30:], "\n")+"\n")
	whole := writeFile(t, dir, "whole.svm", strings.Join(lines[:30], "\n")+"\n1 qid:9\n2 qid:9\n"+strings.Join(lines[30:], "\n")+"\n")
	d, err := dataset.ReadFile(whole, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []streamCase{
		{learner: learn.RLS, cv: "loo", meas: "mse", bias: 1, t: 1},
		{learner: learn.RLS, cv: "kfold:3", meas: "mse", bias: 1, t: 1, std: true},
		{learner: learn.GlobalRank, cv: "lgo", meas: "cindex", t: 1},
		{learner: learn.GlobalRank, cv: "loo", meas: "cindex", t: 1, std: true},
		{learner: learn.QueryRank, cv: "lqo", meas: "disagreement", t: 1},
		{learner: learn.QueryRank, cv: "loo", meas: "mse", t: 1},
	} {
		t.Run(string(c.learner)+"/"+c.cv, func(t *testing.T) {
			meas, _ := measure.ByName(c.meas)
			opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: c.bias}, CV: c.cv, Seed: 2,
				Lambdas: []float64{0.1, 1, 10}, Measure: meas, Standardize: c.std}
			got, err := Run(context.Background(), opt, Source{Files: []string{a, b}, Format: "svmlight"}, RunOptions{Workers: 2, ChunkRows: 1})
			if err != nil {
				t.Fatal(err)
			}
			compareFits(t, c.cv, c.meas, got, inMemory(t, c, d, opt, nil), d, func(float64) bool { return true })
			compareDirect(t, c, opt.Seed, meas, got, d)
		})
	}
	none := writeFile(t, dir, "none.svm", "1\n2\n3\n")
	mse, _ := measure.ByName("mse")
	_, err = Run(context.Background(), Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "loo", Lambdas: []float64{1}, Measure: mse},
		Source{Files: []string{none}, Format: "svmlight"}, RunOptions{ChunkRows: 1})
	if err == nil || !strings.Contains(err.Error(), "no features") {
		t.Errorf("label-only rows alone: %v, want an error saying the rows have no features", err)
	}
}

// TestStreamReliabTinyAndHugeScales is issue 20 item 10: with
// --standardize, features of scale 1e-200 (whose squares underflow) and
// 1e-160, and of scale 1e200 (whose squares overflow), are standardized as
// model.FitScaler does, by powers of two first: the streamed fit equals the
// in-memory one (and a direct retraining) to 1e-9. Before, the scale-1e-200
// feature was lost (its variance 0, scale 1: mse 4.56 streamed vs 0.0146 in
// memory) and 1e-160 differed by 2e-5; 1e200 failed the eigendecomposition.
// A constant feature standardizes to exact zeros (its mean is its value, its
// scale 1), as in memory. Dense CSV, sparse svmlight centred (most entries
// stored) and sparse scaled by the root mean square.
func TestStreamReliabTinyAndHugeScales(t *testing.T) {
	for _, scale := range []float64{1e-200, 1e-160, 1e200} {
		rng := rand.New(rand.NewPCG(8, 8))
		const m = 240
		var csvLines, svmLines, sparseLines []string
		csvLines = append(csvLines, "y,f0,f1,f2")
		for i := 0; i < m; i++ {
			u0, u1 := rng.NormFloat64()+2, rng.NormFloat64()
			y := strconv.FormatFloat(2*u0-0.5*u1+0.1*rng.NormFloat64(), 'g', -1, 64)
			x0 := strconv.FormatFloat(u0*scale, 'g', -1, 64)
			x1 := strconv.FormatFloat(u1, 'g', -1, 64)
			// f2 is constant: it standardizes to exact zeros, however the
			// sums about the pilot's mean round
			csvLines = append(csvLines, y+","+x0+","+x1+",3.7")
			svmLines = append(svmLines, y+" 1:"+x0+" 2:"+x1+" 3:3.7")
			if i%3 == 0 {
				sparseLines = append(sparseLines, y+" 1:"+x0)
			} else {
				sparseLines = append(sparseLines, y+" 2:"+x1)
			}
		}
		dir := t.TempDir()
		files := []struct {
			name, format, text string
		}{
			{"dense.csv", "csv", strings.Join(csvLines, "\n") + "\n"},
			{"centred.svm", "svmlight", strings.Join(svmLines, "\n") + "\n"},
			{"sparse.svm", "svmlight", strings.Join(sparseLines, "\n") + "\n"},
		}
		for _, f := range files {
			path := writeFile(t, dir, f.name, f.text)
			csvOpt := dataset.CSVOptions{}
			if f.format == "csv" {
				csvOpt.Labels = []string{"y"}
			}
			d, err := dataset.ReadFile(path, f.format, csvOpt, dataset.SVMLightOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []streamCase{
				{learner: learn.RLS, cv: "kfold:4", meas: "mse", bias: 1, t: 1, std: true},
				{learner: learn.RLS, cv: "loo", meas: "mse", bias: 1, t: 1, std: true},
				{learner: learn.GlobalRank, cv: "kfold:3", meas: "mse", t: 1, std: true},
			} {
				t.Run(fmt.Sprintf("%g/%s/%s/%s", scale, f.name, c.learner, c.cv), func(t *testing.T) {
					mse, _ := measure.ByName("mse")
					opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: c.bias}, CV: c.cv, Seed: 3,
						Lambdas: []float64{0.01, 1, 100}, Measure: mse, Standardize: true}
					got, err := Run(context.Background(), opt, Source{Files: []string{path}, Format: f.format, CSV: csvOpt}, RunOptions{Workers: 3, ChunkRows: 17})
					if err != nil {
						t.Fatal(err)
					}
					compareFits(t, c.cv, "mse", got, inMemory(t, c, d, opt, nil), d, func(l float64) bool { return c.learner == learn.RLS || l >= 1 })
					compareDirect(t, c, opt.Seed, mse, got, d)
					if c.learner == learn.RLS && f.name != "sparse.svm" && got.Best.Value > 0.1 {
						t.Errorf("best mse %g: the feature of scale %g was lost", got.Best.Value, scale)
					}
				})
			}
		}
	}
}

// TestStreamReliabChangedBetweenPasses is issue 20 item 3: every pass of a
// multi-pass fit fingerprints what it reads of each file (its bytes as
// stored and their CRC-32C) and compares the first pass's: a gzip member
// appended to a shard after the first pass of k-fold + auc (before: exit 0,
// a wrong AUC, n_train from one pass and the file's rows from another), or
// a shard rewritten in place to the same size, is ErrChanged naming the
// shard — for the standardization, statistics, query and prediction passes,
// files read whole or as byte ranges.
func TestStreamReliabChangedBetweenPasses(t *testing.T) {
	x, y, q := synth(31, 600, 4, 1, true, true, 40, 2)
	for i := range y {
		y[i][0] = math.Copysign(1, y[i][0]-2)
	}
	cases := []struct {
		name    string
		learner learn.Name
		cv      string
		meas    string
		std     bool
		shard   int    // the shard changed
		how     string // append (a gzip member, or lines), rewrite (same size)
		split   bool
	}{
		{"kfold+auc, gzip member appended", learn.RLS, "kfold:5", "auc", false, 1, "append", false},
		{"kfold+auc, rewritten in place", learn.RLS, "kfold:5", "auc", false, 0, "rewrite", false},
		{"standardize+mse", learn.RLS, "kfold:5", "mse", true, 2, "rewrite", false},
		{"loo", learn.RLS, "loo", "mse", false, 0, "append", false},
		{"lqo grouped", learn.QueryRank, "lqo", "disagreement", false, 1, "append", false},
		{"lqo grouped, rewritten", learn.QueryRank, "lqo", "disagreement", false, 2, "rewrite", false},
		{"byte ranges", learn.RLS, "kfold:5", "auc", false, 0, "rewrite", true},
	}
	defer func(b int64) { splitBytes = b }(splitBytes)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			whole, shards := writeShards(t, dir, x, y, q, false, 3)
			if c.split {
				shards = []string{whole}
				splitBytes = 4096
				defer func() { splitBytes = 1 << 62 }()
			}
			target := shards[c.shard]
			meas, _ := measure.ByName(c.meas)
			opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: c.cv, Seed: 1,
				Lambdas: []float64{0.1, 10}, Measure: meas, Standardize: c.std}
			if c.learner == learn.QueryRank {
				opt.Kernel.Bias = 0
			}
			src := Source{Files: shards, Format: "svmlight"}
			// unchanged: the fit runs
			want, err := Run(context.Background(), opt, src, RunOptions{Workers: 3, ChunkRows: 50})
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Passes) < 2 {
				t.Fatalf("%d passes: not a multi-pass scheme", len(want.Passes))
			}
			changed := false
			change := func(e progress.Event) {
				if changed || !strings.HasPrefix(e.Stage, "pass 1 ") || e.Done < e.Total {
					return
				}
				changed = true // every byte of pass 1 is read: change the shard before pass 2
				b, err := os.ReadFile(target)
				if err != nil {
					t.Error(err)
					return
				}
				switch {
				case c.how == "rewrite":
					i := bytes.Index(b, []byte(":"))
					b[i+1] = map[byte]byte{'1': '2'}[b[i+1]] | 0
					if b[i+1] == 0 {
						b[i+1] = '1'
					}
				case strings.HasSuffix(target, ".gz"):
					var z bytes.Buffer
					zw := gzip.NewWriter(&z)
					zw.Write([]byte("1 qid:q1 1:0.5 2:1\n-1 qid:q2 1:1.5\n"))
					zw.Close()
					b = append(b, z.Bytes()...)
				default:
					b = append(b, "1 qid:q1 1:0.5 2:1\n-1 qid:q2 1:1.5\n"...)
				}
				if err := os.WriteFile(target, b, 0o644); err != nil {
					t.Error(err)
				}
			}
			_, err = Run(context.Background(), opt, src, RunOptions{Workers: 3, ChunkRows: 50, Progress: change})
			if !changed {
				t.Fatal("the shard was not changed")
			}
			if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), target) {
				t.Fatalf("%s changed after pass 1: %v, want ErrChanged naming it", target, err)
			}
			t.Log(err)
		})
	}
}

// TestStreamReliabZeroRowsPredictZero: the rankers' models have no
// intercept, so a row without features (label-only svmlight rows) is
// predicted exactly 0 by every training set, as in memory — ties among such
// rows are exact, not rounding noise left to the tie tolerance. Every
// hold-out prediction the accumulators emit for such a row is 0, for
// k-fold, leave-one-out, leave-group-out (whole groups) and the query loss.
func TestStreamReliabZeroRowsPredictZero(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(6, 1))
	var b strings.Builder
	for i := 0; i < 80; i++ { // rows 0, 6, 12, … without features
		fmt.Fprintf(&b, "%d qid:%d", i, i%5) // the label names the row
		if i%6 != 0 {
			fmt.Fprintf(&b, " 1:%g 2:%g", 3+rng.NormFloat64(), rng.NormFloat64())
		}
		b.WriteString("\n")
	}
	data := writeFile(t, dir, "d.svm", b.String())
	d, err := dataset.ReadFile(data, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cindex, _ := measure.ByName("cindex")
	for _, c := range []struct {
		learner learn.Name
		cv      string
	}{{learn.GlobalRank, "kfold:4"}, {learn.GlobalRank, "loo"}, {learn.GlobalRank, "lgo"}, {learn.QueryRank, "lqo"}, {learn.QueryRank, "loo"}, {learn.QueryRank, "kfold:3"}} {
		t.Run(string(c.learner)+"/"+c.cv, func(t *testing.T) {
			p, err := NewPlan(Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear"}, CV: c.cv, Seed: 1, Lambdas: []float64{1e-3, 1, 100}, Measure: cindex})
			if err != nil {
				t.Fatal(err)
			}
			rows := Rows(d)
			if err := p.SetPilot(rows); err != nil {
				t.Fatal(err)
			}
			zeros := 0
			for pass, more := p.Next(); more; pass, more = p.Next() {
				a, err := p.NewAccumulator()
				if err != nil {
					t.Fatal(err)
				}
				var store *Store
				if pass.Predictions {
					if store, err = NewStore(t.TempDir(), 3, 1); err != nil {
						t.Fatal(err)
					}
					w, _ := store.Writer()
					a.Emit = func(pr Prediction) error {
						if len(pr.P) > 0 && pr.Group != "" && isZeroRow(rows, pr) {
							zeros++
							for k, v := range pr.P {
								if v != 0 {
									t.Errorf("a row without features: prediction %d is %g, want exactly 0", k, v)
								}
							}
						}
						return w.Write(pr)
					}
					defer store.Close()
					defer w.Close()
				}
				if pass.Grouped {
					groups := map[string][]Row{}
					for _, r := range rows {
						groups[r.Group] = append(groups[r.Group], r)
					}
					for _, g := range sortedKeys(groups) {
						if err := a.AddGroup(groups[g]); err != nil {
							t.Fatal(err)
						}
					}
				} else if err := a.AddChunk(d); err != nil {
					t.Fatal(err)
				}
				if store != nil {
					for _, w := range store.writers {
						w.Close()
					}
				}
				if err := p.Finish(a, store); err != nil {
					t.Fatal(err)
				}
			}
			if zeros == 0 {
				t.Fatal("no prediction of a row without features")
			}
		})
	}
}

// isZeroRow reports whether the prediction is of one of the rows without
// features (the label names the row).
func isZeroRow(rows []Row, pr Prediction) bool {
	r := rows[int(pr.Y[0])]
	return len(r.Value) == 0 && r.Group == pr.Group
}
