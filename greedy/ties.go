package greedy

import (
	"slices"
)

// tieFactor is the constant of the rounding bound ε·n·κ·(max|y| + max|p|)
// below which CV predictions count as ties — the rule of package selection
// (selection/ties.go), applied to every candidate's predictions.
const tieFactor = 8 * 2.220446049250313e-16

// snap replaces, in place, every run of values of p whose consecutive gaps in
// sorted order are at most tol by the run's smallest value, and returns the
// number of runs; idx is scratch of len(p). O(n log n).
func snap(p []float64, tol float64, idx []int) int {
	if len(p) == 0 {
		return 0
	}
	idx = idx[:len(p)]
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return a - b
	})
	groups, first, prev := 1, p[idx[0]], p[idx[0]]
	for _, i := range idx {
		v := p[i]
		if v-prev > tol {
			groups++
			first = v
		}
		prev = v
		p[i] = first
	}
	return groups
}
