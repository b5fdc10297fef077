package rank

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// cvSolution is what the leave-one-out and leave-pair-out checks need of a
// trained ranker at one λ.
type cvSolution interface {
	Fitted() *mat.Dense
	LeaveOneOut() (*mat.Dense, error)
	LeavePairOut([]learn.Pair) (*mat.Dense, *mat.Dense, error)
}

// checkLOOAndLPO compares leave-one-out (every row) and leave-pair-out (a few
// pairs) with retraining without the rows, through the ledger's bounds.
func checkLOOAndLPO(t *testing.T, l *ledger, p problem, edges []oracle.Edge, s cvSolution, lambda float64, rng *rand.Rand) {
	t.Helper()
	m, _ := p.x.Dims()
	c := newConditioning(p, edges)
	want := oracleFit(p, edges, nil, allRows(m), lambda)
	l.check(t, c, lambda, want, s.Fitted(), want, "fitted")
	loo, err := s.LeaveOneOut()
	if err != nil {
		t.Fatal(err)
	}
	_, tt := want.Dims()
	wantLOO := mat.NewDense(m, tt, nil)
	for i := 0; i < m; i++ {
		wantLOO.SetRow(i, oracleFit(p, edges, []int{i}, []int{i}, lambda).RawRowView(0))
	}
	l.check(t, c, lambda, want, loo, wantLOO, "leave-one-out")
	var pairs []learn.Pair
	for len(pairs) < 4 {
		q := rng.Perm(m)
		pairs = append(pairs, learn.Pair{I: q[0], J: q[1]})
	}
	pi, pj, err := s.LeavePairOut(pairs)
	if err != nil {
		t.Fatal(err)
	}
	for n, pr := range pairs {
		w := oracleFit(p, edges, []int{pr.I, pr.J}, []int{pr.I, pr.J}, lambda)
		got := mat.NewDense(2, tt, nil)
		got.SetRow(0, pi.RawRowView(n))
		got.SetRow(1, pj.RawRowView(n))
		l.check(t, c, lambda, want, got, w, fmt.Sprintf("pair %v", pr))
	}
}

// Leave-one-out and leave-pair-out of every ranker equal retraining without
// the rows (every pair touching them leaves the loss), on a sample of the
// problem matrix (every kernel and form), at λ = 1 and 100.
func TestLeaveOneOutAndPairsEqualRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	l := newLedger()
	for n, p := range problems(rng) {
		if m, _ := p.x.Dims(); m > 16 || n%3 != 0 {
			continue
		}
		m, _ := p.x.Dims()
		pedges := randomEdges(rng, m, 2*m)
		for k := range pedges {
			pedges[k].Magnitude++
		}
		_, tt := p.y.Dims()
		if tt > 1 {
			for k := range pedges {
				pedges[k].Magnitudes = []float64{pedges[k].Magnitude, 1, 2}
			}
		}
		t.Run(p.name, func(t *testing.T) {
			g, err := FitGlobal(p.x, p.y, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			q, err := FitQuery(p.x, p.y, p.q, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			pr, err := FitPreference(p.x, pedges, Magnitude, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			for _, lambda := range []float64{1, 100} {
				gs, err := g.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				checkLOOAndLPO(t, l, p, scoringEdges(p.y, nil), gs, lambda, rng)
				qs, err := q.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				checkLOOAndLPO(t, l, p, scoringEdges(p.y, p.q), qs, lambda, rng)
				ps, err := pr.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				checkLOOAndLPO(t, l, p, oracleEdges(pedges, Magnitude), ps, lambda, rng)
			}
		})
	}
	l.verify(t)
}

// A preference graph of several connected components — two chains and an
// isolated row — and a query ranker with singleton queries: the learners
// deflate the shifts of every component, and their predictions, hold-outs
// and leave-one-out equal retraining, in every form.
func TestDisconnectedGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	const m = 11
	x, y := randData(rng, m, 3, 1, false)
	// rows 0–4 and 5–9 form two components; row 10 has no edge
	var edges []Edge
	for _, comp := range [][]int{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}} {
		for k := 1; k < len(comp); k++ {
			edges = append(edges, Edge{I: comp[k], J: comp[k-1], Magnitude: float64(k)})
		}
		edges = append(edges, Edge{I: comp[0], J: comp[len(comp)-1], Magnitude: 0.5})
	}
	queries := []int{4, 4, 4, 9, 9, 9, 9, 1, 2, 3, 3} // rows 7 and 8 alone in their queries
	l := newLedger()
	for _, c := range []struct {
		name  string
		k     kernel.Kernel
		form  learn.Form
		basis []int
	}{
		{"gaussian dual", kernel.Gaussian{Gamma: 0.4}, learn.Dual, nil},
		{"linear dual", kernel.Linear{Bias: 1}, learn.Dual, nil},
		{"linear primal", kernel.Linear{Bias: 1}, learn.Linear, nil},
		{"gaussian sparse", kernel.Gaussian{Gamma: 0.4}, learn.Sparse, []int{0, 3, 6, 10}},
	} {
		p := problem{x: x, y: y, q: queries, kern: c.k, form: c.form, basis: c.basis}
		t.Run(c.name, func(t *testing.T) {
			pr, err := FitPreference(x, edges, Magnitude, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			q, err := FitQuery(x, y, queries, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			for _, lambda := range []float64{1, 100} {
				ps, err := pr.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				checkLOOAndLPO(t, l, p, oracleEdges(edges, Magnitude), ps, lambda, rng)
				qs, err := q.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				checkLOOAndLPO(t, l, p, scoringEdges(y, queries), qs, lambda, rng)
			}
		})
	}
	l.verify(t)
}
