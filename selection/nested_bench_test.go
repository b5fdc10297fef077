package selection

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/rls"
)

// BenchmarkNested compares Nested — per kernel setting one factorization
// of all m rows, then per λ the hold-outs O ∪ I of every outer and inner
// fold — with nested CV by refitting: per outer fold, inner fold and kernel
// setting one factorization of T ∖ I (rls.Fit) whose λ path is then cheap
// (At and a prediction of I per λ), plus one fit of T per outer fold and
// setting. rls dual, gaussian, m = 300, 5 outer × 5 inner folds, 2 γ, with
// 4 and 16 λ values: the hold-outs cost O((2m/K)²m) per λ and fold pair,
// a refit O((m − 2m/K)³) once for every λ, so the hold-outs win on short
// grids and lose on long ones (see the report of issue 22).
func BenchmarkNested(b *testing.B) {
	const m, k = 300, 5
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := oracle.Data(rng, m, 5, 1, false, 0, oracle.Smooth)
	specs := []kernel.Spec{{Name: "gaussian", Gamma: 0.05}, {Name: "gaussian", Gamma: 0.5}}
	outer, _ := cv.KFold(m, k, 1)
	inner, _ := cv.KFold(m, k, 2)
	mse, _ := measure.ByName("mse")
	method := func(x mat.Matrix, kk kernel.Kernel) (learn.Learner, error) {
		return rls.Fit(x, y, learn.Options{Kernel: kk, Form: learn.Dual})
	}
	for _, nl := range []int{4, 16} {
		grid := make([]float64, nl)
		for i := range grid {
			grid[i] = 1e-3 * float64(int(1)<<(i%16)) * float64(1+i/16)
		}
		b.Run(fmt.Sprintf("holdouts/lambdas=%d", nl), func(b *testing.B) {
			for b.Loop() {
				if _, err := Nested(Problem{X: x, Method: method},
					Settings{Kernels: specs, Lambdas: grid, Scheme: Scheme{Kind: Folds, Name: "kfold:5", Folds: inner}, Measure: mse}, outer, 0.9); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("refit/lambdas=%d", nl), func(b *testing.B) {
			for b.Loop() {
				for _, o := range outer {
					train := cv.Complement(o, m)
					in := map[int]bool{}
					for _, i := range train {
						in[i] = true
					}
					for _, spec := range specs {
						kk, _ := kernel.New(spec)
						for _, f := range inner {
							var held, tr []int
							for _, i := range f {
								if in[i] {
									held = append(held, i)
								}
							}
							isHeld := map[int]bool{}
							for _, i := range held {
								isHeld[i] = true
							}
							for _, i := range train {
								if !isHeld[i] {
									tr = append(tr, i)
								}
							}
							l, err := rls.Fit(kernel.Rows(x, tr), kernel.Rows(y, tr).(*mat.Dense), learn.Options{Kernel: kk, Form: learn.Dual})
							if err != nil {
								b.Fatal(err)
							}
							for _, lambda := range grid {
								s, err := l.At(lambda)
								if err != nil {
									b.Fatal(err)
								}
								if _, err := s.Predictor().Predict(kernel.Rows(x, held)); err != nil {
									b.Fatal(err)
								}
							}
						}
						if _, err := rls.Fit(kernel.Rows(x, train), kernel.Rows(y, train).(*mat.Dense), learn.Options{Kernel: kk, Form: learn.Dual}); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}
