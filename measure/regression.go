package measure

import (
	"fmt"
	"math"
)

// RMSE returns the root mean squared error
//
//	RMSE = sqrt((1/m) Σ_i (y_i − p_i)²) = sqrt(MSE)
//
// of the predictions p against the labels y. As the named measure "rmse" it
// is taken per output and then averaged over the outputs, (1/t) Σ_j
// sqrt(MSE_j) — scikit-learn's root_mean_squared_error (and
// mean_squared_error(squared=False)) with multioutput="uniform_average" —
// which is not the square root of the mean MSE when there are several
// outputs. With one output it chooses the same λ as mse: the square root is
// increasing. NaN and Inf propagate into the result. It returns an error
// wrapping ErrShape if the lengths differ and ErrUndefined if they are
// empty. Time O(m), no allocation.
func RMSE(y, p []float64) (float64, error) {
	mse, err := MSE(y, p)
	if err != nil {
		return math.NaN(), err
	}
	return math.Sqrt(mse), nil
}

// MAE returns the mean absolute error
//
//	MAE = (1/m) Σ_i |y_i − p_i|
//
// of the predictions p against the labels y (scikit-learn's
// mean_absolute_error; averaged over the outputs as the named measure "mae",
// its multioutput="uniform_average"). NaN and Inf propagate into the
// result. It returns an error wrapping ErrShape if the lengths differ and
// ErrUndefined if they are empty. Time O(m), no allocation.
func MAE(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	var s float64
	for i, yi := range y {
		s += math.Abs(yi - p[i])
	}
	return s / float64(len(y)), nil
}

// R2 returns the coefficient of determination of the predictions p for the
// labels y,
//
//	R² = 1 − Σ_i (y_i − p_i)² / Σ_i (y_i − ȳ)²,   ȳ = (1/m) Σ_i y_i,
//
// the fraction of the labels' variance about their mean that the
// predictions explain: 1 for exact predictions, 0 for predicting ȳ
// everywhere, negative for worse (scikit-learn's r2_score; as the named
// measure "r2" it is taken per output and averaged over the outputs, its
// multioutput="uniform_average", the default score of scikit-learn's
// GridSearchCV for a regressor). Scored on the pooled cross-validation
// predictions of one output, R² = 1 − MSE/var(y) with var the population
// variance of all the labels scored: it chooses the same λ as mse. Scored
// per fold and averaged (k-fold with fold-score "mean"), ȳ is each fold's
// own mean, as in GridSearchCV.
//
// Constant labels (in particular m = 1) make the denominator 0, and R2
// returns an error wrapping ErrUndefined. scikit-learn's r2_score returns 1
// there if the predictions are exact and 0 otherwise (force_finite=True), or
// NaN/−Inf (force_finite=False); neither number measures a fit — the 0
// would rank every λ alike with no sign that nothing was compared — so the
// error says why instead, and averaging over folds (fold-score mean) leaves
// such folds out as for the other measures. The test is that all labels are
// equal, not that the computed sum of squares is 0: the mean of equal values
// can round away from them. NaN and Inf in p propagate into the result, as
// does NaN in y.
//
// The sum of squares about the mean is computed by the corrected two-pass
// algorithm, Σ d_i² − (Σ d_i)²/m with d_i = y_i − ȳ (Chan, Golub & LeVeque
// 1983, "Algorithms for computing the sample variance"), which removes the
// first-order error of the computed mean. It returns an error wrapping
// ErrShape if the lengths differ and ErrUndefined if they are empty. Time
// O(m) (two passes), no allocation.
func R2(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	constant := true
	for _, yi := range y[1:] {
		if yi != y[0] {
			constant = false
			break
		}
	}
	if constant {
		return math.NaN(), fmt.Errorf("%w: R² with constant labels (all %d equal %g): Σ(y − ȳ)² = 0, nothing to explain", ErrUndefined, len(y), y[0])
	}
	m := float64(len(y))
	var sum float64
	for _, yi := range y {
		sum += yi
	}
	mean := sum / m
	var sd, sdd, sse float64
	for i, yi := range y {
		d := yi - mean
		sd += d
		sdd += d * d
		e := yi - p[i]
		sse += e * e
	}
	sst := sdd - sd*sd/m
	return 1 - sse/sst, nil
}
