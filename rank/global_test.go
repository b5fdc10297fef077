package rank

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
)

func TestGlobalEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	l := newLedger()
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			g, err := FitGlobal(p.x, p.y, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			m, _ := p.y.Dims()
			edges := scoringEdges(p.y, nil)
			all := allRows(m)
			c := newConditioning(p, edges)
			c.shift = shiftTerm(p)
			for _, lambda := range lambdas {
				// the Sherman–Morrison shift term is bounded by the conditioning
				// term (oracle_test.go): 1/δ ≤ 1 + κ, up to the rounding of δ
				if sh, k := c.shift(lambda), 1+c.kappa(lambda); sh > k*(1+1e-6) {
					t.Errorf("λ=%g: 1/δ = %.4g exceeds 1 + κ = %.4g", lambda, sh, k)
				}
				s, err := g.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				// λ path: training predictions and the predictor
				want := oracleFit(p, edges, nil, all, lambda)
				l.check(t, c, lambda, want, s.Fitted(), want, "fitted")
				got, err := s.Predictor().Predict(p.x)
				if err != nil {
					t.Fatal(err)
				}
				l.check(t, c, lambda, want, got, want, "predictor")
				// hold-out sets of several sizes
				for _, size := range []int{1, 2, 3, m / 2} {
					h := rng.Perm(m)[:size]
					got, err := s.HoldOut(h)
					if err != nil {
						t.Fatal(err)
					}
					l.check(t, c, lambda, want, got, oracleFit(p, edges, h, h, lambda), fmt.Sprintf("|H|=%d hold-out", size))
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
						w := oracleFit(p, edges, []int{pr.I, pr.J}, []int{pr.I, pr.J}, lambda)
						got := mat.NewDense(2, w.RawMatrix().Cols, nil)
						got.SetRow(0, pi.RawRowView(n))
						got.SetRow(1, pj.RawRowView(n))
						if !l.check(t, c, lambda, want, got, w, fmt.Sprintf("pair %v (%d pairs)", pr, len(pairs))) {
							t.FailNow()
						}
					}
				}
			}
		})
	}
	l.verify(t)
}
