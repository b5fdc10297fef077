package stream

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// TestSplitFile: a large plain svmlight file read as byte ranges in parallel
// gives the result of reading it whole, and a malformed line in a later
// range is reported with the file's own line number.
func TestSplitFile(t *testing.T) {
	x, y, q := synth(77, 3000, 6, 1, true, false, 0, 3)
	dir := t.TempDir()
	whole, _ := writeShards(t, dir, x, y, q, false, 1)
	mse, _ := measure.ByName("mse")
	opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:5", Seed: 2,
		Lambdas: []float64{0.1, 10}, Measure: mse}
	src := Source{Files: []string{whole}, Format: "svmlight"}
	defer func(b int64) { splitBytes = b }(splitBytes)
	splitBytes = 1 << 62
	want, err := Run(context.Background(), opt, src, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	splitBytes = 4096
	ps, _ := parts(src, []FileStats{{Name: whole}}, 3)
	if len(ps) < 4 {
		t.Fatalf("%d byte ranges", len(ps))
	}
	got, err := Run(context.Background(), opt, src, RunOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != 3000 || got.Files[0].Rows != 3000 {
		t.Fatalf("rows %d (file %d)", got.Rows, got.Files[0].Rows)
	}
	for l := range want.Curve {
		if a, b := got.Curve[l].Value, want.Curve[l].Value; math.Abs(a-b) > 1e-13*b {
			t.Errorf("λ = %g: %v read in ranges, %v whole", want.Curve[l].Lambda, a, b)
		}
	}
	b, _ := os.ReadFile(whole)
	lines := strings.Split(string(b), "\n")
	lines[2500] = lines[2500] + " 2:oops"
	bad := filepath.Join(dir, "bad.svm")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)
	_, err = Run(context.Background(), opt, Source{Files: []string{bad}, Format: "svmlight"}, RunOptions{Workers: 3})
	if err == nil || !strings.Contains(err.Error(), "bad.svm:2501:") {
		t.Errorf("malformed line 2501: %v", err)
	}
}
