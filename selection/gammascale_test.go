package selection

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// Settings.GammaScale searches multiples of γ = 1/(d·Var X) of the rows
// after standardization: the same curves, bit for bit, as the explicit γ
// values computed by hand, with the resolved γ in Kernel and Curves.
func TestSearchGammaScale(t *testing.T) {
	x, y := permProblem(30, 4, true) // 30×3
	xd := mat.DenseCopyOf(x)
	for i := range 30 { // raw data: offsets and scales
		for j := range 3 {
			xd.Set(i, j, 40*xd.At(i, j)+float64(100*j))
		}
	}
	loo := Scheme{Kind: LOO, Name: "loo"}
	mse := mustMeasure(t, "mse")
	grid := []float64{0.01, 0.1, 1, 10}
	for _, standardize := range []bool{false, true} {
		rows := mat.Matrix(xd)
		if standardize {
			var err error
			if rows, err = model.FitScaler(xd).Transform(xd); err != nil {
				t.Fatal(err)
			}
		}
		g := kernel.ScaleGamma(rows)
		mult := []kernel.Spec{{Name: "gaussian", Gamma: 0.5}, {Name: "gaussian", Gamma: 2}}
		byHand := []kernel.Spec{{Name: "gaussian", Gamma: 0.5 * g}, {Name: "gaussian", Gamma: 2 * g}}
		got, err := Search(Problem{Learner: rlsDescriptor(t), Input: &learn.Input{X: xd, Y: y}, Standardize: standardize},
			Settings{Kernels: mult, GammaScale: true, Lambdas: grid, Scheme: loo, Measure: mse})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Search(Problem{Learner: rlsDescriptor(t), Input: &learn.Input{X: xd, Y: y}, Standardize: standardize},
			Settings{Kernels: byHand, Lambdas: grid, Scheme: loo, Measure: mse})
		if err != nil {
			t.Fatal(err)
		}
		if got.GammaScale != g || got.Kernel != want.Kernel || mult[0].Gamma != 0.5 {
			t.Errorf("standardize %v: GammaScale %v kernel %v (settings %v), want %v and %v", standardize, got.GammaScale, got.Kernel, mult, g, want.Kernel)
		}
		for c := range want.Curves {
			if got.Curves[c].Kernel != want.Curves[c].Kernel {
				t.Errorf("curve %d: kernel %v, want %v", c, got.Curves[c].Kernel, want.Curves[c].Kernel)
			}
			for k, pt := range want.Curves[c].Curve {
				if got.Curves[c].Curve[k].Value != pt.Value {
					t.Errorf("standardize %v, curve %d, λ = %g: %v, by hand %v", standardize, c, pt.Lambda, got.Curves[c].Curve[k].Value, pt.Value)
				}
			}
		}
		if got.Degenerate != kernel.NotDegenerate {
			t.Errorf("γ = scale: the kernel matrix is %q", got.Degenerate)
		}
	}
	// γ = 1 on the raw rows: K ≈ I, and Search says so
	res, err := Search(Problem{Learner: rlsDescriptor(t), Input: &learn.Input{X: xd, Y: y}},
		Settings{Kernels: []kernel.Spec{{Name: "gaussian", Gamma: 1}}, Lambdas: grid, Scheme: loo, Measure: mse})
	if err != nil {
		t.Fatal(err)
	}
	if res.Degenerate != kernel.Identity || res.GammaScale != 0 {
		t.Errorf("γ = 1 on raw rows: Degenerate %q, GammaScale %v; want identity and 0", res.Degenerate, res.GammaScale)
	}
}
