package cv_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/measure"
)

// checkPartition fails t unless folds are non-empty, ascending and partition
// the rows 0..m-1.
func checkPartition(t *testing.T, folds [][]int, m int) {
	t.Helper()
	for f, fold := range folds {
		if len(fold) == 0 {
			t.Errorf("fold %d empty", f)
		}
		if !slices.IsSorted(fold) {
			t.Errorf("fold %d not ascending: %v", f, fold)
		}
	}
	if !cv.Covered(folds, m) {
		t.Errorf("folds %v do not partition %d rows", folds, m)
	}
	if err := cv.Check(folds, m); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestKFoldPartition(t *testing.T) {
	for _, tc := range []struct{ m, k int }{
		{2, 2}, {3, 2}, {10, 3}, {7, 7}, {100, 10}, {101, 10}, {109, 10}, {1000, 7},
	} {
		t.Run(fmt.Sprintf("m=%d,k=%d", tc.m, tc.k), func(t *testing.T) {
			folds, err := cv.KFold(tc.m, tc.k, 42)
			if err != nil {
				t.Fatal(err)
			}
			if len(folds) != tc.k {
				t.Fatalf("got %d folds, want %d", len(folds), tc.k)
			}
			checkPartition(t, folds, tc.m)
			q, extra := tc.m/tc.k, tc.m%tc.k
			for f, fold := range folds {
				want := q
				if f < extra {
					want++
				}
				if len(fold) != want {
					t.Errorf("fold %d has %d rows, want %d", f, len(fold), want)
				}
			}
		})
	}
}

func TestKFoldErrors(t *testing.T) {
	for _, tc := range []struct{ m, k int }{{10, 1}, {10, 0}, {10, -2}, {10, 11}, {0, 2}, {1, 2}, {-1, 2}} {
		if _, err := cv.KFold(tc.m, tc.k, 1); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("KFold(%d, %d): error %v, want ErrFolds", tc.m, tc.k, err)
		}
	}
	_, err := cv.KFold(3, 5, 1)
	if want := "k = 5 for 3 rows"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not mention %q", err, want)
	}
}

func TestKFoldDeterminism(t *testing.T) {
	a, _ := cv.KFold(50, 5, 7)
	b, _ := cv.KFold(50, 5, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different folds:\n%v\n%v", a, b)
	}
	for _, seed := range []uint64{0, 1, 6, 8, 1 << 63, math.MaxUint64} {
		c, _ := cv.KFold(50, 5, seed)
		if reflect.DeepEqual(a, c) {
			t.Errorf("seeds 7 and %d give the same folds", seed)
		}
	}
}

// TestKFoldGolden pins the folds of one seed: they must not change across
// platforms or Go releases.
func TestKFoldGolden(t *testing.T) {
	got, err := cv.KFold(10, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 2, 3, 5}, {1, 4, 8}, {6, 7, 9}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("KFold(10, 3, 1) = %v, want %v", got, want)
	}
}

// TestKFoldUniform checks that over many seeds every assignment of 3 rows to
// 3 folds of one row (a permutation) is about equally likely.
func TestKFoldUniform(t *testing.T) {
	const n = 6000
	count := map[[3]int]int{}
	for seed := uint64(0); seed < n; seed++ {
		f, err := cv.KFold(3, 3, seed)
		if err != nil {
			t.Fatal(err)
		}
		count[[3]int{f[0][0], f[1][0], f[2][0]}]++
	}
	if len(count) != 6 {
		t.Fatalf("%d of 6 permutations seen: %v", len(count), count)
	}
	chi2 := 0.0
	for _, c := range count {
		d := float64(c) - n/6
		chi2 += d * d / (n / 6)
	}
	if chi2 > 25 { // 5 degrees of freedom: P(χ² > 25) < 2e-4
		t.Errorf("χ² = %.1f, counts %v", chi2, count)
	}
}

func TestRepeatedKFold(t *testing.T) {
	for _, tc := range []struct{ m, k, reps int }{{10, 3, 1}, {10, 3, 4}, {25, 5, 3}, {2, 2, 10}} {
		t.Run(fmt.Sprintf("m=%d,k=%d,reps=%d", tc.m, tc.k, tc.reps), func(t *testing.T) {
			folds, err := cv.RepeatedKFold(tc.m, tc.k, tc.reps, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(folds) != tc.k*tc.reps {
				t.Fatalf("got %d folds, want %d", len(folds), tc.k*tc.reps)
			}
			for r := 0; r < tc.reps; r++ {
				checkPartition(t, folds[r*tc.k:(r+1)*tc.k], tc.m)
			}
			if tc.reps > 1 && cv.Covered(folds, tc.m) {
				t.Error("repetitions together reported as Covered")
			}
			again, _ := cv.RepeatedKFold(tc.m, tc.k, tc.reps, 3)
			if !reflect.DeepEqual(folds, again) {
				t.Error("same seed, different folds")
			}
		})
	}
	folds, _ := cv.RepeatedKFold(40, 4, 3, 9)
	for r := 1; r < 3; r++ {
		if reflect.DeepEqual(folds[:4], folds[r*4:(r+1)*4]) {
			t.Errorf("repetition %d equals repetition 0", r)
		}
	}
	other, _ := cv.RepeatedKFold(40, 4, 3, 10)
	if reflect.DeepEqual(folds, other) {
		t.Error("seeds 9 and 10 give the same folds")
	}
	for _, tc := range []struct{ m, k, reps int }{{10, 3, 0}, {10, 3, -1}, {10, 1, 2}, {10, 11, 2}} {
		if _, err := cv.RepeatedKFold(tc.m, tc.k, tc.reps, 1); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("RepeatedKFold(%d, %d, %d): error %v, want ErrFolds", tc.m, tc.k, tc.reps, err)
		}
	}
}

// checkGroupsWhole fails t unless each group's rows all lie in one fold.
func checkGroupsWhole(t *testing.T, folds [][]int, groups []int) {
	t.Helper()
	foldOfGroup := map[int]int{}
	for f, fold := range folds {
		for _, i := range fold {
			g := groups[i]
			if h, ok := foldOfGroup[g]; ok && h != f {
				t.Errorf("group %d split over folds %d and %d", g, h, f)
			}
			foldOfGroup[g] = f
		}
	}
}

func TestLeaveGroupOut(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups []int
		want   [][]int
	}{
		{"two", []int{0, 1}, [][]int{{0}, {1}}},
		{"first appearance", []int{5, 3, 5, 9, 3, 3}, [][]int{{0, 2}, {1, 4, 5}, {3}}},
		{"negative ids", []int{-1, 7, -1, 7, 0}, [][]int{{0, 2}, {1, 3}, {4}}},
		{"singletons", []int{4, 3, 2, 1}, [][]int{{0}, {1}, {2}, {3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cv.LeaveGroupOut(tc.groups)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			checkPartition(t, got, len(tc.groups))
			checkGroupsWhole(t, got, tc.groups)
		})
	}
	for _, groups := range [][]int{nil, {}, {3}, {2, 2, 2}} {
		if _, err := cv.LeaveGroupOut(groups); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("LeaveGroupOut(%v): error %v, want ErrFolds", groups, err)
		}
	}
}

func TestGroupKFold(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	big := make([]int, 500)
	for i := range big {
		big[i] = r.IntN(40)
	}
	for _, tc := range []struct {
		name   string
		groups []int
		k      int
	}{
		{"two groups", []int{1, 1, 2}, 2},
		{"k = groups", []int{5, 3, 5, 9, 3, 3}, 3},
		{"uneven", []int{0, 0, 0, 0, 1, 2, 3, 3, 4, 5, 5, 5}, 3},
		{"singletons", []int{0, 1, 2, 3, 4, 5, 6}, 2},
		{"random", big, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(0); seed < 20; seed++ {
				got, err := cv.GroupKFold(tc.groups, tc.k, seed)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != tc.k {
					t.Fatalf("got %d folds, want %d", len(got), tc.k)
				}
				checkPartition(t, got, len(tc.groups))
				checkGroupsWhole(t, got, tc.groups)
				again, _ := cv.GroupKFold(tc.groups, tc.k, seed)
				if !reflect.DeepEqual(got, again) {
					t.Fatalf("seed %d: not deterministic", seed)
				}
			}
		})
	}
	// Singleton groups are balanced exactly like KFold sizes.
	got, _ := cv.GroupKFold([]int{0, 1, 2, 3, 4, 5, 6}, 3, 1)
	sizes := []int{len(got[0]), len(got[1]), len(got[2])}
	if want := []int{3, 2, 2}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("sizes %v, want %v", sizes, want)
	}
	a, _ := cv.GroupKFold(big, 5, 1)
	b, _ := cv.GroupKFold(big, 5, 2)
	if reflect.DeepEqual(a, b) {
		t.Error("seeds 1 and 2 give the same folds")
	}
	for _, tc := range []struct {
		groups []int
		k      int
	}{{[]int{1, 1, 2}, 3}, {[]int{1, 2, 3}, 1}, {[]int{1, 2, 3}, 0}, {[]int{1, 1}, 2}, {nil, 2}} {
		if _, err := cv.GroupKFold(tc.groups, tc.k, 1); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("GroupKFold(%v, %d): error %v, want ErrFolds", tc.groups, tc.k, err)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		folds [][]int
		m     int
		msg   string // "" for valid folds, else a substring of the error
	}{
		{"partition", [][]int{{0, 2}, {1, 3}}, 4, ""},
		{"not covering", [][]int{{3}, {0}}, 5, ""},
		{"unsorted", [][]int{{2, 0}, {1}}, 4, ""},
		{"single fold", [][]int{{1, 2}}, 4, ""},
		{"no folds", nil, 4, "no folds"},
		{"negative m", [][]int{{0}}, -1, "negative row count"},
		{"empty fold", [][]int{{0, 1}, {}, {2}}, 4, "fold 1 is empty"},
		{"out of range", [][]int{{0, 1}, {2, 4}}, 4, "fold 1, position 1: index 4 outside [0,4)"},
		{"negative", [][]int{{0, -1}}, 4, "fold 0, position 1: index -1 outside"},
		{"duplicate within", [][]int{{0}, {1, 2, 1}}, 4, "fold 1, position 2: index 1 repeated within the fold"},
		{"duplicate across", [][]int{{0, 3}, {1}, {2, 3}}, 5, "fold 2, position 1: index 3 already in fold 0"},
		{"all rows", [][]int{{2, 0, 1}}, 3, "fold 0 holds all 3 rows"},
		{"all rows later", [][]int{{0}}, 1, "fold 0 holds all 1 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := cv.Check(tc.folds, tc.m)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !errors.Is(err, cv.ErrFolds) {
				t.Fatalf("error %v, want ErrFolds", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
		})
	}
}

func TestCovered(t *testing.T) {
	for _, tc := range []struct {
		name  string
		folds [][]int
		m     int
		want  bool
	}{
		{"partition", [][]int{{0, 2}, {3, 1}}, 4, true},
		{"missing row", [][]int{{0, 2}, {1}}, 4, false},
		{"duplicate across", [][]int{{0, 1}, {1, 2}}, 3, false},
		{"duplicate within", [][]int{{0, 0}, {1, 2}}, 3, false},
		{"out of range", [][]int{{0, 1}, {2, 3}}, 3, false},
		{"negative", [][]int{{0, 1}, {-1, 2}}, 3, false},
		{"no rows", nil, 0, true},
		{"negative m", nil, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cv.Covered(tc.folds, tc.m); got != tc.want {
				t.Errorf("Covered = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDifferentLabelPairs(t *testing.T) {
	for _, tc := range []struct {
		name string
		y    []float64
		want []cv.Pair
	}{
		{"empty", nil, []cv.Pair{}},
		{"one", []float64{1}, []cv.Pair{}},
		{"all equal", []float64{2, 2, 2}, []cv.Pair{}},
		{"binary", []float64{1, 0, 1, 0}, []cv.Pair{{I: 0, J: 1}, {I: 0, J: 3}, {I: 1, J: 2}, {I: 2, J: 3}}},
		{"real", []float64{3, 1, 3, 2}, []cv.Pair{{I: 0, J: 1}, {I: 0, J: 3}, {I: 1, J: 2}, {I: 1, J: 3}, {I: 2, J: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cv.DifferentLabelPairs(tc.y); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPositiveNegativePairs(t *testing.T) {
	for _, tc := range []struct {
		name string
		y    []float64
		want []cv.Pair
	}{
		{"empty", nil, []cv.Pair{}},
		{"only positive", []float64{1, 2}, []cv.Pair{}},
		{"only negative", []float64{0, -1}, []cv.Pair{}},
		{"mixed", []float64{0, 1, -1, 2, 0}, []cv.Pair{{I: 1, J: 0}, {I: 1, J: 2}, {I: 1, J: 4}, {I: 3, J: 0}, {I: 3, J: 2}, {I: 3, J: 4}}},
		{"nan skipped", []float64{1, math.NaN(), -1}, []cv.Pair{{I: 0, J: 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cv.PositiveNegativePairs(tc.y); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPairsWithinGroups(t *testing.T) {
	for _, tc := range []struct {
		name   string
		y      []float64
		groups []int
		want   []cv.Pair
	}{
		{"empty", nil, nil, []cv.Pair{}},
		{"one group", []float64{1, 0, 1}, []int{4, 4, 4}, []cv.Pair{{I: 0, J: 1}, {I: 1, J: 2}}},
		{"singletons", []float64{1, 0, 2}, []int{1, 2, 3}, []cv.Pair{}},
		{
			"interleaved",
			[]float64{3, 1, 2, 3, 0, 1},
			[]int{7, 8, 7, 8, 7, 8},
			[]cv.Pair{{I: 0, J: 2}, {I: 0, J: 4}, {I: 1, J: 3}, {I: 2, J: 4}, {I: 3, J: 5}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := cv.PairsWithinGroups(tc.y, tc.groups); err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// One group gives DifferentLabelPairs.
	y := []float64{2, 0, 1, 2, 1, 0, 3}
	got, _ := cv.PairsWithinGroups(y, make([]int, len(y)))
	if want := cv.DifferentLabelPairs(y); !reflect.DeepEqual(got, want) {
		t.Errorf("one group: got %v, want %v", got, want)
	}
	if _, err := cv.PairsWithinGroups([]float64{1, 2}, []int{0}); !errors.Is(err, measure.ErrShape) {
		t.Errorf("mismatched lengths: err = %v, want measure.ErrShape", err)
	}
}

func TestPairScore(t *testing.T) {
	y := []float64{1, 0, 1, 0, 2}
	for _, tc := range []struct {
		name   string
		pairs  []cv.Pair
		pi, pj []float64
		want   float64
	}{
		{"all right", []cv.Pair{{I: 0, J: 1}, {I: 1, J: 2}}, []float64{0.9, 0.1}, []float64{0.2, 0.8}, 1},
		{"all wrong", []cv.Pair{{I: 0, J: 1}, {I: 1, J: 2}}, []float64{0.1, 0.9}, []float64{0.2, 0.8}, 0},
		{"tie is half", []cv.Pair{{I: 0, J: 1}}, []float64{0.5}, []float64{0.5}, 0.5},
		// right, tie, wrong, right: (1 + 1/2 + 0 + 1) / 4.
		{"mixed", []cv.Pair{{I: 0, J: 1}, {I: 2, J: 3}, {I: 0, J: 3}, {I: 4, J: 0}}, []float64{3, 1, -1, 5}, []float64{2, 1, 0, 4}, 0.625},
		// (0, 2) and (1, 3) have equal labels and are skipped: (1 + 0) / 2.
		{"equal labels skipped", []cv.Pair{{I: 0, J: 2}, {I: 0, J: 1}, {I: 1, J: 3}, {I: 3, J: 4}}, []float64{0, 1, 9, 1}, []float64{5, 0, -9, 0}, 0.5},
		{"label order reversed", []cv.Pair{{I: 1, J: 0}}, []float64{-1}, []float64{1}, 1},
		{"nan prediction wrong", []cv.Pair{{I: 0, J: 1}, {I: 2, J: 3}}, []float64{math.NaN(), 1}, []float64{0, 0}, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cv.PairScore(tc.pairs, y, tc.pi, tc.pj)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		pairs  []cv.Pair
		pi, pj []float64
		want   error
	}{
		{"no pairs", nil, nil, nil, cv.ErrPairs},
		{"only equal labels", []cv.Pair{{I: 0, J: 2}, {I: 1, J: 3}}, []float64{1, 2}, []float64{0, 0}, cv.ErrPairs},
		{"short pi", []cv.Pair{{I: 0, J: 1}}, nil, []float64{0}, measure.ErrShape},
		{"short pj", []cv.Pair{{I: 0, J: 1}}, []float64{0}, nil, measure.ErrShape},
		{"index too big", []cv.Pair{{I: 0, J: 5}}, []float64{0}, []float64{0}, measure.ErrShape},
		{"negative index", []cv.Pair{{I: -1, J: 0}}, []float64{0}, []float64{0}, measure.ErrShape},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := cv.PairScore(tc.pairs, y, tc.pi, tc.pj); !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// TestPairScoreMeasures checks that, with the full-data predictions in place
// of the held-out ones, PairScore over PositiveNegativePairs is the AUC and
// over DifferentLabelPairs the c-index.
func TestPairScoreMeasures(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		m := 2 + r.IntN(30)
		y, yc, p := make([]float64, m), make([]float64, m), make([]float64, m)
		for i := range y {
			y[i] = float64(r.IntN(2))
			yc[i] = float64(r.IntN(4))
			p[i] = float64(r.IntN(5)) // ties on purpose
		}
		y[0], y[1] = 1, 0
		yc[0], yc[1] = 0, 3
		score := func(pairs []cv.Pair, y []float64) float64 {
			pi, pj := make([]float64, len(pairs)), make([]float64, len(pairs))
			for n, q := range pairs {
				pi[n], pj[n] = p[q.I], p[q.J]
			}
			s, err := cv.PairScore(pairs, y, pi, pj)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		auc, err := measure.AUC(y, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := score(cv.PositiveNegativePairs(y), y); math.Abs(got-auc) > 1e-12 {
			t.Errorf("trial %d: PairScore %v, AUC %v", trial, got, auc)
		}
		ci, err := measure.CIndex(yc, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := score(cv.DifferentLabelPairs(yc), yc); math.Abs(got-ci) > 1e-12 {
			t.Errorf("trial %d: PairScore %v, c-index %v", trial, got, ci)
		}
	}
}

func ExampleKFold() {
	folds, err := cv.KFold(10, 3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for f, fold := range folds {
		fmt.Println(f, fold)
	}
	fmt.Println(cv.Covered(folds, 10), cv.Check(folds, 10))

	_, err = cv.KFold(10, 11, 1)
	fmt.Println(errors.Is(err, cv.ErrFolds), err)
	// Output:
	// 0 [0 2 3 5]
	// 1 [1 4 8]
	// 2 [6 7 9]
	// true <nil>
	// true cv: invalid folds: k = 11 for 10 rows
}
