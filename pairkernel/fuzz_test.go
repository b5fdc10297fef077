package pairkernel

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// FuzzLoad: any bytes given to Load are a model or an error wrapping
// ErrCorrupt — never a panic; a model that loads saves to a file that
// loads to the same bytes again, and predicts for its training pairs
// without panicking (a value or an error). Seeds: the models of a sum, a
// symmetric and a cartesian kernel, and truncations and edits of them.
func FuzzLoad(f *testing.F) {
	rng := rand.New(rand.NewPCG(25, 99))
	rows, cols := randPoints(rng, 5, 2), randPoints(rng, 4, 3)
	g := kernel.Spec{Name: "gaussian", Gamma: 0.5}
	for _, c := range []struct {
		kind       Kind
		w          []float64
		rs, cs     []kernel.Spec
		cols       bool
		m, q, pair int
	}{
		{Sum, []float64{1, 0.5}, []kernel.Spec{g, {Name: "linear"}}, []kernel.Spec{g, g}, true, 5, 4, 8},
		{Symmetric, nil, []kernel.Spec{g}, nil, false, 5, 5, 7},
		{Cartesian, nil, []kernel.Spec{{Name: "polynomial", Degree: 2, Gamma: 1, Coef0: 1}}, []kernel.Spec{g}, true, 5, 4, 6},
	} {
		cx := cols
		if !c.cols {
			cx = nil
		}
		p, err := Train(c.kind, c.w, c.rs, c.cs, rows, cx, randPairs(rng, c.pair, c.m, c.q), randVec(rng, c.pair), 0.5, Options{})
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if err := p.Save(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
		f.Add(b.Bytes()[:b.Len()/2])
		f.Add(bytes.Replace(b.Bytes(), []byte(`"pairs":[[`), []byte(`"pairs":[[99,`), 1))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("an error that does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := p.Save(&b); err != nil {
			t.Fatalf("a loaded model does not save: %v", err)
		}
		p2, err := Load(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("a saved model does not load: %v", err)
		}
		var b2 bytes.Buffer
		if err := p2.Save(&b2); err != nil || !bytes.Equal(b.Bytes(), b2.Bytes()) {
			t.Fatalf("save → load → save changed the file (%v)", err)
		}
		_, _ = p.Predict(nil, nil, p.Model.Train)
	})
}
