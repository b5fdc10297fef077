package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRoughEdgeMessages: two of the rough edges issue 24 met, through the
// command line. A λ grid written with a colon (2^-5:2^5) is refused with
// every grid form shown, the `..` range among them; --measure auc on a label
// that is all > 0 (a continuous target) is refused before any training —
// no progress line of the kernel matrix or the λ path is written even with
// progress shown from the first moment, and no model file — naming the
// measures that fit.
func TestRoughEdgeMessages(t *testing.T) {
	defer func(a, l time.Duration) { progressAfter, progressLong = a, l }(progressAfter, progressLong)
	progressAfter, progressLong = 0, 0
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 21)
	if _, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--lambda-grid", "2^-5:2^5"); err == nil ||
		!strings.Contains(err.Error(), "a range 2^a..2^b or 10^a..10^b") || !strings.Contains(err.Error(), "a..b:N") {
		t.Errorf("--lambda-grid 2^-5:2^5: err %v; want the grid forms shown", err)
	}

	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := 1; i < len(lines); i++ { // the label y (column 4) made > 0: 1 followed by its digits
		f := strings.Split(lines[i], ",")
		f[3] = "1" + strings.NewReplacer("-", "", ".", "", "e", "").Replace(f[3])
		lines[i] = strings.Join(f, ",")
	}
	pos := filepath.Join(dir, "positive.csv")
	if err := os.WriteFile(pos, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.json")
	_, stderr, err := run(t, "", "fit", "--data", pos, "--label", "y", "--kernel", "gaussian", "--measure", "auc", "--model", model)
	if err == nil || !strings.Contains(err.Error(), `every value of label "y" is > 0`) || !strings.Contains(err.Error(), "cindex") {
		t.Errorf("--measure auc on labels > 0: err %v; want the one-class refusal naming cindex", err)
	}
	if strings.Contains(stderr, "kernel matrix") || strings.Contains(stderr, "cross-validating") {
		t.Errorf("--measure auc on labels > 0 trained before refusing:\n%s", stderr)
	}
	if _, err := os.Stat(model); err == nil {
		t.Error("a model was written")
	}
}

// TestPairwisePandasIndex: --rows written by pandas with its index is
// refused with the hint that applies to the learners of pairs (write it
// with index=False), not --ignore, which they refuse.
func TestPairwisePandasIndex(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rows := write("rows.csv", ",a,b\n0,1,2\n1,3,1\n2,0,1\n")
	cols := write("cols.csv", "c,d\n1,0\n0,1\n")
	pairs := write("pairs.txt", "0 0 1\n0 1 2\n1 0 0.5\n1 1 1\n2 0 3\n2 1 2\n")
	_, _, err := run(t, "", "fit", "--learner", "kronrls", "--rows", rows, "--cols", cols, "--pairs", pairs, "--cv", "none", "--lambda-grid", "1", "--quiet")
	if err == nil || !strings.Contains(err.Error(), "--rows "+rows) || !strings.Contains(err.Error(), "index=False") || strings.Contains(err.Error(), "--ignore 1") {
		t.Errorf("pandas --rows: err %v; want --rows named with the index=False hint, not --ignore 1", err)
	}
}
