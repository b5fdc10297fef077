package main

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

// The fold kinds of scikit-learn from the command line, on real data (the
// wine classes, the diabetes progression, the diabetes patients grouped by
// age): `fit --cv stratified-kfold:5` (one-vs-all), `repeated-kfold:5x3`
// and `group-kfold:4 --qid age` give the curve, the best λ and (for the
// repeated k-fold, whose CV predictions are its first repetition's) the
// CV predictions of the library's search over the scheme NewScheme draws
// with the same seed — the same computation, so equal to the bit. The
// library's curves are themselves held to retraining per fold
// (selection.TestFoldKindsEqualRetraining).
func TestFitFoldKinds(t *testing.T) {
	dir := t.TempDir()
	wine, diabetes := "../../docs/data/wine.csv", "../../docs/data/diabetes.csv"
	var grid []float64
	for e := -4; e <= 4; e++ {
		grid = append(grid, math.Ldexp(1, e))
	}
	for _, c := range []struct {
		name, data, label, qid, spec, measure string
		seed                                  uint64
		oneVsAll                              bool
	}{
		{"stratified one-vs-all", wine, "class", "", "stratified-kfold:5", "multiclass-accuracy", 1, true},
		{"stratified binary", "../../docs/data/wine-binary.csv", "class1", "", "stratified-kfold:4", "mse", 3, false},
		{"repeated", diabetes, "progression", "", "repeated-kfold:5x3", "mse", 1, false},
		{"repeated, another seed", diabetes, "progression", "", "repeated-kfold:5x3", "mse", 7, false},
		{"group", diabetes, "progression", "age", "group-kfold:4", "mse", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			preds := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".csv")
			args := []string{"fit", "--data", c.data, "--label", c.label, "--cv", c.spec, "--kernel", "linear", "--bias", "1",
				"--lambda-grid", "2^-4..2^4", "--measure", c.measure, "--seed", strconv.FormatUint(c.seed, 10), "--quiet"}
			if c.qid != "" {
				args = append(args, "--qid", c.qid)
			}
			if c.oneVsAll {
				args = append(args, "--one-vs-all")
			} else {
				args = append(args, "--cv-predictions", preds)
			}
			stdout, stderr, err := run(t, "", args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			o := decodeFit(t, stdout)

			// the library: the same data, scheme and search
			opt := dataset.CSVOptions{Labels: []string{c.label}, Qid: c.qid}
			d, err := dataset.ReadFile(c.data, "", opt, dataset.SVMLightOptions{})
			if err != nil {
				t.Fatal(err)
			}
			y := d.Y
			if c.oneVsAll { // ±1 columns, one per class (their order changes neither the folds nor the measure)
				col := map[float64]int{}
				for _, v := range mat.Col(nil, 0, d.Y) {
					if _, ok := col[v]; !ok {
						col[v] = len(col)
					}
				}
				y = mat.NewDense(d.Rows(), len(col), nil)
				for i := 0; i < d.Rows(); i++ {
					for k := range col {
						y.Set(i, col[k], -1)
					}
					y.Set(i, col[d.Y.At(i, 0)], 1)
				}
			}
			sc, err := selection.NewScheme(c.spec, selection.SchemeOptions{Rows: d.Rows(), Seed: c.seed, Labels: y, Groups: d.Queries})
			if err != nil {
				t.Fatal(err)
			}
			rlsD, err := learn.Lookup("rls")
			if err != nil {
				t.Fatal(err)
			}
			meas, err := measure.ByName(c.measure)
			if err != nil {
				t.Fatal(err)
			}
			res, err := selection.Search(selection.Problem{Learner: rlsD, Input: &learn.Input{X: d.X, Y: y, Groups: d.Queries}},
				selection.Settings{Kernels: []kernel.Spec{{Name: "linear", Bias: 1}}, Lambdas: grid, Measure: meas, Scheme: sc})
			if err != nil {
				t.Fatal(err)
			}
			lib := res.Curves[0]

			if o.CV == nil || o.CV.Strategy != c.spec || o.CV.Measure != c.measure || len(o.CV.Curve) != len(grid) {
				t.Fatalf("cv %+v, want %s/%s over %d λ", o.CV, c.spec, c.measure, len(grid))
			}
			for n, p := range o.CV.Curve {
				if p.Lambda != lib.Curve[n].Lambda || p.Value != lib.Curve[n].Value {
					t.Errorf("λ=%g: CLI %v, library %v", p.Lambda, p.Value, lib.Curve[n].Value)
				}
			}
			if o.CV.Best.Lambda != res.Lambda || o.CV.Best.Value != res.Value {
				t.Errorf("best %+v, library λ=%g value %v", o.CV.Best, res.Lambda, res.Value)
			}
			if c.oneVsAll {
				return
			}
			got := readTable(t, preds)[c.label]
			if len(got) != d.Rows() {
				t.Fatalf("--cv-predictions: %d rows, want %d", len(got), d.Rows())
			}
			for i, v := range got {
				if v != lib.Predictions.At(i, 0) {
					t.Fatalf("--cv-predictions row %d: %v, library %v", i, v, lib.Predictions.At(i, 0))
				}
			}
		})
	}
}

// A fold kind that does not fit the data or its own form is refused with
// the flag and its value named, and what to do instead.
func TestFitFoldKindErrors(t *testing.T) {
	diabetes := "../../docs/data/diabetes.csv"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--cv", "stratified-kfold:5"}, []string{"--cv stratified-kfold:5", "more than 50 distinct values", "kfold:5"}},
		{[]string{"--cv", "stratified-kfold:1"}, []string{"--cv", "stratified-kfold:1", "K must be"}},
		{[]string{"--cv", "group-kfold:3"}, []string{"--cv group-kfold:3", "--qid"}},
		{[]string{"--cv", "group-kfold:60", "--qid", "age"}, []string{"--cv group-kfold:60", "at least 60 groups", "58 groups"}},
		{[]string{"--cv", "repeated-kfold:5"}, []string{"--cv", "repeated-kfold:5", "repeated-kfold:KxR"}},
		{[]string{"--cv", "repeated-kfold:5x0"}, []string{"--cv", "repeated-kfold:5x0", "R, the number of repetitions"}},
		{[]string{"--cv", "repeated-kfold:443x2"}, []string{"--cv repeated-kfold:443x2", "443 folds of 442 rows"}},
		{[]string{"--cv", "stratified-kfold:3", "--stream"}, []string{"stratified-kfold:3", "streams as none, loo, kfold:K"}},
		{[]string{"--cv", "group-kfold:3", "--qid", "age", "--stream"}, []string{"group-kfold:3", "streams as"}},
		{[]string{"--cv", "repeated-kfold:3x2", "--stream"}, []string{"repeated-kfold:3x2", "streams as"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append([]string{"fit", "--data", diabetes, "--label", "progression", "--lambda-grid", "2^0..2^2", "--quiet"}, c.args...)
			_, _, err := run(t, "", args...)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: want %q in the message", err, w)
				}
			}
		})
	}
}

// Greedy feature selection takes the stratified and group folds as any
// folds (its hold-out criterion is exact for every set of folds): the
// CLI's choice, value and selected features are the library's over the
// scheme's folds. A repeated k-fold, whose repetitions greedy cannot
// average, is refused rather than run over overlapping folds.
func TestFitFoldKindsGreedy(t *testing.T) {
	for _, c := range []struct {
		data, label, qid, spec string
	}{
		{"../../docs/data/wine-binary.csv", "class1", "", "stratified-kfold:4"},
		{"../../docs/data/diabetes.csv", "progression", "age", "group-kfold:4"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			args := []string{"fit", "--data", c.data, "--label", c.label, "--learner", "greedy", "--select", "3",
				"--cv", c.spec, "--lambda-grid", "2^0..2^2", "--quiet"}
			if c.qid != "" {
				args = append(args, "--qid", c.qid)
			}
			stdout, stderr, err := run(t, "", args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			o := decodeFit(t, stdout)
			d, err := dataset.ReadFile(c.data, "", dataset.CSVOptions{Labels: []string{c.label}, Qid: c.qid}, dataset.SVMLightOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := selection.NewScheme(c.spec, selection.SchemeOptions{Rows: d.Rows(), Seed: 1, Labels: d.Y, Groups: d.Queries})
			if err != nil {
				t.Fatal(err)
			}
			mse, _ := measure.ByName("mse")
			res, err := greedy.Select(d.X, d.Y, greedy.Options{Lambdas: []float64{1, 2, 4}, Bias: 1, K: 3, Measure: mse, Folds: sc.Folds, Queries: d.Queries})
			if err != nil {
				t.Fatal(err)
			}
			if o.CV == nil || o.CV.Strategy != c.spec || o.CV.Best.Lambda != res.Lambda || o.CV.Best.Value != res.Value ||
				o.Selection == nil || !slices.Equal(o.Selection.Selected, res.Selected) {
				t.Errorf("CLI %+v, %+v; library λ=%g value %v features %v", o.CV, o.Selection, res.Lambda, res.Value, res.Selected)
			}
		})
	}
	_, _, err := run(t, "", "fit", "--data", "../../docs/data/diabetes.csv", "--label", "progression", "--learner", "greedy",
		"--select", "2", "--cv", "repeated-kfold:3x2", "--lambda-grid", "2^0..2^1", "--quiet")
	if err == nil {
		t.Error("greedy over a repeated k-fold: accepted")
	}
}
