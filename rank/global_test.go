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

// Leave-pair-out from the set-up of the entries the pairs need equals
// retraining: pairs between two sides (positive against negative rows, and
// a random bipartite pattern that leaves rows out) read Q_AB, pairs with an
// odd cycle (every pair of rows) all of Q_2; a later call whose pairs the set-up does not cover
// gets a new one, one it covers reuses it; the pairs are split among
// workers. Every shape, kernel and form of the problem matrix, λ from 1e-6
// to 1e4, to the ledger's forward-error bound.
func TestGlobalPairSetupsEqualRetraining(t *testing.T) {
	defer func(n int) { pairsPerWorker = n }(pairsPerWorker)
	pairsPerWorker = 3
	rng := rand.New(rand.NewPCG(43, 1))
	l := newLedger()
	for n, p := range problems(rng) {
		if n%2 != 0 {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			g, err := FitGlobal(p.x, p.y, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			m, _ := p.y.Dims()
			edges := scoringEdges(p.y, nil)
			c := newConditioning(p, edges)
			c.shift = shiftTerm(p)
			var posNeg, random, odd []learn.Pair
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					if p.y.At(i, 0) > 0 && p.y.At(j, 0) <= 0 {
						posNeg = append(posNeg, learn.Pair{I: i, J: j})
					}
				}
			}
			side := rng.Perm(m)
			a, b := side[:m/3], side[m/3:m-1] // side[m−1] is in no pair
			for _, i := range a {
				for _, j := range b {
					if rng.IntN(2) == 0 {
						random = append(random, learn.Pair{I: i, J: j}, learn.Pair{I: j, J: i})
					}
				}
			}
			for i := 0; i < m; i++ { // every pair once: triangles, enough pairs for all of Q_2
				for j := i + 1; j < m; j++ {
					odd = append(odd, learn.Pair{I: side[i], J: side[j]})
				}
			}
			for _, lambda := range lambdas {
				s, err := g.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				want := oracleFit(p, edges, nil, allRows(m), lambda)
				var setups []*qCache
				for k, pairs := range [][]learn.Pair{posNeg, random, random[:len(random)/2], odd, posNeg} {
					if len(pairs) == 0 {
						continue
					}
					pi, pj, err := s.LeavePairOut(pairs)
					if err != nil {
						t.Fatal(err)
					}
					setups = append(setups, s.pair)
					for n, pr := range pairs {
						if n%7 != 0 {
							continue
						}
						w := oracleFit(p, edges, []int{pr.I, pr.J}, []int{pr.I, pr.J}, lambda)
						got := mat.NewDense(2, w.RawMatrix().Cols, nil)
						got.SetRow(0, pi.RawRowView(n))
						got.SetRow(1, pj.RawRowView(n))
						l.check(t, c, lambda, want, got, w, fmt.Sprintf("pair set %d, pair %v", k, pr))
					}
				}
				if len(posNeg) > 0 && len(setups) == 5 {
					if setups[0] == nil || setups[1] == setups[0] || setups[2] != setups[1] || setups[3] == setups[2] {
						t.Errorf("λ=%g: set-ups %p: want a new one for the random pairs, the same for their half, a new one for the odd cycle", lambda, setups)
					}
					if q := setups[3]; len(q.posA) != m || q.qab.RawMatrix().Rows != m || q.qab.RawMatrix().Cols != m {
						t.Errorf("λ=%g: pairs with an odd cycle: Q is %d×%d, want all of Q_2", lambda, q.qab.RawMatrix().Rows, q.qab.RawMatrix().Cols)
					}
					inPairs := map[int]bool{}
					for _, pr := range random {
						inPairs[pr.I], inPairs[pr.J] = true, true
					}
					if q := setups[1]; q.qab.RawMatrix().Rows+q.qab.RawMatrix().Cols != len(inPairs) {
						t.Errorf("λ=%g: bipartite pairs: Q_AB is %d×%d, want the %d rows in pairs split between its sides", lambda, q.qab.RawMatrix().Rows, q.qab.RawMatrix().Cols, len(inPairs))
					}
				}
			}
		})
	}
	l.verify(t)
}
