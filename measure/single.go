package measure

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// checkPair validates a label/prediction pair: the lengths must agree
// (else ErrShape) and be positive (else ErrUndefined).
func checkPair(y, p []float64) error {
	if len(y) != len(p) {
		return fmt.Errorf("%w: %d labels, %d predictions", ErrShape, len(y), len(p))
	}
	if len(y) == 0 {
		return fmt.Errorf("%w: no examples", ErrUndefined)
	}
	return nil
}

// checkNaN reports an error wrapping ErrUndefined naming the first index at
// which y or p holds a NaN. Ranking measures need a total order, which NaN
// breaks.
func checkNaN(y, p []float64) error {
	for i := range y {
		if math.IsNaN(y[i]) {
			return fmt.Errorf("%w: NaN label at index %d", ErrUndefined, i)
		}
		if math.IsNaN(p[i]) {
			return fmt.Errorf("%w: NaN prediction at index %d", ErrUndefined, i)
		}
	}
	return nil
}

// MSE returns the mean squared error
//
//	MSE = (1/m) Σ_i (y_i − p_i)²
//
// of the predictions p against the labels y. NaN and Inf values propagate into
// the result. It returns an error wrapping ErrShape if the lengths differ and
// ErrUndefined if they are empty. Time O(m), no allocation.
func MSE(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	var s float64
	for i, yi := range y {
		d := yi - p[i]
		s += d * d
	}
	return s / float64(len(y)), nil
}

// Accuracy returns the fraction of examples whose predicted sign agrees with
// the label's sign,
//
//	Accuracy = (1/m) #{i : (p_i > 0) == (y_i > 0)},
//
// where zero counts as negative. A NaN prediction or label counts as negative
// (NaN > 0 is false). It returns an error wrapping ErrShape if the lengths
// differ and ErrUndefined if they are empty. Time O(m), no allocation.
func Accuracy(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	n := 0
	for i, yi := range y {
		if (p[i] > 0) == (yi > 0) {
			n++
		}
	}
	return float64(n) / float64(len(y)), nil
}

// AUC returns the area under the ROC curve of the predictions p for the binary
// labels y, where y_i > 0 marks a positive and y_i ≤ 0 a negative example:
//
//	AUC = (1/(P·N)) Σ_{i pos} Σ_{j neg} H(p_i − p_j),
//
// with H(x) = 1 for x > 0, 1/2 for x = 0 and 0 for x < 0, P and N the numbers
// of positives and negatives. It returns an error wrapping ErrUndefined if only
// one class is present, if the input is empty, or if y or p holds a NaN (the
// error names the index), and ErrShape if the lengths differ. ±Inf is allowed.
//
// AUC sorts the predictions and walks their tie groups: time O(m log m),
// O(m) extra space.
func AUC(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	if err := checkNaN(y, p); err != nil {
		return math.NaN(), err
	}
	var npos, nneg int64
	for _, yi := range y {
		if yi > 0 {
			npos++
		} else {
			nneg++
		}
	}
	if npos == 0 || nneg == 0 {
		return math.NaN(), fmt.Errorf("%w: AUC needs both classes (%d positive, %d negative)", ErrUndefined, npos, nneg)
	}
	idx := sortedIndex(p)
	// twice the number of correctly ordered (positive, negative) pairs,
	// counting prediction ties once: exact in integers.
	var twice, negBelow int64
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && p[idx[hi]] == p[idx[lo]] {
			hi++
		}
		var gpos, gneg int64
		for _, i := range idx[lo:hi] {
			if y[i] > 0 {
				gpos++
			} else {
				gneg++
			}
		}
		twice += 2*gpos*negBelow + gpos*gneg
		negBelow += gneg
		lo = hi
	}
	return float64(twice) / float64(2*npos*nneg), nil
}

// CIndex returns the concordance index of the predictions p with the labels y:
// over all pairs i < j with y_i ≠ y_j, the fraction ordered like the labels,
// prediction ties counting 1/2,
//
//	C = Σ_{y_i < y_j} H(p_j − p_i) / #{(i, j) : y_i < y_j},
//
// with H as in AUC. For labels taking two values C equals AUC. It returns an
// error wrapping ErrUndefined if no pair has different labels (in particular
// for m < 2), or if y or p holds a NaN (the error names the index), and
// ErrShape if the lengths differ. ±Inf is allowed.
//
// CIndex sorts by label and counts, with a Fenwick tree over prediction
// ranks, the earlier examples predicted lower or equal: time O(m log m),
// O(m) extra space.
func CIndex(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	if err := checkNaN(y, p); err != nil {
		return math.NaN(), err
	}
	return cindex(y, p)
}

// cindex computes the concordance index of y and p, assumed NaN-free and of
// equal length. Time O(m log m).
func cindex(y, p []float64) (float64, error) {
	n := len(y)

	// Dense 1-based ranks of the predictions: equal predictions share a rank.
	byP := sortedIndex(p)
	rank := make([]int, n)
	r := 0
	for k, i := range byP {
		if k == 0 || p[i] != p[byP[k-1]] {
			r++
		}
		rank[i] = r
	}

	byY := sortedIndex(y)

	tree := make(fenwick, r+1)
	// twice the concordant count, ties counting once; total label-ordered pairs.
	var twice, total, seen int64
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && y[byY[hi]] == y[byY[lo]] {
			hi++
		}
		// Every earlier example has a strictly smaller label.
		for _, i := range byY[lo:hi] {
			less := tree.sum(rank[i] - 1)
			eq := tree.sum(rank[i]) - less
			twice += 2*less + eq
		}
		total += int64(hi-lo) * seen
		for _, i := range byY[lo:hi] {
			tree.add(rank[i])
		}
		seen += int64(hi - lo)
		lo = hi
	}
	if total == 0 {
		return math.NaN(), fmt.Errorf("%w: no pair with different labels", ErrUndefined)
	}
	return float64(twice) / float64(2*total), nil
}

// fenwick is a binary indexed tree of counts over 1-based positions.
type fenwick []int64

// add increments the count at position i ≥ 1 in O(log n).
func (f fenwick) add(i int) {
	for ; i < len(f); i += i & -i {
		f[i]++
	}
}

// sum returns the total count at positions 1..i in O(log n); sum(0) is 0.
func (f fenwick) sum(i int) int64 {
	var s int64
	for ; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}

// Disagreement returns the mean pairwise disagreement error over queries.
// Row i belongs to query q[i] (any int values). For each query Q that holds at
// least one pair with different labels the disagreement is 1 − C_Q, with C_Q
// the concordance index (see CIndex) within Q; the result is the mean over
// those queries:
//
//	D = (1/|Q*|) Σ_{Q ∈ Q*} (1 − C_Q).
//
// Queries without such a pair are skipped. It returns an error wrapping
// ErrShape if len(y), len(p) and len(q) differ, and ErrUndefined if the input
// is empty, if no query holds a pair with different labels, or if y or p holds
// a NaN (the error names the index).
//
// Time O(m log m), O(m) extra space.
func Disagreement(y, p []float64, q []int) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	if len(q) != len(y) {
		return math.NaN(), fmt.Errorf("%w: %d labels, %d query ids", ErrShape, len(y), len(q))
	}
	if err := checkNaN(y, p); err != nil {
		return math.NaN(), err
	}
	// Group rows by query id; visit the queries in increasing id order so the
	// floating-point sum does not depend on map iteration order.
	order := make([]int, len(q))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(q[a], q[b]) })
	var sum float64
	var nq int
	var ys, ps []float64
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && q[order[hi]] == q[order[lo]] {
			hi++
		}
		ys, ps = ys[:0], ps[:0]
		for _, i := range order[lo:hi] {
			ys = append(ys, y[i])
			ps = append(ps, p[i])
		}
		lo = hi
		c, err := cindex(ys, ps)
		if err != nil {
			continue // no pair with different labels in this query
		}
		sum += 1 - c
		nq++
	}
	if nq == 0 {
		return math.NaN(), fmt.Errorf("%w: no query has a pair with different labels", ErrUndefined)
	}
	return sum / float64(nq), nil
}

// Spearman returns Spearman's rank correlation of y and p: the Pearson
// correlation
//
//	ρ = Σ (a_i − ā)(b_i − b̄) / sqrt(Σ (a_i − ā)² · Σ (b_i − b̄)²)
//
// of the ranks a of y and b of p, tied values receiving the mean of the ranks
// they span. It returns an error wrapping ErrUndefined if either y or p is
// constant (in particular for m = 1), if the input is empty, or if y or p holds
// a NaN (the error names the index), and ErrShape if the lengths differ.
//
// Time O(m log m), O(m) extra space.
func Spearman(y, p []float64) (float64, error) {
	if err := checkPair(y, p); err != nil {
		return math.NaN(), err
	}
	if err := checkNaN(y, p); err != nil {
		return math.NaN(), err
	}
	a := averageRanks(y)
	b := averageRanks(p)
	// Average ranks always sum to m(m+1)/2.
	mean := float64(len(y)+1) / 2
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-mean, b[i]-mean
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 {
		return math.NaN(), fmt.Errorf("%w: Spearman correlation with constant labels", ErrUndefined)
	}
	if sbb == 0 {
		return math.NaN(), fmt.Errorf("%w: Spearman correlation with constant predictions", ErrUndefined)
	}
	r := sab / math.Sqrt(saa*sbb)
	return max(-1, min(1, r)), nil
}

// sortedIndex returns the permutation that sorts x ascending. x must be
// NaN-free. Time O(m log m).
func sortedIndex(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	return idx
}

// averageRanks returns the 1-based ranks of x, each group of equal values
// receiving the mean of the ranks it spans. x must be NaN-free.
// Time O(m log m).
func averageRanks(x []float64) []float64 {
	idx := sortedIndex(x)
	r := make([]float64, len(x))
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && x[idx[hi]] == x[idx[lo]] {
			hi++
		}
		// Positions lo..hi-1 hold ranks lo+1..hi; their mean is (lo+1+hi)/2.
		v := float64(lo+1+hi) / 2
		for _, i := range idx[lo:hi] {
			r[i] = v
		}
		lo = hi
	}
	return r
}

// QueryDisagreements returns, for every query with a pair of different
// labels (in order of first appearance), its share of discordant pairs,
// 1 − c-index within the query. O(Σ n_q log n_q).
func QueryDisagreements(y, p []float64, q []int) []float64 {
	rows := map[int][]int{}
	var order []int
	for i, id := range q {
		if _, ok := rows[id]; !ok {
			order = append(order, id)
		}
		rows[id] = append(rows[id], i)
	}
	var out []float64
	for _, id := range order {
		var yq, pq []float64
		for _, i := range rows[id] {
			yq, pq = append(yq, y[i]), append(pq, p[i])
		}
		if c, err := CIndex(yq, pq); err == nil {
			out = append(out, 1-c)
		}
	}
	return out
}
