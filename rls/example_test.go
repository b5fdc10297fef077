package rls_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rls"
)

// Fit factors the kernel matrix once; every λ after that is a cheap Solve.
func ExampleFit() {
	// Eight points of a noisy curve, one feature.
	x := mat.NewDense(8, 1, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5})
	y := mat.NewDense(8, 1, []float64{0.1, 0.4, 0.9, 1.0, 0.8, 0.7, 0.1, -0.3})
	r, err := rls.Fit(x, y, rls.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("form:", r.Form(), "rows:", r.Rows(), "outputs:", r.Outputs())

	xNew := mat.NewDense(2, 1, []float64{1.25, 4})
	for _, lambda := range []float64{0.01, 0.1, 1} {
		s, err := r.Solve(lambda) // no refactorization
		if err != nil {
			log.Fatal(err)
		}
		f, err := s.Predictor().Predict(xNew)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("λ = %-4g f(1.25) = %.3f  f(4) = %.3f\n", lambda, f.At(0, 0), f.At(1, 0))
	}
	// Output:
	// form: dual rows: 8 outputs: 1
	// λ = 0.01 f(1.25) = 0.949  f(4) = -0.505
	// λ = 0.1  f(1.25) = 0.906  f(4) = -0.387
	// λ = 1    f(1.25) = 0.690  f(4) = -0.139
}

// LeaveOneOut gives, for every row, the prediction of the model trained without
// it — here compared with actually retraining eight times.
func ExampleSolution_LeaveOneOut() {
	// Eight points of a noisy curve, one feature.
	x := mat.NewDense(8, 1, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5})
	y := mat.NewDense(8, 1, []float64{0.1, 0.4, 0.9, 1.0, 0.8, 0.7, 0.1, -0.3})
	opt := rls.Options{Kernel: kernel.Gaussian{Gamma: 0.5}}
	r, err := rls.Fit(x, y, opt)
	if err != nil {
		log.Fatal(err)
	}
	s, err := r.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	loo, err := s.LeaveOneOut()
	if err != nil {
		log.Fatal(err)
	}

	// Retrain without row i and predict it.
	m, _ := x.Dims()
	retrained := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		var rest []int
		for j := 0; j < m; j++ {
			if j != i {
				rest = append(rest, j)
			}
		}
		ri, err := rls.Fit(kernel.Rows(x, rest), kernel.Rows(y, rest).(*mat.Dense), opt)
		if err != nil {
			log.Fatal(err)
		}
		si, err := ri.Solve(0.1)
		if err != nil {
			log.Fatal(err)
		}
		fi, err := si.Predictor().Predict(kernel.Rows(x, []int{i}))
		if err != nil {
			log.Fatal(err)
		}
		retrained.Set(i, 0, fi.At(0, 0))
	}

	var sse float64
	for i := 0; i < m; i++ {
		d := y.At(i, 0) - loo.At(i, 0)
		sse += d * d
	}
	fmt.Printf("LOO MSE %.4f\n", sse/float64(m))
	fmt.Println("equals retraining:", mat.EqualApprox(loo, retrained, 1e-9))
	// Output:
	// LOO MSE 0.0243
	// equals retraining: true
}

// HoldOut predicts any set of rows from the model trained without them.
func ExampleSolution_HoldOut() {
	// Eight points of a noisy curve, one feature.
	x := mat.NewDense(8, 1, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5})
	y := mat.NewDense(8, 1, []float64{0.1, 0.4, 0.9, 1.0, 0.8, 0.7, 0.1, -0.3})
	opt := rls.Options{Kernel: kernel.Gaussian{Gamma: 0.5}}
	r, err := rls.Fit(x, y, opt)
	if err != nil {
		log.Fatal(err)
	}
	s, err := r.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	h := []int{1, 4, 6}
	p, err := s.HoldOut(h)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("held-out predictions %.3f\n", mat.Col(nil, 0, p))

	// The same by retraining on the other five rows.
	rest := []int{0, 2, 3, 5, 7}
	r2, err := rls.Fit(kernel.Rows(x, rest), kernel.Rows(y, rest).(*mat.Dense), opt)
	if err != nil {
		log.Fatal(err)
	}
	s2, err := r2.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	want, err := s2.Predictor().Predict(kernel.Rows(x, h))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("equals retraining:", mat.EqualApprox(p, want, 1e-9))
	// Output:
	// held-out predictions [0.481 0.931 0.166]
	// equals retraining: true
}

// LeavePairOut holds out two rows at a time, for as many pairs as you like.
func ExampleSolution_LeavePairOut() {
	// Eight points of a noisy curve, one feature.
	x := mat.NewDense(8, 1, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5})
	y := mat.NewDense(8, 1, []float64{0.1, 0.4, 0.9, 1.0, 0.8, 0.7, 0.1, -0.3})
	opt := rls.Options{Kernel: kernel.Gaussian{Gamma: 0.5}}
	r, err := rls.Fit(x, y, opt)
	if err != nil {
		log.Fatal(err)
	}
	s, err := r.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	pairs := []learn.Pair{{I: 0, J: 7}, {I: 2, J: 5}}
	pi, pj, err := s.LeavePairOut(pairs)
	if err != nil {
		log.Fatal(err)
	}
	for n, pr := range pairs {
		// Retrain without both rows of the pair.
		var rest []int
		for k := 0; k < 8; k++ {
			if k != pr.I && k != pr.J {
				rest = append(rest, k)
			}
		}
		r2, err := rls.Fit(kernel.Rows(x, rest), kernel.Rows(y, rest).(*mat.Dense), opt)
		if err != nil {
			log.Fatal(err)
		}
		s2, err := r2.Solve(0.1)
		if err != nil {
			log.Fatal(err)
		}
		want, err := s2.Predictor().Predict(kernel.Rows(x, []int{pr.I, pr.J}))
		if err != nil {
			log.Fatal(err)
		}
		got := mat.NewDense(2, 1, []float64{pi.At(n, 0), pj.At(n, 0)})
		fmt.Printf("pair (%d,%d): %.3f %.3f, equals retraining: %v\n",
			pr.I, pr.J, pi.At(n, 0), pj.At(n, 0), mat.EqualApprox(got, want, 1e-9))
	}
	// Output:
	// pair (0,7): 0.154 -0.069, equals retraining: true
	// pair (2,5): 0.729 0.468, equals retraining: true
}

// A sparse model keeps a basis of training rows. HoldOutBasis with learn.Remove
// also takes held-out basis vectors out of the basis: exactly what retraining
// on the other rows, with the rest of the basis, gives. learn.Keep leaves them in.
func ExampleSolution_HoldOutBasis() {
	// Eight points of a noisy curve, one feature.
	x := mat.NewDense(8, 1, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5})
	y := mat.NewDense(8, 1, []float64{0.1, 0.4, 0.9, 1.0, 0.8, 0.7, 0.1, -0.3})
	k := kernel.Gaussian{Gamma: 0.5}
	r, err := rls.Fit(x, y, rls.Options{Kernel: k, Basis: []int{0, 2, 4, 6}})
	if err != nil {
		log.Fatal(err)
	}
	s, err := r.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	h := []int{2, 3} // row 2 is a basis vector
	remove, err := s.HoldOutBasis(h, learn.Remove)
	if err != nil {
		log.Fatal(err)
	}
	keep, err := s.HoldOutBasis(h, learn.Keep)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("form %v; remove %.3f, keep %.3f\n", r.Form(), mat.Col(nil, 0, remove), mat.Col(nil, 0, keep))

	// Retrain on rows 0,1,4,5,6,7 with basis rows 0, 4, 6 (positions 0, 2, 4 there).
	rest := []int{0, 1, 4, 5, 6, 7}
	r2, err := rls.Fit(kernel.Rows(x, rest), kernel.Rows(y, rest).(*mat.Dense), rls.Options{Kernel: k, Basis: []int{0, 2, 4}})
	if err != nil {
		log.Fatal(err)
	}
	s2, err := r2.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	want, err := s2.Predictor().Predict(kernel.Rows(x, h))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("remove equals retraining:", mat.EqualApprox(remove, want, 1e-9))
	// Output:
	// form sparse; remove [0.644 0.869], keep [0.598 0.838]
	// remove equals retraining: true
}
