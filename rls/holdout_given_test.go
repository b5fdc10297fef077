package rls

import (
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// HoldOutModelsGiven forms the K fold models in blocks of columns of U
// (one pass over U): with blocks of 1, 3, 7 columns and the default (one
// block at these sizes) each fold's model — coefficients and intercept —
// equals HoldOutModel's, which solves the fold's hold-out system (itself
// tested against retraining in ../interval), to 1e-10 relative, for the
// dual, linear and sparse forms, with and without an intercept and sample
// weights, two outputs. The predictions given are HoldOut's. Predictions
// off by 1e-4 are refused, with the same error bound whether the dual form
// of full rank reads the check's residual from the coefficients or forms
// it by the dot products.
func TestHoldOutModelsGivenBlocks(t *testing.T) {
	defer func(b int) { givenBlockCols = b }(givenBlockCols)
	defer func() { givenFromCoef = true }()
	rng := rand.New(rand.NewPCG(22, 1))
	const m, d, k = 37, 5, 4
	x := mat.NewDense(m, d, nil)
	y := mat.NewDense(m, 2, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, x.At(i, 0)-x.At(i, 1)*x.At(i, 2)+0.1*rng.NormFloat64())
		y.Set(i, 1, 3+x.At(i, 3)+0.1*rng.NormFloat64())
	}
	w := make([]float64, m)
	for i := range w {
		w[i] = 0.5 + rng.Float64()
	}
	folds := make([][]int, k)
	for a, i := range rng.Perm(m) {
		folds[a%k] = append(folds[a%k], i)
	}
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"dual", Options{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Dual}},
		{"dual/intercept/weights", Options{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Dual, Intercept: true, Weights: w}},
		{"dual/weights", Options{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Dual, Weights: w}},
		{"linear/intercept", Options{Kernel: kernel.Linear{}, Form: learn.Linear, Intercept: true}},
		{"linear/weights", Options{Kernel: kernel.Linear{Bias: 1}, Form: learn.Linear, Weights: w}},
		{"sparse", Options{Kernel: kernel.Gaussian{Gamma: 0.2}, Form: learn.Sparse, Basis: []int{0, 3, 5, 8, 13, 21, 22, 30, 31, 36}}},
	} {
		r, err := Fit(x, y, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s, err := r.Solve(0.3)
		if err != nil {
			t.Fatal(err)
		}
		cv := mat.NewDense(m, 2, nil)
		want := make([]*mat.Dense, k)
		wantB := make([][]float64, k)
		for fk, h := range folds {
			p, pred, err := s.HoldOutModel(h)
			if err != nil {
				t.Fatal(err)
			}
			for a, i := range h {
				cv.SetRow(i, pred.RawRowView(a))
			}
			if p.IsLinear() {
				want[fk] = p.W
			} else {
				want[fk] = p.A
			}
			wantB[fk] = p.B
		}
		// predictions off by 1e-4 in one row of each fold are refused, with
		// the same bound whether the dual form of full rank reads the check's
		// residual from the coefficients or forms it by dot products
		bad := mat.DenseCopyOf(cv)
		for _, h := range folds {
			bad.Set(h[0], 0, bad.At(h[0], 0)+1e-4)
		}
		var msgs []string
		for _, direct := range []bool{true, false} {
			givenFromCoef = direct
			_, err := s.HoldOutModelsGiven(folds, bad)
			if !errors.Is(err, ErrHoldOutMismatch) {
				t.Fatalf("%s: predictions off by 1e-4 accepted (direct %v): %v", c.name, direct, err)
			}
			msgs = append(msgs, err.Error())
		}
		givenFromCoef = true
		if msgs[0] != msgs[1] {
			t.Errorf("%s: the check's bound from the coefficients %q, by dot products %q", c.name, msgs[0], msgs[1])
		}
		for _, bw := range []int{1, 3, 7, 0} {
			givenBlockCols = bw
			got, err := s.HoldOutModelsGiven(folds, cv)
			if err != nil {
				t.Fatalf("%s, blocks of %d: %v", c.name, bw, err)
			}
			for fk, p := range got {
				g := p.A
				if p.IsLinear() {
					g = p.W
				}
				scale := mat.Norm(want[fk], 1) + 1
				var diff mat.Dense
				diff.Sub(g, want[fk])
				if e := mat.Norm(&diff, 1) / scale; !(e <= 1e-10) {
					t.Errorf("%s, blocks of %d, fold %d: coefficients differ by %.2e relative", c.name, bw, fk+1, e)
				}
				for o := range wantB[fk] {
					if e := abs(p.B[o]-wantB[fk][o]) / (abs(wantB[fk][o]) + 1); !(e <= 1e-10) {
						t.Errorf("%s, blocks of %d, fold %d: intercept %d differs by %.2e", c.name, bw, fk+1, o, e)
					}
				}
			}
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
