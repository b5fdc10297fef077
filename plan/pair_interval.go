package plan

import (
	"errors"
	"fmt"

	"github.com/rlskit/rlskit/pairwise"
)

// ErrPairsInterval refuses --interval with --cv pairs (setting A, and the
// default --cv of a learner of pairs): a prediction interval covers the
// label of a pair not trained on, and setting A has none. On complete data
// every pair of a known row and a known column is a training pair; a pair
// of known objects without a label makes the data incomplete, which only
// the conjugate-gradient solver fits, with no exact hold-out models; and a
// new label of a training pair (a replicate) is not exchangeable with the
// held-out pairs (the model trained on that very pair). Leave-one-pair-out
// is exact (the hat matrix's diagonal), but K folds of pairs have no closed
// form in the Kronecker eigenbasis. The intervals are for pairs with a new
// object: --cv rows[:K], cols[:K] or both[:K].
var ErrPairsInterval = errors.New("setting pairs (--cv pairs, the default) has no new pair to cover: on complete data every pair of a known row and a known column is a training pair, and a pair without a label makes the data incomplete (--solver cg, no hold-out models); intervals are for a pair with a new object: give --cv rows[:K] (new rows), cols[:K] (new columns) or both[:K] (new rows and new columns)")

// planPairInterval checks --interval for a learner of pairs: CV+ over folds
// of objects for the kind of new pair the design names — new row objects
// against the training columns (--cv rows[:K], setting B), new column
// objects against the training rows (--cv cols[:K], setting C) or a new row
// with a new column (--cv both[:K], setting D); with one object per fold it
// is the jackknife+ over objects. The closed-form learners on complete data
// record it (package interval, NewPairs); --solver cg does not, and setting
// pairs (A) is refused with ErrPairsInterval.
func planPairInterval(f *Flags, p *PairPlan) error {
	if f.Interval == "" {
		return nil
	}
	iv := "--interval " + f.Interval
	switch {
	case f.Interval != "cv+":
		return fmt.Errorf("%s: a learner of pairs records cv+ over folds of objects (--interval cv+ --cv rows[:K], cols[:K] or both[:K]; with one object per fold it is the jackknife+ over objects)", iv)
	case p.Setting == pairwise.Pairs:
		return fmt.Errorf("%s with --cv %s: %w", iv, p.CVSpec, ErrPairsInterval)
	case p.Setting != pairwise.Rows && p.Setting != pairwise.Cols && p.Setting != pairwise.Both:
		return fmt.Errorf("%s is for new row objects (--cv rows[:K], setting B), new column objects (--cv cols[:K], setting C) or both (--cv both[:K], setting D), not --cv %s", iv, p.CVSpec)
	case p.ForceCG:
		return fmt.Errorf("%s needs the closed form on complete data, not --solver cg", iv)
	}
	return nil
}
