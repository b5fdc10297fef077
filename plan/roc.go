package plan

import (
	"fmt"
	"strings"

	"github.com/rlskit/rlskit/learn"
)

// ROCMethods are the values of --roc.
var ROCMethods = []string{"tlpo"}

// planROC checks --roc before any work: tlpo (tournament leave-pair-out,
// selection.Tournament) needs a learner whose solutions have exact
// leave-pair-out predictions (learn.CanLeavePairOut) of a label over the
// whole data set (not within groups: learn.NeedsGroups), one binary label read
// whole (not --stream, --solver cg, --one-vs-all, --lambda-per-output or
// --permutations) — whether the label is binary is checked on the data.
func planROC(f *Flags, le *learn.Descriptor) error {
	if f.ROC == "" {
		return nil
	}
	flag := "--roc " + f.ROC
	if f.ROC != "tlpo" {
		return fmt.Errorf("%s: want %s", flag, strings.Join(ROCMethods, ", "))
	}
	if !le.Can(learn.CanLeavePairOut) || !le.Needs.Has(learn.NeedsLabels) {
		return fmt.Errorf("%s needs exact leave-pair-out predictions of a label: --learner %s has none (use %s)", flag, le.Name,
			strings.Join(learnerNames(func(d *learn.Descriptor) bool {
				return d.Can(learn.CanLeavePairOut) && d.Needs.Has(learn.NeedsLabels) && !d.Needs.Has(learn.NeedsGroups)
			}), ", "))
	}
	switch {
	case le.Needs.Has(learn.NeedsGroups):
		// Its loss orders rows within a group only, and its leave-pair-out
		// retrains per pair (O(m·r) and an m-sized temporary each): the
		// m(m−1)/2 games across groups would be meaningless and slow.
		return fmt.Errorf("%s compares every pair of rows across the data set: --learner %s orders rows within --qid groups only (use rls or globalrank)", flag, le.Name)
	case f.Stream:
		return fmt.Errorf("%s holds out every pair of rows in memory: not with --stream", flag)
	case f.Solver == "cg":
		return fmt.Errorf("%s needs the factorization's leave-pair-out: not with --solver cg", flag)
	case f.OneVsAll:
		return fmt.Errorf("%s analyses one binary label: not with --one-vs-all (use --positive CLASS)", flag)
	case f.LambdaPerOutput:
		return fmt.Errorf("%s analyses one binary label: not with --lambda-per-output", flag)
	case f.Permutations > 0:
		return fmt.Errorf("%s analyses one binary label: not with --permutations", flag)
	}
	return nil
}
