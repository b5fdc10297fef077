package greedy

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
)

// TestOuterPartialFolds: outer folds that leave rows out (here the last of
// four folds is dropped) predict only their own rows — the rows no outer fold
// holds out stay NaN in Predictions — and the covered rows' predictions are
// those of selecting on each training part by hand.
func TestOuterPartialFolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	x, y := oracle.Data(rng, 30, 8, 1, true, 0.4, oracle.Smooth)
	all, err := cv.KFold(30, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	outer := all[:3]
	opt := Options{Lambdas: []float64{0.1, 10}, Bias: 1, K: 3}
	res, err := Outer(x, y, opt, outer)
	if err != nil {
		t.Fatal(err)
	}
	held := map[int]bool{}
	for _, test := range outer {
		train := cv.Complement(test, 30)
		r, err := Select(kernel.Rows(x, train), kernel.Rows(y, train).(*mat.Dense), opt)
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.Predictor.Predict(kernel.Rows(x, test))
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range test {
			held[i] = true
			if got, want := res.Predictions.At(i, 0), p.At(k, 0); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("row %d: outer prediction %g, by hand %g", i, got, want)
			}
		}
	}
	for _, i := range all[3] {
		if held[i] {
			continue
		}
		if v := res.Predictions.At(i, 0); !math.IsNaN(v) {
			t.Errorf("row %d, held out by no outer fold: prediction %g, want NaN", i, v)
		}
	}
}
