package cv_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/rlskit/rlskit/cv"
)

func TestBasisFolds(t *testing.T) {
	basis := []int{3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 41}
	folds, err := cv.BasisFolds(50, basis, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !cv.Covered(folds, 50) {
		t.Fatal("not a partition")
	}
	for k, f := range folds {
		nb := 0
		for _, i := range f {
			if slices.Contains(basis, i) {
				nb++
			}
		}
		if nb < 1 || nb > 2 || len(f) < 5 || len(f) > 5 {
			t.Errorf("fold %d: %d rows, %d basis rows", k, len(f), nb)
		}
	}
	again, _ := cv.BasisFolds(50, basis, 10, 4)
	if !slices.EqualFunc(folds, again, slices.Equal) {
		t.Error("not deterministic")
	}
	for _, c := range []struct {
		basis []int
		k     int
	}{{[]int{1, 1}, 5}, {[]int{50}, 5}, {basis, 1}, {basis, 51}} {
		if _, err := cv.BasisFolds(50, c.basis, c.k, 1); !errors.Is(err, cv.ErrFolds) {
			t.Errorf("%v k=%d: err = %v", c.basis, c.k, err)
		}
	}
}

func TestFoldsExcluding(t *testing.T) {
	basis := []int{0, 5, 9}
	folds, err := cv.FoldsExcluding(20, basis, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := cv.Check(folds, 20); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range folds {
		for _, i := range f {
			if slices.Contains(basis, i) {
				t.Errorf("basis row %d in a fold", i)
			}
		}
		n += len(f)
		if !slices.IsSorted(f) {
			t.Error("fold not sorted")
		}
	}
	if n != 17 {
		t.Errorf("%d rows in folds, want 17", n)
	}
	if _, err := cv.FoldsExcluding(5, []int{0, 1, 2, 3}, 2, 1); !errors.Is(err, cv.ErrFolds) {
		t.Errorf("too few rows: err = %v", err)
	}
}
