package cv_test

import (
	"fmt"
	"log"

	"github.com/rlskit/rlskit/cv"
)

// BasisFolds spreads the basis rows of a sparse model evenly over the folds
// (Pahikkala, Suominen & Boberg 2012, sect. 6.2, Approach 1): when held-out basis vectors are removed
// from the basis, every hold-out model keeps the same number of them. Plain
// k-fold leaves that to chance.
func ExampleBasisFolds() {
	const m, k = 15, 3
	basis := []int{2, 3, 5, 7, 11, 13} // 6 of the 15 rows are basis vectors
	isBasis := map[int]bool{}
	for _, b := range basis {
		isBasis[b] = true
	}
	basisPerFold := func(folds [][]int) []int {
		var counts []int
		for _, fold := range folds {
			n := 0
			for _, i := range fold {
				if isBasis[i] {
					n++
				}
			}
			counts = append(counts, n)
		}
		return counts
	}

	spread, err := cv.BasisFolds(m, basis, k, 4)
	if err != nil {
		log.Fatal(err)
	}
	plain, err := cv.KFold(m, k, 4)
	if err != nil {
		log.Fatal(err)
	}
	for f, fold := range spread {
		fmt.Printf("fold %d: %v\n", f, fold)
	}
	fmt.Println("basis rows per fold, BasisFolds:", basisPerFold(spread), "KFold:", basisPerFold(plain))
	fmt.Println("every row in exactly one fold:", cv.Covered(spread, m))
	// Output:
	// fold 0: [3 4 8 11 12]
	// fold 1: [1 6 7 13 14]
	// fold 2: [0 2 5 9 10]
	// basis rows per fold, BasisFolds: [2 2 2] KFold: [2 3 1]
	// every row in exactly one fold: true
}
