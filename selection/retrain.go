package selection

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/rls"
)

// RandomBasisPerFold is the Retrainer of the sparse k-fold design 3 of
// Pahikkala, Suominen & Boberg (2012, sect. 6.2, Approach 3): for each fold
// it trains sparse RLS on the fold's training rows of X (labels Y) with n basis
// vectors drawn afresh among them (seed + fold number), and predicts the fold's
// rows. Its estimate is that of the whole procedure, basis choice included.
// Cost: one sparse training, O(m·n²), per fold.
func RandomBasisPerFold(x mat.Matrix, y *mat.Dense, k kernel.Kernel, n int, seed uint64) Retrainer {
	fold := uint64(0)
	return func(train, test []int) (func(float64) (*mat.Dense, error), error) {
		fold++
		if n > len(train) {
			return nil, fmt.Errorf("%w: %d basis vectors, more than the %d training rows of a fold", ErrScheme, n, len(train))
		}
		b, err := basis.Random(len(train), n, seed+fold)
		if err != nil {
			return nil, err
		}
		r, err := rls.Fit(kernel.Rows(x, train), kernel.Rows(y, train).(*mat.Dense), rls.Options{Kernel: k, Basis: b})
		if err != nil {
			return nil, err
		}
		xs := kernel.Rows(x, test)
		return func(l float64) (*mat.Dense, error) {
			s, err := r.Solve(l)
			if err != nil {
				return nil, err
			}
			return s.Predictor().Predict(xs)
		}, nil
	}
}
