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
	// RowObjects and ColObjects are the numbers of row and column objects of
	// a learner of pairs (object designs); Folds, when given, are its row
	// folds and ColFolds its column folds (else K-fold draws them, the
	// columns with Seed+1, or one object per fold without K).
	RowObjects, ColObjects int
	ColFolds               [][]int
}

// ParseSpec checks a scheme spec — "none", "loo", "lpo", "lgo", "lqo",
// "folds" or "kfold:K" — and returns its kind word and K (0 unless kfold).
//
// The object designs of a learner of pairs are "pairs" (each labelled pair
// left out: setting A) and "rows", "cols", "both" and "vertices", each
// optionally ":K" for K folds of objects (without K: one object per fold,
// or the folds given).
func ParseSpec(spec string) (name string, k int, err error) {
	switch spec {
	case "none", "loo", "lpo", "lgo", "lqo", "folds", "pairs", "rows", "cols", "both", "vertices":
		return spec, 0, nil
	}
	name, ks, ok := strings.Cut(spec, ":")
	if ok && (name == "kfold" || name == "rows" || name == "cols" || name == "both" || name == "vertices") {
		v, err := strconv.Atoi(ks)
		if err != nil || v < 2 {
			return "", 0, fmt.Errorf("%w: %s: %w", ErrScheme, spec, errNoK)
		}
		return name, v, nil
	}
	return "", 0, fmt.Errorf("%w: %q: want none, loo, kfold:K, lgo, lqo, lpo or folds (learners of pairs: pairs, rows, cols, both or vertices, each but pairs with :K)", ErrScheme, spec)
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
	if IsObjectSpec(name) {
		return objectScheme(spec, name, k, o)
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

// objectScheme builds an object design of a learner of pairs.
func objectScheme(spec, name string, k int, o SchemeOptions) (Scheme, error) {
	sc := Scheme{Kind: Objects, Name: spec, Design: learn.Design{Setting: name}}
	if o.Design != 0 || o.FoldMean {
		return Scheme{}, fmt.Errorf("%w: %s: basis designs and fold means are for learners on rows", ErrScheme, spec)
	}
	rows := name == "rows" || name == "both" || name == "vertices"
	cols := name == "cols" || name == "both"
	if name == "pairs" && (o.Folds != nil || o.ColFolds != nil) {
		return Scheme{}, fmt.Errorf("%w: pairs leaves each pair out alone: no folds", ErrScheme)
	}
	if (o.Folds != nil && !rows) || (o.ColFolds != nil && !cols) {
		return Scheme{}, fmt.Errorf("%w: %s: row folds go with rows, both or vertices, column folds with cols or both", ErrScheme, spec)
	}
	if k > 0 && (o.Folds != nil || o.ColFolds != nil) {
		return Scheme{}, fmt.Errorf("%w: %s and folds given: give the folds one way", ErrScheme, spec)
	}
	draw := func(given [][]int, n int, seed uint64, what string) ([][]int, error) {
		switch {
		case given != nil:
			if err := checkDesignFolds(what, given, n); err != nil {
				return nil, err
			}
			return given, nil
		case k > n:
			return nil, fmt.Errorf("%w: %s: %d folds of %d %s", ErrScheme, spec, k, n, what)
		case k > 0:
			return cv.KFold(n, k, seed)
		}
		return nil, nil
	}
	var err error
	if rows {
		if sc.Design.RowFolds, err = draw(o.Folds, o.RowObjects, o.Seed, "row objects"); err != nil {
			return Scheme{}, err
		}
		if o.Folds != nil {
			sc.Name += ",folds:" + o.FoldsName
		}
	}
	if cols {
		if sc.Design.ColFolds, err = draw(o.ColFolds, o.ColObjects, o.Seed+1, "column objects"); err != nil {
			return Scheme{}, err
		}
	}
	return sc, nil
}
