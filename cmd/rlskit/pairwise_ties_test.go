package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeNoisePairs writes m row and q column objects at least 2 apart (a
// gaussian kernel with γ = 1e8 is I on both sides) and every pair with a
// pure-noise label; same writes a homogeneous network's ordered pairs
// i ≠ j on the rows with antisymmetric labels.
func writeNoisePairs(t *testing.T, m, q int, antisymmetric bool) (rows, cols, pairs string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 4))
	obj := func(n int, name string) string {
		var b strings.Builder
		b.WriteString("a,b\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%d,%g\n", 2*i, rng.Float64())
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rows, cols = obj(m, "rows.csv"), obj(q, "cols.csv")
	var b strings.Builder
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			if antisymmetric {
				if j <= i {
					continue
				}
				v := rng.NormFloat64()
				fmt.Fprintf(&b, "%d %d %g\n%d %d %g\n", i, j, v, j, i, -v)
				continue
			}
			fmt.Fprintf(&b, "%d %d %g\n", i, j, rng.NormFloat64())
		}
	}
	pairs = filepath.Join(dir, "pairs.txt")
	if err := os.WriteFile(pairs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return rows, cols, pairs
}

// The reproducers, through the command line: pure-noise labels and
// K = I on both sides (gaussian γ = 1e8) scored AUC 1.0 (two-step, pairs),
// c-index 0.57 (Kronecker, setting B) and 0.90 (antisymmetric two-step,
// vertices) by rounding noise. The one search's tie rule scores the tie
// value and flags the point indistinguishable.
func TestPairwiseNoiseTies(t *testing.T) {
	rows, cols, pairs := writeNoisePairs(t, 9, 7, false)
	vr, _, vpairs := writeNoisePairs(t, 9, 9, true)
	cases := []struct {
		name string
		args []string
	}{
		{"twostep pairs auc", []string{"--learner", "twostep", "--rows", rows, "--cols", cols, "--pairs", pairs, "--cv", "pairs", "--measure", "auc", "--col-lambda-grid", "1,100"}},
		{"kronrls rows cindex", []string{"--learner", "kronrls", "--rows", rows, "--cols", cols, "--pairs", pairs, "--cv", "rows", "--measure", "cindex"}},
		{"kronrls both:3 cindex-row", []string{"--learner", "kronrls", "--rows", rows, "--cols", cols, "--pairs", pairs, "--cv", "both:3", "--measure", "cindex-row"}},
		{"twostep antisymmetric vertices", []string{"--learner", "twostep", "--rows", vr, "--cols", "same", "--symmetry", "antisymmetric", "--pairs", vpairs, "--cv", "vertices", "--measure", "cindex", "--col-lambda-grid", "1,100"}},
	}
	for _, c := range cases {
		args := append([]string{"fit", "--kernel", "gaussian", "--gamma", "1e8", "--lambda-grid", "1e-6,0.01,1,100,1e4", "--standardize", "--quiet"}, c.args...)
		if !strings.Contains(strings.Join(args, " "), "same") {
			args = append(args, "--col-gamma", "1e8")
		}
		stdout, stderr, err := run(t, "", args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, stderr)
		}
		o := decodePairFit(t, stdout)
		for _, pt := range o.CV.Curve {
			if pt.Value != 0.5 || !pt.Indistinguishable {
				t.Errorf("%s: λ = %g, col λ = %g: %v (indistinguishable %v), want the tie value 0.5", c.name, pt.Lambda, pt.ColLambda, pt.Value, pt.Indistinguishable)
			}
		}
	}
}
