package main

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Brute-force references for the CLI tests: retraining from scratch with
// gonum's dense solvers on the numbers the test wrote, sharing no code with
// the module.

// kernelFunc is a kernel function on two rows.
type kernelFunc func(a, b []float64) float64

// linearKernel is k(x, z) = x·z + bias.
func linearKernel(bias float64) kernelFunc {
	return func(a, b []float64) float64 {
		s := bias
		for n := range a {
			s += a[n] * b[n]
		}
		return s
	}
}

// gaussianKernel is k(x, z) = exp(−γ‖x − z‖²).
func gaussianKernel(gamma float64) kernelFunc {
	return func(a, b []float64) float64 {
		s := 0.0
		for n := range a {
			s += (a[n] - b[n]) * (a[n] - b[n])
		}
		return math.Exp(-gamma * s)
	}
}

// ridgeDual trains RLS on the rows xs with the labels ys (one slice of
// outputs per row) from scratch: (K + λI) A = Y by LU, K_ij = k(x_i, x_j),
// and predicts the rows xn, K(xn, xs)·A. It returns the predictions and the
// condition number of K + λI.
func ridgeDual(t *testing.T, k kernelFunc, xs, ys [][]float64, xn [][]float64, lambda float64) ([][]float64, float64) {
	t.Helper()
	n, nt := len(xs), len(ys[0])
	sys := mat.NewDense(n, n, nil)
	rhs := mat.NewDense(n, nt, nil)
	for i := range xs {
		for j := range xs {
			sys.Set(i, j, k(xs[i], xs[j]))
		}
		sys.Set(i, i, sys.At(i, i)+lambda)
		rhs.SetRow(i, ys[i])
	}
	var a mat.Dense
	if err := a.Solve(sys, rhs); err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, len(xn))
	for i := range xn {
		out[i] = make([]float64, nt)
		for j := range xs {
			kij := k(xn[i], xs[j])
			for c := 0; c < nt; c++ {
				out[i][c] += kij * a.At(j, c)
			}
		}
	}
	return out, condSym(t, sys)
}

// eps is the float64 unit roundoff (2⁻⁵²).
const eps = 0x1p-52

// condSym is the 2-norm condition number of a symmetric positive definite
// matrix, from its eigenvalues.
func condSym(t *testing.T, a mat.Matrix) float64 {
	t.Helper()
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var e mat.EigenSym
	if !e.Factorize(s, false) {
		t.Fatal("eigendecomposition failed")
	}
	v := e.Values(nil) // ascending
	if !(v[0] > 0) {
		t.Fatalf("system matrix not positive definite: eigenvalues %v", v)
	}
	return v[n-1] / v[0]
}

// readTable reads a CSV file the tests wrote — a header, then numbers — as
// columns by name, each value parsed from its text as the CLI parses it.
func readTable(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(readFileT(t, path)), "\n")
	names := strings.Split(lines[0], ",")
	cols := map[string][]float64{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != len(names) {
			t.Fatalf("%s: line %q has %d fields, the header %d", path, l, len(f), len(names))
		}
		for k, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			cols[names[k]] = append(cols[names[k]], v)
		}
	}
	return cols
}

// rowsOf gathers the named columns into rows.
func rowsOf(cols map[string][]float64, names ...string) [][]float64 {
	out := make([][]float64, len(cols[names[0]]))
	for i := range out {
		for _, n := range names {
			out[i] = append(out[i], cols[n][i])
		}
	}
	return out
}
