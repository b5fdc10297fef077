package plan

import (
	"errors"
	"fmt"

	"github.com/rlskit/rlskit/learn"
)

// ErrRankInterval refuses --interval for a ranker (globalrank, queryrank,
// prefrank): their loss is a sum over differences of scores, ((y_i − y_j) −
// (f_i − f_j))² over all pairs, the pairs of each query, or the edges of a
// preference graph (Pahikkala et al. 2009), which adding a constant to every
// label (each query's labels) leaves unchanged — the model trained on y + c
// is the model trained on y (interval's TestRankerScoresHaveNoLevel checks
// it) — so the scores have no fixed level, the hold-out residual y − f moves
// with the labels' level, and an interval for y built from it would be off
// by that level. A ranker's score orders rows; it does not predict y.
var ErrRankInterval = errors.New("a ranker's loss sees only differences of scores, so adding a constant to every label (per query for queryrank) gives the same model: its scores have no fixed level, the residual y − f is not a prediction error, and no interval for y can be built from it (a ranker's score orders the rows)")

// IntervalValues are the values of --interval: the jackknife+ (with --cv
// loo) and CV+ (with a partition of the rows into folds) of Barber, Candès,
// Ramdas & Tibshirani (2021).
var IntervalValues = []string{"jackknife+", "cv+"}

// planInterval checks --interval against the learner and the CV scheme
// (cvName as given or defaulted, kind its parsed name): the jackknife+
// reads the leave-one-out models (--cv loo), CV+ the fold models of a
// partition of the rows (kfold:K, stratified-kfold:K, group-kfold:K, lgo,
// lqo or --folds FILE, whose folds must partition the rows). Only a
// regression learner on rows (squared loss, not greedy) in memory with the
// direct solver, or --stream with cv+ and kfold:K or jackknife+ and loo
// (package stream's fold and leave-one-out models), records intervals (with --intercept and --weights too:
// every hold-out model refits them), not for --one-vs-all or --positive
// (classes), and a sparse model with --basis-holdout keep (the hold-out
// models keep the basis). A ranker is refused with ErrRankInterval. Every
// refusal names the flag and its value.
func planInterval(f *Flags, le *learn.Descriptor, cvName, kind string) error {
	switch f.Interval {
	case "":
		return nil
	case "jackknife+", "cv+":
	default:
		return fmt.Errorf("--interval %q: want jackknife+ (with --cv loo) or cv+ (with --cv kfold:K, stratified-kfold:K, group-kfold:K, lgo, lqo or --folds FILE)", f.Interval)
	}
	iv := "--interval " + f.Interval
	switch {
	case le.Loss == learn.AllPairs || le.Loss == learn.QueryPairs || le.Loss == learn.GraphPairs:
		return fmt.Errorf("%s: prediction intervals are for a regression learner (rls), not --learner %s: %w", iv, le.Name, ErrRankInterval)
	case le.Loss != learn.Squared || le.Takes(learn.ParamSelect):
		return fmt.Errorf("%s: prediction intervals are for a regression learner (rls), not --learner %s", iv, le.Name)
	case f.Stream && f.Interval == "cv+" && kind != "kfold":
		return fmt.Errorf("%s with --stream: the streamed fit records CV+ from the fold models of --cv kfold:K (its statistics per fold), not --cv %s: give --cv kfold:K (or --interval jackknife+ --cv loo)", iv, cvName)
	case f.Solver != "direct":
		return fmt.Errorf("%s: needs the exact hold-out models of --solver direct, not --solver %s", iv, f.Solver)
	case f.OneVsAll || f.Positive != "":
		return fmt.Errorf("%s: prediction intervals are for a numeric label, not classes (--one-vs-all, --positive)", iv)
	case f.BasisDesign == 3:
		return fmt.Errorf("%s: not with --basis-design 3 (a new basis per fold)", iv)
	case !f.Stream && (f.BasisHoldOut == "remove" || f.BasisHoldOut == "skip"): // a streamed basis is fixed: its fold models keep it
		return fmt.Errorf("%s: the hold-out models keep the sparse basis: give --basis-holdout keep, not %s", iv, f.BasisHoldOut)
	}
	if f.Interval == "jackknife+" {
		if cvName != "loo" {
			return fmt.Errorf("%s reads the leave-one-out models: give --cv loo, not --cv %s (or --interval cv+ with k folds)", iv, cvName)
		}
		return nil
	}
	switch kind {
	case "kfold", "stratified-kfold", "group-kfold", "lgo", "lqo", "folds":
		return nil
	case "loo":
		return fmt.Errorf("%s with --cv loo is the jackknife+: give --interval jackknife+, or --cv kfold:K", iv)
	}
	return fmt.Errorf("%s needs the folds of a partition of the rows: --cv kfold:K, stratified-kfold:K, group-kfold:K, lgo, lqo or --folds FILE, not --cv %s", iv, cvName)
}
