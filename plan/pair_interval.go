package plan

import (
	"fmt"

	"github.com/rlskit/rlskit/pairwise"
)

// planPairInterval checks --interval for a learner of pairs: CV+ over folds
// of objects for the kind of new pair the design names — new row objects
// against the training columns (--cv rows[:K], setting B) or a new row with
// a new column (--cv both[:K], setting D); with one object per fold it is
// the jackknife+ over objects. The closed-form learners on complete data
// record it (package interval, NewPairs); --solver cg does not.
func planPairInterval(f *Flags, p *PairPlan) error {
	if f.Interval == "" {
		return nil
	}
	iv := "--interval " + f.Interval
	switch {
	case f.Interval != "cv+":
		return fmt.Errorf("%s: a learner of pairs records cv+ over folds of objects (--interval cv+ --cv rows[:K] or both[:K]; with one object per fold it is the jackknife+ over objects)", iv)
	case p.Setting != pairwise.Rows && p.Setting != pairwise.Both:
		return fmt.Errorf("%s is for new row objects (--cv rows[:K], setting B) or new row and column objects (--cv both[:K], setting D), not --cv %s", iv, p.CVSpec)
	case p.ForceCG:
		return fmt.Errorf("%s needs the closed form on complete data, not --solver cg", iv)
	}
	return nil
}
