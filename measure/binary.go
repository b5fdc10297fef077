package measure

import (
	"fmt"
	"math"
)

// confusion counts the binary confusion matrix of the predictions p for the
// labels y with Accuracy's convention: a label or prediction > 0 is the
// positive class, ≤ 0 (and NaN) the negative one. Time O(m).
func confusion(y, p []float64) (tp, fn, tn, fp int) {
	for i, yi := range y {
		switch pos := p[i] > 0; {
		case yi > 0 && pos:
			tp++
		case yi > 0:
			fn++
		case pos:
			fp++
		default:
			tn++
		}
	}
	return tp, fn, tn, fp
}

// BalancedAccuracy returns the mean of the two classes' recalls,
//
//	BA = ½ (TP/(TP + FN) + TN/(TN + FP)),
//
// with the classes read as Accuracy reads them, so that the two are
// consistent: label y_i > 0 is positive, y_i ≤ 0 negative (±1 and 0/1
// labels alike), and a prediction p_i > 0 predicts positive, p_i ≤ 0
// negative; NaN counts as negative (NaN > 0 is false). Accuracy weighs the
// classes by their sizes, BA equally: predicting one class everywhere scores
// ½ whatever the imbalance. It is scikit-learn's balanced_accuracy_score
// (adjusted=False) of the classes y > 0 and p > 0 (Brodersen, Ong, Stephan &
// Buhmann 2010, "The balanced accuracy and its posterior distribution"), and
// equals the AUC of the binary predictions [p > 0]. As the named measure
// "balanced-accuracy" it is averaged over the outputs; for one-vs-all
// outputs that is the mean of the per-class binary values, not
// scikit-learn's multi-class balanced accuracy.
//
// Labels of one class only leave the other recall 0/0, and BalancedAccuracy
// returns an error wrapping ErrUndefined, as AUC does. scikit-learn instead
// averages the recalls of the classes present (warning "y_pred contains
// classes not in y_true"), which is then the accuracy; under fold-score
// mean such a fold is left out here. It returns an error wrapping ErrShape
// if the lengths differ and ErrUndefined if they are empty. Time O(m), no
// allocation; the counts are exact.
func BalancedAccuracy(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	tp, fn, tn, fp := confusion(y, p)
	if tp+fn == 0 || tn+fp == 0 {
		return math.NaN(), fmt.Errorf("%w: balanced accuracy needs both classes (%d labels > 0, %d labels ≤ 0)", ErrUndefined, tp+fn, tn+fp)
	}
	return (float64(tp)/float64(tp+fn) + float64(tn)/float64(tn+fp)) / 2, nil
}

// F1 returns the F1 score of the positive class, the harmonic mean of its
// precision P = TP/(TP + FP) and recall R = TP/(TP + FN),
//
//	F1 = 2·P·R/(P + R) = 2·TP/(2·TP + FP + FN)
//
// (van Rijsbergen 1979, "Information Retrieval", the F-measure with β = 1),
// the classes read as Accuracy and BalancedAccuracy read them: label
// y_i > 0 and prediction p_i > 0 are positive, ≤ 0 and NaN negative. As the
// named measure "f1" it is averaged over the outputs (scikit-learn's
// f1_score with average="binary", or average="macro" over the columns of a
// multilabel indicator).
//
// The count form is computed; it equals the harmonic mean wherever that is
// defined and extends it by continuity: when nothing is predicted positive
// but some label is (TP = FP = 0 < FN) the precision is 0/0, yet the recall
// is 0 and F1 = 0; when no label is positive but some prediction is
// (TP = FN = 0 < FP) the recall is 0/0 and F1 = 0 — both what scikit-learn
// returns. When no label and no prediction is positive (TP + FP + FN = 0) F1
// is 0/0 and it returns an error wrapping ErrUndefined: scikit-learn warns and
// returns its zero_division value, 0 by default, which would score the
// perfect all-negative predictions of such a fold as the worst; under
// fold-score mean such a fold is left out here. It returns an error wrapping
// ErrShape if the lengths differ and ErrUndefined if they are empty. Time
// O(m), no allocation; the counts are exact.
func F1(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	tp, fn, _, fp := confusion(y, p)
	if tp+fp+fn == 0 {
		return math.NaN(), fmt.Errorf("%w: F1 with no label > 0 and no prediction > 0 (precision and recall 0/0)", ErrUndefined)
	}
	return float64(2*tp) / float64(2*tp+fp+fn), nil
}
