package pairwise

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rlskit/rlskit/learn"
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
		check(t, sym.String()+" incomplete", res.Fitted(), pickObs(kc2, bruteKron(s, s, kc2.lab.obs, kc2.lab.obsY, kc2.lab.obs, 1)))
	}
}

// pickObs maps predictions at the observations to the pairs as given.
func pickObs(k *KronCG, atObs []float64) []float64 {
	at := map[Pair]float64{}
	for i, p := range k.lab.obs {
		at[p] = atObs[i]
	}
	out := make([]float64, len(k.lab.given))
	for i, p := range k.lab.given {
		out[i] = at[p]
	}
	return out
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
		Progress: func(it int, r float64) { trace = append(trace, r) }})
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
	if r, err := zero.Solve(1, CGOptions{}); err != nil || !r.Converged {
		t.Errorf("zero labels: %+v %v", r, err)
	}
}
