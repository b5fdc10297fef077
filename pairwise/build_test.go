package pairwise

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/progress"
)

// gridInput is a learn.Input of every pair of m row and q column objects
// x and cols, with drawn labels.
func gridInput(rng *rand.Rand, x, cols mat.Matrix) *learn.Input {
	m, _ := x.Dims()
	q, _ := cols.Dims()
	in := &learn.Input{X: x, Cols: cols}
	var y []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			in.Pairs = append(in.Pairs, learn.ObjectPair{Row: i, Col: j})
			y = append(y, rng.NormFloat64())
		}
	}
	in.Y = mat.NewDense(len(y), 1, y)
	return in
}

// TestPairMethodBuildBoth: a setting whose two sides are both new builds
// them side by side — the kernel matrices, then the eigendecompositions —
// and gets the learner of sides built one by one, bit for bit (the same
// kernel matrices, eigenvectors, eigenvalues and UᵀYV); the observer hears
// the phases on the caller's goroutine, in the order of the serial build:
// both kernel matrices, then both eigendecompositions, rows first. Run with
// -race for the two builds.
func TestPairMethodBuildBoth(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 44))
	rx, cx := randObjects(rng, 60, 4, kernel.Gaussian{}), randObjects(rng, 90, 3, kernel.Gaussian{})
	in := gridInput(rng, rx, cx)
	caller := goroutineID()
	var events []string
	in.Observe = func(e progress.Event) {
		if id := goroutineID(); id != caller {
			t.Errorf("%s %s reported on goroutine %d, the caller's is %d", e.Stage, e.Size, id, caller)
		}
		events = append(events, e.Stage+" "+e.Size)
	}
	rk, ck := kernel.Gaussian{Gamma: 0.3}, kernel.Polynomial{Gamma: 0.5, Coef0: 1, Degree: 2}
	for _, name := range []learn.Name{learn.KronRLS, learn.TwoStep} {
		events = nil
		d, _ := learn.Lookup(string(name))
		method, err := d.New(in)
		if err != nil {
			t.Fatal(err)
		}
		l, err := method(learn.Setting{Kernel: rk, ColKernel: ck})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"kernel matrix 60×60", "kernel matrix 90×90", "eigendecomposition m = 60", "eigendecomposition m = 90"}
		if fmt.Sprint(events) != fmt.Sprint(want) {
			t.Errorf("%s: phases %q, want %q", name, events, want)
		}
		rs, _ := NewSide(rx, rk, false)
		cs, _ := NewSide(cx, ck, false)
		pairs := make([]Pair, len(in.Pairs))
		for n, p := range in.Pairs {
			pairs[n] = Pair{p.Row, p.Col}
		}
		serial, err := newProblem(rs, cs, pairs, in.Y.RawMatrix().Data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sw, err := serial.spectrum()
		if err != nil {
			t.Fatal(err)
		}
		var got spectrum
		var gr, gc *Side
		switch l := l.(type) {
		case *KronRLS:
			got, gr, gc = l.spectrum, l.rows, l.cols
		case *TwoStep:
			got, gr, gc = l.spectrum, l.rows, l.cols
		}
		for _, c := range []struct {
			what      string
			got, want []float64
		}{
			{"row kernel", gr.k.RawMatrix().Data, rs.k.RawMatrix().Data},
			{"column kernel", gc.k.RawMatrix().Data, cs.k.RawMatrix().Data},
			{"U", got.u.RawMatrix().Data, sw.u.RawMatrix().Data},
			{"V", got.v.RawMatrix().Data, sw.v.RawMatrix().Data},
			{"row eigenvalues", got.er, sw.er},
			{"column eigenvalues", got.ec, sw.ec},
			{"U∘U", got.u2.RawMatrix().Data, sw.u2.RawMatrix().Data},
			{"V∘V", got.v2.RawMatrix().Data, sw.v2.RawMatrix().Data},
			{"UᵀYV", got.yt.RawMatrix().Data, sw.yt.RawMatrix().Data},
		} {
			if !sameValues(c.got, c.want) {
				t.Errorf("%s: %s differs from the serial build's", name, c.what)
			}
		}
	}
}

// TestPairMethodBuildErrors: when both sides are new and one or both fail,
// the error is the first in the serial order (rows, then columns) and the
// cache keeps what the serial build would have: the row side when only the
// columns fail, nothing when the rows fail.
func TestPairMethodBuildErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 45))
	square := func(n int) mat.Matrix { return randObjects(rng, n, 2, kernel.Precomputed{}) }
	oblong := func(n int) mat.Matrix { return randObjects(rng, n, 2, kernel.Gaussian{}) } // n×2: no kernel matrix
	for _, tc := range []struct {
		name       string
		x, cols    mat.Matrix
		err        string
		rowCached  bool
		colsCached int
	}{
		{"both fail", oblong(5), oblong(6), "row objects", false, 0},
		{"rows fail", oblong(5), square(6), "row objects", false, 0},
		{"columns fail", square(5), oblong(6), "column objects", true, 0},
		{"neither", square(5), square(6), "", true, 1},
	} {
		pi, err := checkPairInput(learn.KronRLS, gridInput(rng, tc.x, tc.cols))
		if err != nil {
			t.Fatal(err)
		}
		c := &sideCache{pi: pi, cols: map[kernel.Spec]*Side{}}
		_, err = c.fit(learn.Setting{Kernel: kernel.Precomputed{}, ColKernel: kernel.Precomputed{}})
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one naming the %s", tc.name, err, tc.err)
		}
		if (c.row != nil) != tc.rowCached || len(c.cols) != tc.colsCached {
			t.Errorf("%s: row side cached %v, %d column sides; want %v, %d", tc.name, c.row != nil, len(c.cols), tc.rowCached, tc.colsCached)
		}
	}
}
