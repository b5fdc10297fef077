// Package cv generates and checks cross-validation designs for the exact
// hold-out shortcuts of the learners: folds of rows for HoldOut (k-fold,
// stratified k-fold, repeated k-fold, leave-group-out, group k-fold,
// user-given folds) and pairs
// of rows for LeavePairOut, together with the pairwise score of leave-pair-out
// predictions (LPO-AUC, LPO c-index; Pahikkala et al. 2008).
//
// A fold is a slice of 0-based row indices; a design is a [][]int of folds.
// Every random design is drawn from a PCG generator (math/rand/v2) seeded with
// the caller's seed and driven only through its specified 64-bit output
// stream, so a seed gives the same folds on every platform and Go release.
//
// Errors wrap the sentinels ErrFolds and ErrPairs (and measure.ErrShape for
// mismatched lengths); test for them with errors.Is.
package cv

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

var (
	// ErrFolds is returned (wrapped) for invalid fold parameters or folds.
	ErrFolds = errors.New("cv: invalid folds")
	// ErrPairs is returned (wrapped) when there are too few pairs to score.
	ErrPairs = errors.New("cv: too few pairs")
)

// Stream selectors (second PCG seed word) keep the generators of the
// different designs independent for the same user seed.
const (
	streamKFold      = 0x9e3779b97f4a7c15
	streamRepeat     = 0xbf58476d1ce4e5b9
	streamGroups     = 0x94d049bb133111eb
	streamStratified = 0xd6e8feb86659fd93
)

// uintn returns a uniform integer in [0,n), n > 0, from r's 64-bit stream
// (Lemire's multiply-and-reject method; exact and platform independent).
func uintn(r *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// shuffle permutes s uniformly at random (Fisher–Yates) with r.
func shuffle(r *rand.PCG, s []int) {
	for i := len(s) - 1; i > 0; i-- {
		j := int(uintn(r, uint64(i+1)))
		s[i], s[j] = s[j], s[i]
	}
}

// byLabel collects the rows 0..len(of)-1 into k folds by their fold number
// of[i] in [0,k), each fold ascending. O(m + k).
func byLabel(of []int, k int) [][]int {
	sizes := make([]int, k)
	for _, f := range of {
		sizes[f]++
	}
	folds := make([][]int, k)
	for f, n := range sizes {
		folds[f] = make([]int, 0, n)
	}
	for i, f := range of {
		folds[f] = append(folds[f], i)
	}
	return folds
}

// KFold splits the rows 0..m-1 into k folds after a random permutation drawn
// with seed: the first m mod k folds hold ⌊m/k⌋+1 rows, the others ⌊m/k⌋, so
// the sizes differ by at most one and the folds partition the rows. Each fold
// is sorted ascending. The same seed gives the same folds on every platform.
// k < 2 or k > m is an error wrapping ErrFolds. O(m) time and memory.
func KFold(m, k int, seed uint64) ([][]int, error) {
	if k < 2 || k > m {
		return nil, fmt.Errorf("%w: k = %d for %d rows", ErrFolds, k, m)
	}
	perm := make([]int, m)
	for i := range perm {
		perm[i] = i
	}
	shuffle(rand.NewPCG(seed, streamKFold), perm)
	of := make([]int, m)
	q, extra := m/k, m%k
	p := 0
	for f := 0; f < k; f++ {
		n := q
		if f < extra {
			n++
		}
		for _, i := range perm[p : p+n] {
			of[i] = f
		}
		p += n
	}
	return byLabel(of, k), nil
}

// RepeatedKFold returns reps independent KFold splits of the rows 0..m-1 into
// k folds each, concatenated: folds[r*k:(r+1)*k] is repetition r, a partition
// of the rows. The seeds of the repetitions are derived deterministically from
// seed. Since every row is held out reps times, evaluate each repetition on
// its own (the concatenation is not Covered for reps > 1). k < 2, k > m or
// reps < 1 is an error wrapping ErrFolds. O(reps·m) time and memory.
func RepeatedKFold(m, k, reps int, seed uint64) ([][]int, error) {
	if k < 2 || k > m {
		return nil, fmt.Errorf("%w: k = %d for %d rows", ErrFolds, k, m)
	}
	if reps < 1 {
		return nil, fmt.Errorf("%w: reps = %d", ErrFolds, reps)
	}
	seeds := rand.NewPCG(seed, streamRepeat)
	folds := make([][]int, 0, reps*k)
	for r := 0; r < reps; r++ {
		f, err := KFold(m, k, seeds.Uint64())
		if err != nil {
			return nil, err
		}
		folds = append(folds, f...)
	}
	return folds, nil
}

// groupIDs numbers the distinct values of groups in order of first
// appearance: id[i] is the number of groups[i]'s value; n is the count.
// O(m) expected time.
func groupIDs(groups []int) (id []int, n int) {
	num := make(map[int]int)
	id = make([]int, len(groups))
	for i, g := range groups {
		v, ok := num[g]
		if !ok {
			v = len(num)
			num[g] = v
		}
		id[i] = v
	}
	return id, len(num)
}

// LeaveGroupOut returns one fold per distinct value of groups (groups[i] is
// the group of row i), in order of first appearance, each holding the rows of
// its group in ascending order. Fewer than 2 groups is an error wrapping
// ErrFolds. O(m) expected time and memory.
func LeaveGroupOut(groups []int) ([][]int, error) {
	id, n := groupIDs(groups)
	if n < 2 {
		return nil, fmt.Errorf("%w: %d groups in %d rows", ErrFolds, n, len(groups))
	}
	return byLabel(id, n), nil
}

// GroupKFold assigns whole groups (groups[i] is the group of row i) to k
// folds, so that no group is split, balancing the folds' sizes as
// scikit-learn's GroupKFold does: the groups are taken largest first, and
// each goes to the fold with the fewest rows so far (the first such fold on
// ties) — the longest-processing-time rule of Graham (1969), whose largest
// fold is at most (4/3 − 1/(3k)) times the smallest possible largest fold,
// and whose largest and smallest folds differ by at most the size of one
// group. The seed orders groups of equal size (a PCG shuffle of the groups
// in order of first appearance, then a stable sort by size): when all sizes
// differ, every seed gives the same folds — scikit-learn's. The folds
// partition the rows, none is empty, and the rows of each fold are
// ascending. k < 2 or k greater than the number of groups is an error
// wrapping ErrFolds. O(m + g log g + g·k) time for g groups, O(m) memory.
func GroupKFold(groups []int, k int, seed uint64) ([][]int, error) {
	id, n := groupIDs(groups)
	if k < 2 || k > n {
		return nil, fmt.Errorf("%w: k = %d for %d groups", ErrFolds, k, n)
	}
	size := make([]int, n)
	for _, g := range id {
		size[g]++
	}
	order := make([]int, n)
	for g := range order {
		order[g] = g
	}
	shuffle(rand.NewPCG(seed, streamGroups), order)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	foldOf := make([]int, n)
	load := make([]int, k)
	for _, g := range order {
		best := 0
		for f := 1; f < k; f++ {
			if load[f] < load[best] {
				best = f
			}
		}
		foldOf[g] = best
		load[best] += size[g]
	}
	of := make([]int, len(id))
	for i, g := range id {
		of[i] = foldOf[g]
	}
	return byLabel(of, k), nil
}

// StratifiedKFold splits the rows 0..m-1, m = len(classes), into k folds
// that keep each class's share, as scikit-learn's StratifiedKFold (shuffle
// on) defines them: classes[i] is the class of row i (any integer code);
// the classes, in order of first appearance, are laid one after the other
// and their rows dealt to the folds in turn (fold 0, 1, …, k−1, 0, …) —
// the round robin over the sorted labels by which scikit-learn allocates
// its folds — so a class of n_c rows puts ⌊n_c/k⌋ or ⌈n_c/k⌉ rows in every
// fold, and the fold sizes differ by at most one. Which rows of a class go
// to which fold is random: each class's rows are shuffled (Fisher–Yates,
// one PCG stream seeded by seed for all classes) before they are dealt. A
// class of fewer than k rows is missing from some folds (scikit-learn
// warns; selection.NewScheme refuses). The folds partition the rows, none
// is empty, and each is ascending. k < 2 or k > m is an error wrapping
// ErrFolds. O(m) expected time and memory.
func StratifiedKFold(classes []int, k int, seed uint64) ([][]int, error) {
	m := len(classes)
	if k < 2 || k > m {
		return nil, fmt.Errorf("%w: k = %d for %d rows", ErrFolds, k, m)
	}
	id, n := groupIDs(classes)
	r := rand.NewPCG(seed, streamStratified)
	of := make([]int, m)
	next := 0 // the fold the next row is dealt to
	for _, rows := range byLabel(id, n) {
		shuffle(r, rows)
		for _, i := range rows {
			of[i] = next
			if next++; next == k {
				next = 0
			}
		}
	}
	return byLabel(of, k), nil
}

// Check validates user-given folds for a data set of m rows: there must be at
// least one fold, each fold non-empty, every index in [0,m), no index twice
// (within a fold or across folds), and no fold holding all m rows (nothing
// would be left to train on). The folds need not cover all rows. The error
// wraps ErrFolds and names the offending fold and index. O(m + n) time for n
// indices in all, O(m) memory.
func Check(folds [][]int, m int) error {
	if m < 0 {
		return fmt.Errorf("%w: negative row count %d", ErrFolds, m)
	}
	if len(folds) == 0 {
		return fmt.Errorf("%w: no folds", ErrFolds)
	}
	seen := make([]int, m) // fold number + 1, 0 if unseen
	for f, fold := range folds {
		if len(fold) == 0 {
			return fmt.Errorf("%w: fold %d is empty", ErrFolds, f)
		}
		for p, i := range fold {
			if i < 0 || i >= m {
				return fmt.Errorf("%w: fold %d, position %d: index %d outside [0,%d)", ErrFolds, f, p, i, m)
			}
			if g := seen[i] - 1; g == f {
				return fmt.Errorf("%w: fold %d, position %d: index %d repeated within the fold", ErrFolds, f, p, i)
			} else if g >= 0 {
				return fmt.Errorf("%w: fold %d, position %d: index %d already in fold %d", ErrFolds, f, p, i, g)
			}
			seen[i] = f + 1
		}
		if len(fold) == m {
			return fmt.Errorf("%w: fold %d holds all %d rows", ErrFolds, f, m)
		}
	}
	return nil
}

// Covered reports whether every row 0..m-1 is in exactly one fold and the
// folds hold no other index, so that cross-validation yields one held-out
// prediction for every row. O(m + n) time for n indices in all, O(m) memory.
func Covered(folds [][]int, m int) bool {
	if m < 0 {
		return false
	}
	seen := make([]bool, m)
	n := 0
	for _, fold := range folds {
		for _, i := range fold {
			if i < 0 || i >= m || seen[i] {
				return false
			}
			seen[i] = true
			n++
		}
	}
	return n == m
}

// Complement returns the rows of 0…m-1 not in h, ascending: the training
// rows of a hold-out set h. O(m + |h|).
func Complement(h []int, m int) []int {
	in := make([]bool, m)
	for _, i := range h {
		if i >= 0 && i < m {
			in[i] = true
		}
	}
	var out []int
	for i := 0; i < m; i++ {
		if !in[i] {
			out = append(out, i)
		}
	}
	return out
}

// Pair is a pair of rows held out together: the learners' pair type.
type Pair = learn.Pair

// DifferentLabelPairs returns all pairs (i, j), i < j, with y[i] != y[j],
// ordered by i, then j: the leave-pair-out design for the c-index of a
// real-valued label. A NaN label differs from every label. O(m²) time,
// O(#pairs) memory.
func DifferentLabelPairs(y []float64) []Pair {
	n := 0
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if y[i] != y[j] {
				n++
			}
		}
	}
	pairs := make([]Pair, 0, n)
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if y[i] != y[j] {
				pairs = append(pairs, Pair{I: i, J: j})
			}
		}
	}
	return pairs
}

// PositiveNegativePairs returns all pairs (i, j) with y[i] > 0 (positive) and
// y[j] <= 0 (negative), ordered by i, then j: the leave-pair-out design for
// LPO-AUC. I is always the positive row. Rows with a NaN label are in no
// pair. O(m + #pairs) time and memory.
func PositiveNegativePairs(y []float64) []Pair {
	var pos, neg []int
	for i, v := range y {
		switch {
		case v > 0:
			pos = append(pos, i)
		case v <= 0:
			neg = append(neg, i)
		}
	}
	pairs := make([]Pair, 0, len(pos)*len(neg))
	for _, i := range pos {
		for _, j := range neg {
			pairs = append(pairs, Pair{I: i, J: j})
		}
	}
	return pairs
}

// PairsWithinGroups returns all pairs (i, j), i < j, of rows in the same group
// (groups[i] == groups[j]) with y[i] != y[j], ordered by i, then j: the
// leave-pair-out design for a ranking measure within queries. Labels and groups
// of different lengths are an error wrapping measure.ErrShape. O(m + Σ_g m_g²) time for groups of m_g rows,
// O(m + #pairs) memory.
func PairsWithinGroups(y []float64, groups []int) ([]Pair, error) {
	if len(groups) != len(y) {
		return nil, fmt.Errorf("cv: PairsWithinGroups: %d labels but %d groups: %w", len(y), len(groups), measure.ErrShape)
	}
	id, n := groupIDs(groups)
	members := byLabel(id, n)  // ascending rows of each group
	pos := make([]int, len(y)) // position of row i in members[id[i]]
	for _, rows := range members {
		for p, i := range rows {
			pos[i] = p
		}
	}
	count := 0
	for i := range y {
		for _, j := range members[id[i]][pos[i]+1:] {
			if y[i] != y[j] {
				count++
			}
		}
	}
	pairs := make([]Pair, 0, count)
	for i := range y {
		for _, j := range members[id[i]][pos[i]+1:] {
			if y[i] != y[j] {
				pairs = append(pairs, Pair{I: i, J: j})
			}
		}
	}
	return pairs, nil
}

// PairScore returns the share of pairs ordered like their labels, given the
// labels y and, for pairs[n] = (i, j), the held-out predictions pi[n] for row
// i and pj[n] for row j (as from LeavePairOut with one output). A pair with
// yi != yj counts 1 if pi−pj has the sign of yi−yj, 1/2 if pi == pj, and 0
// otherwise (also when a prediction is NaN); pairs with yi == yj, or a NaN
// label, are skipped. The score is the mean over the counted pairs, computed
// exactly from integer counts: the LPO-AUC (pairs from PositiveNegativePairs)
// or LPO c-index (pairs from DifferentLabelPairs) of Pahikkala et al. 2008.
//
// No counted pair is an error wrapping ErrPairs; len(pi) or len(pj) different
// from len(pairs), or a pair index outside [0,len(y)), is an error wrapping
// measure.ErrShape. O(#pairs) time, O(1) memory.
func PairScore(pairs []Pair, y, pi, pj []float64) (float64, error) {
	return PairScoreWithin(pairs, y, pi, pj, 0)
}

// PairScoreWithin is PairScore with predictions that differ by at most tol
// counted as ties: the tolerance of a computation whose rounding error is
// bounded by tol/2 per prediction.
func PairScoreWithin(pairs []Pair, y, pi, pj []float64, tol float64) (float64, error) {
	if len(pi) != len(pairs) || len(pj) != len(pairs) {
		return 0, fmt.Errorf("%w: cv: %d pairs but %d and %d predictions", measure.ErrShape, len(pairs), len(pi), len(pj))
	}
	var counted, halves uint64 // halves: 2 per concordant pair, 1 per tie
	for n, p := range pairs {
		if p.I < 0 || p.I >= len(y) || p.J < 0 || p.J >= len(y) {
			return 0, fmt.Errorf("%w: cv: pair %d (%d, %d) outside %d labels", measure.ErrShape, n, p.I, p.J, len(y))
		}
		yi, yj := y[p.I], y[p.J]
		if !(yi < yj || yi > yj) {
			continue // equal or NaN labels
		}
		counted++
		a, b := pi[n], pj[n]
		switch {
		case a == b || math.Abs(a-b) <= tol:
			halves++
		case (yi > yj && a > b) || (yi < yj && a < b):
			halves += 2
		}
	}
	if counted == 0 {
		return 0, fmt.Errorf("%w: no pair of %d has different labels", ErrPairs, len(pairs))
	}
	return float64(halves) / float64(2*counted), nil
}
