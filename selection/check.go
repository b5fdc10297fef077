package selection

import (
	"errors"
	"fmt"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// Plan is what a front end asks of a learner, known before any data is
// read: the scheme spec (ParseSpec), the basis policy of its hold-outs, the
// measure, the kernel, whether a column kernel grid and a second λ grid are
// searched, a permutation test, and the solver.
type Plan struct {
	Scheme       string
	Policy       learn.Policy
	Measure      measure.Measure
	Kernel       string
	ColKernels   bool
	ColLambdas   bool
	Permutations int
	// Stream trains from statistics gathered in passes (package stream), CG
	// by conjugate gradients (package cg).
	Stream, CG bool
}

// Check checks a plan against what the learner declares — its
// capabilities, needs and kernels — never its name, so that a new learner is
// checked by its descriptor alone. The errors wrap learn.ErrCapability or
// ErrScheme and say what would work.
func Check(d *learn.Descriptor, p Plan) error {
	name, _, err := ParseSpec(p.Scheme)
	if err != nil {
		return err
	}
	if p.Kernel != "" && !d.TakesKernel(p.Kernel) {
		return fmt.Errorf("%w: learner %s takes the %v kernel(s), not %s", learn.ErrCapability, d.Name, d.Kernels, p.Kernel)
	}
	pairs := d.Needs.Has(learn.NeedsPairs)
	if IsObjectSpec(name) != pairs && name != "none" {
		if pairs {
			return fmt.Errorf("%w: learner %s learns from pairs of objects: cross-validate by pairs, rows, cols, both or vertices, not %s", ErrScheme, d.Name, p.Scheme)
		}
		return fmt.Errorf("%w: %s holds out objects of a learner of pairs; learner %s learns from rows", ErrScheme, p.Scheme, d.Name)
	}
	sc := Scheme{Kind: kindOf(name), Basis: p.Policy}
	if err := d.Require(sc.Needs()...); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrScheme, p.Scheme, err)
	}
	if name == "lpo" && !p.Measure.Pairwise {
		return fmt.Errorf("%w: leave-pair-out needs a pairwise measure (auc, cindex), not %s", ErrScheme, p.Measure.Name)
	}
	if pairs && p.Measure.Multiclass {
		return fmt.Errorf("%w: %s needs one output per class; the pairs of learner %s have one label", measure.ErrUnknown, p.Measure.Name, d.Name)
	}
	if p.ColKernels && !pairs {
		return fmt.Errorf("%w: learner %s has one kernel: no column kernel", learn.ErrCapability, d.Name)
	}
	if p.ColLambdas != d.Can(learn.CanColLambda) {
		if p.ColLambdas {
			return fmt.Errorf("%w: learner %s has one λ: no column λ", learn.ErrCapability, d.Name)
		}
		return fmt.Errorf("%w: learner %s has a second λ: give its value or grid", ErrGrid, d.Name)
	}
	if p.Permutations > 0 {
		if name == "none" {
			return fmt.Errorf("%w: a permutation test needs cross-validation", ErrScheme)
		}
		if err := d.Require(learn.CanRelabel); err != nil {
			return fmt.Errorf("%w: a permutation test relabels the factorization of every kernel setting: %w", ErrScheme, err)
		}
	}
	if p.Stream {
		if err := d.Require(learn.CanStream); err != nil {
			return err
		}
	}
	if p.CG {
		if err := d.Require(learn.CanCG); err != nil {
			return err
		}
	}
	return nil
}

// CheckSettings is Check on the settings of a search.
func CheckSettings(d *learn.Descriptor, s *Settings) error {
	name := s.Scheme.Name
	if n, _, err := ParseSpec(name); err != nil || kindOf(n) != s.Scheme.Kind {
		name = string(s.Scheme.Kind) // a scheme built by hand: check its kind
		if s.Scheme.Kind == Folds {
			name = "folds"
		} else if s.Scheme.Kind == Objects {
			name = s.Scheme.Design.Setting
		}
	}
	return Check(d, Plan{Scheme: name, Policy: s.Scheme.Basis, Measure: s.Measure,
		ColKernels: len(s.ColKernels) > 0, ColLambdas: len(s.ColLambdas) > 0, Permutations: s.Permutations})
}

// CheckInput checks an input against what the learner needs: labels (one
// per row, or per pair), groups, a graph, objects and pairs.
func CheckInput(d *learn.Descriptor, in *learn.Input) error {
	if in == nil || in.X == nil {
		return fmt.Errorf("%w: learner %s: no data", learn.ErrShape, d.Name)
	}
	m, _ := in.X.Dims()
	switch {
	case d.Needs.Has(learn.NeedsLabels) && in.Y == nil:
		return fmt.Errorf("%w: learner %s learns from labels: none given", learn.ErrShape, d.Name)
	case d.Needs.Has(learn.NeedsGroups) && in.Groups == nil:
		return fmt.Errorf("%w: learner %s needs group (query) ids", learn.ErrShape, d.Name)
	case d.Needs.Has(learn.NeedsGraph) && in.Graph == nil:
		return fmt.Errorf("%w: learner %s learns from a preference graph: none given", learn.ErrShape, d.Name)
	case d.Needs.Has(learn.NeedsPairs) && len(in.Pairs) == 0:
		return fmt.Errorf("%w: learner %s learns from labelled pairs: none given", learn.ErrShape, d.Name)
	case !d.Needs.Has(learn.NeedsPairs) && (in.Pairs != nil || in.Cols != nil):
		return fmt.Errorf("%w: learner %s learns from rows, not pairs of objects", learn.ErrShape, d.Name)
	case in.Groups != nil && len(in.Groups) != m:
		return fmt.Errorf("%w: %d group ids for %d rows", learn.ErrShape, len(in.Groups), m)
	}
	if in.Y != nil {
		if r, _ := in.Y.Dims(); r != in.Rows() {
			return fmt.Errorf("%w: %d labels for %d rows", learn.ErrShape, r, in.Rows())
		}
	}
	return nil
}

// kindOf maps a spec's kind word to a Kind.
func kindOf(name string) Kind {
	switch name {
	case "none":
		return None
	case "loo":
		return LOO
	case "lpo":
		return LPO
	}
	if IsObjectSpec(name) {
		return Objects
	}
	return Folds
}

// IsObjectSpec reports whether a scheme's kind word is an object design of
// a learner of pairs: pairs, rows, cols, both or vertices.
func IsObjectSpec(name string) bool {
	switch name {
	case "pairs", "rows", "cols", "both", "vertices":
		return true
	}
	return false
}

var errNoK = errors.New("K must be an integer ≥ 2")
