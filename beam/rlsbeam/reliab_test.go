package rlsbeam

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
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/stream"
)

// randomShards writes m svmlight rows of uneven width — features only in
// the first rows, only in the last, in one row, index gaps, label-only rows
// (some at the start of shards: chunks without columns) — with query ids,
// as n shards cut at random rows (some gzipped), and the same rows as one
// whole file. Labels are graded when graded.
func randomShards(t *testing.T, rng *rand.Rand, m, n int, graded bool) (dir, whole string) {
	t.Helper()
	dir = t.TempDir()
	early, late, single := 1+rng.IntN(m/3), m-1-rng.IntN(m/3), rng.IntN(m)
	var lines []string
	for i := 0; i < m; i++ {
		var x [9]float64
		if i%11 != 3 && i != 0 {
			x[0], x[1] = 2+rng.NormFloat64(), rng.NormFloat64()
			if rng.IntN(4) > 0 {
				x[2] = rng.NormFloat64() - 1
			}
			if i < early {
				x[4] = 1 + rng.Float64()
			}
			if i >= late {
				x[8] = rng.NormFloat64()
			}
			if i == single {
				x[6] = 3
			}
		}
		y := x[0] - x[1] + 0.5*x[4] + 0.3*x[8] + 0.5*rng.NormFloat64()
		if graded {
			y = math.Round(math.Max(0, math.Min(3, y/2+1)))
		}
		s := fmt.Sprintf("%v qid:%d", y, rng.IntN(max(m/6, 3)))
		for j, v := range x {
			if v != 0 {
				s += fmt.Sprintf(" %d:%v", j+1, v)
			}
		}
		lines = append(lines, s)
	}
	write := func(name string, ls []string, gz bool) {
		text := []byte(strings.Join(ls, "\n") + "\n")
		if gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(text)
			zw.Close()
			text, name = b.Bytes(), name+".gz"
		}
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cuts := []int{0}
	for s := 1; s < n; s++ {
		cuts = append(cuts, 1+rng.IntN(m-1))
	}
	cuts = append(cuts, m)
	for a := range cuts {
		for b := a; b > 0 && cuts[b] < cuts[b-1]; b-- {
			cuts[b], cuts[b-1] = cuts[b-1], cuts[b]
		}
	}
	for s := 0; s < n; s++ {
		if cuts[s] < cuts[s+1] {
			write(fmt.Sprintf("part-%02d.svm", s), lines[cuts[s]:cuts[s+1]], rng.IntN(2) == 1)
		}
	}
	wdir := t.TempDir()
	whole = filepath.Join(wdir, "whole.svm")
	if err := os.WriteFile(whole, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, whole
}

// inMemory is the in-memory learner cross-validated by package selection
// on the folds the stream assigns (stream.Fold, stream.GroupFold).
func inMemory(t *testing.T, learner learn.Name, cv string, normalize bool, d *dataset.Data, opt stream.Options) ([]selection.Point, *model.Predictor) {
	t.Helper()
	method := func(x mat.Matrix, k kernel.Kernel) (learn.Learner, error) {
		lo := learn.Options{Kernel: k, Form: learn.Linear}
		switch learner {
		case learn.GlobalRank:
			return rank.FitGlobal(x, d.Y, lo)
		case learn.QueryRank:
			if normalize {
				return rank.FitQueryNormalized(x, d.Y, d.Queries, lo)
			}
			return rank.FitQuery(x, d.Y, d.Queries, lo)
		}
		return rls.Fit(x, d.Y, lo)
	}
	var sc selection.Scheme
	switch {
	case cv == "loo":
		sc = selection.Scheme{Kind: selection.LOO, Name: "loo"}
	case cv == "lgo" || cv == "lqo":
		var err error
		if sc, err = selection.NewScheme(cv, selection.SchemeOptions{Rows: d.Rows(), Groups: d.Queries}); err != nil {
			t.Fatal(err)
		}
	default:
		k, _ := strconv.Atoi(strings.TrimPrefix(cv, "kfold:"))
		byFold := make([][]int, k)
		for i, r := range stream.Rows(d) {
			f := stream.Fold(r, opt.Seed, k)
			if learner == learn.QueryRank {
				f = stream.GroupFold(r.Group, opt.Seed, k)
			}
			byFold[f] = append(byFold[f], i)
		}
		var folds [][]int
		for _, f := range byFold {
			if len(f) > 0 {
				folds = append(folds, f)
			}
		}
		sc = selection.Scheme{Kind: selection.Folds, Name: cv, Folds: folds}
	}
	res, err := selection.Search(selection.Problem{X: d.X, Method: method, Standardize: opt.Standardize},
		selection.Settings{Kernels: []kernel.Spec{opt.Kernel}, Lambdas: opt.Lambdas, Scheme: sc, Measure: opt.Measure,
			Options: selection.Options{Queries: d.Queries}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Curves[0].Curve, res.Predictor
}

// TestPrismReliabProperty is issue 20 item 2 for Beam: for random
// shardings (2–4 shards, some gzipped, cut at random rows), chunk sizes and
// rows of uneven width (label-only rows too), every learner and CV scheme,
// the pipelines on Prism equal the in-memory learner to 1e-9 — the curve at
// λ ≥ 1 (below, the in-memory rankers' shortcuts lose digits; see stream's
// TestStreamReliabProperty) and the final model's predictions — and
// stream.Run on the same shards to 1e-9 at every λ.
func TestPrismReliabProperty(t *testing.T) {
	type draw struct {
		learner learn.Name
		cv      string
		meas    string
	}
	draws := []draw{
		{learn.RLS, "kfold:3", "mse"}, {learn.RLS, "loo", "cindex"}, {learn.RLS, "lgo", "mse"},
		{learn.GlobalRank, "kfold:4", "cindex"}, {learn.GlobalRank, "lgo", "mse"}, {learn.GlobalRank, "loo", "mse"},
		{learn.QueryRank, "lqo", "disagreement"}, {learn.QueryRank, "kfold:3", "mse"}, {learn.QueryRank, "loo", "mse"},
	}
	for n, dr := range draws {
		rng := rand.New(rand.NewPCG(uint64(n+1), 77))
		std := rng.IntN(2) == 0
		chunk := []int{1, 5, 64}[rng.IntN(3)]
		t.Run(fmt.Sprintf("%s/%s/%s/std%v/chunk%d", dr.learner, dr.cv, dr.meas, std, chunk), func(t *testing.T) {
			graded := dr.learner == learn.QueryRank && dr.meas != "mse"
			dir, whole := randomShards(t, rng, 60+rng.IntN(60), 2+rng.IntN(3), graded)
			meas, _ := measure.ByName(dr.meas)
			bias := 1.0
			if dr.learner != learn.RLS {
				bias = 0
			}
			opt := stream.Options{Learner: dr.learner, Kernel: kernel.Spec{Name: "linear", Bias: bias}, CV: dr.cv, Seed: uint64(n),
				Lambdas: []float64{0.01, 1, 100}, Measure: meas, Standardize: std}
			got, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(dir, "part-*")}, Format: "svmlight"}, Config{ChunkRows: chunk})
			if err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
			st, err := stream.Run(context.Background(), opt, stream.Source{Files: files, Format: "svmlight"}, stream.RunOptions{Workers: 1, ChunkRows: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			d, err := dataset.ReadFile(whole, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{})
			if err != nil {
				t.Fatal(err)
			}
			curve, pred := inMemory(t, dr.learner, dr.cv, false, d, opt)
			if got.Rows != d.Rows() {
				t.Errorf("rows %d, want %d", got.Rows, d.Rows())
			}
			for l, pt := range got.Curve {
				if s := st.Curve[l].Value; !(math.Abs(pt.Value-s) <= 1e-9*math.Abs(s)) || pt.Indistinguishable != st.Curve[l].Indistinguishable {
					t.Errorf("λ = %g: %s %.15g, stream.Run %.15g", pt.Lambda, dr.meas, pt.Value, s)
				}
				if pt.Lambda < 1 && dr.learner != learn.RLS {
					continue
				}
				if m := curve[l].Value; !(math.Abs(pt.Value-m) <= 1e-9*math.Abs(m)) || pt.Indistinguishable != curve[l].Indistinguishable {
					t.Errorf("λ = %g: %s %.15g, in memory %.15g", pt.Lambda, dr.meas, pt.Value, m)
				}
			}
			if got.Best.Lambda == pred.Lambda && (got.Best.Lambda >= 1 || dr.learner == learn.RLS) {
				pg, err := got.Predictor.Predict(d.X)
				if err != nil {
					t.Fatal(err)
				}
				pm, err := pred.Predict(d.X)
				if err != nil {
					t.Fatal(err)
				}
				var diff, scale float64
				for i := 0; i < d.Rows(); i++ {
					diff = math.Max(diff, math.Abs(pg.At(i, 0)-pm.At(i, 0)))
					scale = math.Max(scale, math.Abs(pm.At(i, 0)))
				}
				if !(diff <= 1e-9*scale) {
					t.Errorf("final model's predictions differ by %.1e of the largest", diff/scale)
				}
			}
		})
	}
}

// TestPrismReliabLabelOnlyRows is issue 20 item 9 for Beam's workers:
// shards that begin with label-only rows ("1", "2") panicked a worker
// ("mat: zero length in matrix dimension"); they fit, equal to stream.Run.
func TestPrismReliabLabelOnlyRows(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "part-0.svm"), []byte("1 qid:1\n2 qid:2\n1 qid:1 1:0.5 2:1\n3 qid:2 1:2\n0 qid:1 2:-1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "part-1.svm"), []byte("2 qid:3\n1 qid:3 1:1 2:1\n2 qid:2 1:1.5\n1 qid:3 2:0.5\n"), 0o644)
	mse, _ := measure.ByName("mse")
	for _, cv := range []string{"kfold:2", "loo"} {
		opt := stream.Options{Learner: learn.RLS, Loss: learn.Squared, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: cv, Seed: 1,
			Lambdas: []float64{0.1, 10}, Measure: mse}
		got, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(dir, "part-*")}, Format: "svmlight"}, Config{ChunkRows: 1})
		if err != nil {
			t.Fatalf("%s: %v", cv, err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
		want, err := stream.Run(context.Background(), opt, stream.Source{Files: files, Format: "svmlight"}, stream.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for l, pt := range want.Curve {
			if !(math.Abs(got.Curve[l].Value-pt.Value) <= 1e-9*pt.Value) {
				t.Errorf("%s, λ = %g: mse %v, stream %v", cv, pt.Lambda, got.Curve[l].Value, pt.Value)
			}
		}
	}
}

// TestPrismReliabChangedShard is issue 20 item 3 for Beam: each worker
// writes the fingerprint of the shard it read, and a shard changed between
// the first and the second pass — a gzip member appended, or rewritten to
// the same size — is stream.ErrChanged naming it, for row and grouped
// passes.
func TestPrismReliabChangedShard(t *testing.T) {
	for _, c := range []struct {
		name, cv, meas string
		learner        learn.Name
		how            string
	}{
		{"kfold+cindex appended", "kfold:3", "cindex", learn.RLS, "append"},
		{"kfold+cindex rewritten", "kfold:3", "cindex", learn.RLS, "rewrite"},
		{"lqo rewritten", "lqo", "disagreement", learn.QueryRank, "rewrite"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := shards(t, 240, 4, c.learner == learn.QueryRank)
			target := filepath.Join(dir, "part-01.svm.gz")
			if c.how == "rewrite" {
				target = filepath.Join(dir, "part-02.svm")
			}
			meas, _ := measure.ByName(c.meas)
			opt := stream.Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear"}, CV: c.cv, Seed: 4, Lambdas: []float64{0.1, 10}, Measure: meas}
			changed := false
			cfg := Config{Progress: func(e progress.Event) {
				if !strings.HasPrefix(e.Stage, "pass 2 ") || changed {
					return
				}
				changed = true
				b, err := os.ReadFile(target)
				if err != nil {
					t.Error(err)
					return
				}
				if c.how == "rewrite" {
					i := bytes.IndexByte(b, ' ') - 1 // the first label's last digit
					b[i] = '0' + (b[i]-'0'+1)%10
				} else {
					var z bytes.Buffer
					zw := gzip.NewWriter(&z)
					zw.Write([]byte("1 qid:1 1:1 2:2 3:3 4:4\n"))
					zw.Close()
					b = append(b, z.Bytes()...)
				}
				if err := os.WriteFile(target, b, 0o644); err != nil {
					t.Error(err)
				}
			}}
			_, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(dir, "part-*")}, Format: "svmlight"}, cfg)
			if !changed {
				t.Fatal("no second pass")
			}
			if !errors.Is(err, stream.ErrChanged) || !strings.Contains(err.Error(), target) {
				t.Fatalf("%s changed before pass 2: %v, want stream.ErrChanged naming it", target, err)
			}
		})
	}
}

// TestPrismReliabSharedTempLocation is issue 20 item 4: jobs sharing a
// temporary location wrote and read the same pass-N-pieces.txt and never
// removed them (every row's labels and predictions). Two fits of different
// data run at once with one TempLocation: each gets its own result (equal
// to stream.Run on its shards), each works in a directory of its own under
// the location while it runs, and the location is empty after both — and
// after a fit that fails.
func TestPrismReliabSharedTempLocation(t *testing.T) {
	temp := t.TempDir()
	cindex, _ := measure.ByName("cindex")
	opt := stream.Options{Learner: learn.RLS, Loss: learn.Squared, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:3", Seed: 2,
		Lambdas: []float64{0.1, 10}, Measure: cindex}
	dirs := []string{shards(t, 300, 3, false), shards(t, 120, 2, true)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	own := map[string]bool{}
	for _, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := Config{TempLocation: temp, Progress: func(e progress.Event) {
				m, _ := filepath.Glob(filepath.Join(temp, "*"))
				mu.Lock()
				defer mu.Unlock()
				for _, f := range m {
					if !strings.HasPrefix(filepath.Base(f), "rlskit-beam-") {
						t.Errorf("%s in the temporary location, outside a job's directory", f)
					}
					own[f] = true
				}
			}}
			got, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(dir, "part-*")}, Format: "svmlight"}, cfg)
			if err != nil {
				t.Error(err)
				return
			}
			files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
			want, err := stream.Run(context.Background(), opt, stream.Source{Files: files, Format: "svmlight"}, stream.RunOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			for l, pt := range want.Curve {
				if !(math.Abs(got.Curve[l].Value-pt.Value) <= 1e-9*pt.Value) || got.Rows != want.Rows {
					t.Errorf("%s, λ = %g: cindex %v of %d rows, stream %v of %d", dir, pt.Lambda, got.Curve[l].Value, got.Rows, pt.Value, want.Rows)
				}
			}
		}()
	}
	wg.Wait()
	if len(own) < 2 {
		t.Errorf("job directories seen: %v, want one per job", own)
	}
	// a fit that fails in its second pass
	bad := shards(t, 3000, 3, false)
	b, _ := os.ReadFile(filepath.Join(bad, "part-02.svm"))
	os.WriteFile(filepath.Join(bad, "part-02.svm"), append(b, "1 qid:1 3:1 2:1\n"...), 0o644)
	if _, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(bad, "part-*")}, Format: "svmlight"}, Config{TempLocation: temp}); err == nil {
		t.Error("a malformed shard fitted")
	}
	left, _ := os.ReadDir(temp)
	for _, e := range left {
		t.Errorf("left in the temporary location: %s", e.Name())
	}
}

// TestPrismReliabSymlinkedShard is issue 20 item 12 for Beam: a symbolic
// link to a shard, matched by the pattern next to it, is read once.
func TestPrismReliabSymlinkedShard(t *testing.T) {
	dir := shards(t, 120, 2, false)
	files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
	if err := os.Symlink(filepath.Join(dir, "part-00.svm"), filepath.Join(dir, "part-02.svm")); err != nil {
		t.Skip(err)
	}
	mse, _ := measure.ByName("mse")
	opt := stream.Options{Learner: learn.RLS, Loss: learn.Squared, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:3", Lambdas: []float64{1}, Measure: mse}
	got, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(dir, "part-*")}, Format: "svmlight"}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != 120 || len(got.Files) != len(files) {
		t.Errorf("%d rows from %q, want 120 from %q", got.Rows, got.Files, files)
	}
}
