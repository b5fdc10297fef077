package selection

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/learn"
)

// ErrTLPO is returned when tournament leave-pair-out cannot be run on the
// labels given (one output, both classes, at least two rows of each).
var ErrTLPO = errors.New("selection: tournament leave-pair-out")

// TLPOCopies is the peak memory of Tournament in m×m matrices of float64,
// checked with factor.CheckMemory before any work: the m(m−1)/2 pairs
// (16 bytes each: 1 m×m) and their two predictions (½ m×m each: 1), plus
// the learner's set-up for all pairs — rls: A = U diag(g) Uᵀ from a scaled
// copy of U (2 in the dual form); RankRLS: the 2-colouring of the pairs'
// graph (its adjacency lists, 2) and Q₂ with its temporaries (about 3.7).
// Measured by BenchmarkTournament's B/op (everything allocated per call,
// m = 500–2000): about 4.5 m×m for rls and 7.8 for globalrank; 8 covers
// both.
const TLPOCopies = 8

// TLPO is a tournament leave-pair-out ROC analysis (Montoya Perez, Airola,
// Boström, Jambor & Pahikkala, Statistical Methods in Medical Research 28,
// 2019): every pair of rows {i, j}, i < j — pairs of the same class too —
// is held out, the model retrained without both predicts both, and i beats j
// when f₋ᵢⱼ(xᵢ) > f₋ᵢⱼ(xⱼ) by more than the tie tolerance (within it, each
// gets ½). A row's tournament score is its number of wins; the ROC curve is
// that of the scores against the labels (label > 0 positive).
//
// AUC against LPOAUC: LPOAUC is the leave-pair-out AUC (Airola et al. 2011)
// — the share of positive–negative pairs whose held-out predictions order
// the positive first, ties ½ — and AUC is the area under the tournament's
// ROC curve, the Mann–Whitney statistic of the wins. The two are equal
// whenever the comparisons are transitive (Transitive: i beats j exactly
// when wins_i > wins_j, ties exactly when the wins are equal — e.g. when one
// model scores every pair, as without hold-out), since the wins then order
// every positive–negative pair as its own comparison does. They differ in
// general: the wins also count same-class comparisons (with positives P₁,
// P₂ and negatives N₁, N₂, P₁ > N₁, N₂; P₂ > N₁, P₁; N₂ > P₂; N₁ > N₂ the
// LPO AUC is ¾, while P₁, P₂ have 2 wins and N₁, N₂ one: AUC 1). The paper
// reports the two agree closely on synthetic and real data, not that they
// are equal; both are returned.
type TLPO struct {
	// Wins is each row's tournament score: its wins, a tie ½.
	Wins []float64
	// FPR, TPR are the ROC curve's vertices from (0, 0) to (1, 1), one per
	// distinct score; rows with equal wins move it diagonally in one step.
	FPR, TPR []float64
	// AUC is the area under the curve; Interval its DeLong interval.
	AUC      float64
	Interval [2]float64
	// LPOAUC is the leave-pair-out AUC over the positive–negative pairs;
	// LPOInterval the DeLong formula applied to their comparisons.
	LPOAUC      float64
	LPOInterval [2]float64
	// Level is the intervals' two-sided confidence level.
	Level float64
	// Transitive reports that the comparisons agree with the wins' order
	// (then AUC == LPOAUC exactly).
	Transitive bool
	// Pairs is the number of pairs held out, m(m−1)/2; Pos and Neg the
	// classes' sizes.
	Pairs, Pos, Neg int
	// Tolerance is the tie tolerance of the comparisons: 16 times the
	// largest difference of the learner's leave-pair-out predictions from its
	// learn.Perturber twin's on a sample of the pairs (the tie rule of
	// leave-pair-out selection), 0 without a twin (exact comparisons).
	Tolerance float64
}

// Tournament runs tournament leave-pair-out on a solution with exact
// leave-pair-out predictions (learn.PairHoldOuter) trained on the labels y
// (one output; label > 0 is positive, ≤ 0 negative; at least two rows of
// each class). twin, when not nil, is the learner's learn.Perturber twin
// (Perturbed(TwinScale)) at the same λ: it measures the tie tolerance.
// level ∈ (0, 1) is the intervals' level.
//
// The intervals are DeLong, DeLong & Clarke-Pearson (1988): for a
// positive×negative comparison matrix ψ (1 win, ½ tie, 0 loss) with mean A,
// V₁₀(i) the mean of positive i's row, V₀₁(j) that of negative j's column,
// S₁₀, S₀₁ their sample variances, Var A = S₁₀/n₁ + S₀₁/n₀ and the interval
// A ± z·√Var clipped to [0, 1], z the normal quantile at (1 + level)/2. For
// AUC, ψ compares the wins; for LPOAUC, ψ is the held-out comparisons — an
// approximation there, since the pairs' training sets overlap (the paper
// gives no interval; DeLong's is the standard one for an AUC).
//
// Cost: the learner's leave-pair-out of all m(m−1)/2 pairs (rls and
// RankRLS: one O(m²r) set-up, then O(1) a pair), plus O(m²) for the
// tournament and the intervals and O(m log m) for the curve; the twin adds
// about 1/36 of the pairs. Memory: TLPOCopies m×m matrices, refused by
// factor.CheckMemory (wrapping factor.ErrMemory) when the machine has less.
// Learners whose leave-pair-out retrains per pair (RankRLS on a preference
// graph or within queries: rank.GraphSolution, O(m·r) and m-sized
// temporaries a pair) make the m(m−1)/2 pairs far slower and their garbage
// far larger than this bound — queryrank at m = 500 grew past 20 GB
// resident — so fit --roc offers rls and globalrank only.
func Tournament(s, twin learn.Solution, y []float64, level float64) (*TLPO, error) {
	ph, ok := s.(learn.PairHoldOuter)
	if !ok {
		return nil, fmt.Errorf("%w: the solution has no exact leave-pair-out predictions: %w", ErrTLPO, learn.ErrCapability)
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("%w: level %v outside (0, 1)", ErrTLPO, level)
	}
	m := len(y)
	pos := 0
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: label %d is %v", ErrTLPO, i, v)
		}
		if v > 0 {
			pos++
		}
	}
	if pos < 2 || m-pos < 2 {
		return nil, fmt.Errorf("%w: needs a binary label with at least 2 rows of each class (label > 0 and label ≤ 0), have %d and %d", ErrTLPO, pos, m-pos)
	}
	if err := factor.CheckMemory(m, TLPOCopies); err != nil {
		return nil, fmt.Errorf("%w: all %d pairs of %d rows: %w", ErrTLPO, m*(m-1)/2, m, err)
	}
	pairs := make([]learn.Pair, 0, m*(m-1)/2)
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			pairs = append(pairs, learn.Pair{I: i, J: j})
		}
	}
	pi, pj, err := ph.LeavePairOut(pairs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTLPO, err)
	}
	if _, t := pi.Dims(); t != 1 {
		return nil, fmt.Errorf("%w: the solution has %d outputs, one binary label is needed", ErrTLPO, t)
	}
	a, b := pi.RawMatrix().Data, pj.RawMatrix().Data // one column: stride 1
	for n, p := range pairs {
		if math.IsNaN(a[n]) || math.IsInf(a[n], 0) || math.IsNaN(b[n]) || math.IsInf(b[n], 0) {
			return nil, fmt.Errorf("%w: pair (%d, %d): %v, %v (rescale the features, e.g. standardize them)", ErrNonFinite, p.I, p.J, a[n], b[n])
		}
	}
	tol := 0.0
	if twin != nil {
		if tol, err = twinPairTolerance(twin, m, a, b); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTLPO, err)
		}
	}
	out := &TLPO{Wins: make([]float64, m), Level: level, Pairs: len(pairs), Pos: pos, Neg: m - pos, Tolerance: tol}
	// outcome is 2 when i beats j, 1 a tie, 0 a loss (halves of a win).
	outcome := func(n int) int {
		switch d := a[n] - b[n]; {
		case d == 0 || math.Abs(d) <= tol:
			return 1
		case d > 0:
			return 2
		}
		return 0
	}
	// lpo[i][j]: halves of positive i against negative j, by the classes'
	// indices.
	posIdx, negIdx := classIndex(y)
	lpo := make([]uint8, pos*(m-pos))
	halves := make([]int, m)
	for n, p := range pairs {
		o := outcome(n)
		halves[p.I] += o
		halves[p.J] += 2 - o
		switch yi, yj := y[p.I] > 0, y[p.J] > 0; {
		case yi && !yj:
			lpo[posIdx[p.I]*(m-pos)+negIdx[p.J]] = uint8(o)
		case !yi && yj:
			lpo[posIdx[p.J]*(m-pos)+negIdx[p.I]] = uint8(2 - o)
		}
	}
	for i, h := range halves {
		out.Wins[i] = float64(h) / 2
	}
	out.Transitive = true
	for n, p := range pairs {
		if o, w := outcome(n), cmp.Compare(halves[p.I], halves[p.J])+1; o != w {
			out.Transitive = false
			break
		}
	}
	out.LPOAUC, out.LPOInterval = deLong(pos, m-pos, func(i, j int) int { return int(lpo[i*(m-pos)+j]) }, level)
	wp, wn := make([]int, 0, pos), make([]int, 0, m-pos)
	for i, v := range y {
		if v > 0 {
			wp = append(wp, halves[i])
		} else {
			wn = append(wn, halves[i])
		}
	}
	out.AUC, out.Interval = deLong(pos, m-pos, func(i, j int) int { return cmp.Compare(wp[i], wn[j]) + 1 }, level)
	out.FPR, out.TPR = rocCurve(y, halves)
	return out, nil
}

// tlpoRowStride is the period of the rows tournamentTwinPairs pairs.
const tlpoRowStride = 6

// twinPairTolerance is lpoPerOutput's tie tolerance for one output: the twin
// holds out the pairs tournamentTwinPairs samples, and the tolerance is
// noiseFactor times the largest difference of its predictions (divided by
// noiseScale) from the learner's a, b (indexed as Tournament's pairs).
//
// The sample is not twinPairs': those are all pairs among every 8th row, a
// graph with odd cycles, for which a learner's set-up covers all m rows on
// each side (RankRLS's Q₂: O(m²r), or for fewer pairs per-pair work with an
// m-sized temporary each); tournamentTwinPairs's are bipartite, between two
// disjoint sixths of the rows, so the twin's set-up is a block of Q₂ 1/36 of
// the whole, as for the positive–negative pairs of leave-pair-out selection.
func twinPairTolerance(twin learn.Solution, m int, a, b []float64) (float64, error) {
	th, ok := twin.(learn.PairHoldOuter)
	if !ok {
		return 0, fmt.Errorf("the twin has no leave-pair-out: %w", learn.ErrCapability)
	}
	sub, idx := tournamentTwinPairs(m)
	qi, qj, err := th.LeavePairOut(sub)
	if err != nil {
		return 0, fmt.Errorf("twin: %w", err)
	}
	tol := 0.0
	for k, n := range idx {
		tol = math.Max(tol, math.Max(math.Abs(qi.At(k, 0)/noiseScale-a[n]), math.Abs(qj.At(k, 0)/noiseScale-b[n])))
	}
	return tol * noiseFactor, nil
}

// tournamentTwinPairs returns the pairs the twin holds out in a tournament
// of m rows — every pair {i, j}, i < j, with one row ≡ 0 and the other ≡ 3
// (mod tlpoRowStride, 6), about m²/36 of the m(m−1)/2 — and each one's index
// in Tournament's enumeration (i ascending, then j):
// i·m − i(i+1)/2 + j − i − 1. O(m²/36).
func tournamentTwinPairs(m int) (sub []learn.Pair, idx []int) {
	const half = tlpoRowStride / 2
	for i := 0; i < m; i++ {
		r := i % tlpoRowStride
		if r != 0 && r != half {
			continue
		}
		j := i - r + half // the first row of the other residue after i
		if r == half {
			j = i - r + tlpoRowStride
		}
		for ; j < m; j += tlpoRowStride {
			sub = append(sub, learn.Pair{I: i, J: j})
			idx = append(idx, i*m-i*(i+1)/2+j-i-1)
		}
	}
	return sub, idx
}

// classIndex numbers the positive rows (label > 0) and the negative rows
// separately, in row order.
func classIndex(y []float64) (posIdx, negIdx []int) {
	posIdx, negIdx = make([]int, len(y)), make([]int, len(y))
	p, n := 0, 0
	for i, v := range y {
		if v > 0 {
			posIdx[i], p = p, p+1
		} else {
			negIdx[i], n = n, n+1
		}
	}
	return posIdx, negIdx
}

// deLong returns the mean of the n1×n0 comparison matrix psi (in halves: 2
// win, 1 tie, 0 loss) and its DeLong et al. (1988) interval at level, clipped
// to [0, 1]. n1, n0 ≥ 2. O(n1·n0).
func deLong(n1, n0 int, psi func(i, j int) int, level float64) (float64, [2]float64) {
	v10 := make([]float64, n1)
	v01 := make([]int, n0)
	total := 0
	for i := 0; i < n1; i++ {
		row := 0
		for j := 0; j < n0; j++ {
			h := psi(i, j)
			row += h
			v01[j] += h
		}
		total += row
		v10[i] = float64(row) / (2 * float64(n0))
	}
	auc := float64(total) / (2 * float64(n1) * float64(n0))
	s10, s01 := 0.0, 0.0
	for _, v := range v10 {
		s10 += (v - auc) * (v - auc)
	}
	for _, h := range v01 {
		v := float64(h) / (2 * float64(n1))
		s01 += (v - auc) * (v - auc)
	}
	s10 /= float64(n1 - 1)
	s01 /= float64(n0 - 1)
	se := math.Sqrt(s10/float64(n1) + s01/float64(n0))
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	return auc, [2]float64{math.Max(0, auc-z*se), math.Min(1, auc+z*se)}
}

// rocCurve is the ROC curve of the integer scores h against the labels
// (label > 0 positive): rows in decreasing score, a group of equal scores one
// diagonal step. O(m log m).
func rocCurve(y []float64, h []int) (fpr, tpr []float64) {
	idx := make([]int, len(h))
	pos, neg := 0, 0
	for i := range idx {
		idx[i] = i
		if y[i] > 0 {
			pos++
		} else {
			neg++
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(h[b], h[a]) })
	fpr, tpr = []float64{0}, []float64{0}
	tp, fp := 0, 0
	for k := 0; k < len(idx); {
		for g := h[idx[k]]; k < len(idx) && h[idx[k]] == g; k++ {
			if y[idx[k]] > 0 {
				tp++
			} else {
				fp++
			}
		}
		fpr = append(fpr, float64(fp)/float64(neg))
		tpr = append(tpr, float64(tp)/float64(pos))
	}
	return fpr, tpr
}
