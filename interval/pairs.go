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
// models retrained without each row fold (setting B, both false) or each
// (row fold, column fold) block (setting D, model k·L + l), and each
// training pair's prediction by the model that left it out (m×q); Labels
// is its m×q label matrix. The pairwise learners kronrls and twostep give
// it (pairwise.KronSolution.HoldOutModels).
type PairHoldOutModeler interface {
	HoldOutModels(rowFolds, colFolds [][]int, both bool) ([]*mat.Dense, *mat.Dense, error)
	Labels() *mat.Dense
}

// NewPairs returns the CV+ interval of a pairwise solution for the design
// setting (model.PairSettingRows: new row objects against the training
// columns; model.PairSettingBoth: new row and new column objects) over the
// row folds (and, for both, the column folds) given — nil for each object
// alone. What the interval is, and which residuals it pools, is stated at
// model.PairInterval.
//
// Cost: the solution's hold-out models (pairwise: O(m·q·(m + q)) per model
// after the factorization, plus, for Kronecker RLS in setting both, one
// eigendecomposition per fold of each side) and O(m·q) for the residuals.
// Size: K·m·q (rows) or K·L·m·q (both) numbers plus m·q; more than
// MaxNumbers is refused, naming the sizes.
func NewPairs(sol learn.Solution, setting string, rowFolds, colFolds [][]int) (*model.PairInterval, error) {
	hm, ok := sol.(PairHoldOutModeler)
	if !ok {
		return nil, fmt.Errorf("%w: CV+ intervals for pairs need the models retrained without each fold of objects, which this solution does not give", learn.ErrCapability)
	}
	y := hm.Labels()
	m, q := y.Dims()
	both := false
	switch setting {
	case model.PairSettingRows:
		if colFolds != nil {
			return nil, fmt.Errorf("interval: setting rows takes no column folds")
		}
	case model.PairSettingBoth:
		both = true
	default:
		return nil, fmt.Errorf("interval: pairwise setting %q: CV+ intervals are for %q (new rows) or %q (new rows and columns)", setting, model.PairSettingRows, model.PairSettingBoth)
	}
	rf := singletonsIfNil(rowFolds, m)
	if len(rf) < 2 {
		return nil, fmt.Errorf("interval: CV+ needs at least 2 row folds, got %d", len(rf))
	}
	count := len(rf)
	var cf [][]int
	if both {
		cf = singletonsIfNil(colFolds, q)
		if len(cf) < 2 {
			return nil, fmt.Errorf("interval: CV+ needs at least 2 column folds, got %d", len(cf))
		}
		count *= len(cf)
	}
	if float64(count)*float64(m*q) > MaxNumbers {
		return nil, fmt.Errorf("interval: CV+ would store %d models of %d×%d coefficients (more than %d numbers): use fewer folds", count, m, q, MaxNumbers)
	}
	rowFold, err := partition(rf, m)
	if err != nil {
		return nil, err
	}
	var colFold []int
	if both {
		if colFold, err = partition(cf, q); err != nil {
			return nil, fmt.Errorf("columns: %w", err)
		}
	}
	models, pred, err := hm.HoldOutModels(rf, cf, both)
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
