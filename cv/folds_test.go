package cv_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rlskit/rlskit/cv"
)

// roundRobin is scikit-learn's allocation of stratified folds, written from
// its definition: the class codes in order of first appearance, the rows
// sorted by code and dealt to folds 0, 1, …, k−1, 0, …; want[f][c] is the
// number of rows of the c-th class in fold f.
func roundRobin(classes []int, k int) [][]int {
	code := map[int]int{}
	for _, c := range classes {
		if _, ok := code[c]; !ok {
			code[c] = len(code)
		}
	}
	count := make([]int, len(code))
	for _, c := range classes {
		count[code[c]]++
	}
	want := make([][]int, k)
	for f := range want {
		want[f] = make([]int, len(code))
	}
	pos := 0
	for c, n := range count {
		for ; n > 0; n-- {
			want[pos%k][c]++
			pos++
		}
	}
	return want
}

// perFold counts the rows of each class (in order of first appearance) in
// each fold.
func perFold(folds [][]int, classes []int) [][]int {
	code := map[int]int{}
	for _, c := range classes {
		if _, ok := code[c]; !ok {
			code[c] = len(code)
		}
	}
	out := make([][]int, len(folds))
	for f, fold := range folds {
		out[f] = make([]int, len(code))
		for _, i := range fold {
			out[f][code[classes[i]]]++
		}
	}
	return out
}

// StratifiedKFold keeps every class's share: each fold holds ⌊n_c/k⌋ or
// ⌈n_c/k⌉ rows of a class of n_c rows — exactly scikit-learn's allocation
// (the round robin over the sorted labels) — the fold sizes differ by at
// most one, the folds partition the rows, and a seed gives the same folds.
func TestStratifiedKFold(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	big := make([]int, 300)
	for i := range big {
		big[i] = []int{4, 4, 4, 4, 4, 4, -1, -1, -1, 9}[r.IntN(10)] // 60 %, 30 %, 10 %
	}
	for _, tc := range []struct {
		name    string
		classes []int
		k       int
	}{
		{"binary", []int{1, -1, -1, 1, -1, -1, -1, 1, -1, -1}, 3},
		{"three uneven", []int{2, 0, 0, 1, 2, 2, 0, 1, 1, 0, 0, 2, 1, 1, 0, 2, 0, 0, 1, 0, 2, 0, 0}, 5},
		{"a class smaller than k", []int{0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0}, 4},
		{"one class", []int{3, 3, 3, 3, 3}, 2},
		{"k = m", []int{1, 2, 1, 2, 2}, 5},
		{"random", big, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := roundRobin(tc.classes, tc.k)
			for seed := uint64(0); seed < 10; seed++ {
				got, err := cv.StratifiedKFold(tc.classes, tc.k, seed)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != tc.k {
					t.Fatalf("%d folds, want %d", len(got), tc.k)
				}
				checkPartition(t, got, len(tc.classes))
				counts := perFold(got, tc.classes)
				if !reflect.DeepEqual(counts, want) {
					t.Fatalf("seed %d: rows per fold and class %v, want scikit-learn's allocation %v", seed, counts, want)
				}
				total := make([]int, len(want[0]))
				for _, row := range counts {
					for c, n := range row {
						total[c] += n
					}
				}
				for f, row := range counts {
					for c, n := range row {
						if lo := total[c] / tc.k; n < lo || n > lo+1 || (total[c]%tc.k == 0 && n != lo) {
							t.Errorf("seed %d, fold %d: %d rows of class %d of %d, want ⌊%d/%d⌋ or ⌈%d/%d⌉", seed, f, n, c, total[c], total[c], tc.k, total[c], tc.k)
						}
					}
				}
				lo, hi := len(got[0]), len(got[0])
				for _, f := range got {
					lo, hi = min(lo, len(f)), max(hi, len(f))
				}
				if hi-lo > 1 {
					t.Errorf("seed %d: fold sizes from %d to %d", seed, lo, hi)
				}
				again, _ := cv.StratifiedKFold(tc.classes, tc.k, seed)
				if !reflect.DeepEqual(got, again) {
					t.Fatalf("seed %d: not deterministic", seed)
				}
			}
		})
	}
	// scikit-learn 1.2.1, StratifiedKFold(k, shuffle=True).split(X, y) on
	// the "three uneven" labels: rows of classes 2, 0, 1 per fold (the
	// allocation does not depend on random_state)
	y := []int{2, 0, 0, 1, 2, 2, 0, 1, 1, 0, 0, 2, 1, 1, 0, 2, 0, 0, 1, 0, 2, 0, 0}
	for k, want := range map[int][][]int{
		2: {{3, 6, 3}, {3, 5, 3}},
		3: {{2, 4, 2}, {2, 4, 2}, {2, 3, 2}},
		5: {{2, 2, 1}, {1, 3, 1}, {1, 2, 2}, {1, 2, 1}, {1, 2, 1}},
	} {
		got, _ := cv.StratifiedKFold(y, k, 11)
		if c := perFold(got, y); !reflect.DeepEqual(c, want) {
			t.Errorf("k = %d: rows per fold and class %v, scikit-learn's %v", k, c, want)
		}
	}
	// the seed decides which rows of a class go where
	a, _ := cv.StratifiedKFold(big, 10, 1)
	b, _ := cv.StratifiedKFold(big, 10, 2)
	if reflect.DeepEqual(a, b) {
		t.Error("seeds 1 and 2 give the same folds")
	}
	// every row of a class is equally likely in every fold: row 0 (class 4,
	// 180 rows over 10 folds) over 2000 seeds, χ² with 9 degrees of freedom
	count := make([]float64, 10)
	const n = 2000
	for seed := uint64(0); seed < n; seed++ {
		f, _ := cv.StratifiedKFold(big, 10, seed)
		for k, fold := range f {
			if len(fold) > 0 && fold[0] == 0 {
				count[k]++
			}
		}
	}
	chi2 := 0.0
	for _, c := range count {
		chi2 += (c - n/10) * (c - n/10) / (n / 10)
	}
	if chi2 > 33 { // P(χ²₉ > 33) < 2e-4
		t.Errorf("row 0's folds over %d seeds: %v (χ² = %.1f)", n, count, chi2)
	}
	for _, tc := range []struct {
		classes []int
		k       int
	}{{[]int{1, 2, 1}, 1}, {[]int{1, 2, 1}, 0}, {[]int{1, 2, 1}, 4}, {nil, 2}} {
		if _, err := cv.StratifiedKFold(tc.classes, tc.k, 1); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("StratifiedKFold(%v, %d): error %v, want ErrFolds", tc.classes, tc.k, err)
		}
	}
}

// GroupKFold balances the folds as scikit-learn's GroupKFold does: the
// largest group first, each to the fold with the fewest rows. With groups
// of distinct sizes that leaves nothing to the seed, and the folds are
// scikit-learn's exactly; with equal sizes the seed orders them, and the
// largest and smallest folds differ by at most the largest group's size.
func TestGroupKFoldBalance(t *testing.T) {
	// scikit-learn 1.2.1: [sorted(test) for _, test in GroupKFold(k).split(X, groups=groups)]
	groups := []int{12, 40, 12, 33, 7, 40, 12, 7, 7, 33, 12, 40, 5, 7, 40, 12, 40, 12, 7, 40, 40, 40, 12, 7, -3, -3, -3, 8, 8, 8, 8, 8, 8, 8, 8, 33, -3, 8}
	sklearn := map[int][][]int{
		2: {{4, 7, 8, 13, 18, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 36, 37}, {0, 1, 2, 3, 5, 6, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 35}},
		3: {{3, 9, 12, 27, 28, 29, 30, 31, 32, 33, 34, 35, 37}, {1, 5, 11, 14, 16, 19, 20, 21, 24, 25, 26, 36}, {0, 2, 4, 6, 7, 8, 10, 13, 15, 17, 18, 22, 23}},
		4: {{27, 28, 29, 30, 31, 32, 33, 34, 37}, {1, 5, 11, 12, 14, 16, 19, 20, 21}, {0, 2, 3, 6, 9, 10, 15, 17, 22, 35}, {4, 7, 8, 13, 18, 23, 24, 25, 26, 36}},
		5: {{27, 28, 29, 30, 31, 32, 33, 34, 37}, {1, 5, 11, 14, 16, 19, 20, 21}, {0, 2, 6, 10, 15, 17, 22}, {4, 7, 8, 12, 13, 18, 23}, {3, 9, 24, 25, 26, 35, 36}},
	}
	for k, want := range sklearn {
		for seed := uint64(0); seed < 5; seed++ {
			if got, err := cv.GroupKFold(groups, k, seed); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("k = %d, seed %d: %v, %v; scikit-learn's %v", k, seed, got, err, want)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{6, 20, 60} {
		g := make([]int, 400)
		for i := range g {
			g[i] = r.IntN(n) * r.IntN(3) // uneven sizes, many equal
		}
		size := map[int]int{}
		for _, v := range g {
			size[v]++
		}
		largest := 0
		for _, s := range size {
			largest = max(largest, s)
		}
		for _, k := range []int{2, 3, 5} {
			if k > len(size) {
				continue
			}
			t.Run(fmt.Sprintf("%d groups, k=%d", len(size), k), func(t *testing.T) {
				for seed := uint64(0); seed < 10; seed++ {
					got, err := cv.GroupKFold(g, k, seed)
					if err != nil {
						t.Fatal(err)
					}
					checkPartition(t, got, len(g))
					checkGroupsWhole(t, got, g)
					lo, hi := len(got[0]), len(got[0])
					for _, f := range got {
						lo, hi = min(lo, len(f)), max(hi, len(f))
					}
					if hi-lo > largest {
						t.Errorf("seed %d: fold sizes from %d to %d, more apart than the largest group (%d)", seed, lo, hi, largest)
					}
				}
			})
		}
	}
}
