package cv_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rlskit/rlskit/cv"
)

// TestBasisDesignsFoldCounts checks the documented range of k of the two
// sparse designs at its ends: BasisFolds takes 2 ≤ k ≤ m, FoldsExcluding
// 2 ≤ k ≤ the number of rows outside the basis; one fewer or one more is
// an error wrapping ErrFolds. At the ends the designs are still what they
// promise: BasisFolds a partition with the basis spread over the folds,
// FoldsExcluding non-empty folds partitioning the rows outside the basis.
func TestBasisDesignsFoldCounts(t *testing.T) {
	const m = 9
	basis := []int{1, 4, 6}
	for _, k := range []int{2, 3, m} {
		t.Run(fmt.Sprintf("BasisFolds k=%d", k), func(t *testing.T) {
			folds, err := cv.BasisFolds(m, basis, k, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(folds) != k {
				t.Fatalf("%d folds, want %d", len(folds), k)
			}
			checkPartition(t, folds, m)
			lo, hi := len(basis)/k, (len(basis)+k-1)/k
			for f, fold := range folds {
				nb := 0
				for _, i := range fold {
					if slices.Contains(basis, i) {
						nb++
					}
				}
				if nb < lo || nb > hi {
					t.Errorf("fold %d holds %d basis rows, want %d…%d", f, nb, lo, hi)
				}
				if len(fold) < m/k || len(fold) > (m+k-1)/k {
					t.Errorf("fold %d holds %d rows", f, len(fold))
				}
			}
		})
	}
	for _, k := range []int{1, m + 1} {
		if _, err := cv.BasisFolds(m, basis, k, 3); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("BasisFolds k=%d: error %v, want ErrFolds", k, err)
		}
	}
	rest := m - len(basis)
	for _, k := range []int{2, 4, rest} {
		t.Run(fmt.Sprintf("FoldsExcluding k=%d", k), func(t *testing.T) {
			folds, err := cv.FoldsExcluding(m, basis, k, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(folds) != k {
				t.Fatalf("%d folds, want %d", len(folds), k)
			}
			var all []int
			for f, fold := range folds {
				if len(fold) == 0 || !slices.IsSorted(fold) {
					t.Errorf("fold %d: %v", f, fold)
				}
				all = append(all, fold...)
			}
			slices.Sort(all)
			if want := cv.Complement(basis, m); !slices.Equal(all, want) {
				t.Errorf("folds hold %v, want the rows outside the basis %v", all, want)
			}
		})
	}
	for _, k := range []int{1, rest + 1} {
		if _, err := cv.FoldsExcluding(m, basis, k, 3); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("FoldsExcluding k=%d: error %v, want ErrFolds", k, err)
		}
	}
}
