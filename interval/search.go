package interval

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/selection"
)

// FromSearch records in the search's model pred the interval of the given
// method (model.JackknifePlus or model.CVPlus) — what every front end does
// after selection.Search when asked for intervals. CV+ takes the folds of
// the scheme, which must be one partition of the rows; the hold-out
// residuals come from the CV predictions the search already computed for
// the chosen model (its ChosenPredictions under the one-standard-error
// rule, else the best point's), so no hold-out is solved again. Errors
// name the flag --interval and the scheme; a kernel expansion's
// jackknife+ wraps ErrKernelJackknife.
//
// Cost: NewFromCV's, O(m·r·t + n·r·K·t) for rls.
func FromSearch(method string, pred *model.Predictor, res *selection.SearchResult, scheme selection.Scheme) error {
	flag := "--interval " + method
	var folds [][]int
	if method == model.CVPlus {
		if scheme.Kind != selection.Folds || scheme.Repeats > 1 {
			return fmt.Errorf("%s needs the folds of one partition of the rows, not --cv %s", flag, scheme.Name)
		}
		folds = scheme.Folds
	}
	y := res.Learner.Labels()
	if _, t := y.Dims(); t != len(pred.Outputs) {
		return fmt.Errorf("%s: %d label columns for a model of %d outputs", flag, t, len(pred.Outputs))
	}
	var cv *mat.Dense
	if best := res.Curves[res.Best].Result; best != nil {
		cv = best.Predictions
	}
	if res.ChosenPredictions != nil { // --choose 1se: the rule's λ, not the best point's
		cv = res.ChosenPredictions
	}
	iv, err := NewFromCV(pred, res.Solution, y, method, folds, cv)
	if err != nil {
		if errors.Is(err, ErrKernelJackknife) {
			return fmt.Errorf("%s: %w (--interval cv+ --cv kfold:K)", flag, err)
		}
		return fmt.Errorf("%s (--cv %s): %w", flag, scheme.Name, err)
	}
	pred.Interval = iv
	return nil
}
