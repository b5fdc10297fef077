package learn_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
)

// Two different learners — kernel ridge regression and RankRLS over all pairs —
// trained once and used through the same contract: re-solved at a λ,
// cross-validated by leave-one-out where they offer it, and turned into
// predictors.
func Example() {
	x := mat.NewDense(8, 1, []float64{0, 1, 2, 3, 4, 5, 6, 7})
	y := mat.NewDense(8, 1, []float64{0.1, 0.9, 2.2, 2.8, 4.1, 5.2, 5.9, 7.1})
	opt := learn.Options{Kernel: kernel.Linear{Bias: 1}}

	r, err := rls.Fit(x, y, opt)
	if err != nil {
		log.Fatal(err)
	}
	g, err := rank.FitGlobal(x, y, opt)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range []learn.Learner{r, g} {
		s, err := l.At(0.5) // no refactorization: a small update of the trained factor
		if err != nil {
			log.Fatal(err)
		}
		// capabilities are found by interface assertion
		loo, ok := s.(learn.LeaveOneOuter)
		if !ok {
			log.Fatalf("%s: no leave-one-out", l.Name())
		}
		p, err := loo.LeaveOneOut()
		if err != nil {
			log.Fatal(err)
		}
		f, err := s.Predictor().Predict(mat.NewDense(1, 1, []float64{10}))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-10s LOO prediction for x=7: %.3f, f(10) = %.3f, relabel: %v, basis hold-out: %v\n",
			l.Name(), p.At(7, 0), f.At(0, 0), learn.Has(l, learn.CanRelabel), learn.Has(s, learn.CanHoldOutBasis))
	}
	// Output:
	// rls        LOO prediction for x=7: 6.955, f(10) = 9.995, relabel: true, basis hold-out: true
	// globalrank LOO prediction for x=7: 6.957, f(10) = 10.021, relabel: true, basis hold-out: false
}
