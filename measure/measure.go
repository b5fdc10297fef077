// Package measure provides performance measures for regression,
// classification and ranking: mean squared error, its root, mean absolute
// error, the coefficient of determination R², area under the ROC curve,
// concordance index, its average within queries (the per-row c-index of
// pairwise data), pairwise disagreement over queries, sign accuracy,
// balanced accuracy, F1 and Spearman's rank correlation.
//
// Each measure is available as a plain function of a label vector y and a
// prediction vector p of equal length, and as a named Measure that scores
// multi-output predictions held in m×t *mat.Dense matrices column by column,
// averaging over the t outputs. ByName looks a Measure up by its name, as used
// on the command line and in model selection.
//
// Errors wrap the sentinels ErrUndefined, ErrShape, ErrUnknown and
// ErrNoQueries; test for them with errors.Is. The functions never panic on
// user input.
package measure

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

var (
	// ErrUndefined is returned (wrapped) when a measure is not defined for the
	// input, such as AUC with a single class, an empty input, or a NaN where a
	// ranking measure needs an ordering.
	ErrUndefined = errors.New("measure: undefined")
	// ErrShape is returned (wrapped) when the lengths or dimensions of labels,
	// predictions and query ids do not agree.
	ErrShape = errors.New("measure: shape mismatch")
	// ErrUnknown is returned (wrapped) by ByName for a name that is not a
	// known measure, and by a zero Measure.
	ErrUnknown = errors.New("measure: unknown measure")
	// ErrNoQueries is returned (wrapped) when a measure that needs query ids,
	// such as disagreement, is scored without them.
	ErrNoQueries = errors.New("measure: needs query ids")
)

// A Measure is a named performance measure that scores multi-output
// predictions. Obtain one from ByName; the zero
// Measure is not usable and its Score returns an error wrapping ErrUnknown.
type Measure struct {
	// Name is the measure's name as accepted by ByName.
	Name string
	// HigherIsBetter is true for measures to maximise (r2, auc, cindex,
	// cindex-row, accuracy, balanced-accuracy, f1, spearman,
	// multiclass-accuracy) and false for errors to minimise (mse, rmse, mae,
	// disagreement).
	HigherIsBetter bool
	// Pairwise is true for measures defined as an average over pairs of
	// examples (auc, cindex), which can be estimated with leave-pair-out
	// cross-validation.
	Pairwise bool
	// NeedsQueries is true if Score requires a query id per row
	// (disagreement, cindex-row).
	NeedsQueries bool
	// Ordinal is true for measures that see the predictions only through
	// their order (auc, cindex, cindex-row, disagreement, spearman): for
	// them, predictions closer than their computation's rounding error must
	// count as ties.
	Ordinal bool
	// Multiclass is true for a measure that scores the outputs together as
	// the one-vs-rest scores of classes (multiclass-accuracy): it needs one
	// output per class.
	Multiclass bool
	// Binary is true for measures that read each output's labels as two
	// classes, y > 0 positive and y ≤ 0 negative (auc, accuracy,
	// balanced-accuracy, f1): any other label values are collapsed to their
	// side of 0.
	Binary bool

	// fn scores one output; it reads y and p and never writes them (Score
	// hands it a one-column matrix's data in place).
	fn func(y, p []float64, q []int) (float64, error)
	// whole, when set, scores the matrices at once (multi-class measures).
	whole func(y, p *mat.Dense) (float64, error)
}

// all returns the available measures in the order Names reports them. It
// builds them afresh so callers cannot alter the registry.
func all() []Measure {
	return []Measure{
		{Name: "mse", fn: noQueries(MSE)},
		{Name: "rmse", fn: noQueries(RMSE)},
		{Name: "mae", fn: noQueries(MAE)},
		{Name: "r2", HigherIsBetter: true, fn: noQueries(R2)},
		{Name: "auc", HigherIsBetter: true, Pairwise: true, Ordinal: true, Binary: true, fn: noQueries(AUC)},
		{Name: "cindex", HigherIsBetter: true, Pairwise: true, Ordinal: true, fn: noQueries(CIndex)},
		{Name: "cindex-row", HigherIsBetter: true, NeedsQueries: true, Ordinal: true, fn: RowAveragedCIndex},
		{Name: "disagreement", NeedsQueries: true, Ordinal: true, fn: Disagreement},
		{Name: "accuracy", HigherIsBetter: true, Binary: true, fn: noQueries(Accuracy)},
		{Name: "balanced-accuracy", HigherIsBetter: true, Binary: true, fn: noQueries(BalancedAccuracy)},
		{Name: "f1", HigherIsBetter: true, Binary: true, fn: noQueries(F1)},
		{Name: "spearman", HigherIsBetter: true, Ordinal: true, fn: noQueries(Spearman)},
		{Name: "multiclass-accuracy", HigherIsBetter: true, Multiclass: true, fn: noQueries(Accuracy), whole: MulticlassAccuracy},
	}
}

// noQueries adapts a single-output function to the query-aware signature.
func noQueries(f func(y, p []float64) (float64, error)) func(y, p []float64, q []int) (float64, error) {
	return func(y, p []float64, _ []int) (float64, error) { return f(y, p) }
}

// Names returns the names of the available measures, in a fixed order:
// mse, rmse, mae, r2, auc, cindex, cindex-row, disagreement, accuracy,
// balanced-accuracy, f1, spearman, multiclass-accuracy. The caller owns the
// returned slice. Time O(1).
func Names() []string {
	ms := all()
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}

// ByName returns the measure called name. Matching ignores case and
// surrounding space. For an unknown name it returns an error wrapping
// ErrUnknown that quotes name and lists the valid names. Time O(1).
func ByName(name string) (Measure, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, m := range all() {
		if m.Name == key {
			return m, nil
		}
	}
	return Measure{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Score computes the measure for each of the t columns of the labels Y and the
// predictions P, both m×t, and returns the mean over the outputs,
//
//	Score = (1/t) Σ_j f(Y[:, j], P[:, j]).
//
// q holds a query id per row; it is ignored unless m.NeedsQueries, in which
// case a nil q yields an error wrapping ErrNoQueries and len(q) ≠ m one
// wrapping ErrShape. Mismatched dimensions (or a nil matrix) yield an error
// wrapping ErrShape, an empty matrix one wrapping ErrUndefined. If the measure
// is undefined for some output, the error wraps ErrUndefined and names the
// 0-based column ("output 2: ...").
//
// The time is t times that of the underlying function, plus O(m·t) to copy the
// columns.
func (m Measure) Score(Y, P *mat.Dense, q []int) (float64, error) {
	if m.fn == nil {
		return math.NaN(), fmt.Errorf("%w: zero Measure", ErrUnknown)
	}
	if Y == nil || P == nil {
		return math.NaN(), fmt.Errorf("%w: %s: nil matrix", ErrShape, m.Name)
	}
	r, c := Y.Dims()
	pr, pc := P.Dims()
	if r != pr || c != pc {
		return math.NaN(), fmt.Errorf("%w: %s: labels %d×%d, predictions %d×%d", ErrShape, m.Name, r, c, pr, pc)
	}
	if r == 0 || c == 0 {
		return math.NaN(), fmt.Errorf("%w: %s: empty matrix", ErrUndefined, m.Name)
	}
	if m.NeedsQueries {
		if q == nil {
			return math.NaN(), fmt.Errorf("%w: %s", ErrNoQueries, m.Name)
		}
		if len(q) != r {
			return math.NaN(), fmt.Errorf("%w: %s: %d rows, %d query ids", ErrShape, m.Name, r, len(q))
		}
	} else {
		q = nil
	}
	if m.whole != nil {
		v, err := m.whole(Y, P)
		if err != nil {
			return math.NaN(), fmt.Errorf("%s: %w", m.Name, err)
		}
		return v, nil
	}
	if c == 1 { // one output: its column read in place when contiguous
		if y, p := contiguous(Y), contiguous(P); y != nil && p != nil {
			v, err := m.fn(y, p, q)
			if err != nil {
				return math.NaN(), fmt.Errorf("%s: output 0: %w", m.Name, err)
			}
			return v, nil
		}
	}
	y := make([]float64, r)
	p := make([]float64, r)
	var sum float64
	for j := range c {
		mat.Col(y, j, Y)
		mat.Col(p, j, P)
		v, err := m.fn(y, p, q)
		if err != nil {
			return math.NaN(), fmt.Errorf("%s: output %d: %w", m.Name, j, err)
		}
		sum += v
	}
	return sum / float64(c), nil
}

// contiguous is the data of a one-column matrix whose rows are adjacent
// (stride 1), else nil.
func contiguous(a *mat.Dense) []float64 {
	raw := a.RawMatrix()
	if raw.Cols != 1 || raw.Stride != 1 {
		return nil
	}
	return raw.Data[:raw.Rows]
}

// Better reports whether the value a is strictly better than b under the
// measure: a > b if m.HigherIsBetter, else a < b. NaN is never better, and
// any non-NaN value is better than NaN. Time O(1).
func (m Measure) Better(a, b float64) bool {
	switch {
	case math.IsNaN(a):
		return false
	case math.IsNaN(b):
		return true
	case m.HigherIsBetter:
		return a > b
	default:
		return a < b
	}
}

// String returns the measure's name.
func (m Measure) String() string { return m.Name }

// MulticlassAccuracy is the share of rows whose largest prediction is in the
// column of the largest label — one-vs-all outputs, one column per class, the
// class taken by argmax (the first column on ties). It needs at least two
// columns (ErrUndefined otherwise). O(m·t).
func MulticlassAccuracy(Y, P *mat.Dense) (float64, error) {
	r, c := Y.Dims()
	if pr, pc := P.Dims(); pr != r || pc != c {
		return math.NaN(), fmt.Errorf("%w: labels %d×%d, predictions %d×%d", ErrShape, r, c, pr, pc)
	}
	if c < 2 || r == 0 {
		return math.NaN(), fmt.Errorf("%w: multi-class accuracy needs rows and at least 2 class columns, got %d×%d", ErrUndefined, r, c)
	}
	hit := 0
	for i := 0; i < r; i++ {
		if Argmax(Y.RawRowView(i)) == Argmax(P.RawRowView(i)) {
			hit++
		}
	}
	return float64(hit) / float64(r), nil
}

// Argmax returns the index of the largest value (the first on ties; NaN never wins). O(len(v)).
func Argmax(v []float64) int {
	best := 0
	for k, x := range v {
		if x > v[best] || math.IsNaN(v[best]) && !math.IsNaN(x) {
			best = k
		}
	}
	return best
}

// CheckLabels refuses labels the measure cannot score, before anything is
// trained: for auc and balanced-accuracy (Binary measures undefined on one
// class), an output whose labels lie all on one side of 0 — such as a
// continuous positive target; for r2, an output whose labels are all equal.
// outputs names the columns of y (nil: by number). The error wraps
// ErrUndefined and names the measure and the output. Time O(m·t).
func (m Measure) CheckLabels(y *mat.Dense, outputs []string) error {
	oneClass := m.Name == "auc" || m.Name == "balanced-accuracy"
	if y == nil || (!oneClass && m.Name != "r2") {
		return nil
	}
	r, t := y.Dims()
	for j := range t {
		name := fmt.Sprintf("output %d", j)
		if j < len(outputs) {
			name = fmt.Sprintf("label %q", outputs[j])
		}
		pos, neg, constant := false, false, true
		for i := range r {
			v := y.At(i, j)
			pos, neg = pos || v > 0, neg || !(v > 0)
			constant = constant && v == y.At(0, j)
		}
		switch {
		case m.Name == "r2" && constant && r > 0:
			return fmt.Errorf("%w: %s: %s has constant labels (%g): R² compares with the labels' variance, which is 0", ErrUndefined, m.Name, name, y.At(0, j))
		case oneClass && !(pos && neg):
			side := "> 0 (a continuous target?)"
			if neg {
				side = "≤ 0"
			}
			shown := m.Name
			if shown == "auc" {
				shown = "AUC"
			}
			return fmt.Errorf("%w: %s needs two classes (y > 0 positive, y ≤ 0 negative) and needs both classes present, but every value of %s is %s; for a continuous label use mse, rmse, mae, r2 or cindex", ErrUndefined, shown, name, side)
		}
	}
	return nil
}
