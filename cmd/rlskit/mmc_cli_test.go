package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/mmc"
	"github.com/rlskit/rlskit/summary"
)

// TestFitMMC: fit --learner mmc prints the library's clustering — the same
// labels, counts, starts and objective as mmc.Fit and Solve on the same
// rows (standardized), kernel, λ, clusters, restarts, seed and --init —
// and writes its model, with which predict prints each row's cluster: the
// argmax of the library's model.
func TestFitMMC(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 31)
	init := mmc.RandomLabels(40, 3, 9, 0)
	var sb strings.Builder
	sb.WriteString("# initial clusters\n")
	for _, v := range init {
		sb.WriteString(strconv.Itoa(v) + "\n")
	}
	initPath := filepath.Join(dir, "init.txt")
	if err := os.WriteFile(initPath, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "m.json")
	out, stderr, err := run(t, "", "fit", "--data", data, "--ignore", "y,cls", "--learner", "mmc", "--kernel", "gaussian", "--gamma", "0.3",
		"--lambda", "0.5", "--clusters", "3", "--restarts", "2", "--seed", "5", "--init", initPath, "--standardize", "--quiet", "--model", modelPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var got summary.Cluster
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d, err := dataset.ReadFile(data, "csv", dataset.CSVOptions{Columns: dataset.Columns{Ignore: []string{"y", "cls"}}}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := mmc.Fit(d.X, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Standardize: true}, mmc.Options{Clusters: 3, Restarts: 2, Seed: 5, Init: init})
	if err != nil {
		t.Fatal(err)
	}
	want, err := l.Solve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got.Learner != "mmc" || got.Clusters != 3 || got.NTrain != 40 || got.Lambda != 0.5 || got.Objective != want.Objective ||
		got.Best == nil || *got.Best != want.Best || len(got.Starts) != 3 || got.Starts[0].Random || !got.Starts[1].Random {
		t.Fatalf("summary %+v, library objective %v best %d", got, want.Objective, want.Best)
	}
	for i := range want.Labels {
		if got.Labels[i] != want.Labels[i] {
			t.Fatalf("labels %v, library %v", got.Labels, want.Labels)
		}
	}
	// --fixed FILE: the rows listed keep their --init clusters, as the
	// library's Options.Fixed
	fixedPath := filepath.Join(dir, "fixed.txt")
	if err := os.WriteFile(fixedPath, []byte("# rows kept\n0 5 10\n15 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fout, stderr, err := run(t, "", "fit", "--data", data, "--ignore", "y,cls", "--learner", "mmc", "--kernel", "gaussian", "--gamma", "0.3",
		"--lambda", "0.5", "--clusters", "3", "--restarts", "2", "--seed", "5", "--init", initPath, "--fixed", fixedPath, "--standardize", "--quiet")
	if err != nil {
		t.Fatalf("--fixed: %v\n%s", err, stderr)
	}
	var fixedGot summary.Cluster
	if err := json.Unmarshal([]byte(fout), &fixedGot); err != nil {
		t.Fatal(err)
	}
	lf, err := mmc.Fit(d.X, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Standardize: true}, mmc.Options{Clusters: 3, Restarts: 2, Seed: 5, Init: init, Fixed: []int{0, 5, 10, 15, 20}})
	if err != nil {
		t.Fatal(err)
	}
	wantFixed, err := lf.Solve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	if fixedGot.Objective != wantFixed.Objective || !slices.Equal(fixedGot.Labels, wantFixed.Labels) {
		t.Errorf("--fixed: labels %v J %v, library %v J %v", fixedGot.Labels, fixedGot.Objective, wantFixed.Labels, wantFixed.Objective)
	}
	for _, i := range []int{0, 5, 10, 15, 20} {
		if fixedGot.Labels[i] != init[i] {
			t.Errorf("--fixed: row %d moved from %d to %d", i, init[i], fixedGot.Labels[i])
		}
	}
	pout, stderr, err := run(t, "", "predict", "--model", modelPath, "--data", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	p, err := want.Predictor().Predict(d.X)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(pout)
	if len(lines) != 40 {
		t.Fatalf("predict printed %d rows:\n%s", len(lines), pout)
	}
	for i, s := range lines {
		row := mat.Row(nil, i, p)
		best := 0
		for b, v := range row {
			if v > row[best] {
				best = b
			}
		}
		if s != strconv.Itoa(best) {
			t.Fatalf("row %d: predict printed %q, the model's argmax is %d", i, s, best)
		}
	}
}

// TestFitMMCBadInput: every bad value is refused with an error that names
// its flag (or file and line) and the value — no panic.
func TestFitMMCBadInput(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 12, 32)
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := file("text.csv", "a,b\n1,2\n3,x\n")
	twelve := strings.Repeat("0\n1\n", 6)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--clusters", "1"}, "--clusters 1"},
		{[]string{"--clusters", "0"}, "--clusters 0"},
		{[]string{"--clusters", "-3"}, "--clusters -3"},
		{[]string{"--clusters", "13"}, "--clusters 13"},
		{[]string{"--clusters", "two"}, `"two" for "--clusters`},
		{[]string{"--restarts", "-1"}, "--restarts -1"},
		{[]string{"--restarts", "1.5"}, `"1.5" for "--restarts`},
		{[]string{"--lambda", "-2"}, "--lambda -2"},
		{[]string{"--lambda", "0"}, "--lambda 0"},
		{[]string{"--init", file("bad.txt", "0\nzero\n")}, "bad.txt:2: \"zero\" is not a cluster index"},
		{[]string{"--init", file("out.txt", strings.Repeat("0\n", 11)+"2\n")}, "out.txt:12: cluster 2 outside 0 … 1"},
		{[]string{"--init", file("short.txt", "0\n1\n")}, "short.txt: 2 labels for the 12 rows"},
		{[]string{"--init", file("long.txt", twelve+"1\n")}, "long.txt:13: more labels than the 12 rows"},
		{[]string{"--init", filepath.Join(dir, "missing.txt")}, "--init " + filepath.Join(dir, "missing.txt")},
		{[]string{"--cv", "loo"}, "--cv does not apply to --learner mmc"},
		{[]string{"--label", "y"}, "--label does not apply to --learner mmc"},
		{[]string{"--gamma-grid", "0.1,1"}, "--gamma-grid does not apply"},
		{[]string{"--select", "2"}, "--select goes with --learner greedy"},
		{[]string{"--permutations", "10"}, "--permutations does not apply"},
		{[]string{"--one-vs-all"}, "--one-vs-all does not apply"},
		{[]string{"--solver", "cg"}, "--solver cg"},
		{[]string{"--fixed", file("f1.txt", "1\n")}, "--fixed " + filepath.Join(dir, "f1.txt") + ": the fixed rows keep their clusters of --init FILE"},
		{[]string{"--init", file("i.txt", twelve), "--fixed", file("f2.txt", "3\n12\n")}, "f2.txt:2"},
		{[]string{"--init", file("i2.txt", twelve), "--fixed", file("f3.txt", "3 3\n")}, "f3.txt:1"},
	}
	for _, c := range cases {
		args := append([]string{"fit", "--data", data, "--ignore", "y,cls", "--learner", "mmc", "--kernel", "gaussian", "--quiet"}, c.args...)
		_, _, err := run(t, "", args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to contain %q", c.args, err, c.want)
		}
	}
	steps := file("steps.txt", "claim 2 1\n")
	if _, _, err := run(t, "", "fit", "--data", data, "--ignore", "y,cls", "--learner", "interactive", "--steps", steps, "--init", file("i3.txt", twelve),
		"--fixed", file("f4.txt", "1\n"), "--quiet"); err == nil || !strings.Contains(err.Error(), "--fixed does not apply to --learner interactive") {
		t.Errorf("--fixed with interactive: error %v", err)
	}
	if _, _, err := run(t, "", "fit", "--data", text, "--learner", "mmc", "--quiet"); err == nil || !strings.Contains(err.Error(), "text.csv") {
		t.Errorf("non-numeric data: error %v, want it to name the file", err)
	}
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--clusters", "3", "--quiet"); err == nil || !strings.Contains(err.Error(), "--clusters goes with --learner interactive, mmc, not rls") {
		t.Errorf("--clusters with rls: error %v", err)
	}
}

// TestFitInteractive: fit --learner interactive runs the steps of --steps
// from --init and records the labels and J after each: the library's
// mmc.Interactive (on the factor's R) through the same steps gives the same
// labels after every step; predict prints the argmax of the model of the
// final labels. Bad steps are refused naming the file and line.
func TestFitInteractive(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 33)
	steps := filepath.Join(dir, "steps.txt")
	body := "# a session\nclaim 8 1\nws 0-9,20,22-25\nall 2\ndescend\nws all\nclaim 4 0\ndescend 3\n"
	if err := os.WriteFile(steps, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "i.json")
	out, stderr, err := run(t, "", "fit", "--data", data, "--ignore", "y,cls", "--learner", "interactive", "--kernel", "gaussian", "--gamma", "0.4",
		"--lambda", "0.5", "--clusters", "3", "--steps", steps, "--quiet", "--model", modelPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var got summary.Cluster
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d, err := dataset.ReadFile(data, "csv", dataset.CSVOptions{Columns: dataset.Columns{Ignore: []string{"y", "cls"}}}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := factor.Build(d.X, kernel.Gaussian{Gamma: 0.4}, factor.Request{Form: factor.Dual})
	if err != nil {
		t.Fatal(err)
	}
	in, err := mmc.NewInteractive(f.Factor, 0.5, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	ws := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 22, 23, 24, 25}
	all := make([]int, 30)
	for i := range all {
		all[i] = i
	}
	lib := []learn.Step{{Op: "claim", N: 8, Class: 1}, {Op: "ws", Rows: ws}, {Op: "all", Class: 2}, {Op: "descend"},
		{Op: "ws", Rows: all}, {Op: "claim", N: 4}, {Op: "descend", Limit: 3}}
	if got.Learner != "interactive" || len(got.Steps) != len(lib) || got.Best != nil || got.Starts != nil {
		t.Fatalf("summary %+v", got)
	}
	for k, st := range lib {
		moved, err := in.Apply(st)
		if err != nil {
			t.Fatal(err)
		}
		g := got.Steps[k]
		if g.Op != st.Op || g.Moved != moved || math.Abs(g.Objective-in.Objective()) > 1e-9*math.Abs(in.Objective()) {
			t.Fatalf("step %d: %+v, library moved %d, J %v", k+1, g, moved, in.Objective())
		}
		for i, v := range in.Labels() {
			if g.Labels[i] != v {
				t.Fatalf("step %d: labels %v, library %v", k+1, g.Labels, in.Labels())
			}
		}
	}
	if _, stderr, err := run(t, "", "predict", "--model", modelPath, "--data", data); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, c := range []struct{ body, want string }{
		{"claim 2\n", "s.txt:1: want claim N CLASS"},
		{"# c\n\nclaim 2 3\n", "s.txt:3: class 3 outside 0 … 2"},
		{"ws 0-30\n", "s.txt:1: row 30: the data have 30 rows"},
		{"ws 0-29,0-29\n", "s.txt:1: more than the 30 rows"},
		{"ws 0-29,0\n", "s.txt:1: more than the 30 rows"},
		{"ws 5-2\n", `s.txt:1: "5-2" is not a row`},
		{"jump 3\n", `s.txt:1: unknown step "jump"`},
		{"descend -1\n", `s.txt:1: "-1" is not a count`},
		{"# nothing\n", "s.txt: no steps"},
		{strings.Repeat("descend\n", 1<<21), "more than 1118481 steps of 30 rows"},
	} {
		p := filepath.Join(dir, "s.txt")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, "", "fit", "--data", data, "--ignore", "y,cls", "--learner", "interactive", "--clusters", "3", "--steps", p, "--quiet")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("steps %.40q: error %v, want %q", c.body, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--learner", "interactive", "--clusters", "3"}, "runs the steps of --steps FILE"},
		{[]string{"--learner", "interactive", "--steps", steps, "--restarts", "2"}, "--restarts does not apply to --learner interactive"},
		{[]string{"--learner", "mmc", "--steps", steps}, "--steps goes with --learner interactive, not mmc"},
	} {
		_, _, err := run(t, "", append([]string{"fit", "--data", data, "--ignore", "y,cls", "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}
