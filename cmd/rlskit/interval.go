package main

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/model"
)

// predictRows returns the model's predictions for the rows of x: Predict's
// m×t when coverage is 0, else per output three columns — prediction,
// lower, upper — of the interval at that coverage (PredictInterval): m×3t.
func predictRows(p *model.Predictor, x mat.Matrix, coverage float64) (*mat.Dense, error) {
	if coverage == 0 {
		return p.Predict(x)
	}
	pred, lo, hi, err := p.PredictInterval(x, coverage)
	if err != nil {
		return nil, err
	}
	m, t := pred.Dims()
	if m == 0 {
		return pred, nil
	}
	out := mat.NewDense(m, 3*t, nil)
	for i := 0; i < m; i++ {
		row := out.RawRowView(i)
		for c := 0; c < t; c++ {
			row[3*c], row[3*c+1], row[3*c+2] = pred.At(i, c), lo.At(i, c), hi.At(i, c)
		}
	}
	return out, nil
}

// checkCoverage checks predict --coverage against the model: it must
// record an interval (fit --interval).
func checkCoverage(f *predictFlags, p *model.Predictor) error {
	if !f.coverageSet {
		return nil
	}
	if p.Interval == nil {
		return fmt.Errorf("--coverage %g: %s records no prediction interval: fit it with --interval jackknife+ (--cv loo) or --interval cv+ (--cv kfold:K)", f.coverage, f.modelPath)
	}
	return nil
}

// checkCoverageFlag checks predict --coverage before any work: a level in
// (0, 1). Errors are usage errors.
func checkCoverageFlag(f *predictFlags) error {
	if f.coverageSet && !(f.coverage > 0 && f.coverage < 1) {
		return usage(fmt.Errorf("--coverage %g: want a level in (0, 1), such as 0.9", f.coverage))
	}
	return nil
}

// predictionColumns returns the prediction columns of predictRows' output:
// every third column with intervals (m×t), else out itself.
func predictionColumns(out *mat.Dense, intervals bool) *mat.Dense {
	if !intervals {
		return out
	}
	m, c := out.Dims()
	if m == 0 {
		return out
	}
	p := mat.NewDense(m, c/3, nil)
	for i := 0; i < m; i++ {
		row := out.RawRowView(i)
		for k := range c / 3 {
			p.Set(i, k, row[3*k])
		}
	}
	return p
}

// coveredShare is the share of the labels y (m×t) inside their intervals
// [lower, upper] of predictRows' output (m×3t).
func coveredShare(out, y *mat.Dense) float64 {
	m, t := y.Dims()
	if m == 0 {
		return math.NaN()
	}
	in := 0
	for i := 0; i < m; i++ {
		row := out.RawRowView(i)
		for c := 0; c < t; c++ {
			if v := y.At(i, c); row[3*c+1] <= v && v <= row[3*c+2] {
				in++
			}
		}
	}
	return float64(in) / float64(m*t)
}
