package selection

import (
	"errors"
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// selectGrid is Select on the λ grid, or for a scheme over the objects of a
// learner of pairs selectDesign on the λ grid × the column λ grid.
func selectGrid(l learn.Learner, grid, colGrid []float64, sc Scheme, meas measure.Measure, opt Options) (*Result, error) {
	if sc.Kind == Objects {
		return selectDesign(l, grid, colGrid, sc, meas, opt)
	}
	if sc.Kind == None && len(colGrid) == 1 {
		res, err := Select(l, grid, sc, meas, opt)
		if err == nil {
			res.Best.ColLambda = colGrid[0]
			res.Curve[0].ColLambda = colGrid[0]
		}
		return res, err
	}
	if len(colGrid) > 0 {
		return nil, fmt.Errorf("%w: a second λ grid is cross-validated by the object designs of a learner of pairs, not %s", ErrScheme, sc.Name)
	}
	return Select(l, grid, sc, meas, opt)
}

// selectDesign cross-validates a learner of pairs (learn.DesignValidator)
// by the scheme's design at every (λ, λ_c) of the grids, scoring the pooled
// predictions of the pairs with the one tie rule: for an ordinal measure the
// learner's twin (learn.Perturber) runs the same design in lockstep and
// NoiseTolerance measures the forward error at every point. The best point:
// strictly better, ties to the larger λ·λ_c (the simpler model). Cost: the
// learner's CrossValidateDesign (twice for an ordinal measure, the two in
// parallel) plus the measure per point.
func selectDesign(l learn.Learner, grid, colGrid []float64, sc Scheme, meas measure.Measure, opt Options) (*Result, error) {
	if len(grid) == 0 {
		return nil, fmt.Errorf("%w: no λ values", ErrGrid)
	}
	dv, ok := l.(learn.DesignValidator)
	if !ok {
		return nil, fmt.Errorf("%w: %s: %w", ErrScheme, sc.Name, learn.Require(l.Name(), l, learn.CanHoldOutObjects))
	}
	_, twoLambdas := l.(learn.ColLambdaLearner)
	if twoLambdas != (len(colGrid) > 0) {
		if twoLambdas {
			return nil, fmt.Errorf("%w: learner %s has a second λ: give its grid", ErrGrid, l.Name())
		}
		return nil, fmt.Errorf("%w: learner %s has one λ: no second λ grid", ErrGrid, l.Name())
	}
	y, err := labels(l, opt)
	if err != nil {
		return nil, err
	}
	var twinDV learn.DesignValidator
	if meas.Ordinal {
		tw, err := twin(l, meas, sc)
		if err != nil {
			return nil, err
		}
		if tw != nil {
			if twinDV, ok = tw.(learn.DesignValidator); !ok {
				return nil, fmt.Errorf("%w: the twin of %s cannot cross-validate its design", learn.ErrCapability, l.Name())
			}
		}
	}
	res := &Result{BestIndex: -1}
	total := len(grid) * max(1, len(colGrid))
	point := func(i, j int, p, p2 *mat.Dense) error {
		pt := Point{Lambda: grid[i]}
		if colGrid != nil {
			pt.ColLambda = colGrid[j]
		}
		var tol []float64
		if p2 != nil {
			tol = NoiseTolerance(p, p2)
		}
		v, indistinct, err := ScoreWithin(meas, y, p, opt.Queries, tol)
		if err != nil {
			return fmt.Errorf("%s at λ = %g%s: %w", sc.Name, pt.Lambda, colText(colGrid, pt.ColLambda), err)
		}
		pt.Value, pt.Indistinguishable = v, indistinct
		res.Curve = append(res.Curve, pt)
		if res.BestIndex < 0 || meas.Better(v, res.Best.Value) || (v == res.Best.Value && simpler(pt, res.Best)) {
			res.BestIndex, res.Best, res.Predictions, res.Tolerance = len(res.Curve)-1, pt, copyInto(res.Predictions, p), tol
		}
		opt.Progress.Step("cross-validating λ", len(res.Curve), total)
		return nil
	}
	run := func(v func(i, j int, p *mat.Dense) error) error {
		return dv.CrossValidateDesign(sc.Design, grid, colGrid, v)
	}
	var runTwin func(v func(i, j int, p *mat.Dense) error) error
	if twinDV != nil {
		runTwin = func(v func(i, j int, p *mat.Dense) error) error {
			return twinDV.CrossValidateDesign(sc.Design, grid, colGrid, v)
		}
	}
	if err := lockstep(run, runTwin, point); err != nil {
		return nil, err
	}
	return res, nil
}

// simpler reports whether a is the simpler model of two with equal values:
// the larger λ·λ_c (λ_c = 1 when there is none).
func simpler(a, b Point) bool {
	ca, cb := a.ColLambda, b.ColLambda
	if ca == 0 {
		ca = 1
	}
	if cb == 0 {
		cb = 1
	}
	return a.Lambda*ca > b.Lambda*cb
}

func colText(colGrid []float64, v float64) string {
	if colGrid == nil {
		return ""
	}
	return fmt.Sprintf(", col λ = %g", v)
}

// errStopped ends the twin's pass when the learner's has failed.
var errStopped = errors.New("stopped")

// lockstep runs the learner's and the twin's passes over a grid (a
// CrossValidateDesign or a HoldOutPath) side by side (the twin in its own
// goroutine), handing visit each point's predictions of both while both are
// valid; no point's predictions are stored. Without a twin (nil) visit gets
// nil for p2. Both traverse the grids in the same order: they run the same
// code on the same grids and folds.
func lockstep(run, twin func(visit func(i, j int, p *mat.Dense) error) error, visit func(i, j int, p, p2 *mat.Dense) error) error {
	if twin == nil {
		return run(func(i, j int, p *mat.Dense) error { return visit(i, j, p, nil) })
	}
	type item struct {
		i, j int
		p    *mat.Dense
	}
	items := make(chan item)
	done := make(chan struct{}) // the learner is finished with the current item
	stop := make(chan struct{}) // the learner's pass has ended
	var twinErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(items)
		twinErr = twin(func(i, j int, p *mat.Dense) error {
			select {
			case items <- item{i, j, p}:
			case <-stop:
				return errStopped
			}
			select {
			case <-done:
				return nil
			case <-stop:
				return errStopped
			}
		})
	}()
	var finished sync.Once
	finish := func() { finished.Do(func() { close(stop); wg.Wait() }) }
	defer finish() // a panic in run (a progress observer's cancellation) does not leave the twin blocked
	err := run(func(i, j int, p *mat.Dense) error {
		it, ok := <-items
		if !ok {
			return fmt.Errorf("the twin's cross-validation ended early: %w", twinErr)
		}
		if it.i != i || it.j != j {
			return fmt.Errorf("the twin's cross-validation is at point (%d, %d), the learner's at (%d, %d)", it.i, it.j, i, j)
		}
		verr := visit(i, j, p, it.p)
		done <- struct{}{}
		return verr
	})
	finish()
	if err != nil {
		return err
	}
	if twinErr != nil && !errors.Is(twinErr, errStopped) {
		return fmt.Errorf("twin: %w", twinErr)
	}
	return nil
}

// checkDesignFolds checks a design's folds against the numbers of row and column objects.
func checkDesignFolds(name string, folds [][]int, n int) error {
	seen := make([]bool, n)
	for k, f := range folds {
		if len(f) == 0 {
			return fmt.Errorf("%w: %s fold %d is empty", ErrScheme, name, k)
		}
		for _, i := range f {
			if i < 0 || i >= n {
				return fmt.Errorf("%w: %s fold %d: object %d outside [0,%d)", ErrScheme, name, k, i, n)
			}
			if seen[i] {
				return fmt.Errorf("%w: %s: object %d in two folds", ErrScheme, name, i)
			}
			seen[i] = true
		}
	}
	return nil
}

// copyInto copies p into dst when dst has p's shape and returns dst, else
// returns a copy of p: the best point's predictions kept along a pass in
// one buffer, not one allocation per improvement.
func copyInto(dst, p *mat.Dense) *mat.Dense {
	if dst == nil {
		return mat.DenseCopyOf(p)
	}
	if r, c := dst.Dims(); r != p.RawMatrix().Rows || c != p.RawMatrix().Cols {
		return mat.DenseCopyOf(p)
	}
	dst.Copy(p)
	return dst
}
