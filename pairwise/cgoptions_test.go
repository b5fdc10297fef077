package pairwise

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/progress"
)

// TestKronCGProgress: CGOptions.Progress is told every iteration — one event
// per iteration, Done = 1, 2, …, Iterations, Total = MaxIter (the default
// 1000 when unset), the stage "conjugate gradients" and the residual in the
// detail — with or without a validation set, and a validation set stops the
// iteration early with or without an observer (the same iterate either way).
func TestKronCGProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	rows, cols := labelSides(t, 6, 5)
	pairs, y := gridWithout(6, 5, nil)
	for i := range y {
		y[i] += 3 * rng.NormFloat64()
	}
	train, ty := pairs[:20], y[:20]
	val := &Validation{Pairs: pairs[20:], Labels: y[20:]}
	k, err := FitKronCG(rows, cols, train, ty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		opt   CGOptions
		total int64
	}{
		{"default MaxIter", CGOptions{}, 1000},
		{"MaxIter 7", CGOptions{MaxIter: 7}, 7},
		{"MaxIter 500", CGOptions{MaxIter: 500, Tol: 1e-6}, 500},
		{"validation", CGOptions{MaxIter: 300, Validation: val, Patience: 2}, 300},
		{"patience 1", CGOptions{MaxIter: 300, Validation: val, Patience: 1}, 300},
		{"one iteration", CGOptions{MaxIter: 1}, 1},
	} {
		var events []progress.Event
		opt := tc.opt
		opt.Progress = func(e progress.Event) { events = append(events, e) }
		res, err := k.Solve(1e-3, opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Iterations < 1 || len(events) != res.Iterations {
			t.Errorf("%s: %d events for %d iterations", tc.name, len(events), res.Iterations)
		}
		for n, e := range events {
			if e.Done != int64(n+1) || e.Total != tc.total || e.Stage != "conjugate gradients" || !strings.HasPrefix(e.Detail, "residual ") {
				t.Errorf("%s: event %d: %+v, want Done %d of %d", tc.name, n, e, n+1, tc.total)
				break
			}
		}
		// the same solve without an observer
		quiet, err := k.Solve(1e-3, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if quiet.Iterations != res.Iterations || quiet.BestIteration != res.BestIteration || quiet.EarlyStopped != res.EarlyStopped ||
			quiet.Converged != res.Converged || quiet.ValidationMSE != res.ValidationMSE {
			t.Errorf("%s: without an observer %+v, with %+v", tc.name, quiet, res)
		}
		for i := range res.Coef {
			if quiet.Coef[i] != res.Coef[i] {
				t.Errorf("%s: coefficient %d is %v without an observer, %v with", tc.name, i, quiet.Coef[i], res.Coef[i])
				break
			}
		}
		if tc.opt.Validation != nil && (!quiet.EarlyStopped || quiet.Iterations-quiet.BestIteration != tc.opt.Patience) {
			t.Errorf("%s: not stopped %d iterations after the best: %+v", tc.name, tc.opt.Patience, quiet)
		}
	}
}

// TestKronCGValidationBestIsLast: when the converged iterate is also the best
// on the validation set, it is returned as converged — BestIteration =
// Iterations, not stopped early — with the coefficients of the run without
// validation. The validation labels are the converged model's own
// predictions (kernel sums over its coefficients), so the last iterate's
// validation error is rounding while every earlier one is off by at least
// the last step.
func TestKronCGValidationBestIsLast(t *testing.T) {
	rows, cols := labelSides(t, 5, 4)
	pairs, y := gridWithout(5, 4, nil)
	train, ty, vp := pairs[:14], y[:14], pairs[14:]
	k, err := FitKronCG(rows, cols, train, ty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := k.Solve(0.1, CGOptions{})
	if err != nil || !plain.Converged {
		t.Fatalf("%+v %v", plain, err)
	}
	km, gm := rows.Matrix(), cols.Matrix()
	vy := make([]float64, len(vp))
	for n, p := range vp {
		for i, o := range train {
			vy[n] += plain.Coef[i] * km.At(p.Row, o.Row) * gm.At(p.Col, o.Col)
		}
	}
	res, err := k.Solve(0.1, CGOptions{Validation: &Validation{Pairs: vp, Labels: vy}, Patience: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.EarlyStopped || res.BestIteration != res.Iterations || res.Iterations != plain.Iterations || res.ValidationMSE > 1e-24 {
		t.Errorf("with validation %+v; without %d iterations", res, plain.Iterations)
	}
	for i := range res.Coef {
		if res.Coef[i] != plain.Coef[i] {
			t.Fatalf("coefficient %d: %v with validation, %v without", i, res.Coef[i], plain.Coef[i])
		}
	}
}

// TestKronCGValidationErrors: a validation set must have one finite label
// per pair, at least one pair, each pair inside the m×q grid and none of
// them a training observation (or, on a network, its mirror).
func TestKronCGValidationErrors(t *testing.T) {
	rows, cols := labelSides(t, 3, 4)
	train := []Pair{{0, 0}, {1, 2}, {2, 3}}
	k, err := FitKronCG(rows, cols, train, []float64{1, 2, 3}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name   string
		pairs  []Pair
		labels []float64
		want   error
	}{
		{"no pairs", nil, nil, learn.ErrShape},
		{"no pairs, a label", nil, []float64{1}, learn.ErrShape},
		{"more labels", []Pair{{0, 1}}, []float64{1, 2}, learn.ErrShape},
		{"fewer labels", []Pair{{0, 1}, {0, 2}}, []float64{1}, learn.ErrShape},
		{"NaN label", []Pair{{0, 1}, {0, 2}}, []float64{1, nan}, learn.ErrShape},
		{"+Inf label", []Pair{{0, 1}, {0, 2}}, []float64{inf, 1}, learn.ErrShape},
		{"-Inf label", []Pair{{0, 1}}, []float64{-inf}, learn.ErrShape},
		{"row -1", []Pair{{0, 1}, {-1, 1}}, []float64{1, 1}, ErrPair},
		{"row m", []Pair{{0, 1}, {3, 1}}, []float64{1, 1}, ErrPair},
		{"column -1", []Pair{{0, -1}}, []float64{1}, ErrPair},
		{"column q", []Pair{{0, 1}, {1, 4}}, []float64{1, 1}, ErrPair},
		{"a training pair", []Pair{{0, 1}, {1, 2}}, []float64{1, 1}, ErrPair},
		{"last row and column", []Pair{{2, 2}, {0, 3}}, []float64{1, 1}, nil},
	} {
		_, err := k.Solve(1, CGOptions{Validation: &Validation{Pairs: tc.pairs, Labels: tc.labels}})
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// a network: the mirror of a training pair is one too
	s, _ := labelSides(t, 3, 1)
	h, err := FitKronCG(s, nil, []Pair{{0, 1}}, []float64{1}, Options{Symmetry: Symmetric})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Solve(1, CGOptions{Validation: &Validation{Pairs: []Pair{{1, 0}}, Labels: []float64{1}}}); !errors.Is(err, ErrPair) {
		t.Errorf("mirror of a training pair: %v", err)
	}
}

// TestKronCGPatienceStrict: only a strict improvement of the validation error
// counts. A validation pair whose row object is so far from the training rows
// that their gaussian kernel values underflow to 0 is predicted 0 by every
// iterate: its error never changes, so the iteration stops after Patience
// iterations and returns α = 0 (iteration 0).
func TestKronCGPatienceStrict(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{0, 0.5, 1.2, 100}) // object 3: exp(−0.5·98.8²) = 0
	rows, err := NewSide(x, kernel.Gaussian{Gamma: 0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	_, cols := labelSides(t, 4, 3)
	var train []Pair
	var y []float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			train, y = append(train, Pair{i, j}), append(y, float64(1+i*j))
		}
	}
	k, err := FitKronCG(rows, cols, train, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := k.Solve(1e-2, CGOptions{Validation: &Validation{Pairs: []Pair{{3, 1}}, Labels: []float64{2}}, Patience: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.EarlyStopped || res.BestIteration != 0 || res.Iterations != 3 || res.Converged || res.ValidationMSE != 4 {
		t.Errorf("%+v: want stopped after 3 iterations at α = 0, validation error 4", res)
	}
	for i, a := range res.Coef {
		if a != 0 {
			t.Fatalf("coefficient %d is %v, want 0", i, a)
		}
	}
}
