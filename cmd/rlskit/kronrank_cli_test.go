package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/pairwise"
)

// TestKronRankCLI: fit --learner kronrank on the tutorial's drug–target
// data picks λ by leave-one-drug-out (the default --cv rows) scored by the
// mean per-row c-index (the default measure); its curve values, its CV
// predictions file and its model's scores of new drugs equal the library's
// (KronRank.CrossValidate, the solution's PairModel) to 1e-12, and the
// model file round-trips through predict.
func TestKronRankCLI(t *testing.T) {
	dir := t.TempDir()
	mpath, cvpath := filepath.Join(dir, "m.json"), filepath.Join(dir, "cv.tsv")
	grid := []float64{0.25, 4, 64}
	stdout, stderr, err := run(t, "", dtiArgs("kronrank", "--lambda-grid", "0.25,4,64", "--model", mpath, "--cv-predictions", cvpath)...)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	out := decodePairFit(t, stdout)
	if out.CV == nil || out.CV.Strategy != "rows" || out.CV.Measure != "cindex-row" || len(out.CV.Curve) != 3 {
		t.Fatalf("want a rows curve of cindex-row over 3 λ: %s", stdout)
	}
	drugs, _ := dataset.ReadFile(dti("dti-drugs.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	targets, _ := dataset.ReadFile(dti("dti-targets.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	newDrugs, _ := dataset.ReadFile(dti("dti-drugs-new.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	fh, _ := os.Open(dti("dti-pairs.txt"))
	pf, _ := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: 60, Cols: 40})
	fh.Close()
	rs, _ := pairwise.NewSide(drugs.X, kernel.Gaussian{Gamma: 0.015625}, true)
	cs, _ := pairwise.NewSide(targets.X, kernel.Gaussian{Gamma: 0.05}, true)
	k, err := pairwise.FitKronRank(rs, cs, toPairs(pf), pf.Labels)
	if err != nil {
		t.Fatal(err)
	}
	cindexRow, _ := measure.ByName("cindex-row")
	var cvs []*mat.Dense
	err = k.CrossValidate(pairwise.Design{Setting: pairwise.Rows}, grid, func(i int, p *mat.Dense) error {
		cvs = append(cvs, mat.DenseCopyOf(p))
		pred := make([]float64, len(pf.Labels))
		for a := range pred {
			pred[a] = p.At(pf.Rows[a], pf.Cols[a])
		}
		v, err := cindexRow.Score(mat.NewDense(len(pred), 1, pf.Labels), mat.NewDense(len(pred), 1, pred), pf.Rows)
		if err != nil {
			return err
		}
		if got := out.CV.Curve[i].Value; math.Abs(got-v) > 1e-12 {
			t.Errorf("λ = %g: CLI cindex-row %v, library %v", grid[i], got, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	best := -1
	for i, g := range grid {
		if g == out.CV.Best.Lambda {
			best = i
		}
	}
	if best < 0 {
		t.Fatalf("best λ %v not on the grid", out.CV.Best.Lambda)
	}
	b, _ := os.ReadFile(cvpath)
	cvl := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(cvl) != 2401 || cvl[0] != "row\tcol\tprediction" {
		t.Fatalf("%d CV lines, header %q", len(cvl), cvl[0])
	}
	for i, l := range cvl[1:] {
		f := strings.Fields(l)
		v, _ := strconv.ParseFloat(f[2], 64)
		if w := cvs[best].At(pf.Rows[i], pf.Cols[i]); math.Abs(v-w) > 1e-12*(1+math.Abs(w)) {
			t.Fatalf("CV line %d: %q, library %v", i, l, w)
		}
	}
	s, err := k.Solve(out.CV.Best.Lambda)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = run(t, "", "predict", "--model", mpath, "--rows", dti("dti-drugs-new.csv"), "--pairs", dti("dti-pairs-new.txt"))
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	fh, _ = os.Open(dti("dti-pairs-new.txt"))
	np, _ := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: 12, Cols: 40, Unlabelled: true})
	fh.Close()
	want, err := s.PairModel().Predict(newDrugs.X, nil, np.Rows, np.Cols)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(stdout)
	if len(lines) != len(want) {
		t.Fatalf("%d predictions, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		v, _ := strconv.ParseFloat(l, 64)
		if math.Abs(v-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("new pair %d: %v, library %v", i, v, want[i])
		}
	}
}

// TestKronRankCLIErrors: what conditional ranking cannot do is refused
// naming the flag or the file.
func TestKronRankCLIErrors(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "part.txt")
	if err := os.WriteFile(part, []byte("0 0 1\n1 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oneCol, onePairs := filepath.Join(dir, "t1.csv"), filepath.Join(dir, "p1.txt")
	if err := os.WriteFile(oneCol, []byte("f1,f2\n0.5,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var pl strings.Builder
	for i := 0; i < 60; i++ {
		pl.WriteString(strconv.Itoa(i) + " 0 " + strconv.Itoa(i%7) + "\n")
	}
	if err := os.WriteFile(onePairs, []byte(pl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one column", []string{"fit", "--learner", "kronrank", "--rows", dti("dti-drugs.csv"), "--cols", oneCol, "--pairs", onePairs}, "--pairs " + onePairs + ": kronrank: pairwise: dimension mismatch: 1 column object: conditional ranking ranks at least 2 inside each row"},
		{"cv pairs", dtiArgs("kronrank", "--cv", "pairs"), "--cv pairs: --learner kronrank cross-validates new row objects only"},
		{"cv cols", dtiArgs("kronrank", "--cv", "cols:3"), "--cv cols:3: --learner kronrank cross-validates new row objects only"},
		{"homogeneous", []string{"fit", "--learner", "kronrank", "--rows", dti("dti-drugs.csv"), "--cols", "same", "--pairs", dti("dti-pairs.txt")}, "--cols same: --learner kronrank ranks the column objects"},
		{"incomplete", []string{"fit", "--learner", "kronrank", "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"), "--pairs", part}, "--learner kronrank needs complete data"},
		{"cg", dtiArgs("kronrank", "--solver", "cg"), "--solver cg trains --learner kronrls, not kronrank"},
		{"col lambda", dtiArgs("kronrank", "--col-lambda", "2"), "kronrank has one λ"},
	} {
		_, stderr, err := run(t, "", tc.args...)
		if err == nil || !strings.Contains(stderr+err.Error(), tc.want) {
			t.Errorf("%s: err %v, stderr %q, want %q", tc.name, err, stderr, tc.want)
		}
	}
}
