package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/stream"
	"github.com/rlskit/rlskit/summary"
)

// streamShards writes m svmlight rows (5 features, qids of about 8 rows
// spread over the file, graded labels when graded) as n shards, odd ones
// gzipped, and the same lines as one whole file.
func streamShards(t *testing.T, dir string, m, n int, graded bool) (whole string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 5))
	var lines []string
	for i := 0; i < m; i++ {
		x := make([]float64, 5)
		for j := range x {
			x[j] = 1 + rng.NormFloat64()
		}
		y := 2*x[0] - x[1] + 0.5*x[2] + 0.3*rng.NormFloat64()
		if graded {
			y = math.Round(math.Max(0, math.Min(4, y+1)))
		}
		s := fmt.Sprintf("%s qid:%d", ftoa(y), rng.IntN(m/8))
		for j, v := range x {
			s += fmt.Sprintf(" %d:%s", j+1, ftoa(v))
		}
		lines = append(lines, s)
	}
	whole = filepath.Join(dir, "whole.svm")
	if err := os.WriteFile(whole, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	per := (m + n - 1) / n
	for s := 0; s < n; s++ {
		text := []byte(strings.Join(lines[min(s*per, m):min((s+1)*per, m)], "\n") + "\n")
		name := filepath.Join(dir, fmt.Sprintf("part-%02d.svm", s))
		if s%2 == 1 {
			name += ".gz"
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(text)
			zw.Close()
			text = b.Bytes()
		}
		if err := os.WriteFile(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return whole
}

// hashFolds writes the folds fit --stream uses (stream.Fold, or
// stream.GroupFold of whole queries) as a --folds file for the in-memory fit.
func hashFolds(t *testing.T, whole string, k int, seed uint64, byQuery bool) string {
	t.Helper()
	d, err := dataset.ReadFile(whole, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	folds := make([][]string, k)
	for i, r := range stream.Rows(d) {
		f := stream.Fold(r, seed, k)
		if byQuery {
			f = stream.GroupFold(r.Group, seed, k)
		}
		folds[f] = append(folds[f], fmt.Sprint(i))
	}
	var b strings.Builder
	for _, f := range folds {
		if len(f) > 0 {
			b.WriteString(strings.Join(f, " ") + "\n")
		}
	}
	path := whole + fmt.Sprintf(".folds%d", k)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func decodeStream(t *testing.T, s string) summary.Stream {
	t.Helper()
	var o summary.Stream
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("fit --stream output: %v\n%s", err, s)
	}
	return o
}

// TestStreamCLIEqualsInMemory: fit --stream on gzip and plain shards gives
// the in-memory fit's curve (folds from the same hash, or the same groups)
// to 1e-9, for each learner and a rank measure.
func TestStreamCLIEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	whole := streamShards(t, dir, 400, 5, false)
	graded := filepath.Join(dir, "graded")
	os.Mkdir(graded, 0o755)
	wholeGraded := streamShards(t, graded, 400, 5, true)
	cases := []struct {
		name   string
		dir    string
		args   []string
		memory []string
	}{
		{"rls kfold mse", dir, []string{"--cv", "kfold:7", "--standardize"},
			[]string{"--folds", hashFolds(t, whole, 7, 1, false), "--standardize"}},
		{"rls loo auc-free cindex", dir, []string{"--cv", "loo", "--measure", "cindex", "--bias", "3"},
			[]string{"--cv", "loo", "--measure", "cindex", "--bias", "3"}},
		{"globalrank lgo", dir, []string{"--learner", "globalrank", "--cv", "lgo"},
			[]string{"--learner", "globalrank", "--cv", "lgo"}},
		{"queryrank lqo", graded, []string{"--learner", "queryrank", "--cv", "lqo"},
			[]string{"--learner", "queryrank", "--cv", "lqo"}},
		{"queryrank kfold", graded, []string{"--learner", "queryrank", "--cv", "kfold:4", "--seed", "5"},
			[]string{"--learner", "queryrank", "--folds", hashFolds(t, wholeGraded, 4, 5, true)}},
		{"rls basis", dir, []string{"--kernel", "gaussian", "--gamma", "0.2", "--basis", "25", "--cv", "kfold:5", "--seed", "3"},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := whole
			if c.dir == graded {
				data = wholeGraded
			}
			common := []string{"fit", "--lambda-grid", "2^-6..2^6", "--quiet"}
			out, _, err := run(t, "", append(append(append([]string{}, common...), "--stream", "--data", filepath.Join(c.dir, "part-*")), c.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			got := decodeStream(t, out)
			memArgs := c.memory
			if memArgs == nil { // the basis rows the stream drew, given to the in-memory fit
				var rows []string
				for _, r := range got.Stream.BasisRows {
					rows = append(rows, fmt.Sprint(r))
				}
				bf := filepath.Join(t.TempDir(), "basis")
				os.WriteFile(bf, []byte(strings.Join(rows, " ")), 0o644)
				memArgs = []string{"--kernel", "gaussian", "--gamma", "0.2", "--basis-rows", bf, "--basis-holdout", "keep",
					"--folds", hashFolds(t, whole, 5, 3, false)}
			}
			out, _, err = run(t, "", append(append(append([]string{}, common...), "--data", data), memArgs...)...)
			if err != nil {
				t.Fatal(err)
			}
			want := decodeFit(t, out)
			if got.NTrain != want.NTrain || got.CV == nil || len(got.CV.Curve) != len(want.CV.Curve) {
				t.Fatalf("stream %+v\nin memory %+v", got.Fit, want)
			}
			worst := 0.0
			for l, p := range want.CV.Curve {
				rel := math.Abs(got.CV.Curve[l].Value-p.Value) / math.Abs(p.Value)
				worst = math.Max(worst, rel)
				if rel > 1e-9 {
					t.Errorf("λ = %g: %s %v, in memory %v", p.Lambda, want.CV.Measure, got.CV.Curve[l].Value, p.Value)
				}
				if got.CV.Curve[l].Indistinguishable != p.Indistinguishable {
					t.Errorf("λ = %g: indistinguishable %v, in memory %v", p.Lambda, got.CV.Curve[l].Indistinguishable, p.Indistinguishable)
				}
			}
			t.Logf("%s over %d λ: largest relative difference %.1e", want.CV.Measure, len(want.CV.Curve), worst)
			if got.Lambda != want.Lambda {
				t.Errorf("best λ %g, in memory %g", got.Lambda, want.Lambda)
			}
		})
	}
}

// TestStreamCLIBadShards: a malformed line in the middle of shard 7 of 10 and
// a truncated gzip shard fail with the file and line and write nothing; an
// empty shard is a shard without rows; a group split across shards is one group.
func TestStreamCLIBadShards(t *testing.T) {
	dir := t.TempDir()
	streamShards(t, dir, 500, 10, false)
	model := filepath.Join(dir, "model.json")
	fit := func(extra ...string) (summary.Stream, string, error) {
		args := append([]string{"fit", "--stream", "--data", filepath.Join(dir, "part-*"), "--cv", "lgo", "--lambda-grid", "2^-2..2^2",
			"--model", model, "--quiet"}, extra...)
		out, stderr, err := run(t, "", args...)
		if err != nil {
			return summary.Stream{}, stderr, err
		}
		return decodeStream(t, out), stderr, nil
	}
	good, _, err := fit()
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(model)

	// an empty shard: accepted, reported with no rows; the result is unchanged
	empty := filepath.Join(dir, "part-10.svm")
	os.WriteFile(empty, nil, 0o644)
	got, _, err := fit()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Stream.Files) != 11 || got.Stream.Files[10].Rows != 0 || got.CV.Best.Lambda != good.CV.Best.Lambda || got.CV.Best.Value != good.CV.Best.Value {
		t.Errorf("with an empty shard: files %+v, best %+v (want %+v)", got.Stream.Files, got.CV.Best, good.CV.Best)
	}
	os.Remove(model)

	// a malformed line in the middle of shard 7
	shard7 := filepath.Join(dir, "part-07.svm.gz")
	raw, _ := os.ReadFile(shard7)
	zr, _ := gzip.NewReader(bytes.NewReader(raw))
	var text bytes.Buffer
	text.ReadFrom(zr)
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	bad := append([]string(nil), lines...)
	bad[25] = strings.Replace(bad[25], "3:", "3:x", 1)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(strings.Join(bad, "\n") + "\n"))
	zw.Close()
	os.WriteFile(shard7, b.Bytes(), 0o644)
	_, _, err = fit()
	if err == nil || !strings.Contains(err.Error(), "part-07.svm.gz:26:") {
		t.Errorf("malformed line 26 of shard 7: %v", err)
	}
	if _, serr := os.Stat(model); serr == nil {
		t.Error("a failed fit wrote its model")
	}

	// a truncated gzip shard
	os.WriteFile(shard7, raw[:len(raw)/2], 0o644)
	_, _, err = fit()
	if err == nil || !strings.Contains(err.Error(), "part-07.svm.gz:") || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("truncated gzip: %v", err)
	}
	if _, serr := os.Stat(model); serr == nil {
		t.Error("a failed fit wrote its model")
	}
}

// TestStreamCLIRefuses: what --stream cannot do is refused before any work.
func TestStreamCLIRefuses(t *testing.T) {
	dir := t.TempDir()
	streamShards(t, dir, 50, 2, false)
	data := filepath.Join(dir, "part-*")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cv", "lpo", "--measure", "cindex"}, "none, loo, kfold:K"},
		{[]string{"--kernel", "gaussian"}, "fixed basis"},
		{[]string{"--learner", "prefrank", "--preferences", data}, "rls, globalrank or queryrank"},
		{[]string{"--cv-predictions", filepath.Join(dir, "p")}, "--cv-predictions"},
		{[]string{"--fold-score", "mean", "--cv", "kfold:3"}, "pooled"},
	} {
		_, _, err := run(t, "", append([]string{"fit", "--stream", "--data", data, "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error about %q", c.args, err, c.want)
		}
	}
	_, _, err := run(t, "x", "fit", "--stream", "--data", "-")
	if err == nil || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("--data -: %v", err)
	}
}

// TestStreamCLIGridEdgeAnyOrder: fit --stream decides the grid edge by the
// one edge rule (selection.GridEdge), whatever the order of --lambda-grid:
// the best λ written last but lying inside the grid is no edge (the old
// first/last rule warned), and the best λ written in the middle but the
// grid's largest is one, reported in the JSON (on_edge) and on stderr.
func TestStreamCLIGridEdgeAnyOrder(t *testing.T) {
	dir := t.TempDir()
	streamShards(t, dir, 400, 4, false)
	fit := func(grid string) (summary.Stream, string) {
		t.Helper()
		out, stderr, err := run(t, "", "fit", "--stream", "--data", filepath.Join(dir, "part-*"), "--cv", "kfold:5",
			"--lambda-grid", grid)
		if err != nil {
			t.Fatal(err)
		}
		return decodeStream(t, out), stderr
	}
	// the best λ of a wide grid, inside it
	wide, _ := fit("2^-12..2^12")
	best := wide.CV.Best.Lambda
	if len(wide.CV.Best.OnEdge) > 0 || best < 0x1p-6 || best > 0x1p6 {
		t.Fatalf("the wide grid's best λ %g (on edge %v): the test needs one inside 2^-6..2^6", best, wide.CV.Best.OnEdge)
	}
	g := func(vs ...float64) string {
		var s []string
		for _, v := range vs {
			s = append(s, ftoa(v))
		}
		return strings.Join(s, ",")
	}
	// inside, written last: no edge
	got, stderr := fit(g(8*best, best/8, best))
	if got.CV.Best.Lambda != best || len(got.CV.Best.OnEdge) != 0 || strings.Contains(stderr, "end of its grid") {
		t.Errorf("grid %s: best %g, on edge %v, stderr %q; want %g inside the grid, no warning", g(8*best, best/8, best),
			got.CV.Best.Lambda, got.CV.Best.OnEdge, stderr, best)
	}
	// the largest, written in the middle: the upper edge
	got, stderr = fit(g(best/8, best, best/64))
	if got.CV.Best.Lambda != best || len(got.CV.Best.OnEdge) != 1 || got.CV.Best.OnEdge[0].Parameter != "lambda" ||
		got.CV.Best.OnEdge[0].Side != "high" || !strings.Contains(stderr, "lambda is the upper end of its grid") {
		t.Errorf("grid %s: best %g, on edge %v, stderr %q; want %g on the upper edge, warned", g(best/8, best, best/64),
			got.CV.Best.Lambda, got.CV.Best.OnEdge, stderr, best)
	}
	// the smallest, written in the middle: the lower edge
	got, stderr = fit(g(8*best, best, 64*best))
	if got.CV.Best.Lambda != best || len(got.CV.Best.OnEdge) != 1 || got.CV.Best.OnEdge[0].Side != "low" ||
		!strings.Contains(stderr, "lambda is the lower end of its grid") {
		t.Errorf("grid %s: best %g, on edge %v, stderr %q; want %g on the lower edge, warned", g(8*best, best, 64*best),
			got.CV.Best.Lambda, got.CV.Best.OnEdge, stderr, best)
	}
}

// TestStreamCLIIndistinguishable: features that carry no information
// (one-hot rows: K = I) score the tie value under fit --stream, every point
// marked indistinguishable in the JSON, as the in-memory fit does.
func TestStreamCLIIndistinguishable(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "%d qid:%d %d:1\n", rng.IntN(5), i%3, i+1)
	}
	data := filepath.Join(dir, "noise.svm")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, learner := range []string{"rls", "globalrank", "queryrank"} {
		out, _, err := run(t, "", "fit", "--stream", "--data", data, "--learner", learner, "--bias", "0", "--cv", "loo",
			"--measure", "cindex", "--lambda-grid", "1e-6,1,1e4", "--quiet")
		if err != nil {
			t.Fatal(err)
		}
		o := decodeStream(t, out)
		for _, pt := range o.CV.Curve {
			if pt.Value != 0.5 || !pt.Indistinguishable {
				t.Errorf("%s, λ = %g: cindex %v, indistinguishable %v; want 0.5, indistinguishable", learner, pt.Lambda, pt.Value, pt.Indistinguishable)
			}
		}
	}
}
