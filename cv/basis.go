package cv

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Fold designs for sparse models with a basis B (Pahikkala, Suominen & Boberg 2012, sect. 6.2).

// stream constants keep these designs' random streams apart from KFold's.
const (
	streamBasisFolds = 0x62617369734b46 // "basisKF"
	streamExcluding  = 0x6578636c4b46   // "exclKF"
)

// BasisFolds is Approach 1 of Pahikkala, Suominen & Boberg 2012, sect. 6.2: rows 0..m-1 in k folds of
// sizes differing by at most one, the basis rows spread evenly so that every
// fold holds ⌊|B|/k⌋ or ⌈|B|/k⌉ of them. With the remove policy each hold-out
// then trains with about (k−1)|B|/k basis vectors: select |B| = 11n/10 for
// models of n. Seeded; O(m). Basis rows out of range or repeated, k < 2 or
// k > m are errors wrapping ErrFolds.
func BasisFolds(m int, basis []int, k int, seed uint64) ([][]int, error) {
	in, err := basisSet(m, basis)
	if err != nil {
		return nil, err
	}
	if k < 2 || k > m {
		return nil, fmt.Errorf("%w: k = %d for %d rows", ErrFolds, k, m)
	}
	b := append([]int(nil), basis...)
	var rest []int
	for i := 0; i < m; i++ {
		if !in[i] {
			rest = append(rest, i)
		}
	}
	r := rand.NewPCG(seed, streamBasisFolds)
	shuffle(r, b)
	shuffle(r, rest)
	of := make([]int, m)
	// deal the basis rows round-robin, then the rest continuing the rotation
	for n, i := range append(b, rest...) {
		of[i] = n % k
	}
	return byLabel(of, k), nil
}

// FoldsExcluding is Approach 2 of Pahikkala, Suominen & Boberg 2012, sect. 6.2: the rows not in
// exclude (the basis) in k seeded random folds; the excluded rows are in no fold,
// so they always train and are never predicted. O(m). k < 2 or more folds than
// remaining rows is an error wrapping ErrFolds.
func FoldsExcluding(m int, exclude []int, k int, seed uint64) ([][]int, error) {
	in, err := basisSet(m, exclude)
	if err != nil {
		return nil, err
	}
	var rest []int
	for i := 0; i < m; i++ {
		if !in[i] {
			rest = append(rest, i)
		}
	}
	if k < 2 || k > len(rest) {
		return nil, fmt.Errorf("%w: k = %d for the %d rows outside the basis", ErrFolds, k, len(rest))
	}
	shuffle(rand.NewPCG(seed, streamExcluding), rest)
	folds := make([][]int, k)
	for n, i := range rest {
		folds[n%k] = append(folds[n%k], i)
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds, nil
}

func basisSet(m int, basis []int) ([]bool, error) {
	in := make([]bool, m)
	for _, i := range basis {
		if i < 0 || i >= m {
			return nil, fmt.Errorf("%w: basis row %d outside [0,%d)", ErrFolds, i, m)
		}
		if in[i] {
			return nil, fmt.Errorf("%w: basis row %d given twice", ErrFolds, i)
		}
		in[i] = true
	}
	return in, nil
}
