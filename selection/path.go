package selection

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// FoldPathValidator is a learner on rows that cross-validates hold-out folds
// at every λ of a grid in one pass — sharing each fold's λ-independent work
// and batching the λ values into BLAS-3 products — instead of a re-solve and a
// hold-out per fold at each λ (package rank's query and preference rankers).
// HoldOutPath calls visit(n, P) for grid[n] in grid order with the m×t
// predictions P for the rows of every fold, each of the model retrained
// without its fold (the values Solution.HoldOut gives at that λ, to
// rounding), and NaN in rows of no fold; P may be reused once visit returns.
// An error from visit ends the pass with it.
//
// Select cross-validates a learner with this capability (and its
// learn.Perturber twin, when the tie rule needs one and the twin has it too)
// this way for a scheme of folds or leave-one-out that keeps the basis.
type FoldPathValidator interface {
	HoldOutPath(folds [][]int, grid []float64, visit func(n int, p *mat.Dense) error) error
}

// pathValidators returns the learner and its twin as FoldPathValidators when
// the scheme can be cross-validated along the grid in one pass: folds or
// leave-one-out keeping the basis, the learner (and the twin, when there is
// one) with the capability.
func pathValidators(l, tw learn.Learner, sc Scheme) (pv, twinPV FoldPathValidator, ok bool) {
	if sc.Kind != Folds && sc.Kind != LOO || sc.Basis != "" && sc.Basis != learn.Keep {
		return nil, nil, false
	}
	if pv, ok = l.(FoldPathValidator); !ok {
		return nil, nil, false
	}
	if tw != nil {
		if twinPV, ok = tw.(FoldPathValidator); !ok {
			return nil, nil, false
		}
	}
	return pv, twinPV, true
}

// selectPath is Select for a FoldPathValidator: the learner's pass over the
// grid and, for the tie rule, its twin's in lockstep (each λ's predictions
// of both, NoiseTolerance from their difference), scored as Select scores
// them, with the same curve, best point, predictions and tolerance. The
// capabilities the scheme needs are checked on the solution at the first λ.
// A repeated scheme makes one pass per repetition, the later repetitions
// first (their values at every λ kept, R−1 per λ), then the first, whose
// pass keeps the predictions at the best λ of the mean value.
func selectPath(l learn.Learner, pv, twinPV FoldPathValidator, grid []float64, sc Scheme, y *mat.Dense, meas measure.Measure, opt Options) (*Result, error) {
	s, err := l.At(grid[0])
	if err != nil {
		return nil, fmt.Errorf("λ = %g: %w", grid[0], err)
	}
	if err := learn.Require(l.Name(), s, sc.Needs()...); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrScheme, sc.Name, err)
	}
	m, _ := y.Dims()
	reps := sc.Repetitions()
	first := reps[0] // the first repetition's hold-outs
	if sc.Kind == LOO {
		first = make([][]int, m)
		for i := range first {
			first[i] = []int{i}
		}
	}
	passes := len(reps)
	step := func(pass, n int) { // the share of the passes' work done, in λ points
		if done := (pass*len(grid) + n + 1) / passes; done > 0 {
			opt.Progress.Step("cross-validating λ", done, len(grid))
		}
	}
	var scoreErr error                        // a λ's scoring failed: returned as Select's per-λ route returns it
	later := make([][]float64, len(grid))     // the later repetitions' values at each λ
	spread := make([][]float64, len(grid))    // their per-fold values (spreadValues)
	outputs := make([][][]float64, len(grid)) // their per-output values (Options.PerOutput)
	tied := make([]bool, len(grid))           // every later repetition indistinguishable at λ
	for n := range tied {
		tied[n] = true
	}
	for r := 1; r < len(reps); r++ {
		err := holdOutPass(pv, twinPV, reps[r], grid, m, func(n int, c *cvPredictions) error {
			v, ind, err := c.value(meas, y, opt.Queries, sc, reps[r])
			if err != nil {
				scoreErr = fmt.Errorf("%s at λ = %g: %w", sc.Name, grid[n], repetitionErr(sc, r, err))
				return scoreErr
			}
			later[n], tied[n] = append(later[n], v), tied[n] && ind
			spread[n] = append(spread[n], c.spreadValues(meas, y, opt.Queries, sc, reps[r])...)
			if opt.PerOutput {
				o, err := c.outputValues(meas, y, opt.Queries, sc, reps[r])
				if err != nil {
					scoreErr = fmt.Errorf("%s at λ = %g: %w", sc.Name, grid[n], repetitionErr(sc, r, err))
					return scoreErr
				}
				outputs[n] = append(outputs[n], o)
			}
			step(r-1, n)
			return nil
		})
		if err != nil {
			if scoreErr != nil {
				return nil, scoreErr
			}
			return nil, fmt.Errorf("%s: %w", sc.Name, repetitionErr(sc, r, err))
		}
	}
	res := &Result{BestIndex: -1}
	visit := func(n int, c *cvPredictions) error {
		lambda := grid[n]
		pt := Point{Lambda: lambda, Value: math.NaN()}
		var err error
		if pt.Value, pt.Indistinguishable, err = c.value(meas, y, opt.Queries, sc, reps[0]); err != nil {
			scoreErr = fmt.Errorf("%s at λ = %g: %w", sc.Name, lambda, repetitionErr(sc, 0, err))
			return scoreErr
		}
		if passes > 1 {
			pt.Value = repeatMean(append([]float64{pt.Value}, later[n]...))
			pt.Indistinguishable = pt.Indistinguishable && tied[n]
		}
		pt.setSpread(append(c.spreadValues(meas, y, opt.Queries, sc, reps[0]), spread[n]...))
		if opt.PerOutput {
			o, err := c.outputValues(meas, y, opt.Queries, sc, reps[0])
			if err != nil {
				scoreErr = fmt.Errorf("%s at λ = %g: %w", sc.Name, lambda, repetitionErr(sc, 0, err))
				return scoreErr
			}
			res.PerOutput = append(res.PerOutput, outputMeans(append([][]float64{o}, outputs[n]...)))
		}
		res.Curve = append(res.Curve, pt)
		if res.BestIndex < 0 || meas.Better(pt.Value, res.Best.Value) || (pt.Value == res.Best.Value && lambda > res.Best.Lambda) {
			res.BestIndex, res.Best, res.Predictions, res.Tolerance = n, pt, copyInto(res.Predictions, c.p), c.tol
		}
		step(passes-1, n)
		return nil
	}
	if err := holdOutPass(pv, twinPV, first, grid, m, visit); err != nil {
		if scoreErr != nil {
			return nil, scoreErr
		}
		return nil, fmt.Errorf("%s: %w", sc.Name, repetitionErr(sc, 0, err))
	}
	return res, nil
}

// holdOutPass runs the learner's HoldOutPath over the folds and the grid —
// and the twin's in lockstep, when there is one — and hands visit each λ's
// predictions with the rows the folds cover and, with a twin, the tie
// tolerances measured against its predictions (NoiseTolerance). The
// predictions may be reused once visit returns.
func holdOutPass(pv, twinPV FoldPathValidator, folds [][]int, grid []float64, m int, visit func(n int, c *cvPredictions) error) error {
	covered := make([]bool, m)
	for _, f := range folds {
		for _, i := range f {
			covered[i] = true
		}
	}
	run := func(v func(i, j int, p *mat.Dense) error) error {
		return pv.HoldOutPath(folds, grid, func(n int, p *mat.Dense) error { return v(n, 0, p) })
	}
	var runTwin func(v func(i, j int, p *mat.Dense) error) error
	var sampled []bool // the rows of the twin's folds
	if twinPV != nil {
		tf := twinFolds(folds)
		sampled = make([]bool, m)
		for _, f := range tf {
			for _, i := range f {
				sampled[i] = true
			}
		}
		runTwin = func(v func(i, j int, p *mat.Dense) error) error {
			return twinPV.HoldOutPath(tf, grid, func(n int, p *mat.Dense) error { return v(n, 0, p) })
		}
	}
	return lockstep(run, runTwin, func(n, _ int, p, p2 *mat.Dense) error {
		c := &cvPredictions{p: p, covered: covered}
		if p2 != nil {
			c.tol = noiseTolerance(p, p2, sampled)
		}
		return visit(n, c)
	})
}
