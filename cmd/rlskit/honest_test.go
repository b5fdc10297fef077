package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A point chosen at an end of its grid is reported in the JSON and on stderr.
func TestOnEdgeReported(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 3)
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--kernel", "gaussian",
		"--gamma-grid", "2^-3..2^-1", "--lambda-grid", "2^10..2^12")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	found := false
	for _, e := range o.CV.Best.OnEdge {
		if e.Parameter == "lambda" && e.Side == "low" {
			found = true
		}
	}
	if !found || !strings.Contains(stderr, "lambda is the lower end of its grid") {
		t.Errorf("λ on the low edge not reported: %+v\n%s", o.CV.Best.OnEdge, stderr)
	}
}

// With a kernel that carries no information (gaussian, γ = 1e6: K = I) the
// shortcut's rounding noise must not score as signal: c-index 0.5, flagged.
func TestIndistinguishableCV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tiny_noise.csv")
	if err := os.WriteFile(p, []byte("y,a\n1,0\n-1,1\n1,2\n-1,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := run(t, "", "fit", "--data", p, "--label", "y", "--learner", "globalrank",
		"--kernel", "gaussian", "--gamma", "1e6", "--cv", "loo", "--measure", "cindex")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, stdout)
	if o.CV.Best.Value != 0.5 || !o.CV.Best.Indistinguishable {
		t.Errorf("best %+v, want c-index 0.5 flagged indistinguishable", o.CV.Best)
	}
	for _, pt := range o.CV.Curve {
		if pt.Value != 0.5 {
			t.Errorf("λ = %g: c-index %v from rounding noise", pt.Lambda, pt.Value)
		}
	}
	if !strings.Contains(stderr, "numerically indistinguishable") {
		t.Errorf("no warning on stderr: %q", stderr)
	}
}

// A non-finite CV prediction is an error, never a row silently dropped from the score.
func TestNonFiniteCVPrediction(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nd.csv")
	if err := os.WriteFile(p, []byte("y,a\n1,1e20\n2,2\n3,3\n4,4.5\n5,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "", "fit", "--data", p, "--label", "y", "--lambda", "1")
	if err == nil || !strings.Contains(err.Error(), "non-finite") || !strings.Contains(err.Error(), "row 0") {
		t.Errorf("err = %v, want a non-finite prediction error naming row 0", err)
	}
}

// LPO-AUC on a continuous, all-positive label says what AUC needs.
func TestLPOAUCNeedsTwoClasses(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cont.csv")
	if err := os.WriteFile(p, []byte("y,a\n1.5,0\n2.5,1\n3.1,2\n4.2,3\n5.0,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "", "fit", "--data", p, "--label", "y", "--cv", "lpo", "--measure", "auc")
	if err == nil || !strings.Contains(err.Error(), "AUC needs two classes") || !strings.Contains(err.Error(), "cindex") {
		t.Errorf("err = %v", err)
	}
}
