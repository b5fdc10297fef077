package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// TestFitNestedOuter: fit --outer-folds K's JSON "outer" is the nested
// cross-validation of the whole search, checked against the CLI itself run
// on each outer training part: for every outer fold O of cv.KFold(m, K,
// --seed), `fit` on the rows of T alone (with --standardize, its own
// scaler) with --folds the inner folds restricted to T — the other K − 1
// outer folds, as --cv kfold:K with the same seed draws them — chooses the
// same γ and λ with the same inner value, and `predict` of its model on O
// gives the per-fold outer value; the pooled mse over all O is the outer
// value (1e-8 relative) — by default and with --choose 1se, whose rule
// then picks λ inside every outer part as in the fit on T. The interval is at level 0.9, by the nested-CV
// method for mse and the folds' standard error for r2; --outer-folds FILE
// reads the folds; a bad file and lpo are refused with the flag named.
func TestFitNestedOuter(t *testing.T) {
	dir := t.TempDir()
	const m, k = 40, 4
	data := writeCSV(t, dir, m, 11)
	lines := strings.Split(strings.TrimSpace(readFileT(t, data)), "\n")
	grid := []string{"--kernel", "gaussian", "--gamma-grid", "0.1,1", "--lambda-grid", "0.01,0.1,1,10", "--standardize", "--quiet"}
	fit := func(args ...string) (string, error) {
		stdout, stderr, err := run(t, "", append(append([]string{"fit", "--label", "y"}, grid...), args...)...)
		if err != nil {
			return stderr, err
		}
		return stdout, nil
	}
	var first *summary.Outer
	// the default choice, and the one-standard-error rule inside every outer part as in the fit on T
	for _, extra := range [][]string{nil, {"--choose", "1se"}} {
		out, err := fit(append([]string{"--data", data, "--cv", "kfold:4", "--outer-folds", "4", "--seed", "1"}, extra...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		o := decodeFit(t, out).Outer
		if extra == nil {
			first = o
		}
		if o == nil || o.Folds != k || o.Measure != "mse" || o.Level != 0.9 || o.Method != selection.IntervalNestedCV ||
			o.SE == nil || o.Interval == nil || o.Bias == nil || !(o.Interval[0] < o.Interval[1]) || len(o.PerFold) != k {
			t.Fatalf("outer %+v", o)
		}
		if c := (o.Interval[0] + o.Interval[1]) / 2; math.Abs(c-(o.Value-*o.Bias)) > 1e-12*math.Abs(c) {
			t.Errorf("interval %v is not centred at value − bias = %g", *o.Interval, o.Value-*o.Bias)
		}
		outer, err := cv.KFold(m, k, 1)
		moved := false
		if err != nil {
			t.Fatal(err)
		}
		y := readTable(t, data)["y"]
		sum, n := 0.0, 0
		for f, fold := range outer {
			inO := map[int]bool{}
			for _, i := range fold {
				inO[i] = true
			}
			var train []int
			pos := map[int]int{}
			for i := 0; i < m; i++ {
				if !inO[i] {
					pos[i] = len(train)
					train = append(train, i)
				}
			}
			write := func(name string, rows []int) string {
				var b strings.Builder
				b.WriteString(lines[0] + "\n")
				for _, i := range rows {
					b.WriteString(lines[i+1] + "\n")
				}
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			var folds strings.Builder
			for g, inner := range outer {
				if g == f {
					continue
				}
				for a, i := range inner {
					if a > 0 {
						folds.WriteString(" ")
					}
					folds.WriteString(strconv.Itoa(pos[i]))
				}
				folds.WriteString("\n")
			}
			foldsFile := filepath.Join(dir, fmt.Sprintf("inner%d.txt", f))
			if err := os.WriteFile(foldsFile, []byte(folds.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			modelFile := filepath.Join(dir, fmt.Sprintf("model%d.json", f))
			tout, err := fit(append([]string{"--data", write(fmt.Sprintf("train%d.csv", f), train), "--folds", foldsFile, "--model", modelFile}, extra...)...)
			if err != nil {
				t.Fatalf("outer fold %d: %v\n%s", f, err, tout)
			}
			tf := decodeFit(t, tout)
			if tf.CV.Choose == "1se" && tf.Lambda != tf.CV.Best.Lambda {
				moved = true
			}
			pf := o.PerFold[f]
			chosen := tf.CV.Chosen.Value // the value at the fit's λ: the best, or the 1se rule's
			if pf.Fold != f || pf.Kernel == nil || pf.Kernel.Gamma != tf.Kernel.Gamma || pf.Lambda != tf.Lambda ||
				math.Abs(pf.Inner-chosen) > 1e-8*math.Abs(chosen) {
				t.Fatalf("outer fold %d: nested chose %+v (inner %.17g), fit on T: γ = %g λ = %g (%.17g)", f, pf, pf.Inner, tf.Kernel.Gamma, tf.Lambda, chosen)
			}
			pout, stderr, err := run(t, "", "predict", "--model", modelFile, "--data", write(fmt.Sprintf("test%d.csv", f), fold))
			if err != nil {
				t.Fatalf("outer fold %d: predict: %v\n%s", f, err, stderr)
			}
			preds := strings.Fields(pout)
			if len(preds) != len(fold) {
				t.Fatalf("outer fold %d: %d predictions for %d rows", f, len(preds), len(fold))
			}
			fs := 0.0
			for a, i := range fold {
				p, err := strconv.ParseFloat(preds[a], 64)
				if err != nil {
					t.Fatal(err)
				}
				fs += (y[i] - p) * (y[i] - p)
			}
			if pf.Outer == nil || math.Abs(*pf.Outer-fs/float64(len(fold))) > 1e-8*fs/float64(len(fold)) {
				t.Errorf("outer fold %d: outer value %v, the model of T predicts O with mse %.17g", f, pf.Outer, fs/float64(len(fold)))
			}
			sum += fs
			n += len(fold)
		}
		if want := sum / float64(n); math.Abs(o.Value-want) > 1e-8*want {
			t.Errorf("outer value %.17g, the fits on T predict with mse %.17g", o.Value, want)
		}
		if extra != nil && !moved {
			t.Error("--choose 1se chose the best λ on every outer part: the case tests nothing")
		}
	}
	o := first
	// the same folds from a file; r2: the folds' standard error
	outer, err := cv.KFold(m, k, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, fold := range outer {
		for a, i := range fold {
			if a > 0 {
				b.WriteString(" ")
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString("\n")
	}
	outerFile := filepath.Join(dir, "outer.txt")
	if err := os.WriteFile(outerFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out2, err := fit("--data", data, "--cv", "kfold:4", "--outer-folds", outerFile, "--seed", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out2)
	}
	if o2 := decodeFit(t, out2).Outer; o2 == nil || o2.Value != o.Value || *o2.SE != *o.SE {
		t.Errorf("--outer-folds FILE: %+v, --outer-folds 4: %+v", o2, o)
	}
	out3, err := fit("--data", data, "--cv", "kfold:4", "--outer-folds", "4", "--seed", "1", "--measure", "r2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out3)
	}
	if o3 := decodeFit(t, out3).Outer; o3 == nil || o3.Method != selection.IntervalFoldSE || o3.Bias != nil || o3.SE == nil || o3.Measure != "r2" {
		t.Errorf("--measure r2: outer %+v", o3)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("0 1 2\n2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", data, "--outer-folds", bad}, "--outer-folds " + bad},
		{[]string{"--data", data, "--outer-folds", "4", "--cv", "lpo", "--measure", "auc", "--label", "cls"}, "--outer-folds 4"},
	} {
		if msg, err := fit(c.args...); err == nil || !strings.Contains(msg+err.Error(), c.want) {
			t.Errorf("%v: %v %s, want %q", c.args, err, msg, c.want)
		}
	}
}

// TestFitNestedPairs: fit --outer-folds K for two-step RLS on the tutorial's
// drug–target data is selection.NestedDesign of the same search — the
// inner design rows:4 drawn with --seed, K = 3 outer folds of drugs drawn
// with --seed too (cv.KFold) — value, SE, interval and every outer fold's
// kernel, λ, λ_c and values equal (1e-12; the library is checked against
// brute-force retraining in package selection); with --cv both:3 the
// outer blocks are the 2 × 2 drug folds × target folds (--seed + 1).
func TestFitNestedPairs(t *testing.T) {
	drugs, err := dataset.ReadFile(dti("dti-drugs.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	targets, err := dataset.ReadFile(dti("dti-targets.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(dti("dti-pairs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pf, err := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: 60, Cols: 40})
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"fit", "--learner", "twostep", "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"),
		"--pairs", dti("dti-pairs.txt"), "--kernel", "gaussian", "--gamma-grid", "0.004,0.015625", "--col-gamma", "0.05", "--quiet",
		"--lambda-grid", "0.25,1,4", "--col-lambda-grid", "0.25,1", "--seed", "3"}
	stdout, stderr, err := run(t, "", append(args, "--cv", "rows:4", "--outer-folds", "3")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	o := decodePairFit(t, stdout).Outer
	if o == nil || o.Folds != 3 || o.Measure != "mse" || o.Method != selection.IntervalNestedCV || o.SE == nil || o.Level != 0.9 {
		t.Fatalf("outer %+v", o)
	}
	in := &learn.Input{X: drugs.X, Cols: targets.X, Y: mat.NewDense(len(pf.Labels), 1, pf.Labels), Outputs: []string{"y"}}
	for k := range pf.Labels {
		in.Pairs = append(in.Pairs, learn.ObjectPair{Row: pf.Rows[k], Col: pf.Cols[k]})
	}
	le, err := learn.Lookup("twostep")
	if err != nil {
		t.Fatal(err)
	}
	mse, _ := measure.ByName("mse")
	innerFolds, _ := cv.KFold(60, 4, 3)
	outer := learn.Design{Setting: "rows"}
	outer.RowFolds, _ = cv.KFold(60, 3, 3)
	want, err := selection.NestedDesign(selection.Problem{Learner: le, Input: in},
		selection.Settings{Kernels: []kernel.Spec{{Name: "gaussian", Gamma: 0.004}, {Name: "gaussian", Gamma: 0.015625}}, ColKernels: []kernel.Spec{{Name: "gaussian", Gamma: 0.05}},
			Lambdas: []float64{0.25, 1, 4}, ColLambdas: []float64{0.25, 1}, Measure: mse,
			Scheme: selection.Scheme{Kind: selection.Objects, Name: "rows:4", Design: learn.Design{Setting: "rows", RowFolds: innerFolds}}}, outer, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	if !close(o.Value, want.Value) || !close(*o.SE, want.SE) || !close(o.Interval[0], want.Interval[0]) || !close(o.Interval[1], want.Interval[1]) {
		t.Errorf("CLI outer %.17g ± %g %v, library %.17g ± %g %v", o.Value, *o.SE, *o.Interval, want.Value, want.SE, want.Interval)
	}
	for n, f := range want.Folds {
		g := o.PerFold[n]
		if g.Kernel == nil || *g.Kernel != f.Kernel || g.ColKernel == nil || *g.ColKernel != *f.ColKernel || g.Lambda != f.Lambda || g.ColLambda != f.ColLambda ||
			!close(g.Inner, f.Inner) || g.Outer == nil || !close(*g.Outer, f.Outer) {
			t.Errorf("outer fold %d: CLI %+v, library %+v", n, g, f)
		}
	}
	stdout, stderr, err = run(t, "", append(args, "--cv", "both:3", "--outer-folds", "2")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if ob := decodePairFit(t, stdout).Outer; ob == nil || ob.Folds != 4 || len(ob.PerFold) != 4 {
		t.Errorf("both: outer %+v", ob)
	}
	if _, _, err := run(t, "", append(args, "--cv", "pairs", "--outer-folds", "3")...); err == nil || !strings.Contains(err.Error(), "--outer-folds 3") {
		t.Errorf("--cv pairs --outer-folds 3: %v", err)
	}
}

// TestFitGreedyOuterSE: --learner greedy --outer-folds K's outer gains each
// fold's own value (the measure of the fold's outer predictions), the
// folds' standard error and the interval value ± 1.645·SE (method
// fold-se, level 0.9: its outer loop keeps no inner losses for the
// nested-CV interval): the per-fold mse of 4 folds of 10 rows average to
// the pooled outer value (greedy.Outer's, checked against brute force in
// package greedy), and their standard error and the interval are
// recomputed here (1e-12).
func TestFitGreedyOuterSE(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 13)
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--learner", "greedy", "--select", "2",
		"--lambda-grid", "0.1,1,10", "--outer-folds", "4", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	o := decodeFit(t, stdout).Outer
	if o == nil || o.Method != selection.IntervalFoldSE || o.Level != 0.9 || o.SE == nil || o.Interval == nil || len(o.PerFold) != 4 || o.Bias != nil {
		t.Fatalf("outer %+v", o)
	}
	var vals []float64
	for n, f := range o.PerFold {
		if f.Outer == nil || f.Fold != n || f.Features == 0 {
			t.Fatalf("fold %d: %+v", n, f)
		}
		vals = append(vals, *f.Outer)
	}
	mean := 0.0
	for _, v := range vals {
		mean += v
	}
	mean /= 4
	ss := 0.0
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	se := math.Sqrt(ss/3) / 2
	if math.Abs(*o.SE-se) > 1e-12*se || math.Abs(o.Interval[0]-(o.Value-1.6448536269514722*se)) > 1e-12 || math.Abs(o.Interval[1]-(o.Value+1.6448536269514722*se)) > 1e-12 {
		t.Errorf("SE %g interval %v, want %g around %g", *o.SE, *o.Interval, se, o.Value)
	}
	// the folds' values pool to the outer value: mse on equal-size folds is their mean
	if math.Abs(mean-o.Value) > 1e-12*o.Value {
		t.Errorf("mean of the folds' mse %.17g, outer value %.17g (4 folds of 10 rows)", mean, o.Value)
	}
}
