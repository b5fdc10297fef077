package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/stream"
)

// TestStreamIntervalCLI: fit --stream --interval cv+ --cv kfold:5 writes a
// model whose predict --coverage output (prediction, lower, upper per
// output; coverage 0.8 and 0.9) equals, to 1e-8 of max|y|, that of the
// in-memory fit --interval cv+ given the stream's folds (stream.Fold of
// every row, as a --folds file) at the same λ — the linear kernel, two
// outputs, 60 rows in two shards; the same for the jackknife+ (--cv loo)
// against the in-memory jackknife+; and a streamed gaussian model over a
// basis records its interval with the default --basis-holdout.
func TestStreamIntervalCLI(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(22, 2))
	train, _, y := intervalCSV(t, dir, "train.csv", 60, rng)
	test, _, _ := intervalCSV(t, dir, "test.csv", 25, rng)
	lines := strings.SplitAfter(strings.TrimSpace(readFileT(t, train)), "\n")
	shard := func(name string, rows []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(lines[0]+strings.Join(rows, "")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shard("part-0.csv", lines[1:31])
	shard("part-1.csv", lines[31:])
	streamed := filepath.Join(dir, "stream.json")
	fit := []string{"--label", "y1,y2", "--lambda", "0.7", "--interval", "cv+", "--quiet"}
	if _, stderr, err := run(t, "", append([]string{"fit", "--stream", "--data", filepath.Join(dir, "part-*.csv"), "--cv", "kfold:5", "--seed", "4", "--model", streamed}, fit...)...); err != nil {
		t.Fatalf("fit --stream --interval cv+: %v\n%s", err, stderr)
	}
	// the stream's folds, as a --folds file for the in-memory fit
	d, err := dataset.ReadFile(train, "csv", dataset.CSVOptions{Labels: []string{"y1", "y2"}}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byFold := make([][]string, 5)
	for i, r := range stream.Rows(d) {
		f := stream.Fold(r, 4, 5)
		byFold[f] = append(byFold[f], strconv.Itoa(i))
	}
	var folds strings.Builder
	for _, f := range byFold {
		if len(f) > 0 {
			fmt.Fprintln(&folds, strings.Join(f, " "))
		}
	}
	foldsFile := filepath.Join(dir, "folds.txt")
	if err := os.WriteFile(foldsFile, []byte(folds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	inMemory := filepath.Join(dir, "mem.json")
	if _, stderr, err := run(t, "", append([]string{"fit", "--data", train, "--folds", foldsFile, "--model", inMemory}, fit...)...); err != nil {
		t.Fatalf("fit --interval cv+ --folds: %v\n%s", err, stderr)
	}
	scale := 0.0
	for _, v := range y.RawMatrix().Data {
		scale = math.Max(scale, math.Abs(v))
	}
	worst := 0.0
	for _, cov := range []string{"0.8", "0.9"} {
		got, stderr, err := run(t, "", "predict", "--model", streamed, "--data", test, "--coverage", cov)
		if err != nil {
			t.Fatalf("predict --coverage %s (streamed model): %v\n%s", cov, err, stderr)
		}
		want, stderr, err := run(t, "", "predict", "--model", inMemory, "--data", test, "--coverage", cov)
		if err != nil {
			t.Fatalf("predict --coverage %s (in-memory model): %v\n%s", cov, err, stderr)
		}
		gl, wl := strings.Split(strings.TrimSpace(got), "\n"), strings.Split(strings.TrimSpace(want), "\n")
		if len(gl) != 25 || len(wl) != 25 {
			t.Fatalf("coverage %s: %d and %d lines, want 25", cov, len(gl), len(wl))
		}
		for i := range gl {
			gf, wf := strings.Fields(gl[i]), strings.Fields(wl[i])
			if len(gf) != 6 || len(wf) != 6 {
				t.Fatalf("coverage %s row %d: %q, %q: want 6 columns (prediction, lower, upper per output)", cov, i, gl[i], wl[i])
			}
			for k := range gf {
				a, _ := strconv.ParseFloat(gf[k], 64)
				b, _ := strconv.ParseFloat(wf[k], 64)
				worst = math.Max(worst, math.Abs(a-b)/scale)
				if !(math.Abs(a-b) <= 1e-8*scale) {
					t.Errorf("coverage %s row %d column %d: streamed %v, in memory %v", cov, i, k, a, b)
				}
			}
		}
	}
	t.Logf("largest difference %.2g of max|y|", worst)
	// the jackknife+ (--cv loo): every row's model from the one
	// eigendecomposition, against the in-memory jackknife+
	jk := []string{"--label", "y1,y2", "--lambda", "0.7", "--interval", "jackknife+", "--cv", "loo", "--quiet"}
	sj, mj := filepath.Join(dir, "sj.json"), filepath.Join(dir, "mj.json")
	if _, stderr, err := run(t, "", append([]string{"fit", "--stream", "--data", filepath.Join(dir, "part-*.csv"), "--model", sj}, jk...)...); err != nil {
		t.Fatalf("fit --stream --interval jackknife+: %v\n%s", err, stderr)
	}
	if _, stderr, err := run(t, "", append([]string{"fit", "--data", train, "--model", mj}, jk...)...); err != nil {
		t.Fatalf("fit --interval jackknife+: %v\n%s", err, stderr)
	}
	got, stderr, err := run(t, "", "predict", "--model", sj, "--data", test, "--coverage", "0.85")
	if err != nil {
		t.Fatalf("predict --coverage (streamed jackknife+): %v\n%s", err, stderr)
	}
	want, stderr, err := run(t, "", "predict", "--model", mj, "--data", test, "--coverage", "0.85")
	if err != nil {
		t.Fatalf("predict --coverage (in-memory jackknife+): %v\n%s", err, stderr)
	}
	gf, wf := strings.Fields(got), strings.Fields(want)
	if len(gf) != 25*6 || len(wf) != len(gf) {
		t.Fatalf("jackknife+: %d and %d values, want %d", len(gf), len(wf), 25*6)
	}
	for k := range gf {
		a, _ := strconv.ParseFloat(gf[k], 64)
		b, _ := strconv.ParseFloat(wf[k], 64)
		if !(math.Abs(a-b) <= 1e-8*scale) {
			t.Errorf("jackknife+ value %d (row %d): streamed %v, in memory %v", k, k/6, a, b)
		}
	}
	// over a basis drawn by the stream (fixed: its fold models keep it, so
	// --basis-holdout need not be given), the model predicts intervals
	sparse := filepath.Join(dir, "sparse.json")
	if _, stderr, err := run(t, "", append([]string{"fit", "--stream", "--data", train, "--cv", "kfold:4", "--kernel", "gaussian", "--gamma", "0.3", "--basis", "12", "--model", sparse}, fit...)...); err != nil {
		t.Fatalf("fit --stream --basis 12 --interval cv+: %v\n%s", err, stderr)
	}
	out, stderr, err := run(t, "", "predict", "--model", sparse, "--data", test, "--coverage", "0.9")
	if err != nil || len(strings.Fields(strings.Split(out, "\n")[0])) != 6 {
		t.Errorf("predict --coverage of the streamed sparse model: %v %q\n%s", err, out, stderr)
	}
}
