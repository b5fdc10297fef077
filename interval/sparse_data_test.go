package interval_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rls"
)

// toCSR is the CSR form of the nonzeros of x.
func toCSR(t *testing.T, x *mat.Dense) *matrix.CSR {
	t.Helper()
	m, d := x.Dims()
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if v := x.At(i, j); v != 0 {
				idx, val = append(idx, j), append(val, v)
			}
		}
		indptr = append(indptr, len(idx))
	}
	c, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestIntervalsSparseData: training and test rows in CSR form (half the
// entries zero; the linear kernel's dual-form predictor then keeps weights
// for the columns that hold values only, WIndex) give the intervals of
// the same rows dense, to 1e-10 of max|y|: the jackknife+ of the linear
// kernel in the dual form and CV+ of the gaussian kernel, test rows given
// dense and as CSR.
func TestIntervalsSparseData(t *testing.T) {
	const m, mt, d = 30, 6, 8
	rng := rand.New(rand.NewPCG(4, 2))
	xAll, yAll := oracle.Data(rng, m+mt, d, 1, true, 0.5, oracle.Smooth)
	x, y := mat.DenseCopyOf(xAll.Slice(0, m, 0, d)), mat.DenseCopyOf(yAll.Slice(0, m, 0, 1))
	xt := mat.DenseCopyOf(xAll.Slice(m, m+mt, 0, d))
	perm := rng.Perm(m)
	folds := [][]int{perm[:10], perm[10:20], perm[20:]}
	scale := mat.Norm(y, math.Inf(1))
	for _, c := range []struct {
		name   string
		kern   kernel.Kernel
		method string
	}{
		{"dual linear jackknife+", kernel.Linear{Bias: 1}, model.JackknifePlus},
		{"dual gaussian cv+", kernel.Gaussian{Gamma: 0.2}, model.CVPlus},
	} {
		var fs [][]int
		if c.method == model.CVPlus {
			fs = folds
		}
		var ends [2][2]*mat.Dense // [dense, csr training][lo, hi] on dense test rows
		for v, train := range []mat.Matrix{x, toCSR(t, x)} {
			r, err := rls.Fit(train, y, rls.Options{Kernel: c.kern, Form: learn.Dual})
			if err != nil {
				t.Fatal(err)
			}
			sol, _ := r.Solve(0.5)
			p := sol.Predictor()
			if v == 1 && c.method == model.JackknifePlus && p.WIndex == nil {
				t.Errorf("%s: the CSR fit's linear predictor has no weight index", c.name)
			}
			if p.Interval, err = interval.New(p, sol, y, c.method, fs); err != nil {
				t.Fatal(err)
			}
			_, lo, hi, err := p.PredictInterval(xt, 0.8)
			if err != nil {
				t.Fatal(err)
			}
			_, lo2, hi2, err := p.PredictInterval(toCSR(t, xt), 0.8)
			if err != nil {
				t.Fatal(err)
			}
			for _, pair := range [][2]*mat.Dense{{lo, lo2}, {hi, hi2}} {
				var diff mat.Dense
				diff.Sub(pair[0], pair[1])
				if e := mat.Norm(&diff, math.Inf(1)) / scale; !(e <= 1e-10) {
					t.Errorf("%s: CSR test rows differ from dense by %.2g", c.name, e)
				}
			}
			ends[v] = [2]*mat.Dense{lo, hi}
		}
		for q := 0; q < 2; q++ {
			var diff mat.Dense
			diff.Sub(ends[0][q], ends[1][q])
			if e := mat.Norm(&diff, math.Inf(1)) / scale; !(e <= 1e-10) {
				t.Errorf("%s: CSR training differs from dense by %.2g", c.name, e)
			}
		}
	}
}
