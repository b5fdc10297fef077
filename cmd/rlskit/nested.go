package main

import (
	"fmt"
	"io"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// nestedOuter is fit --outer-folds for a learner on rows: the nested
// cross-validation of the same search (selection.Nested: the kernel grid ×
// λ chosen by the inner scheme on every outer training part, from the
// hold-outs of one factorization per kernel setting; by the choice rule
// of the search done, search.Choose, and refused with a λ per output) and
// its JSON "outer" (summary.Nested) with the interval at
// selection.DefaultLevel.
func nestedOuter(f *fitFlags, p *plan.Plan, d *dataset.Data, prob selection.Problem, scheme selection.Scheme, search *selection.SearchResult, prog *progressLine) (*summary.Outer, error) {
	folds, err := outerFolds(f, p, d)
	if err != nil {
		return nil, err
	}
	res, err := selection.Nested(prob, selection.Settings{Kernels: p.Kernels, GammaScale: p.GammaScale, Lambdas: p.Lambdas, Scheme: scheme,
		Measure: p.Measure, Options: selection.Options{Queries: d.Queries}, Progress: prog.observe,
		Choose: search.Choose, LambdaPerOutput: search.PerOutput != nil}, folds, selection.DefaultLevel)
	if err != nil {
		return nil, fmt.Errorf("--outer-folds %s: %w", f.OuterFoldsArg, err)
	}
	return summary.Nested(res), nil
}

// outerFolds returns the outer folds of --outer-folds: read from its file
// (one fold per line, as --folds), or K folds drawn with --seed — of whole
// groups (cv.GroupKFold over --qid) when the learner learns from queries
// or the inner scheme leaves groups out (lgo, lqo, group-kfold), so that
// no query is split between an outer fold and its training part; of rows
// (cv.KFold) otherwise, which with --cv kfold:K and the same K are the
// inner folds themselves: the inner CV of each outer part is then over the
// other K − 1 outer folds, Bates, Hastie & Tibshirani's (2024) scheme.
func outerFolds(f *fitFlags, p *plan.Plan, d *dataset.Data) ([][]int, error) {
	if f.OuterFoldsFile != "" {
		folds, err := readFile(f.OuterFoldsFile, func(r io.Reader) ([][]int, error) {
			return dataset.ReadFolds(r, f.OuterFoldsFile, d.Rows())
		})
		if err != nil {
			return nil, fmt.Errorf("--outer-folds %s: %w", f.OuterFoldsFile, err)
		}
		return folds, nil
	}
	k := f.OuterFolds
	byGroup := p.Learner.Needs.Has(learn.NeedsGroups) || p.CVKind == "lgo" || p.CVKind == "lqo" || p.CVKind == "group-kfold"
	var folds [][]int
	var err error
	if byGroup && d.Queries != nil {
		folds, err = cv.GroupKFold(d.Queries, k, f.Seed)
	} else {
		folds, err = cv.KFold(d.Rows(), k, f.Seed)
	}
	if err != nil {
		return nil, fmt.Errorf("--outer-folds %d: %w", k, err)
	}
	return folds, nil
}

// nestedPairs is fit --outer-folds K for a learner of pairs on complete
// data: selection.NestedDesign of the same search st (the --cv setting's
// design inside) with K outer folds of the objects the setting holds out,
// drawn as the inner folds are (cv.KFold with --seed for the rows,
// --seed + 1 for the columns): rows, cols, or for both every row fold with
// every column fold as an outer block.
func nestedPairs(f *fitFlags, p *plan.PairPlan, in *learn.Input, st selection.Settings, m, q int, prog *progressLine) (*summary.Outer, error) {
	k := f.OuterFolds
	outer := learn.Design{Setting: string(p.Setting)}
	var err error
	if outer.Setting != "cols" {
		if outer.RowFolds, err = cv.KFold(m, k, f.Seed); err != nil {
			return nil, fmt.Errorf("--outer-folds %d: %d row objects: %w", k, m, err)
		}
	}
	if outer.Setting != "rows" {
		if outer.ColFolds, err = cv.KFold(q, k, f.Seed+1); err != nil {
			return nil, fmt.Errorf("--outer-folds %d: %d column objects: %w", k, q, err)
		}
	}
	st.Progress = prog.observe
	res, err := selection.NestedDesign(selection.Problem{Learner: p.Learner, Input: in}, st, outer, selection.DefaultLevel)
	if err != nil {
		return nil, fmt.Errorf("--outer-folds %d: %w", k, err)
	}
	return summary.Nested(res), nil
}
