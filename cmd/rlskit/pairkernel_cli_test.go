package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/pairkernel"
)

// pkObjects writes n objects with d features as CSV (header f0, f1, …) and
// returns the path and the features.
func pkObjects(t *testing.T, dir, name string, n, d int, rng *rand.Rand) (string, *mat.Dense) {
	t.Helper()
	x := mat.NewDense(n, d, nil)
	var b strings.Builder
	for j := 0; j < d; j++ {
		if j > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "f%d", j)
	}
	b.WriteString("\n")
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := math.Round(rng.NormFloat64()*1e6) / 1e6 // exact in the file
			x.Set(i, j, v)
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(ftoa(v))
		}
		b.WriteString("\n")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, x
}

// pkPairs writes n distinct random pairs of m row and q column objects
// ("row col label", labels when y is true) and returns the path, the pairs
// and the labels.
func pkPairs(t *testing.T, dir, name string, n, m, q int, labels bool, rng *rand.Rand) (string, pairkernel.Pairs, []float64) {
	t.Helper()
	var p pairkernel.Pairs
	var y []float64
	var b strings.Builder
	for _, k := range rng.Perm(m * q)[:n] {
		r, c := k/q, k%q
		v := math.Round(rng.NormFloat64()*1e6) / 1e6
		p.Rows, p.Cols, y = append(p.Rows, r), append(p.Cols, c), append(y, v)
		if labels {
			fmt.Fprintf(&b, "%d %d %s\n", r, c, ftoa(v))
		} else {
			fmt.Fprintf(&b, "%d %d\n", r, c)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, p, y
}

// TestPairKernelCLI: rlskit fit --learner kronrls --pair-kernel KIND writes
// the model pairkernel.Train trains on the same data, and rlskit predict
// reads it (by its format tag) and gives pairkernel.Predictor.Predict's
// predictions — for new objects and for the training ones — to 1e-12:
// symmetric on a network (--cols same), sum with weights on two sets of
// objects (its terms the --gamma-grid kernels with one column kernel),
// cartesian (δ = 0 for new objects).
func TestPairKernelCLI(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(25, 3))
	rowsPath, rows := pkObjects(t, dir, "rows.csv", 14, 3, rng)
	colsPath, cols := pkObjects(t, dir, "cols.csv", 9, 2, rng)
	newRowsPath, newRows := pkObjects(t, dir, "newrows.csv", 5, 3, rng)
	newColsPath, newCols := pkObjects(t, dir, "newcols.csv", 4, 2, rng)
	g := func(gamma float64) kernel.Spec { return kernel.Spec{Name: "gaussian", Gamma: gamma} }
	lin := kernel.Spec{Name: "linear", Bias: 1}

	cases := []struct {
		name       string
		args       []string
		kind       pairkernel.Kind
		weights    []float64
		rowK, colK []kernel.Spec
		homo       bool
	}{
		{"symmetric", []string{"--cols", "same", "--pair-kernel", "symmetric", "--kernel", "gaussian", "--gamma", "0.5"},
			pairkernel.Symmetric, nil, []kernel.Spec{g(0.5)}, nil, true},
		{"sum", []string{"--cols", colsPath, "--pair-kernel", "sum", "--pair-kernel-weights", "1,0.25", "--kernel", "gaussian", "--gamma-grid", "0.5,2", "--col-kernel", "linear"},
			pairkernel.Sum, []float64{1, 0.25}, []kernel.Spec{g(0.5), g(2)}, []kernel.Spec{lin, lin}, false},
		{"cartesian", []string{"--cols", colsPath, "--pair-kernel", "cartesian", "--kernel", "gaussian", "--gamma", "1", "--col-kernel", "gaussian", "--col-gamma", "0.5"},
			pairkernel.Cartesian, nil, []kernel.Spec{g(1)}, []kernel.Spec{g(0.5)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, newQ := 9, 4
			var cx, newCx *mat.Dense = cols, newCols
			if c.homo {
				q, newQ, cx, newCx = 14, 5, nil, nil
			}
			pairsPath, train, y := pkPairs(t, dir, c.name+"-pairs.txt", 40, 14, q, true, rng)
			modelPath := filepath.Join(dir, c.name+".json")
			args := append([]string{"fit", "--learner", "kronrls", "--rows", rowsPath, "--pairs", pairsPath, "--lambda", "0.3", "--quiet", "--model", modelPath}, c.args...)
			if out, stderr, err := run(t, "", args...); err != nil {
				t.Fatalf("fit: %v\n%s%s", err, out, stderr)
			} else if s := decodePairFit(t, out); s.PairKernel == nil || s.PairKernel.Kind != string(c.kind) || s.CG == nil || !s.CG.Converged {
				t.Fatalf("fit summary: %s", out)
			}
			want, err := pairkernel.Train(c.kind, c.weights, c.rowK, c.colK, rows, cx, train, y, 0.3, pairkernel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// the model file is the library's
			var buf bytes.Buffer
			if err := want.Save(&buf); err != nil {
				t.Fatal(err)
			}
			if got := readFileT(t, modelPath); got != buf.String() {
				t.Errorf("model file differs from pairkernel.Train's:\n%s\n%s", got, buf.String())
			}
			check := func(what string, args []string, rx, colx *mat.Dense, test pairkernel.Pairs) {
				out, stderr, err := run(t, "", append([]string{"predict", "--model", modelPath}, args...)...)
				if err != nil {
					t.Fatalf("%s: %v\n%s", what, err, stderr)
				}
				wantP, err := want.Predict(rx, colx, test)
				if err != nil {
					t.Fatal(err)
				}
				got := strings.Fields(out)
				if len(got) != len(wantP) {
					t.Fatalf("%s: %d predictions, want %d", what, len(got), len(wantP))
				}
				for i, s := range got {
					var v float64
					fmt.Sscan(s, &v)
					if math.Abs(v-wantP[i]) > 1e-12*(1+math.Abs(wantP[i])) {
						t.Errorf("%s: prediction %d = %v, want %v", what, i, v, wantP[i])
					}
				}
			}
			trainPath, tp, _ := pkPairs(t, dir, c.name+"-test.txt", 20, 14, q, false, rng)
			check("training objects", []string{"--pairs", trainPath}, nil, nil, tp)
			newPath, np, _ := pkPairs(t, dir, c.name+"-new.txt", 12, 5, newQ, false, rng)
			newArgs := []string{"--pairs", newPath, "--rows", newRowsPath}
			if !c.homo {
				newArgs = append(newArgs, "--cols", newColsPath)
			}
			check("new objects", newArgs, newRows, newCx, np)
		})
	}
}

// TestPairKernelCLIErrors: bad input to the --pair-kernel fit and its
// model's predict is refused naming the flag and file.
func TestPairKernelCLIErrors(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(26, 3))
	rowsPath, _ := pkObjects(t, dir, "rows.csv", 6, 2, rng)
	colsPath, _ := pkObjects(t, dir, "cols.csv", 4, 2, rng)
	pairsPath, _, _ := pkPairs(t, dir, "pairs.txt", 10, 6, 6, true, rng)
	modelPath := filepath.Join(dir, "m.json")
	if _, stderr, err := run(t, "", "fit", "--learner", "kronrls", "--rows", rowsPath, "--cols", "same", "--pairs", pairsPath, "--lambda", "1",
		"--pair-kernel", "antisymmetric", "--quiet", "--model", modelPath); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// not converged: a warning, and the model is still written
	short := filepath.Join(dir, "short.json")
	if _, stderr, err := run(t, "", "fit", "--learner", "kronrls", "--rows", rowsPath, "--cols", "same", "--pairs", pairsPath, "--lambda", "1",
		"--pair-kernel", "symmetric", "--max-iter", "1", "--model", short); err != nil || !strings.Contains(stderr, "conjugate gradients stopped after 1 iterations") {
		t.Errorf("--max-iter 1: %v, stderr %q", err, stderr)
	} else if _, err := os.Stat(short); err != nil {
		t.Errorf("--max-iter 1: no model: %v", err)
	}
	twice := filepath.Join(dir, "twice.txt")
	os.WriteFile(twice, []byte("0 1 1\n0 1 2\n"), 0o644)
	corrupt := filepath.Join(dir, "corrupt.json")
	b := readFileT(t, modelPath)
	os.WriteFile(corrupt, []byte(strings.Replace(b, `"lambda":1`, `"lambda":-1`, 1)), 0o644)
	trailing := filepath.Join(dir, "trailing.json")
	os.WriteFile(trailing, []byte(b+"{}\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"pair twice", []string{"fit", "--learner", "kronrls", "--rows", rowsPath, "--cols", "same", "--pairs", twice, "--lambda", "1", "--pair-kernel", "symmetric"}, "--pairs: " + twice + ":2"},
		{"homogeneous kind of two sets", []string{"fit", "--learner", "kronrls", "--rows", rowsPath, "--cols", colsPath, "--pairs", pairsPath, "--lambda", "1", "--pair-kernel", "ranking"}, "--pair-kernel ranking compares"},
		{"bad weights", []string{"fit", "--learner", "kronrls", "--rows", rowsPath, "--cols", colsPath, "--pairs", pairsPath, "--lambda", "1", "--pair-kernel", "sum", "--pair-kernel-weights", "1,-2"}, "--pair-kernel-weights 1,-2"},
		{"coverage", []string{"predict", "--model", modelPath, "--pairs", pairsPath, "--coverage", "0.9"}, "records no prediction interval"},
		{"cols of a network", []string{"predict", "--model", modelPath, "--pairs", pairsPath, "--cols", colsPath}, "--cols " + colsPath},
		{"pair outside", []string{"predict", "--model", modelPath, "--pairs", pairsPath, "--rows", colsPath}, "--pairs"},
		{"features", []string{"predict", "--model", modelPath, "--pairs", pairsPath, "--rows", pairsPath}, "--rows"},
		{"corrupt model", []string{"predict", "--model", corrupt, "--pairs", pairsPath}, "--model " + corrupt + ": pairkernel: corrupt model file: lambda = -1"},
		{"two models", []string{"predict", "--model", trailing, "--pairs", pairsPath}, "one model per file"},
		{"data", []string{"predict", "--model", modelPath, "--data", rowsPath}, "a pairwise model"},
	} {
		_, stderr, err := run(t, "", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v (%s), want an error containing %q", c.name, err, stderr, c.want)
		}
	}
}

// TestPairKernelDocExample: the numbers docs/pairkernel.md quotes for its
// worked example — the sum kernel's 83–89 iterations (86 with OpenBLAS, 85
// in pure Go: the count moves with the rounding), and the c-indices of the
// unseen pairs and of the new drugs for sum, kronecker and cartesian, to
// the three decimals quoted.
func TestPairKernelDocExample(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flags        []string
		unseen, news float64
		iterations   int
	}{
		{[]string{"--pair-kernel", "sum", "--pair-kernel-weights", "1,0.5", "--kernel", "gaussian", "--gamma-grid", "0.015625,0.0625"}, 0.905, 0.812, 86},
		{[]string{"--pair-kernel", "kronecker", "--kernel", "gaussian", "--gamma", "0.015625"}, 0.892, 0.830, 0},
		{[]string{"--pair-kernel", "cartesian", "--kernel", "gaussian", "--gamma", "0.015625"}, 0.907, 0.716, 0},
	} {
		model := filepath.Join(dir, c.flags[1]+".json")
		args := append([]string{"fit", "--learner", "kronrls", "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"),
			"--pairs", dti("dti-pairs-train.txt"), "--col-kernel", "gaussian", "--col-gamma", "0.05", "--lambda", "1", "--model", model, "--quiet"}, c.flags...)
		out, stderr, err := run(t, "", args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.flags, err, stderr)
		}
		if s := decodePairFit(t, out); c.iterations > 0 && (s.CG.Iterations < c.iterations-3 || s.CG.Iterations > c.iterations+3) {
			t.Errorf("%s: %d iterations, the doc says %d–%d", c.flags[1], s.CG.Iterations, c.iterations-3, c.iterations+3)
		}
		for _, p := range []struct {
			args []string
			want float64
		}{
			{[]string{"--pairs", dti("dti-pairs-unseen.txt")}, c.unseen},
			{[]string{"--rows", dti("dti-drugs-new.csv"), "--pairs", dti("dti-pairs-new.txt")}, c.news},
		} {
			out, stderr, err := run(t, "", append([]string{"predict", "--model", model, "--measure", "cindex", "--out", filepath.Join(dir, "p.txt")}, p.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			var score struct{ Value float64 }
			if err := json.Unmarshal([]byte(out), &score); err != nil {
				t.Fatalf("%v: %q", err, out)
			}
			if got := math.Round(score.Value*1000) / 1000; got != p.want {
				t.Errorf("%s %v: c-index %v (%.3f), the doc says %.3f", c.flags[1], p.args, score.Value, got, p.want)
			}
		}
	}
}

// TestPairKernelCLIWeightSearch: --pair-kernel-weights with a grid
// (vectors separated by ':') and --cv rows or cols chooses the weights by
// refitting without each fold of objects: the summary's grid of mean
// squared errors, its best point and the model file equal
// pairkernel.TrainSearch's with the pair folds built here from the object
// folds (given by --folds/--col-folds: objects i ≡ k mod 3; and leave one
// row object out without folds), and --curves lists the grid. A grid
// without --cv, with --cv pairs or both, unequal vectors and one vector
// with --cv are refused, naming the flag.
func TestPairKernelCLIWeightSearch(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(27, 3))
	rowsPath, rows := pkObjects(t, dir, "rows.csv", 12, 3, rng)
	colsPath, cols := pkObjects(t, dir, "cols.csv", 9, 2, rng)
	pairsPath, train, y := pkPairs(t, dir, "pairs.txt", 70, 12, 9, true, rng)
	modFolds := func(name string, n int) (string, [][]int) {
		var b strings.Builder
		var folds [][]int
		for k := 0; k < 3; k++ {
			var f []int
			for i := k; i < n; i += 3 {
				f = append(f, i)
				fmt.Fprintf(&b, "%d ", i)
			}
			b.WriteString("\n")
			folds = append(folds, f)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path, folds
	}
	rowFoldsPath, rowFolds := modFolds("rf.txt", 12)
	colFoldsPath, colFolds := modFolds("cf.txt", 9)
	var looRows [][]int
	for i := 0; i < 12; i++ {
		looRows = append(looRows, []int{i})
	}
	// pairFolds holds out, per object fold, the pairs of its objects
	pairFolds := func(objFolds [][]int, of []int) [][]int {
		var out [][]int
		for _, f := range objFolds {
			var pf []int
			for p, i := range of {
				for _, j := range f {
					if i == j {
						pf = append(pf, p)
					}
				}
			}
			if len(pf) > 0 {
				out = append(out, pf)
			}
		}
		return out
	}
	g := func(gamma float64) kernel.Spec { return kernel.Spec{Name: "gaussian", Gamma: gamma} }
	rs := []kernel.Spec{g(0.5), g(2)}
	cs := []kernel.Spec{g(0.7), g(0.7)}
	grid := [][]float64{{1, 0}, {0.25, 1}, {0, 1}, {1, 0.5}} // the best in the middle
	base := []string{"fit", "--learner", "kronrls", "--rows", rowsPath, "--cols", colsPath, "--pairs", pairsPath, "--lambda", "0.3",
		"--pair-kernel", "sum", "--kernel", "gaussian", "--gamma-grid", "0.5,2", "--col-kernel", "gaussian", "--col-gamma", "0.7"}
	for _, c := range []struct {
		name  string
		args  []string
		folds [][]int
	}{
		{"rows folds", []string{"--cv", "rows", "--folds", rowFoldsPath}, pairFolds(rowFolds, train.Rows)},
		{"cols folds", []string{"--cv", "cols", "--col-folds", colFoldsPath}, pairFolds(colFolds, train.Cols)},
		{"rows loo", []string{"--cv", "rows"}, pairFolds(looRows, train.Rows)},
	} {
		t.Run(c.name, func(t *testing.T) {
			modelPath, curvesPath := filepath.Join(dir, c.name+".json"), filepath.Join(dir, c.name+".tsv")
			args := append(append(append([]string(nil), base...), "--pair-kernel-weights", "1,0:0.25,1:0,1:1,0.5", "--quiet", "--model", modelPath, "--curves", curvesPath), c.args...)
			out, stderr, err := run(t, "", args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			want, scores, best, err := pairkernel.TrainSearch(grid, rs, cs, rows, cols, train, y, c.folds, 0.3, pairkernel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := decodePairFit(t, out)
			if s.PairKernel == nil || s.PairKernel.Search == nil {
				t.Fatalf("no weight search in the summary: %s", out)
			}
			ws := s.PairKernel.Search
			if ws.Best != best || ws.Folds != len(c.folds) || len(ws.Grid) != len(grid) {
				t.Fatalf("search: best %d of %d points over %d folds, want %d of %d over %d", ws.Best, len(ws.Grid), ws.Folds, best, len(grid), len(c.folds))
			}
			for i, pt := range ws.Grid {
				if math.Abs(pt.MSE-scores[i].MSE) > 1e-12*scores[i].MSE {
					t.Errorf("grid point %d: error %v, TrainSearch %v", i, pt.MSE, scores[i].MSE)
				}
			}
			var buf bytes.Buffer
			if err := want.Save(&buf); err != nil {
				t.Fatal(err)
			}
			if got := readFileT(t, modelPath); got != buf.String() {
				t.Errorf("model file differs from pairkernel.TrainSearch's")
			}
			curves := readFileT(t, curvesPath)
			if lines := strings.Split(strings.TrimSpace(curves), "\n"); len(lines) != len(grid)+1 || lines[0] != "w1\tw2\tmse\tbest" || !strings.HasSuffix(lines[best+1], "\t1") {
				t.Errorf("--curves:\n%s", curves)
			}
			t.Logf("best %v of %d points, MSE %.4g", grid[best], len(grid), scores[best].MSE)
		})
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"grid without cv", []string{"--pair-kernel-weights", "1,0:0,1"}, "give --cv rows[:K] or cols[:K]"},
		{"grid with pairs", []string{"--pair-kernel-weights", "1,0:0,1", "--cv", "pairs"}, "--cv pairs with a weight grid"},
		{"grid with both", []string{"--pair-kernel-weights", "1,0:0,1", "--cv", "both:2"}, "--cv both:2 with a weight grid"},
		{"unequal vectors", []string{"--pair-kernel-weights", "1,0:0,1,1", "--cv", "rows"}, "vector 2 has 3 weights"},
		{"zero vector", []string{"--pair-kernel-weights", "1,0:0,0", "--cv", "rows"}, "every weight of vector 2 is 0"},
		{"one vector with cv", []string{"--pair-kernel-weights", "1,0.5", "--cv", "rows"}, "one weight vector"},
		{"other kind with cv", []string{"--cv", "rows"}, ""},
	} {
		args := append(append([]string(nil), base...), c.args...)
		if c.name == "other kind with cv" {
			args = []string{"fit", "--learner", "kronrls", "--rows", rowsPath, "--cols", colsPath, "--pairs", pairsPath, "--lambda", "0.3",
				"--pair-kernel", "kronecker", "--kernel", "gaussian", "--col-kernel", "gaussian", "--cv", "rows"}
			c.want = "only --pair-kernel sum cross-validates"
		}
		_, stderr, err := run(t, "", args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v (%s), want an error containing %q", c.name, err, stderr, c.want)
		}
	}
}
