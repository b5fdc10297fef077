package report

import (
	"cmp"
	"slices"
)

// roc is a ROC curve: points (FPR[i], TPR[i]) from (0, 0) to (1, 1), one
// per distinct score, and the area under it.
type roc struct {
	FPR, TPR []float64
	AUC      float64
	Pos, Neg int
}

// computeROC builds the ROC curve of scores against labels (label > 0 is
// positive; both classes present, all values finite — validated by the
// caller). Examples are taken in decreasing score; a group of tied scores
// moves the curve diagonally in one step, so the trapezoidal area equals
// the Mann–Whitney AUC with each tied positive–negative pair counted ½.
func computeROC(labels, scores []float64) roc {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	var r roc
	for _, l := range labels {
		if l > 0 {
			r.Pos++
		} else {
			r.Neg++
		}
	}
	r.FPR = append(r.FPR, 0)
	r.TPR = append(r.TPR, 0)
	tp, fp := 0, 0
	area := 0.0 // in units of positive×negative pairs
	for start := 0; start < len(idx); {
		end := start
		p, n := 0, 0
		for end < len(idx) && scores[idx[end]] == scores[idx[start]] {
			if labels[idx[end]] > 0 {
				p++
			} else {
				n++
			}
			end++
		}
		// Each negative in the group is beaten by the tp positives above
		// it and ties with the p positives of the group.
		area += float64(n) * (float64(tp) + float64(p)/2)
		tp += p
		fp += n
		r.FPR = append(r.FPR, float64(fp)/float64(r.Neg))
		r.TPR = append(r.TPR, float64(tp)/float64(r.Pos))
		start = end
	}
	r.AUC = area / (float64(r.Pos) * float64(r.Neg))
	return r
}

// thinCurve drops vertices closer than tol (in both coordinates) to the
// last kept one, always keeping the first and last, so that a ROC curve of
// many examples stays a small SVG path without a visible change.
func thinCurve(x, y []float64, tol float64) (tx, ty []float64) {
	if len(x) <= 2 {
		return x, y
	}
	tx, ty = []float64{x[0]}, []float64{y[0]}
	for i := 1; i < len(x)-1; i++ {
		lx, ly := tx[len(tx)-1], ty[len(ty)-1]
		if abs(x[i]-lx) >= tol || abs(y[i]-ly) >= tol {
			tx, ty = append(tx, x[i]), append(ty, y[i])
		}
	}
	return append(tx, x[len(x)-1]), append(ty, y[len(y)-1])
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
