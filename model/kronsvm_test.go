package model

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// A kronsvm model — the support vector machine's per-pair entries on two
// sets of objects — saves and loads with the same predictions bit for bit;
// a file that gives it a column λ, dense coefficients, a symmetry (a
// homogeneous network) or an interval is corrupt.
func TestKronSVMModelFile(t *testing.T) {
	base := testPairPredictors(t)["entries"]
	p := *base
	p.Learner = "kronsvm"
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	q, err := LoadPairwise(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	nr, nc := randDense(rng, 3, p.Rows.Width), randDense(rng, 2, p.Cols.Width)
	rows, cols := []int{0, 2, 1}, []int{1, 0, 0}
	a, errA := p.Predict(nr, nc, rows, cols)
	b, errB := q.Predict(nr, nc, rows, cols)
	if errA != nil || errB != nil || q.Learner != "kronsvm" {
		t.Fatal(errA, errB, q.Learner)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("pair %d: %v after loading, %v before", i, b[i], a[i])
		}
	}
	var dense bytes.Buffer
	d := *testPairPredictors(t)["kronrls dense"]
	d.Learner = "kronsvm"
	if err := d.Save(&dense); err != nil {
		t.Fatal(err)
	}
	var sym bytes.Buffer
	h := *testPairPredictors(t)["homogeneous sym"]
	h.Learner, h.A = "kronsvm", nil
	h.Entries = []PairEntry{{0, 1, 1}}
	if err := h.Save(&sym); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{
		"col lambda":  strings.Replace(good, `"lambda":1`, `"lambda":1,"col_lambda":2`, 1),
		"dense":       dense.String(),
		"homogeneous": sym.String(),
	} {
		if !strings.Contains(s, `"kronsvm"`) || s == good {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if _, err := LoadPairwise(strings.NewReader(s)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}
