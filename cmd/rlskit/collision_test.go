package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlskit/rlskit/dataset"
)

// Regression (issue 20 item 6): fit --data X.npy --labels y.npy --model y.npy
// exited 0 and replaced the labels with model JSON (and likewise with
// --cv-predictions or --report): --labels was missing from fit's collision
// check. Now every output naming an input is refused and the input is left
// as it was.
func TestOutputNamingTheLabelsIsRefused(t *testing.T) {
	dir := t.TempDir()
	rows := newFormatRows(30, 4, false)
	x, y := filepath.Join(dir, "X.npy"), filepath.Join(dir, "y.npy")
	labels := rows.npy(t, true)
	if err := os.WriteFile(x, rows.npy(t, false), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(y, labels, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"--model", "--cv-predictions", "--report"} {
		_, _, err := run(t, "", "fit", "--data", x, "--labels", y, out, y, "--quiet")
		if !errors.Is(err, dataset.ErrSameFile) {
			t.Errorf("%s y.npy: err = %v, want the output refused as the input", out, err)
		}
		if b, _ := os.ReadFile(y); !bytes.Equal(b, labels) {
			t.Fatalf("%s y.npy replaced the labels", out)
		}
	}
	if _, _, err := run(t, "", "predict", "--model", x, "--data", x, "--labels", y, "--out", y); !errors.Is(err, dataset.ErrSameFile) {
		t.Errorf("predict --out y.npy = --labels: err = %v", err)
	}
}

// nonFileFlags are the string flags whose values are not files; every other
// string flag of fit and predict must be marked as a file (markFiles), so
// that it is completed as a file name and, unless it is an output, enters
// the collision check (inputFiles). A new string flag fails this test until
// it is classified.
var nonFileFlags = []string{"format", "label", "qid", "learner", "kernel", "gamma-grid", "degree-grid", "coef0-grid",
	"lambda-grid", "cv", "measure", "cost", "solver", "basis-select", "basis-holdout", "fold-score", "col-kernel",
	"col-gamma-grid", "col-lambda-grid", "symmetry", "pair-kernel", "pair-kernel-weights", "zero-based", "delimiter", "features", "ignore", "positive", "interval", "choose", "roc"}

func TestEveryFileFlagIsClassified(t *testing.T) {
	root := newRoot(nil, nil, nil)
	for _, name := range []string{"fit", "predict"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		var inputs []string
		cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			_, file := fl.Annotations[cobra.BashCompFilenameExt]
			switch {
			case file && !outputFlags[name][fl.Name]:
				inputs = append(inputs, fl.Name)
			case file:
			case fl.Value.Type() == "string" && !slices.Contains(nonFileFlags, fl.Name):
				t.Errorf("%s --%s: a string flag neither marked as a file nor listed as not one", name, fl.Name)
			}
		})
		for _, want := range map[string][]string{"fit": {"data", "labels", "folds", "basis-rows", "preferences", "weights", "rows", "cols", "pairs", "col-folds", "validation-pairs"},
			"predict": {"model", "data", "labels", "pairs", "rows", "cols"}}[name] {
			if !slices.Contains(inputs, want) {
				t.Errorf("%s --%s is not an input of the collision check (inputs: %v)", name, want, inputs)
			}
		}
	}
}
