package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
)

// TestPairIntervalCLI: fit --learner kronrls|twostep --cv rows|cols|both
// --interval cv+ with the folds of --folds and/or --col-folds records the
// interval, and predict --coverage writes prediction, lower and upper per
// pair equal to the library's (interval.NewPairs on the same solution and
// folds, PredictInterval) to 1e-12 — new drugs against the training targets
// (rows), training drugs against new targets (cols), new drugs with new
// targets (both); the JSON reports the share of labels inside. Refusals
// name the flags; --cv pairs (setting A) is refused with
// plan.ErrPairsInterval.
func TestPairIntervalCLI(t *testing.T) {
	dir := t.TempDir()
	rowFolds := filepath.Join(dir, "rf.txt")
	colFolds := filepath.Join(dir, "cf.txt")
	var rf, cf [][]int
	var rb, cb strings.Builder
	for k := 0; k < 4; k++ {
		var r, c []string
		var ri, ci []int
		for i := k; i < 60; i += 4 {
			r, ri = append(r, strconv.Itoa(i)), append(ri, i)
		}
		for j := k; j < 40; j += 4 {
			c, ci = append(c, strconv.Itoa(j)), append(ci, j)
		}
		rf, cf = append(rf, ri), append(cf, ci)
		rb.WriteString(strings.Join(r, " ") + "\n")
		cb.WriteString(strings.Join(c, " ") + "\n")
	}
	if err := os.WriteFile(rowFolds, []byte(rb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(colFolds, []byte(cb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// new drug × new target pairs: targets 0..4 of the target file given as new objects
	newPairs := filepath.Join(dir, "nn.txt")
	var nb strings.Builder
	for r := 0; r < 12; r++ {
		for c := 0; c < 5; c++ {
			fmt.Fprintf(&nb, "%d %d %g\n", r, c, 7+0.1*float64(r-c))
		}
	}
	if err := os.WriteFile(newPairs, []byte(nb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// training drug × new target pairs
	oldNewPairs := filepath.Join(dir, "on.txt")
	nb.Reset()
	for r := 0; r < 60; r += 3 {
		for c := 0; c < 5; c++ {
			fmt.Fprintf(&nb, "%d %d %g\n", r, c, 7+0.05*float64(r)-0.2*float64(c))
		}
	}
	if err := os.WriteFile(oldNewPairs, []byte(nb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	newTargets := filepath.Join(dir, "nt.csv")
	tb, _ := os.ReadFile(dti("dti-targets.csv"))
	tl := strings.SplitAfter(string(tb), "\n")
	if err := os.WriteFile(newTargets, []byte(strings.Join(tl[:6], "")), 0o644); err != nil {
		t.Fatal(err)
	}

	drugs, _ := dataset.ReadFile(dti("dti-drugs.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	targets, _ := dataset.ReadFile(dti("dti-targets.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	newDrugs, _ := dataset.ReadFile(dti("dti-drugs-new.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	nt, _ := dataset.ReadFile(newTargets, "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	fh, _ := os.Open(dti("dti-pairs.txt"))
	pf, _ := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: 60, Cols: 40})
	fh.Close()
	rs, _ := pairwise.NewSide(drugs.X, kernel.Gaussian{Gamma: 0.015625}, true)
	cs, _ := pairwise.NewSide(targets.X, kernel.Gaussian{Gamma: 0.05}, true)

	for _, c := range []struct{ learner, cv string }{{"kronrls", "rows"}, {"twostep", "rows"}, {"kronrls", "cols"}, {"twostep", "cols"}, {"kronrls", "both"}, {"twostep", "both"}} {
		t.Run(c.learner+"/"+c.cv, func(t *testing.T) {
			mpath := filepath.Join(dir, c.learner+c.cv+".json")
			args := dtiArgs(c.learner, "--lambda", "0.125", "--cv", c.cv, "--interval", "cv+", "--model", mpath)
			if c.learner == "twostep" {
				args = append(args, "--col-lambda", "0.5")
			}
			if c.cv != "cols" {
				args = append(args, "--folds", rowFolds)
			}
			if c.cv != "rows" {
				args = append(args, "--col-folds", colFolds)
			}
			if _, stderr, err := run(t, "", args...); err != nil {
				t.Fatalf("%v %s", err, stderr)
			}
			var sol learn.Solution
			var pm *model.PairPredictor
			if c.learner == "kronrls" {
				k, _ := pairwise.FitKron(rs, cs, toPairs(pf), pf.Labels, pairwise.Options{})
				s, _ := k.Solve(0.125)
				sol, pm = s, s.PairModel()
			} else {
				k, _ := pairwise.FitTwoStep(rs, cs, toPairs(pf), pf.Labels, pairwise.Options{})
				s, _ := k.Solve(0.125, 0.5)
				sol, pm = s, s.PairModel()
			}
			rowF, colF := rf, cf
			pairsFile := dti("dti-pairs-new.txt")
			predict := []string{"predict", "--model", mpath, "--coverage", "0.9", "--measure", "mse"}
			var rowX, colX mat.Matrix = newDrugs.X, nt.X
			nr, nc := 12, 40
			switch c.cv {
			case "rows":
				colF, colX = nil, nil
				predict = append(predict, "--rows", dti("dti-drugs-new.csv"))
			case "cols":
				rowF, rowX, pairsFile, nr, nc = nil, nil, oldNewPairs, 60, 5
				predict = append(predict, "--cols", newTargets)
			case "both":
				pairsFile, nc = newPairs, 5
				predict = append(predict, "--rows", dti("dti-drugs-new.csv"), "--cols", newTargets)
			}
			iv, err := interval.NewPairs(sol, c.cv, rowF, colF)
			if err != nil {
				t.Fatal(err)
			}
			pm.Interval = iv
			fh, _ := os.Open(pairsFile)
			np, err := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: nr, Cols: nc, Unlabelled: true})
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			want, wlo, whi, err := pm.PredictInterval(rowX, colX, np.Rows, np.Cols, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.tsv")
			stdout, stderr, err := run(t, "", append(predict, "--pairs", pairsFile, "--out", out)...)
			if err != nil {
				t.Fatalf("%v %s", err, stderr)
			}
			b, _ := os.ReadFile(out)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(lines) != len(want) {
				t.Fatalf("%d lines, want %d", len(lines), len(want))
			}
			in := 0
			for i, l := range lines {
				f := strings.Split(l, "\t")
				if len(f) != 3 {
					t.Fatalf("line %d: %q, want prediction, lower, upper", i, l)
				}
				for a, w := range []float64{want[i], wlo[i], whi[i]} {
					v, _ := strconv.ParseFloat(f[a], 64)
					if math.Abs(v-w) > 1e-12*(1+math.Abs(w)) {
						t.Fatalf("pair %d column %d: %v, library %v", i, a, v, w)
					}
				}
				if !(wlo[i] < want[i] && want[i] < whi[i]) {
					t.Fatalf("pair %d: the interval [%v, %v] does not hold the prediction %v", i, wlo[i], whi[i], want[i])
				}
				if wlo[i] <= np.Labels[i] && np.Labels[i] <= whi[i] {
					in++
				}
			}
			if wantCov := fmt.Sprintf(`"covered":%v`, float64(in)/float64(len(lines))); !strings.Contains(stdout, wantCov) {
				t.Errorf("stdout %q, want %s", stdout, wantCov)
			}
		})
	}
	plain := filepath.Join(dir, "plain.json")
	if _, stderr, err := run(t, "", dtiArgs("kronrls", "--lambda", "0.125", "--cv", "rows", "--model", plain)...); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	withRows := filepath.Join(dir, "kronrlsrows.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{dtiArgs("kronrls", "--lambda", "0.125", "--cv", "none", "--interval", "cv+"), "--interval cv+ is for new row objects (--cv rows[:K], setting B), new column objects (--cv cols[:K], setting C) or both (--cv both[:K], setting D), not --cv none"},
		{dtiArgs("kronrls", "--lambda", "0.125", "--cv", "rows", "--interval", "jackknife+"), "--interval jackknife+: a learner of pairs records cv+"},
		{dtiArgs("kronrls", "--lambda", "0.125", "--cv", "rows", "--interval", "cv+", "--solver", "cg"), "--interval cv+ needs the closed form"},
		{[]string{"predict", "--model", plain, "--rows", dti("dti-drugs-new.csv"), "--pairs", dti("dti-pairs-new.txt"), "--coverage", "0.9"}, "--coverage 0.9: " + plain + " records no prediction interval"},
		{[]string{"predict", "--model", withRows, "--pairs", dti("dti-pairs.txt"), "--coverage", "0.9"}, "setting rows"},
	} {
		_, stderr, err := run(t, "", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v (stderr %s), want %q", c.args, err, stderr, c.want)
		}
	}
	// setting A, given or by default: refused at planning time, before the
	// data are read (a missing --pairs file would fail later)
	for _, cv := range [][]string{{"--cv", "pairs"}, nil} {
		args := append([]string{"fit", "--learner", "kronrls", "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"),
			"--pairs", filepath.Join(dir, "absent.txt"), "--interval", "cv+"}, cv...)
		_, _, err := run(t, "", args...)
		if !errors.Is(err, plan.ErrPairsInterval) || !strings.Contains(err.Error(), "--interval cv+ with --cv pairs") {
			t.Errorf("%v: err %v, want plan.ErrPairsInterval naming the flags", args, err)
		}
	}
}
