package pairwise

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/krylov"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/progress"
)

// sample keeps a random share of the pairs.
func sample(rng *rand.Rand, pairs []Pair, y []float64, share float64) ([]Pair, []float64, []Pair) {
	var p []Pair
	var v []float64
	var rest []Pair
	for i := range pairs {
		if rng.Float64() < share {
			p, v = append(p, pairs[i]), append(v, y[i])
		} else {
			rest = append(rest, pairs[i])
		}
	}
	return p, v, rest
}

// predictAt predicts pairs of training objects from the CG coefficients by
// the explicit kernel sums.
func predictAt(k *KronCG, coef []float64, test []Pair) []float64 {
	km, gm := k.rows.Matrix(), k.cols.Matrix()
	out := make([]float64, len(test))
	for t, p := range test {
		for i, o := range k.lab.obs {
			out[t] += coef[i] * km.At(p.Row, o.Row) * gm.At(p.Col, o.Col)
		}
	}
	return out
}

// The sampled vec trick is the product with the explicit 𝕂_SS.
func TestVecTrick(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	rows, cols := randSides(t, rng, 70, 90, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	pairs, y, _ = sample(rng, pairs, y, 0.3)
	k, err := FitKronCG(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	alpha := make([]float64, len(pairs))
	for i := range alpha {
		alpha[i] = rng.NormFloat64()
	}
	got := make([]float64, len(pairs))
	k.mulK(alpha, got, newVecWork(70, 90))
	check(t, "vec trick", got, predictAt(k, alpha, k.lab.obs))
}

func TestKronCGAgainstDirect(t *testing.T) {
	for _, kc := range kernelCases {
		for _, sh := range shapes {
			rng := rand.New(rand.NewPCG(43, uint64(sh[0]*10+sh[1])))
			rows, cols := randSides(t, rng, sh[0], sh[1], kc.k)
			all, ally := gridLabels(rng, rows, cols)
			pairs, y, _ := sample(rng, all, ally, 0.6)
			k, err := FitKronCG(rows, cols, pairs, y, Options{})
			if err != nil {
				t.Fatal(err)
			}
			grid := allPairs(sh[0], sh[1])
			for _, lambda := range lambdas {
				res, err := k.Solve(lambda, CGOptions{})
				if err != nil {
					t.Fatal(err)
				}
				name := kc.name + "/" + shapeName(sh) + "/" + formatG(lambda)
				if !res.Converged || res.Residual > 1e-10 {
					t.Errorf("%s: converged %v, residual %.3g after %d iterations", name, res.Converged, res.Residual, res.Iterations)
				}
				// training predictions and every pair of the grid against a direct solve
				check(t, name+" fitted", res.Fitted(), bruteKron(rows, cols, pairs, y, pairs, lambda))
				check(t, name+" all pairs", predictAt(k, res.Coef, grid), bruteKron(rows, cols, pairs, y, grid, lambda))
			}
			// complete data: the closed form
			kf, _ := FitKron(rows, cols, all, ally, Options{})
			kcg, _ := FitKronCG(rows, cols, all, ally, Options{})
			if !kcg.Complete() {
				t.Fatal("complete data not recognized")
			}
			for _, lambda := range lambdas[1:4] {
				s, _ := kf.Solve(lambda)
				res, _ := kcg.Solve(lambda, CGOptions{})
				check(t, "complete "+formatG(lambda), res.Fitted(), kf.lab.pick(s.Fitted()))
			}
		}
	}
}

func TestKronCGHomogeneous(t *testing.T) {
	for _, sym := range symmetries {
		rng := rand.New(rand.NewPCG(44, uint64(sym)))
		s, pairs, y, _ := homoNetwork(t, rng, 7, kernelCases[0], sym)
		kf, err := FitKron(s, nil, pairs, y, Options{Symmetry: sym})
		if err != nil {
			t.Fatal(err)
		}
		kcg, err := FitKronCG(s, nil, pairs, y, Options{Symmetry: sym})
		if err != nil {
			t.Fatal(err)
		}
		for _, lambda := range lambdas[1:4] {
			sol, _ := kf.Solve(lambda)
			res, err := kcg.Solve(lambda, CGOptions{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, sym.String()+" fitted", res.Fitted(), kf.lab.pick(sol.Fitted()))
			check(t, sym.String()+" coefficients", res.Coefficients().RawMatrix().Data, sol.Coefficients().RawMatrix().Data)
		}
		// an incomplete homogeneous network (no diagonal): mirrored Kronecker on the observations
		var off []Pair
		var oy []float64
		for i, p := range pairs {
			if p.Row != p.Col {
				off, oy = append(off, p), append(oy, y[i])
			}
		}
		kc2, _ := FitKronCG(s, nil, off, oy, Options{Symmetry: sym})
		res, _ := kc2.Solve(1, CGOptions{})
		// the brute force's observations, mirrored here (not the learner's):
		// each pair in both orientations, the mirror with the label negated
		// when antisymmetric, and then the diagonal with label 0
		var obs []Pair
		var obsY []float64
		sign := 1.0
		if sym == Antisymmetric {
			sign = -1
		}
		for i, p := range off {
			obs = append(obs, p, Pair{p.Col, p.Row})
			obsY = append(obsY, oy[i], sign*oy[i])
		}
		if sym == Antisymmetric {
			for u := 0; u < 7; u++ {
				obs, obsY = append(obs, Pair{u, u}), append(obsY, 0)
			}
		}
		check(t, sym.String()+" incomplete", res.Fitted(), bruteKron(s, s, obs, obsY, off, 1))
	}
}

func TestKronCGEarlyStopping(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	rows, cols := randSides(t, rng, 12, 15, kernelCases[0].k)
	all, ally := gridLabels(rng, rows, cols)
	for i := range ally {
		ally[i] += 2 * rng.NormFloat64() // noisy: fitting to convergence overfits
	}
	pairs, y, rest := sample(rng, all, ally, 0.5)
	var vy []float64
	for _, p := range rest {
		for i, a := range all {
			if a == p {
				vy = append(vy, ally[i])
			}
		}
	}
	k, err := FitKronCG(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var trace []float64
	res, err := k.Solve(1e-4, CGOptions{Validation: &Validation{Pairs: rest, Labels: vy}, Patience: 5,
		Progress: func(e progress.Event) { trace = append(trace, float64(e.Done)) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(trace) != res.Iterations {
		t.Errorf("%d progress calls for %d iterations", len(trace), res.Iterations)
	}
	if !res.EarlyStopped || res.BestIteration >= res.Iterations {
		t.Errorf("not stopped early: %+v", res)
	}
	// the reported validation error is that of the returned coefficients
	pred := predictAt(k, res.Coef, rest)
	mse := 0.0
	for i, v := range pred {
		mse += (vy[i] - v) * (vy[i] - v)
	}
	mse /= float64(len(pred))
	if math.Abs(mse-res.ValidationMSE) > 1e-10*mse {
		t.Errorf("validation mse %v, returned coefficients give %v", res.ValidationMSE, mse)
	}
	// Labels unrelated to the objects' features: no iterate beats α = 0, which
	// is returned (an interior best: TestKronCGEarlyStoppingInterior).
	if res.BestIteration != 0 || res.Iterations != 5 || res.Converged || res.Residual != 1 {
		t.Errorf("best iteration %d of %d, converged %v, residual %v: want α = 0 after 5", res.BestIteration, res.Iterations, res.Converged, res.Residual)
	}
	for i, a := range res.Coef {
		if a != 0 {
			t.Fatalf("coefficient %d is %v, want α = 0", i, a)
		}
	}
	// and it is no worse than the converged model's
	full, _ := k.Solve(1e-4, CGOptions{MaxIter: 5000})
	fp := predictAt(k, full.Coef, rest)
	fm := 0.0
	for i, v := range fp {
		fm += (vy[i] - v) * (vy[i] - v)
	}
	if fm/float64(len(fp)) < res.ValidationMSE {
		t.Errorf("early-stopped validation mse %v above the converged %v", res.ValidationMSE, fm/float64(len(fp)))
	}
}

// TestKronCGEarlyStoppingInterior: labels of a true Kronecker model K A G plus
// noise, so that the validation error first falls, then rises as CG fits the
// noise: the best iterate is an interior one, and the iteration stops
// Patience iterations after it. Each iterate's validation error is recomputed
// from a run capped at that iteration (bit-for-bit the same iterate).
func TestKronCGEarlyStoppingInterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	const m, q, patience, noise, lambda = 20, 25, 4, 1.0, 1e-6
	rows, cols := randSides(t, rng, m, q, kernelCases[0].k)
	a := mat.NewDense(m, q, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var ka, truth mat.Dense
	ka.Mul(rows.Matrix(), a)
	truth.Mul(&ka, cols.Matrix())
	all := allPairs(m, q)
	ally := make([]float64, len(all))
	for i, p := range all {
		ally[i] = truth.At(p.Row, p.Col) + noise*rng.NormFloat64()
	}
	pairs, y, rest := sample(rng, all, ally, 0.5)
	var vy []float64
	for _, p := range rest {
		vy = append(vy, ally[p.Row*q+p.Col])
	}
	k, err := FitKronCG(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	val := &Validation{Pairs: rest, Labels: vy}
	res, err := k.Solve(lambda, CGOptions{Validation: val, Patience: patience})
	if err != nil {
		t.Fatal(err)
	}
	best := res.BestIteration
	if !res.EarlyStopped || res.Converged || best < 2 || res.Iterations != best+patience {
		t.Fatalf("want an interior best iterate and a stop %d iterations later: %d iterations, best %d, stopped %v, converged %v",
			patience, res.Iterations, best, res.EarlyStopped, res.Converged)
	}
	mse := func(coef []float64) float64 {
		s := 0.0
		for i, v := range predictAt(k, coef, rest) {
			s += (vy[i] - v) * (vy[i] - v)
		}
		return s / float64(len(vy))
	}
	if e := mse(res.Coef); math.Abs(e-res.ValidationMSE) > 1e-10*e {
		t.Errorf("validation mse %v, the returned coefficients give %v", res.ValidationMSE, e)
	}
	for it := 1; it <= res.Iterations; it++ {
		capped, err := k.Solve(lambda, CGOptions{MaxIter: it})
		if err != nil {
			t.Fatal(err)
		}
		e := mse(capped.Coef)
		switch {
		case it == best:
			for i := range capped.Coef {
				if capped.Coef[i] != res.Coef[i] {
					t.Fatalf("coefficient %d is %v, the run capped at the best iteration %d gives %v", i, res.Coef[i], it, capped.Coef[i])
				}
			}
			if capped.Residual != res.Residual {
				t.Errorf("residual %v, the capped run's %v", res.Residual, capped.Residual)
			}
		case it < best && !(e > res.ValidationMSE), it > best && e < res.ValidationMSE:
			t.Errorf("iteration %d has validation mse %v, the kept iteration %d %v", it, e, best, res.ValidationMSE)
		}
	}
	// With patience to spare the iteration runs to convergence and returns the
	// same best iterate, which is not the converged one.
	full, err := k.Solve(lambda, CGOptions{Validation: val, Patience: 100000, MaxIter: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if full.EarlyStopped || full.Converged || full.Iterations <= res.Iterations || full.BestIteration != best ||
		full.Residual != res.Residual || full.ValidationMSE != res.ValidationMSE {
		t.Errorf("to convergence: %d iterations, best %d, stopped %v, converged %v, residual %v, mse %v",
			full.Iterations, full.BestIteration, full.EarlyStopped, full.Converged, full.Residual, full.ValidationMSE)
	}
	if plain, err := k.Solve(lambda, CGOptions{MaxIter: 100000}); err != nil || !plain.Converged || plain.Iterations != full.Iterations {
		t.Errorf("without validation: %d iterations, converged %v (%v); with: %d", plain.Iterations, plain.Converged, err, full.Iterations)
	}
	for i := range full.Coef {
		if full.Coef[i] != res.Coef[i] {
			t.Fatalf("coefficient %d is %v, early stopped %v", i, full.Coef[i], res.Coef[i])
		}
	}
}

func TestKronCGErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	rows, cols := randSides(t, rng, 4, 5, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	k, err := FitKronCG(rows, cols, pairs[:7], y[:7], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Solve(-1, CGOptions{}); !errors.Is(err, learn.ErrLambda) {
		t.Errorf("λ = -1: %v", err)
	}
	if _, err := k.Solve(1, CGOptions{Validation: &Validation{Pairs: []Pair{{9, 0}}, Labels: []float64{1}}}); !errors.Is(err, ErrPair) {
		t.Errorf("validation pair outside: %v", err)
	}
	if _, err := FitKron(rows, cols, pairs[:7], y[:7], Options{}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("closed form on incomplete data: %v", err)
	}
	res, err := k.Solve(1, CGOptions{MaxIter: 1})
	if err != nil || res.Converged || res.Iterations != 1 {
		t.Errorf("one iteration: %+v %v", res, err)
	}
	zero, _ := FitKronCG(rows, cols, pairs[:3], []float64{0, 0, 0}, Options{})
	if r, err := zero.Solve(1, CGOptions{}); err != nil || !r.Converged || r.Iterations != 0 || r.Residual != 0 ||
		r.BestIteration != 0 || r.Coef[0] != 0 || r.Coef[1] != 0 || r.Coef[2] != 0 {
		t.Errorf("zero labels: %+v %v", r, err)
	}
	for _, bad := range []CGOptions{{Tol: -1}, {Tol: math.NaN()}, {Tol: math.Inf(1)}, {MaxIter: -1}, {Patience: -1}} {
		if _, err := k.Solve(1, bad); !errors.Is(err, learn.ErrShape) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// An indefinite kernel matrix is reported, not iterated on: 𝕂_SS = diag(−1, 1)
// from the precomputed row kernel diag(−1, 1) and the column kernel [1], and
// y = (1, 0) give pᵀ(𝕂_SS + λI)p = λ − 1 < 0 at the first step.
func TestKronCGIndefinite(t *testing.T) {
	rows, err := NewSide(mat.NewDense(2, 2, []float64{-1, 0, 0, 1}), kernel.Precomputed{}, false)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := NewSide(mat.NewDense(1, 1, []float64{1}), kernel.Precomputed{}, false)
	if err != nil {
		t.Fatal(err)
	}
	k, err := FitKronCG(rows, cols, []Pair{{0, 0}, {1, 0}}, []float64{1, 0}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := k.Solve(1e-3, CGOptions{MaxIter: 1 << 20})
	if !errors.Is(err, learn.ErrIndefinite) || !errors.Is(err, krylov.ErrIndefinite) || res != nil {
		t.Errorf("indefinite kernel: %+v %v", res, err)
	}
}
