package plan

import (
	"fmt"

	"github.com/rlskit/rlskit/learn"
)

// planHinge checks the flags of a learner of pairs that minimizes the
// squared hinge loss (learn.PairSquaredHinge: the Kronecker support vector
// machine), in place of planCV: it trains one model by truncated Newton
// steps — each solved by conjugate gradients to --tol within --max-iter
// iterations — on complete or incomplete data of two sets of objects, so it
// takes one λ and one kernel setting per side and no cross-validation (a
// support vector machine has no exact shortcut for it): --cv none only, no
// --folds, --col-folds, --validation-pairs, --interval, --outer-folds,
// --cv-predictions, and no homogeneous network (--cols same); at most
// --newton-steps Newton steps (≥ 1). It sets CVSpec "none", NewtonSteps,
// and leaves Setting empty. O(number of flags).
func planHinge(f *Flags, p *PairPlan, changed func(string) bool) error {
	name := p.Learner.Name
	p.CVSpec, p.CVGiven = "none", f.CV != ""
	switch {
	case p.Homogeneous:
		return fmt.Errorf("--cols same: --learner %s learns from pairs of two sets of objects: give the column objects with --cols FILE (a homogeneous network is not taken)", name)
	case f.CV != "" && f.CV != "none":
		return fmt.Errorf("--cv %s: --learner %s trains one model without cross-validation (a support vector machine has no exact shortcut): give --cv none, or no --cv", f.CV, name)
	case f.LambdaGrid != "":
		return fmt.Errorf("--lambda-grid %s: --learner %s trains one model at one λ: give one --lambda", f.LambdaGrid, name)
	case len(p.Lambdas) != 1:
		return fmt.Errorf("--learner %s trains one model at one λ: give --lambda", name)
	case len(p.RowKernels) != 1:
		return fmt.Errorf("--learner %s trains one model: give one row kernel setting, not a grid of %d (--gamma-grid, --coef0-grid, --degree-grid)", name, len(p.RowKernels))
	case len(p.ColKernels) != 1:
		return fmt.Errorf("--learner %s trains one model: give one column kernel setting, not a grid of %d (--col-gamma-grid)", name, len(p.ColKernels))
	case f.Folds != "":
		return fmt.Errorf("--folds %s: --learner %s has no cross-validation", f.Folds, name)
	case f.ColFolds != "":
		return fmt.Errorf("--col-folds %s: --learner %s has no cross-validation", f.ColFolds, name)
	case f.ValidationPairs != "":
		return fmt.Errorf("--validation-pairs %s: --learner %s has no early stopping (it trains to convergence by Newton steps)", f.ValidationPairs, name)
	case f.Interval != "":
		return fmt.Errorf("--interval %s: --learner %s has no cross-validation to build an interval from", f.Interval, name)
	case changed("outer-folds"):
		return fmt.Errorf("--outer-folds %s: --learner %s has no search to estimate: it trains one model", f.OuterFoldsArg, name)
	case f.CVPredictions != "":
		return fmt.Errorf("--cv-predictions %s: --learner %s has no cross-validation", f.CVPredictions, name)
	case f.Curves != "":
		return fmt.Errorf("--curves %s: --learner %s has no cross-validation curve", f.Curves, name)
	case f.NewtonSteps < 1:
		return fmt.Errorf("--newton-steps %d: --learner %s needs at least 1 Newton step", f.NewtonSteps, name)
	}
	p.NewtonSteps = f.NewtonSteps
	return nil
}

// hinge reports whether the learner minimizes the squared hinge loss of
// pairs (planHinge, internal/pairfit's support vector machine).
func hinge(le *learn.Descriptor) bool { return le.Loss == learn.PairSquaredHinge }
