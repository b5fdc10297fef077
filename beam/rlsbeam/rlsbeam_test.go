package rlsbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/stream"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// shards writes m svmlight rows (4 features; qids of about 6 rows, spread
// over the shards; graded labels when graded) as n shards, odd ones gzipped.
func shards(t *testing.T, m, n int, graded bool) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 9))
	var lines []string
	for i := 0; i < m; i++ {
		x := []float64{2 + rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := x[0] - 2*x[1] + 0.5*x[3] + 0.5*rng.NormFloat64()
		if graded {
			y = math.Round(math.Max(0, math.Min(3, y/2+1)))
		}
		s := fmt.Sprintf("%v qid:%d", y, rng.IntN(m/6))
		for j, v := range x {
			s += fmt.Sprintf(" %d:%v", j+1, v)
		}
		lines = append(lines, s)
	}
	per := (m + n - 1) / n
	for s := 0; s < n; s++ {
		text := []byte(strings.Join(lines[min(s*per, m):min((s+1)*per, m)], "\n") + "\n")
		name := filepath.Join(dir, fmt.Sprintf("part-%02d.svm", s))
		if s%2 == 1 {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(text)
			zw.Close()
			text, name = b.Bytes(), name+".gz"
		}
		if err := os.WriteFile(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPrismEqualsStream: the Beam pipelines on Prism give rlskit fit
// --stream's result (stream.Run on the same shards) to 1e-9 — a row pass
// with the statistics combined per fold key, a second row pass for a rank
// measure, and grouped passes (GroupByKey) for leave-query-out.
func TestPrismEqualsStream(t *testing.T) {
	cases := []struct {
		learner learn.Name
		loss    learn.Loss
		cv      string
		meas    string
		graded  bool
		std     bool
	}{
		{learn.RLS, learn.Squared, "kfold:5", "mse", false, true},
		{learn.GlobalRank, learn.AllPairs, "loo", "cindex", false, false},
		{learn.QueryRank, learn.QueryPairs, "lqo", "disagreement", true, false},
	}
	for _, c := range cases {
		t.Run(string(c.learner)+"/"+c.cv, func(t *testing.T) {
			dir := shards(t, 240, 4, c.graded)
			meas, _ := measure.ByName(c.meas)
			bias := 1.0
			if c.learner != learn.RLS {
				bias = 0
			}
			opt := stream.Options{Learner: c.learner, Loss: c.loss, Kernel: kernel.Spec{Name: "linear", Bias: bias}, CV: c.cv, Seed: 4,
				Lambdas: []float64{0.01, 1, 100}, Measure: meas, Standardize: c.std}
			got, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(dir, "part-*")}, Format: "svmlight"}, Config{ChunkRows: 50})
			if err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
			want, err := stream.Run(context.Background(), opt, stream.Source{Files: files, Format: "svmlight"}, stream.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows != want.Rows {
				t.Fatalf("rows %d, stream %d", got.Rows, want.Rows)
			}
			for l, p := range want.Curve {
				if d := math.Abs(got.Curve[l].Value - p.Value); d > 1e-9*math.Abs(p.Value) {
					t.Errorf("λ = %g: %s %v, stream %v", p.Lambda, c.meas, got.Curve[l].Value, p.Value)
				}
			}
			wg, ww := got.Predictor.W, want.Predictor.W
			r, _ := ww.Dims()
			for j := 0; j < r; j++ {
				if d := math.Abs(wg.At(j, 0) - ww.At(j, 0)); d > 1e-9*math.Max(1, math.Abs(ww.At(j, 0))) {
					t.Errorf("weight %d: %v, stream %v", j, wg.At(j, 0), ww.At(j, 0))
				}
			}
		})
	}
}

// TestPrismBadShard: a malformed line fails the pipeline (a worker's read,
// beyond the driver's pilot rows) with the file and line.
func TestPrismBadShard(t *testing.T) {
	dir := shards(t, 3000, 3, false)
	bad := filepath.Join(dir, "part-02.svm")
	b, _ := os.ReadFile(bad)
	lines := strings.Split(string(b), "\n")
	lines[7] = "1 1:2 1:3"
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)
	mse, _ := measure.ByName("mse")
	_, err := Fit(context.Background(), stream.Options{Learner: learn.RLS, Loss: learn.Squared, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:3",
		Lambdas: []float64{1}, Measure: mse}, Source{Patterns: []string{filepath.Join(dir, "part-*")}, Format: "svmlight"}, Config{})
	if err == nil || !strings.Contains(err.Error(), "part-02.svm:8:") {
		t.Fatalf("malformed line 8: %v", err)
	}
}
