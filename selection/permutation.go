package selection

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// PermutationResult is the outcome of a permutation test (Pahikkala et al. 2009, sect. 4.1).
type PermutationResult struct {
	Permutations int
	// Real is the best CV value of the real labels over the λ grid.
	Real float64
	// Null holds the best CV value of each permuted labelling over the same grid
	// (with Search: over every kernel setting and λ the real labels were searched over).
	Null []float64
	// PValue is (1 + #{null at least as good as real}) / (P + 1).
	PValue           float64
	NullMean, NullSD float64
}

// Permutations returns the m×(P+1) label matrix of a permutation test: column 0
// is y (m×1), column k a seeded random permutation of it. O(m·P).
func Permutations(y *mat.Dense, p int, seed uint64) *mat.Dense {
	m, _ := y.Dims()
	out := mat.NewDense(m, p+1, nil)
	col := mat.Col(nil, 0, y)
	rng := rand.New(rand.NewPCG(seed, 0x7065726d)) // "perm"
	out.SetCol(0, col)
	perm := make([]float64, m)
	for k := 1; k <= p; k++ {
		copy(perm, col)
		rng.Shuffle(m, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		out.SetCol(k, perm)
	}
	return out
}

// PermutationTest asks whether a CV score could arise from labels unrelated to
// the data (Pahikkala et al. 2009, sect. 4.1). The learner's labels (one
// column) and P seeded permutations of them are learned together as the P+1
// outputs of one model — the learner's factorization is reused through its
// learn.Relabeler capability, no second O(m³) — and cross-validated in the same
// pass for every λ; each labelling gets its own best λ, so the null
// distribution includes the λ selection. Cost: O(m·r·P) to relabel plus O(P)
// per CV scheme and λ (e.g. O(m·r·P) for LOO). Search runs the same test over
// a kernel grid, tuning every labelling over exactly what the real labels
// were tuned over.
func PermutationTest(l learn.Learner, grid []float64, sc Scheme, meas measure.Measure, p int, seed uint64, opt Options) (*PermutationResult, error) {
	best, err := permutationBest(l, grid, sc, meas, p, seed, opt)
	if err != nil {
		return nil, err
	}
	return newPermutationResult(best, meas), nil
}

// checkPermutations checks a permutation test's request on labels y.
func checkPermutations(name learn.Name, y *mat.Dense, sc Scheme, p, gridLen int) error {
	if y == nil {
		return fmt.Errorf("%w: permutation test: learner %s has no labels", ErrScheme, name)
	}
	if _, t := y.Dims(); t != 1 {
		return fmt.Errorf("%w: a permutation test takes one label column, got %d", ErrScheme, t)
	}
	if p < 1 {
		return fmt.Errorf("%w: %d permutations", ErrScheme, p)
	}
	if m, _ := y.Dims(); p > MaxPermutations(m) {
		return fmt.Errorf("%w: %d permutations of %d rows: at most %d (the labels of all permutations are held in memory)", ErrScheme, p, m, MaxPermutations(m))
	}
	if gridLen == 0 {
		return fmt.Errorf("%w: no λ values", ErrGrid)
	}
	if sc.Kind == None {
		return fmt.Errorf("%w: a permutation test needs cross-validation", ErrScheme)
	}
	return nil
}

// permutationBest relabels l with its labels and P seeded permutations of
// them and returns each labelling's best CV value over the grid (index 0:
// the real labels).
func permutationBest(l learn.Learner, grid []float64, sc Scheme, meas measure.Measure, p int, seed uint64, opt Options) ([]float64, error) {
	if err := learn.Require(l.Name(), l, learn.CanRelabel); err != nil {
		return nil, fmt.Errorf("%w: permutation test: %w", ErrScheme, err)
	}
	y := l.Labels()
	if err := checkPermutations(l.Name(), y, sc, p, len(grid)); err != nil {
		return nil, err
	}
	labels := Permutations(y, p, seed)
	if err := checkScheme(sc, labels, meas); err != nil {
		return nil, err
	}
	pl, err := l.(learn.Relabeler).Relabel(labels, nil)
	if err != nil {
		return nil, err
	}
	best := make([]float64, p+1)
	for k := range best {
		best[k] = math.NaN()
	}
	for n, lambda := range grid {
		s, err := pl.At(lambda)
		if err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		if n == 0 {
			if err := learn.Require(l.Name(), s, sc.Needs()...); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrScheme, sc.Name, err)
			}
		}
		var values []float64
		switch sc.Kind {
		case LPO:
			_, values, _, err = lpoPerOutput(s, nil, sc, labels, meas)
		case LOO, Folds:
			values, err = perOutputRepeated(s, sc, labels, meas, opt.Queries)
		default:
			err = fmt.Errorf("%w: no permutation test for %s", ErrScheme, sc.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("%s at λ = %g: %w", sc.Name, lambda, err)
		}
		keepBest(best, values, meas)
		opt.Progress.Step("permutation test, λ", n+1, len(grid))
	}
	return best, nil
}

// keepBest replaces best[k] by values[k] where that is better (NaN: any).
func keepBest(best, values []float64, meas measure.Measure) {
	for k, v := range values {
		if math.IsNaN(best[k]) || meas.Better(v, best[k]) {
			best[k] = v
		}
	}
}

// newPermutationResult turns the best values of the real labels (index 0)
// and of the permutations into the test's result.
func newPermutationResult(best []float64, meas measure.Measure) *PermutationResult {
	p := len(best) - 1
	res := &PermutationResult{Permutations: p, Real: best[0], Null: best[1:]}
	atLeast := 0
	for _, v := range res.Null {
		if v == res.Real || meas.Better(v, res.Real) {
			atLeast++
		}
		res.NullMean += v
	}
	res.NullMean /= float64(p)
	for _, v := range res.Null {
		res.NullSD += (v - res.NullMean) * (v - res.NullMean)
	}
	if p > 1 {
		res.NullSD = math.Sqrt(res.NullSD / float64(p-1))
	}
	res.PValue = float64(1+atLeast) / float64(p+1)
	return res
}

// MaxPermutations bounds P for m rows so that the m×(P+1) label matrix and
// its CV predictions stay within about 2 GiB.
func MaxPermutations(m int) int {
	const budget = 1 << 28 // float64 values: 2 GiB
	return max(1, budget/max(m, 1)-1)
}

// perOutput scores each column on its own, over the rows that have predictions.
func perOutput(meas measure.Measure, y *mat.Dense, cp *cvPredictions, q []int) ([]float64, error) {
	m, t := y.Dims()
	out := make([]float64, t)
	for c := 0; c < t; c++ {
		yc := mat.NewDense(m, 1, mat.Col(nil, c, y))
		pc := &cvPredictions{p: mat.NewDense(m, 1, mat.Col(nil, c, cp.p)), covered: cp.covered}
		v, _, err := pc.score(meas, yc, q)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", c, err)
		}
		out[c] = v
	}
	return out, nil
}
