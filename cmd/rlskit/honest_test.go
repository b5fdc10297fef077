package main

import (
	"fmt"
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

// fit checks every output before any work and writes them together: a report
// path that is a directory fails the command before the model is written, and
// an output that is an input is refused.
func TestFitOutputsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 5)
	model := filepath.Join(dir, "m.json")
	_, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--model", model, "--report", dir)
	if err == nil || !strings.Contains(err.Error(), "--report") {
		t.Errorf("report into a directory: err = %v", err)
	}
	if _, err := os.Stat(model); !os.IsNotExist(err) {
		t.Errorf("model written by a failing command: %v", err)
	}
	before, _ := os.ReadFile(data)
	_, _, err = run(t, "", "fit", "--data", data, "--label", "y", "--model", data)
	if err == nil || !strings.Contains(err.Error(), "--model") {
		t.Errorf("--model = --data: err = %v", err)
	}
	if after, _ := os.ReadFile(data); string(after) != string(before) {
		t.Error("the data file was overwritten")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// --model - puts the model alone on standard output; the summary goes to stderr.
func TestModelToStdout(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 6)
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--model", "-", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout, `{"format":"rlskit-model"`) || strings.Count(stdout, "\n{") > 0 {
		t.Errorf("stdout is not the model alone: %.200s", stdout)
	}
	decodeFit(t, stderr)
}

// Flags with empty or misleading values get messages that name them.
func TestFlagMessages(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 7)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--lambda-grid", ""}, `--lambda-grid ""`},
		{[]string{"--model", ""}, `--model ""`},
		{[]string{"--folds", ""}, `--folds ""`},
		{[]string{"--cv", "folds"}, "give --folds"},
		{[]string{"--lambda-grid", "2^-2000..2^0"}, "exponents from -1074 to 1023"},
	}
	for _, c := range cases {
		args := append([]string{"fit", "--data", data, "--label", "y"}, c.args...)
		if _, _, err := run(t, "", args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
	if _, _, err := run(t, "", "fit", "--data", dir, "--label", "y"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("--data directory: %v", err)
	}
}

// --fold-score mean and --query-normalize reach the library and the JSON.
func TestRLScoreConventions(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 8)
	stdout, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--cv", "kfold:3", "--fold-score", "mean")
	if err != nil {
		t.Fatal(err)
	}
	if o := decodeFit(t, stdout); o.CV.Strategy != "kfold:3,fold-score:mean" {
		t.Errorf("strategy %q", o.CV.Strategy)
	}
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--fold-score", "mean"); err == nil {
		t.Error("--fold-score mean with loo accepted")
	}
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--query-normalize"); err == nil {
		t.Error("--query-normalize with rls accepted")
	}
}

func TestQueryNormalizeCLI(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "q.csv")
	body := "y,q,a,b\n"
	for i := 0; i < 24; i++ {
		body += fmt.Sprintf("%d,%d,%g,%g\n", (i*7)%5, i%3+i/20, float64(i%5)+0.1*float64(i), float64((i*3)%7))
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var preds [2]string
	for n, extra := range [][]string{nil, {"--query-normalize"}} {
		out := filepath.Join(dir, fmt.Sprintf("cv%d.tsv", n))
		args := append([]string{"fit", "--data", p, "--label", "y", "--qid", "q", "--learner", "queryrank", "--cv", "lqo",
			"--lambda", "1", "--cv-predictions", out}, extra...)
		if _, _, err := run(t, "", args...); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		preds[n] = string(b)
	}
	if preds[0] == preds[1] {
		t.Error("--query-normalize left the leave-query-out predictions unchanged although the query sizes differ")
	}
}
