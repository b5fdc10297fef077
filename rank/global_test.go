package rank

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
)

func TestGlobalEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			g, err := FitGlobal(p.x, p.y, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			m, _ := p.y.Dims()
			edges := scoringEdges(p.y, nil)
			all := allRows(m)
			for _, lambda := range lambdas {
				tol := tolerance(p, lambda)
				s, err := g.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				// λ path: training predictions and the predictor
				want := oracleFit(p, edges, nil, all, lambda)
				if e := relErr(s.Fitted(), want); e > tol {
					t.Errorf("λ=%g: fitted rel. error %.2e", lambda, e)
				}
				got, err := s.Predictor().Predict(p.x)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(got, want); e > tol {
					t.Errorf("λ=%g: predictor rel. error %.2e", lambda, e)
				}
				// hold-out sets of several sizes
				for _, size := range []int{1, 2, 3, m / 2} {
					h := rng.Perm(m)[:size]
					got, err := s.HoldOut(h)
					if err != nil {
						t.Fatal(err)
					}
					if e := relErr(got, oracleFit(p, edges, h, h, lambda)); e > tol {
						t.Errorf("λ=%g |H|=%d: hold-out rel. error %.2e", lambda, size, e)
					}
				}
				// LPO: a few pairs (factor path) and all pairs (the O(1)-per-pair path)
				var few, many []learn.Pair
				for i := 0; i < m; i++ {
					for j := i + 1; j < m; j++ {
						many = append(many, learn.Pair{I: i, J: j})
					}
				}
				for k := 0; k < 4; k++ {
					q := rng.Perm(m)
					few = append(few, learn.Pair{I: q[0], J: q[1]})
				}
				for _, pairs := range [][]learn.Pair{few, many} {
					pi, pj, err := s.LeavePairOut(pairs)
					if err != nil {
						t.Fatal(err)
					}
					for n, pr := range pairs {
						if len(pairs) > 10 && n%11 != 0 {
							continue
						}
						want := oracleFit(p, edges, []int{pr.I, pr.J}, []int{pr.I, pr.J}, lambda)
						got := mat.NewDense(2, want.RawMatrix().Cols, nil)
						got.SetRow(0, pi.RawRowView(n))
						got.SetRow(1, pj.RawRowView(n))
						if e := relErr(got, want); e > tol {
							t.Fatalf("λ=%g pair %v (%d pairs): rel. error %.2e", lambda, pr, len(pairs), e)
						}
					}
				}
			}
		})
	}
}
