package interval

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// PairHoldOutModeler is a pairwise solution on complete data that gives,
// exactly and without refitting, the coefficient matrices (m×q) of the
// models retrained without each fold of objects of a design — setting
// "rows" (B: each row fold), "cols" (C: each column fold) or "both" (D:
// each (row fold, column fold) block, model k·L + l) — and each training
// pair's prediction by the model that left it out (m×q); Labels is its m×q
// label matrix. The pairwise learners kronrls and twostep give it
// (pairwise.KronSolution.HoldOutModels).
type PairHoldOutModeler interface {
	HoldOutModels(d learn.Design) ([]*mat.Dense, *mat.Dense, error)
	Labels() *mat.Dense
}

// NewPairs returns the CV+ interval of a pairwise solution for the design
// setting (model.PairSettingRows: new row objects against the training
// columns; model.PairSettingCols: new column objects against the training
// rows; model.PairSettingBoth: new row and new column objects) over the
// folds of the objects the setting holds out — row folds for rows, column
// folds for cols, both for both; nil for each object alone, and the other
// side's must be nil. What the interval is, and which residuals it pools,
// is stated at model.PairInterval.
//
// Cost: the solution's hold-out models (pairwise: O(m·q·(m + q)) per model
// after the factorization, plus, for Kronecker RLS with large folds or in
// setting both, one eigendecomposition per fold of each side held out) and
// O(m·q) for the residuals. Size: K·m·q (rows, cols) or K·L·m·q (both)
// numbers plus m·q; more than MaxNumbers is refused, naming the sizes.
func NewPairs(sol learn.Solution, setting string, rowFolds, colFolds [][]int) (*model.PairInterval, error) {
	hm, ok := sol.(PairHoldOutModeler)
	if !ok {
		return nil, fmt.Errorf("%w: CV+ intervals for pairs need the models retrained without each fold of objects, which this solution does not give", learn.ErrCapability)
	}
	y := hm.Labels()
	m, q := y.Dims()
	var rowSide, colSide bool // the sides the setting holds out
	switch setting {
	case model.PairSettingRows:
		rowSide = true
	case model.PairSettingCols:
		colSide = true
	case model.PairSettingBoth:
		rowSide, colSide = true, true
	default:
		return nil, fmt.Errorf("interval: pairwise setting %q: CV+ intervals are for %q (new rows), %q (new columns) or %q (new rows and columns)", setting, model.PairSettingRows, model.PairSettingCols, model.PairSettingBoth)
	}
	count := 1
	var rf, cf [][]int
	for _, s := range []struct {
		held  bool
		folds [][]int
		n     int
		what  string
		out   *[][]int
	}{{rowSide, rowFolds, m, "row", &rf}, {colSide, colFolds, q, "column", &cf}} {
		if !s.held {
			if s.folds != nil {
				return nil, fmt.Errorf("interval: setting %s takes no %s folds", setting, s.what)
			}
			continue
		}
		f := singletonsIfNil(s.folds, s.n)
		if len(f) < 2 {
			return nil, fmt.Errorf("interval: CV+ needs at least 2 %s folds, got %d", s.what, len(f))
		}
		count *= len(f)
		*s.out = f
	}
	if float64(count)*float64(m*q) > MaxNumbers {
		return nil, fmt.Errorf("interval: CV+ would store %d models of %d×%d coefficients (more than %d numbers): use fewer folds", count, m, q, MaxNumbers)
	}
	var rowFold, colFold []int
	var err error
	if rowSide {
		if rowFold, err = partition(rf, m); err != nil {
			return nil, err
		}
	}
	if colSide {
		if colFold, err = partition(cf, q); err != nil {
			return nil, fmt.Errorf("columns: %w", err)
		}
	}
	models, pred, err := hm.HoldOutModels(learn.Design{Setting: setting, RowFolds: rf, ColFolds: cf})
	if err != nil {
		return nil, fmt.Errorf("interval: %w", err)
	}
	res := mat.NewDense(m, q, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			r := math.Abs(y.At(i, j) - pred.At(i, j))
			if math.IsNaN(r) || math.IsInf(r, 0) {
				return nil, fmt.Errorf("interval: the hold-out residual of pair (%d, %d) is %v", i+1, j+1, r)
			}
			res.Set(i, j, r)
		}
	}
	return &model.PairInterval{Method: model.CVPlus, Setting: setting, RowFold: rowFold, ColFold: colFold, Models: models, Residuals: res}, nil
}

// singletonsIfNil returns folds, or the n singleton folds when it is nil.
func singletonsIfNil(folds [][]int, n int) [][]int {
	if folds != nil {
		return folds
	}
	out := make([][]int, n)
	for i := range out {
		out[i] = []int{i}
	}
	return out
}
