package selection

import (
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/learn"
)

// SchemeOptions is what NewScheme needs to know of the data.
type SchemeOptions struct {
	// Rows is m, the number of training rows.
	Rows int
	// Seed draws k-fold assignments.
	Seed uint64
	// Groups holds a group (query) id per row: required by lgo and lqo, and
	// by leave-pair-out within groups.
	Groups []int
	// PairsWithinGroups makes leave-pair-out use the pairs with different
	// labels inside each group (query ranking); Labels must have one column.
	PairsWithinGroups bool
	Labels            *mat.Dense
	// Folds are the hold-out sets of the spec "folds" (read from a file by the
	// caller); FoldsName names them in reports.
	Folds     [][]int
	FoldsName string
	// Basis and Design select a sparse k-fold design of Pahikkala, Suominen &
	// Boberg (2012, sect. 6.2): 1 spreads the basis over the folds, 2 keeps it
	// out of every fold (0: plain k-fold). Design 3, a new basis per fold,
	// needs retraining: see RandomBasisPerFold.
	Basis  []int
	Design int
	// Policy is the basis policy of the scheme's hold-outs (Scheme.Basis).
	Policy learn.Policy
	// FoldMean averages the folds' scores (Scheme.FoldMean); fold schemes only.
	FoldMean bool
}

// ParseSpec checks a scheme spec — "none", "loo", "lpo", "lgo", "lqo",
// "folds" or "kfold:K" — and returns its kind word and K (0 unless kfold).
func ParseSpec(spec string) (name string, k int, err error) {
	switch spec {
	case "none", "loo", "lpo", "lgo", "lqo", "folds":
		return spec, 0, nil
	}
	if ks, ok := strings.CutPrefix(spec, "kfold:"); ok {
		v, err := strconv.Atoi(ks)
		if err != nil || v < 2 {
			return "", 0, fmt.Errorf("%w: %s: K must be an integer ≥ 2", ErrScheme, spec)
		}
		return "kfold", v, nil
	}
	return "", 0, fmt.Errorf("%w: %q: want none, loo, kfold:K, lgo, lqo, lpo or folds", ErrScheme, spec)
}

// NewScheme builds the scheme of a spec (see ParseSpec) for the data in o:
// k-fold folds drawn with the seed (or a sparse design), leave-group-out over
// the groups (lqo: at least two groups of two rows or more), leave-pair-out
// (within groups when asked), or folds given by the caller. Cost O(m) (O(m²)
// for within-group pairs).
func NewScheme(spec string, o SchemeOptions) (Scheme, error) {
	name, k, err := ParseSpec(spec)
	if err != nil {
		return Scheme{}, err
	}
	m := o.Rows
	sc := Scheme{Name: spec, Basis: o.Policy}
	if o.Design != 0 && name != "kfold" {
		return Scheme{}, fmt.Errorf("%w: basis design %d is a k-fold design, not %s", ErrScheme, o.Design, spec)
	}
	switch name {
	case "none":
		sc.Kind = None
	case "loo":
		sc.Kind = LOO
	case "lpo":
		sc.Kind = LPO
		if o.PairsWithinGroups {
			if o.Labels == nil {
				return Scheme{}, fmt.Errorf("%w: lpo within groups needs labels", ErrScheme)
			}
			if _, t := o.Labels.Dims(); t > 1 {
				return Scheme{}, fmt.Errorf("%w: lpo within groups takes one label column, got %d", ErrScheme, t)
			}
			if sc.Pairs, err = cv.PairsWithinGroups(mat.Col(nil, 0, o.Labels), o.Groups); err != nil {
				return Scheme{}, fmt.Errorf("%w: %w", ErrScheme, err)
			}
		}
	case "lgo", "lqo":
		if o.Groups == nil {
			return Scheme{}, fmt.Errorf("%w: %s needs group ids", ErrScheme, spec)
		}
		folds, err := cv.LeaveGroupOut(o.Groups)
		if err != nil {
			return Scheme{}, fmt.Errorf("%w: %s: %w", ErrScheme, spec, err)
		}
		usable := 0
		for _, f := range folds {
			if len(f) > 1 {
				usable++
			}
		}
		if name == "lqo" && usable < 2 {
			return Scheme{}, fmt.Errorf("%w: lqo: %d queries with two or more rows; leaving queries out needs 2", ErrScheme, usable)
		}
		sc.Kind, sc.Folds = Folds, folds
	case "folds":
		if err := cv.Check(o.Folds, m); err != nil {
			return Scheme{}, fmt.Errorf("%w: %w", ErrScheme, err)
		}
		sc.Kind, sc.Folds, sc.Name = Folds, o.Folds, "folds:"+o.FoldsName
	case "kfold":
		if k > m {
			return Scheme{}, fmt.Errorf("%w: kfold:%d with %d rows", ErrScheme, k, m)
		}
		sc.Kind = Folds
		switch o.Design {
		case 0:
			sc.Folds, err = cv.KFold(m, k, o.Seed)
		case 1:
			sc.Folds, err = cv.BasisFolds(m, o.Basis, k, o.Seed)
			sc.Name += ",basis-design:1"
		case 2:
			sc.Folds, err = cv.FoldsExcluding(m, o.Basis, k, o.Seed)
			sc.Name += ",basis-design:2"
		case 3:
			sc.Folds, err = cv.KFold(m, k, o.Seed)
			sc.Name += ",basis-design:3"
		default:
			return Scheme{}, fmt.Errorf("%w: basis design %d: want 1, 2 or 3", ErrScheme, o.Design)
		}
		if err != nil {
			return Scheme{}, fmt.Errorf("%w: %s: %w", ErrScheme, spec, err)
		}
	}
	if o.FoldMean {
		if sc.Kind != Folds {
			return Scheme{}, fmt.Errorf("%w: the mean over folds needs a fold scheme, not %s", ErrScheme, spec)
		}
		sc.FoldMean = true
		sc.Name += ",fold-score:mean"
	}
	return sc, nil
}
