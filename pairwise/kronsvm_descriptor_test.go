package pairwise

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// TestKronSVMDescriptor: the descriptor's method trains what FitKronSVM
// trains — the same coefficients, bit for bit, and through PairModel the
// same predictions for pairs of new objects — on incomplete data; its
// Predictor's expansion reproduces the training predictions; bad inputs
// (labels other than ±1, a homogeneous network, missing parts) are errors.
func TestKronSVMDescriptor(t *testing.T) {
	c := randSVMCase(51, 10, 3, 8, 2, 40)
	d := KronSVMDescriptor()
	in := &learn.Input{X: c.x, Cols: c.z, Y: mat.NewDense(len(c.y), 1, append([]float64(nil), c.y...))}
	for _, p := range c.pairs {
		in.Pairs = append(in.Pairs, learn.ObjectPair{Row: p.Row, Col: p.Col})
	}
	method, err := d.New(in)
	if err != nil {
		t.Fatal(err)
	}
	g := kernel.Gaussian{Gamma: 0.5}
	l, err := method(learn.Setting{Kernel: g, ColKernel: g})
	if err != nil {
		t.Fatal(err)
	}
	if l.Name() != KronSVMName || !mat.Equal(l.Labels(), in.Y) {
		t.Errorf("name %s, labels differ", l.Name())
	}
	sol, err := l.At(0.3)
	if err != nil {
		t.Fatal(err)
	}
	rows, cols := svmSides(t, c, g)
	k, err := FitKronSVM(rows, cols, c.pairs, c.y)
	if err != nil {
		t.Fatal(err)
	}
	want, err := k.Solve(0.3, SVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := sol.(*SVMResult)
	for i := range want.Coef {
		if got.Coef[i] != want.Coef[i] {
			t.Fatalf("coefficient %d: %v, FitKronSVM %v", i, got.Coef[i], want.Coef[i])
		}
	}
	// the expansion over the pairs: the pairwise kernel of the training
	// pairs against themselves gives the training predictions
	kk := denseKron(rows.Matrix(), cols.Matrix(), c.pairs)
	p, err := sol.Predictor().Predict(kk)
	if err != nil {
		t.Fatal(err)
	}
	if dd := maxRel(mat.Col(nil, 0, p), got.Fitted()); dd > 1e-12 {
		t.Errorf("expansion's predictions differ from the training predictions by %.3g", dd)
	}
	bad := *in
	bad.Y = mat.NewDense(len(c.y), 1, nil)
	bad.Y.Copy(in.Y)
	bad.Y.Set(5, 0, 2)
	if _, err := d.New(&bad); !errors.Is(err, ErrLabel) {
		t.Errorf("label 2: %v", err)
	}
	homo := *in
	homo.Cols = nil
	if _, err := d.New(&homo); err == nil {
		t.Error("homogeneous network accepted")
	}
	short := *in
	short.Pairs = in.Pairs[:3]
	if _, err := d.New(&short); err == nil {
		t.Error("3 pairs for 40 labels accepted")
	}
	if _, err := d.New(nil); err == nil {
		t.Error("nil input accepted")
	}
	if _, err := method(learn.Setting{Kernel: g}); err == nil {
		t.Error("no column kernel accepted")
	}
}
