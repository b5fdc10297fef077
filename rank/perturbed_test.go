package rank

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// Each ranker's Perturbed(s) is the model of its labels (a preference
// graph's targets) times s on eigenvalues moved up by their rounding error:
// its predictions and cross-validation predictions are s times the
// learner's, to within that perturbation (relative ~r·ε·κ, far below 1e-8 at
// λ = 1 here).
func TestPerturbedTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 35))
	const m = 12
	x, y := randData(rng, m, 3, 2, false)
	queries := make([]int, m)
	for i := range queries {
		queries[i] = i % 3
	}
	edges := randomEdges(rng, m, 25)
	for k := range edges {
		edges[k].Magnitude++
	}
	for _, form := range []learn.Form{learn.Dual, learn.Sparse} {
		opt := Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Form: form}
		if form == learn.Sparse {
			opt.Basis = []int{0, 4, 7, 9, 11}
		}
		g, err := FitGlobal(x, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		q, err := FitQuery(x, y, queries, opt)
		if err != nil {
			t.Fatal(err)
		}
		p, err := FitPreference(x, edges, Magnitude, opt)
		if err != nil {
			t.Fatal(err)
		}
		pi, err := FitPreference(x, edges, Inverse, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			l    learn.Learner
			twin func(float64) (learn.Learner, error)
		}{
			{"global", g, g.Perturbed},
			{"query", q, q.Perturbed},
			{"preference", p, p.Perturbed},
			{"preference, inverse cost", pi, pi.Perturbed},
		} {
			for _, s := range []float64{1, -3, 0.25} {
				tw, err := c.twin(s)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				a, err := c.l.At(1)
				if err != nil {
					t.Fatal(err)
				}
				b, err := tw.At(1)
				if err != nil {
					t.Fatal(err)
				}
				fa, _ := a.Predictor().Predict(x)
				fb, _ := b.Predictor().Predict(x)
				var want mat.Dense
				want.Scale(s, fa)
				if e := relErr(fb, &want); e > 1e-8 {
					t.Errorf("%v %s, s=%g: twin's predictions rel. error %.2e against s·f", form, c.name, s, e)
				}
				la, _ := a.(learn.LeaveOneOuter).LeaveOneOut()
				lb, _ := b.(learn.LeaveOneOuter).LeaveOneOut()
				want.Scale(s, la)
				if e := relErr(lb, &want); e > 1e-8 {
					t.Errorf("%v %s, s=%g: twin's leave-one-out rel. error %.2e against s·LOO", form, c.name, s, e)
				}
			}
		}
	}
}
