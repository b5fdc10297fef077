package pairkernel_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/pairkernel"
)

// A homogeneous network of four objects with a linear kernel on three
// features: RLS with the antisymmetric pairwise kernel on five observed
// pairs (object d beats object t by y), then predictions for a pair in
// both orientations — antisymmetric, f(t, d) = −f(d, t) — and the
// comparison with the explicit dense solve's (see docs/pairkernel.md).
func Example() {
	x := mat.NewDense(4, 3, []float64{1, 0, 0, 0.5, 0.5, 0, 0, 1, 0.5, 1, 1, 1})
	var k mat.Dense
	k.Mul(x, x.T()) // 4×4 linear kernel
	kind := pairkernel.Antisymmetric
	terms, _ := kind.Terms(nil)
	base, _ := kind.Base([]*mat.Dense{&k}, nil, nil, nil)
	train := pairkernel.Pairs{Rows: []int{0, 1, 2, 3, 0}, Cols: []int{1, 2, 3, 0, 2}}
	y := []float64{1, 0.5, -1, 0.5, 1.5}
	m, err := pairkernel.Fit(base, terms, train, y, 0.1, pairkernel.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, _ := m.Predict(base, pairkernel.Pairs{Rows: []int{1, 3, 2}, Cols: []int{3, 1, 2}})
	fmt.Printf("converged %v in %d iterations\n", m.Converged, m.Iterations)
	fmt.Printf("f(1,3) = %.6f, f(3,1) = %.6f, |f(2,2)| < 1e-12: %v\n", f[0], f[1], math.Abs(f[2]) < 1e-12)
	// Output:
	// converged true in 4 iterations
	// f(1,3) = -0.709957, f(3,1) = 0.709957, |f(2,2)| < 1e-12: true
}
