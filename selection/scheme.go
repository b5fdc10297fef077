package selection

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
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
// "folds", "kfold:K", "stratified-kfold:K", "group-kfold:K" or
// "repeated-kfold:KxR" — and returns its kind word (the part before the
// colon) and K (0 for the words without K). R, the repetitions of
// repeated k-fold, is NewScheme's to read.
//
// The object designs of a learner of pairs are "pairs" (each labelled pair
// left out: setting A) and "rows", "cols", "both" and "vertices", each
// optionally ":K" for K folds of objects (without K: one object per fold,
// or the folds given).
func ParseSpec(spec string) (name string, k int, err error) {
	name, k, _, err = parseSpec(spec)
	return name, k, err
}

// parseSpec is ParseSpec with R, the repetitions of "repeated-kfold:KxR"
// (0 for every other spec).
func parseSpec(spec string) (name string, k, reps int, err error) {
	switch spec {
	case "none", "loo", "lpo", "lgo", "lqo", "folds", "pairs", "rows", "cols", "both", "vertices":
		return spec, 0, 0, nil
	}
	name, ks, ok := strings.Cut(spec, ":")
	switch {
	case ok && name == "repeated-kfold":
		kp, rp, ok := strings.Cut(ks, "x")
		if !ok {
			return "", 0, 0, fmt.Errorf("%w: %s: write repeated-kfold:KxR, K folds repeated R times (e.g. repeated-kfold:5x3)", ErrScheme, spec)
		}
		v, err := strconv.Atoi(kp)
		if err != nil || v < 2 {
			return "", 0, 0, fmt.Errorf("%w: %s: %w", ErrScheme, spec, errNoK)
		}
		r, err := strconv.Atoi(rp)
		if err != nil || r < 1 {
			return "", 0, 0, fmt.Errorf("%w: %s: %w", ErrScheme, spec, errNoR)
		}
		if r > maxRepeats {
			return "", 0, 0, fmt.Errorf("%w: %s: at most %d repetitions", ErrScheme, spec, maxRepeats)
		}
		return name, v, r, nil
	case ok && (name == "kfold" || name == "stratified-kfold" || name == "group-kfold" ||
		name == "rows" || name == "cols" || name == "both" || name == "vertices"):
		v, err := strconv.Atoi(ks)
		if err != nil || v < 2 {
			return "", 0, 0, fmt.Errorf("%w: %s: %w", ErrScheme, spec, errNoK)
		}
		return name, v, 0, nil
	}
	return "", 0, 0, fmt.Errorf("%w: %q: want none, loo, kfold:K, stratified-kfold:K, repeated-kfold:KxR, group-kfold:K, lgo, lqo, lpo or folds (learners of pairs: pairs, rows, cols, both or vertices, each but pairs with :K)", ErrScheme, spec)
}

// errNoR is the rule for R in repeated-kfold:KxR.
var errNoR = errors.New("R, the number of repetitions, must be an integer ≥ 1")

// maxRepeats bounds R: every repetition is a cross-validation pass and its
// folds are held in memory (R·m indices).
const maxRepeats = 1000

// NewScheme builds the scheme of a spec (see ParseSpec) for the data in o:
// k-fold folds drawn with the seed (or a sparse design), leave-group-out over
// the groups (lqo: at least two groups of two rows or more), leave-pair-out
// (within groups when asked), or folds given by the caller. Cost O(m) (O(m²)
// for within-group pairs).
//
// The fold kinds scikit-learn users know, each drawn with o.Seed (package
// cv's PCG streams: the same seed gives the same folds on every platform):
//
//   - "stratified-kfold:K" (cv.StratifiedKFold): K folds that keep every
//     class's share — a class of n_c rows has ⌊n_c/K⌋ or ⌈n_c/K⌉ rows in
//     each fold. The classes are the distinct values of a one-column label
//     (integers, at most 50 of them: a label with more values, or a
//     non-integer one, looks like regression and is refused, pointing to
//     kfold:K) or, for several label columns, the column holding the +1 of
//     one-vs-all ±1 columns (exactly one +1 per row). A class of fewer than
//     K rows — which could not be in every fold; scikit-learn warns — is an
//     error: use fewer folds or kfold:K.
//   - "group-kfold:K" (cv.GroupKFold): whole groups of o.Groups (the CLI's
//     --qid) to K folds, the largest groups first, each to the fold with the
//     fewest rows so far (scikit-learn's GroupKFold; the seed orders groups
//     of equal size). No groups, or fewer than K, is an error.
//   - "repeated-kfold:KxR" (cv.RepeatedKFold): R independent K-fold splits
//     (scikit-learn's RepeatedKFold). Every row is held out R times, so the
//     scheme has Repeats = R and Folds holds the R partitions one after the
//     other (Repetitions); Select scores each repetition's pooled hold-out
//     predictions and takes the mean over the R values.
//
// All of them are of kind Folds: every learner with hold-outs
// (learn.CanHoldOut) cross-validates them exactly, by its shortcuts.
func NewScheme(spec string, o SchemeOptions) (Scheme, error) {
	name, k, reps, err := parseSpec(spec)
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
			return Scheme{}, fmt.Errorf("%w: %s needs group ids (the CLI's --qid column)", ErrScheme, spec)
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
	case "stratified-kfold":
		classes, names, err := classesOf(o.Labels, m)
		if err != nil {
			return Scheme{}, fmt.Errorf("%w: %s stratifies by class: %w; for a regression label use kfold:%d", ErrScheme, spec, err, k)
		}
		if err := enoughPerClass(classes, names, k); err != nil {
			return Scheme{}, fmt.Errorf("%w: %s: %w", ErrScheme, spec, err)
		}
		sc.Kind = Folds
		if sc.Folds, err = cv.StratifiedKFold(classes, k, o.Seed); err != nil {
			return Scheme{}, fmt.Errorf("%w: %s: %w", ErrScheme, spec, err)
		}
	case "group-kfold":
		if o.Groups == nil {
			return Scheme{}, fmt.Errorf("%w: %s puts whole groups in folds: it needs group ids (the CLI's --qid column)", ErrScheme, spec)
		}
		if len(o.Groups) != m {
			return Scheme{}, fmt.Errorf("%w: %s: %d group ids for %d rows", ErrScheme, spec, len(o.Groups), m)
		}
		sc.Kind = Folds
		if sc.Folds, err = cv.GroupKFold(o.Groups, k, o.Seed); err != nil {
			return Scheme{}, fmt.Errorf("%w: %s: %d folds of whole groups need at least %d groups: %w", ErrScheme, spec, k, k, err)
		}
	case "repeated-kfold":
		if k > m {
			return Scheme{}, fmt.Errorf("%w: %s: %d folds of %d rows", ErrScheme, spec, k, m)
		}
		sc.Kind, sc.Repeats = Folds, reps
		if sc.Folds, err = cv.RepeatedKFold(m, k, reps, o.Seed); err != nil {
			return Scheme{}, fmt.Errorf("%w: %s: %w", ErrScheme, spec, err)
		}
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

// classesOf returns the class of every row for stratification, as codes in
// order of first appearance, and each code's name for messages: the
// distinct values of a one-column label (integers, at most maxClasses of
// them), or for several columns the column of each row's +1 in one-vs-all
// ±1 columns (exactly one +1 per row, −1 elsewhere). O(m·t).
func classesOf(y *mat.Dense, m int) (classes []int, names []string, err error) {
	if y == nil {
		return nil, nil, errors.New("no labels")
	}
	r, t := y.Dims()
	if r != m {
		return nil, nil, fmt.Errorf("%d labels for %d rows", r, m)
	}
	classes = make([]int, m)
	if t > 1 {
		if t > maxClasses {
			return nil, nil, fmt.Errorf("%d label columns: more than %d classes", t, maxClasses)
		}
		for c := 0; c < t; c++ {
			names = append(names, fmt.Sprintf("of column %d", c+1))
		}
		for i := 0; i < m; i++ {
			row, plus := y.RawRowView(i), -1
			for c, v := range row {
				switch {
				case v == 1 && plus < 0:
					plus = c
				case v != -1:
					return nil, nil, fmt.Errorf("row %d, column %d is %v: %d label columns are stratified as one-vs-all ±1 columns, one +1 per row", i+1, c+1, v, t)
				}
			}
			if plus < 0 {
				return nil, nil, fmt.Errorf("row %d has no +1: %d label columns are stratified as one-vs-all ±1 columns, one +1 per row", i+1, t)
			}
			classes[i] = plus
		}
		return classes, names, nil
	}
	code := map[float64]int{}
	for i := 0; i < m; i++ {
		v := y.At(i, 0)
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("row %d: the label %v is not an integer class", i+1, v)
		}
		c, ok := code[v]
		if !ok {
			if len(code) == maxClasses {
				return nil, nil, fmt.Errorf("the label has more than %d distinct values", maxClasses)
			}
			c = len(code)
			code[v] = c
			names = append(names, strconv.FormatFloat(v, 'g', -1, 64))
		}
		classes[i] = c
	}
	return classes, names, nil
}

// maxClasses is the most distinct label values stratification takes as
// classes: more look like a regression label.
const maxClasses = 50

// enoughPerClass refuses K folds when a class has fewer than K rows, which
// stratification could not put in every fold (scikit-learn warns).
func enoughPerClass(classes []int, names []string, k int) error {
	count := make([]int, len(names))
	for _, c := range classes {
		count[c]++
	}
	small := 0
	for c, n := range count {
		if n < count[small] {
			small = c
		}
	}
	switch n := count[small]; {
	case n < 2:
		return fmt.Errorf("class %s has %d row: stratification needs at least 2 rows per class; use kfold:%d", names[small], n, k)
	case n < k:
		return fmt.Errorf("class %s has %d rows, fewer than the %d folds: it cannot be in every fold; use stratified-kfold:%d (or fewer folds), or kfold:%d", names[small], n, k, n, k)
	}
	return nil
}

// Repetitions returns the folds of each repetition of the scheme: for a
// repeated k-fold (Repeats = R > 1) the R consecutive runs of len(Folds)/R
// folds of Folds, each a partition of the rows; otherwise one, Folds
// itself. The runs share Folds' storage. O(R).
func (sc Scheme) Repetitions() [][][]int {
	if sc.Repeats <= 1 {
		return [][][]int{sc.Folds}
	}
	k := len(sc.Folds) / sc.Repeats
	out := make([][][]int, sc.Repeats)
	for r := range out {
		out[r] = sc.Folds[r*k : (r+1)*k : (r+1)*k]
	}
	return out
}

// checkRepetitions checks the folds of every repetition (cv.Check) and that
// a repeated scheme's folds split into its Repeats runs.
func checkRepetitions(sc Scheme, m int) error {
	if sc.Repeats > 1 && len(sc.Folds)%sc.Repeats != 0 {
		return fmt.Errorf("%w: %s: %d folds do not split into %d repetitions", ErrScheme, sc.Name, len(sc.Folds), sc.Repeats)
	}
	for r, folds := range sc.Repetitions() {
		if err := cv.Check(folds, m); err != nil {
			if sc.Repeats > 1 {
				return fmt.Errorf("%w: repetition %d: %w", ErrScheme, r+1, err)
			}
			return fmt.Errorf("%w: %w", ErrScheme, err)
		}
	}
	return nil
}

// repeatMean is the CV value of a repeated scheme: the mean of the
// repetitions' values, summed in order (one value: itself).
func repeatMean(values []float64) float64 {
	sum := values[0]
	for _, v := range values[1:] {
		sum += v
	}
	return sum / float64(len(values))
}

// repetitionErr names the repetition of a repeated scheme an error came from.
func repetitionErr(sc Scheme, r int, err error) error {
	if sc.Repeats > 1 {
		return fmt.Errorf("repetition %d: %w", r+1, err)
	}
	return err
}

// value scores the predictions of one repetition whose folds are folds:
// the pooled value, or with the scheme's FoldMean the mean of the folds'
// values; indistinct as score reports it.
func (c *cvPredictions) value(meas measure.Measure, y *mat.Dense, q []int, sc Scheme, folds [][]int) (v float64, indistinct bool, err error) {
	v, indistinct, err = c.score(meas, y, q)
	if err == nil && sc.FoldMean {
		v, err = c.foldMean(meas, y, q, folds)
	}
	return v, indistinct, err
}

// crossValidate is Select's cross-validation at one λ by leave-one-out or
// folds: the predictions of the solution s — with the tie tolerances
// measured against the twin's solution s2, when given — and their value.
// A repeated scheme predicts and scores each repetition on its own: the
// value is the mean of the R values, indistinct holds when it holds for
// every repetition, and the predictions returned are the first
// repetition's. Cost: R times one repetition's.
func crossValidate(s, s2 learn.Solution, sc Scheme, y *mat.Dense, meas measure.Measure, q []int) (cp *cvPredictions, v float64, indistinct bool, err error) {
	pt, err := crossValidatePoint(s, s2, sc, y, meas, q, false)
	if err != nil {
		return nil, 0, false, err
	}
	return pt.cp, pt.v, pt.indistinct, nil
}

// cvPoint is crossValidatePoint's result at one λ.
type cvPoint struct {
	cp         *cvPredictions // the first repetition's predictions
	v          float64        // the value: the mean over the repetitions
	indistinct bool
	// spread holds the values whose spread is the point's standard error
	// (spreadValues): every repetition's per-fold values, one after the
	// other, or leave-one-out's per-row losses.
	spread []float64
	// perOutput is each output's value alone (outputValues), the mean over
	// the repetitions; nil unless asked.
	perOutput []float64
}

// crossValidatePoint is crossValidate with the spread of the point's
// values and, with perOutput, the value of each output alone.
func crossValidatePoint(s, s2 learn.Solution, sc Scheme, y *mat.Dense, meas measure.Measure, q []int, perOutput bool) (cvPoint, error) {
	reps := sc.Repetitions()
	values := make([]float64, len(reps))
	out := cvPoint{indistinct: true}
	var outputs [][]float64 // per repetition
	for r, folds := range reps {
		one := sc
		one.Folds, one.Repeats = folds, 0
		c, err := predictWithNoise(s, s2, one, y)
		if err != nil {
			return cvPoint{}, repetitionErr(sc, r, err)
		}
		vr, ind, err := c.value(meas, y, q, sc, folds)
		if err != nil {
			return cvPoint{}, repetitionErr(sc, r, err)
		}
		if r == 0 {
			out.cp = c
		}
		values[r], out.indistinct = vr, out.indistinct && ind
		out.spread = append(out.spread, c.spreadValues(meas, y, q, sc, folds)...)
		if perOutput {
			v, err := c.outputValues(meas, y, q, sc, folds)
			if err != nil {
				return cvPoint{}, repetitionErr(sc, r, err)
			}
			outputs = append(outputs, v)
		}
	}
	out.v = repeatMean(values)
	out.perOutput = outputMeans(outputs)
	return out, nil
}

// outputMeans returns each output's mean over the repetitions' values
// (nil for none).
func outputMeans(reps [][]float64) []float64 {
	if len(reps) == 0 {
		return nil
	}
	out := make([]float64, len(reps[0]))
	for c := range out {
		col := make([]float64, len(reps))
		for r := range reps {
			col[r] = reps[r][c]
		}
		out[c] = repeatMean(col)
	}
	return out
}

// outputValues scores each output's predictions alone as value scores
// them all — pooled, or the mean over the folds with the scheme's FoldMean
// — ties within that output's tolerance. For a measure of one output at a
// time (not Multiclass) the mean of the t values is the value of all
// outputs together (measure.Score's mean over outputs). O(m·t) to copy
// the columns plus the measure's per output.
func (c *cvPredictions) outputValues(meas measure.Measure, y *mat.Dense, q []int, sc Scheme, folds [][]int) ([]float64, error) {
	m, t := y.Dims()
	out := make([]float64, t)
	for j := range out {
		oc := &cvPredictions{p: mat.NewDense(m, 1, mat.Col(nil, j, c.p)), covered: c.covered}
		if c.tol != nil {
			oc.tol = []float64{c.tol[j]}
		}
		v, _, err := oc.value(meas, mat.NewDense(m, 1, mat.Col(nil, j, y)), q, sc, folds)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", j, err)
		}
		out[j] = v
	}
	return out, nil
}

// perOutputRepeated is perOutput for the permutation test over the
// scheme's repetitions: each output's mean over the repetitions of its
// value on that repetition's predictions.
func perOutputRepeated(s learn.Solution, sc Scheme, y *mat.Dense, meas measure.Measure, q []int) ([]float64, error) {
	reps := sc.Repetitions()
	_, t := y.Dims()
	values := make([][]float64, t) // per output, per repetition
	for r, folds := range reps {
		one := sc
		one.Folds, one.Repeats = folds, 0
		cp, err := predict(s, one, y)
		if err == nil {
			var v []float64
			if v, err = perOutput(meas, y, cp, q); err == nil {
				for c := range values {
					values[c] = append(values[c], v[c])
				}
			}
		}
		if err != nil {
			return nil, repetitionErr(sc, r, err)
		}
	}
	out := make([]float64, t)
	for c := range out {
		out[c] = repeatMean(values[c])
	}
	return out, nil
}
