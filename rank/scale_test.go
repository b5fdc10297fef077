package rank

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// holdOuter is what the scale checks compare: training predictions and
// hold-outs.
type holdOuter interface {
	Fitted() *mat.Dense
	HoldOut([]int) (*mat.Dense, error)
	LeaveOneOut() (*mat.Dense, error)
}

// compareSolutions checks that two solutions give the same fitted values,
// leave-one-out and hold-outs (relative 1e-8: both are well-conditioned
// problems at λ = 1, up to the scaling, which is exact in floating point
// only up to rounding).
func compareSolutions(t *testing.T, what string, a, b holdOuter) {
	t.Helper()
	if e := relErr(b.Fitted(), a.Fitted()); e > 1e-8 {
		t.Errorf("%s: fitted values rel. difference %.2e", what, e)
	}
	la, err := a.LeaveOneOut()
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.LeaveOneOut()
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(lb, la); e > 1e-8 {
		t.Errorf("%s: leave-one-out rel. difference %.2e", what, e)
	}
	for _, h := range [][]int{{0, 3}, {1, 2, 5, 8}} {
		ha, err := a.HoldOut(h)
		if err != nil {
			t.Fatal(err)
		}
		hb, err := b.HoldOut(h)
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(hb, ha); e > 1e-8 {
			t.Errorf("%s: hold-out %v rel. difference %.2e", what, h, e)
		}
	}
}

// The rankers do not depend on the scale of the data: with the linear kernel
// without bias, X → cX multiplies K by c², and λ → c²λ gives the same
// model; multiplying every edge weight of a preference graph by c multiplies
// L and b by c², and λ → c²λ again gives the same model. Every threshold of
// the learners (eigenvalues or singular values dropped as rounding noise) is
// relative, so this holds for scales far from 1.
func TestScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 38))
	const m = 10
	x, y := randData(rng, m, 3, 1, false)
	queries := []int{0, 0, 0, 1, 1, 1, 1, 2, 2, 2}
	edges := randomEdges(rng, m, 18)
	const lambda = 1.0
	for _, form := range []learn.Form{learn.Dual, learn.Linear} {
		opt := Options{Kernel: kernel.Linear{}, Form: form}
		fit := func(x mat.Matrix, edges []Edge) (*Global, *Query, *Preference) {
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
			return g, q, p
		}
		g, q, p := fit(x, edges)
		gs, _ := g.Solve(lambda)
		qs, _ := q.Solve(lambda)
		ps, _ := p.Solve(lambda)
		for _, c := range []float64{1e-9, 1e6} {
			var xc mat.Dense
			xc.Scale(c, x)
			gc, qc, pc := fit(&xc, edges)
			l := c * c * lambda
			gcs, err := gc.Solve(l)
			if err != nil {
				t.Fatal(err)
			}
			qcs, _ := qc.Solve(l)
			pcs, _ := pc.Solve(l)
			what := fmt.Sprintf("%v, X×%g", form, c)
			compareSolutions(t, "global "+what, gs, gcs)
			compareSolutions(t, "query "+what, qs, qcs)
			compareSolutions(t, "preference "+what, ps, pcs)
		}
	}
	// the graph's scale, with a gaussian kernel in the dual and sparse forms
	for _, form := range []learn.Form{learn.Dual, learn.Sparse} {
		opt := Options{Kernel: kernel.Gaussian{Gamma: 0.4}, Form: form}
		if form == learn.Sparse {
			opt.Basis = []int{1, 4, 6, 9}
		}
		p, err := FitPreference(x, edges, Magnitude, opt)
		if err != nil {
			t.Fatal(err)
		}
		ps, _ := p.Solve(lambda)
		for _, c := range []float64{1e-5, 1e5} {
			scaled := append([]Edge(nil), edges...)
			for k := range scaled {
				scaled[k].Weight *= c
			}
			pc, err := FitPreference(x, scaled, Magnitude, opt)
			if err != nil {
				t.Fatal(err)
			}
			pcs, _ := pc.Solve(c * c * lambda)
			compareSolutions(t, fmt.Sprintf("preference %v, weights×%g", form, c), ps, pcs)
		}
	}
}
