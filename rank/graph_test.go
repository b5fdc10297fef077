package rank

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

func TestQueryEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	l := newLedger()
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			q, err := FitQuery(p.x, p.y, p.q, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			m, _ := p.y.Dims()
			edges := scoringEdges(p.y, p.q)
			all := allRows(m)
			c := newConditioning(p, edges)
			for _, lambda := range lambdas {
				s, err := q.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				want := oracleFit(p, edges, nil, all, lambda)
				l.check(t, c, lambda, want, s.Fitted(), want, "fitted")
				got, _ := s.Predictor().Predict(p.x)
				l.check(t, c, lambda, want, got, want, "predictor")
				// leave-query-out: each query against retraining without it
				lqo, err := s.LeaveQueryOut()
				if err != nil {
					t.Fatal(err)
				}
				for _, mem := range q.Queries() {
					l.check(t, c, lambda, want, rows(lqo, mem), oracleFit(p, edges, mem, mem, lambda), fmt.Sprintf("LQO query %v", mem))
				}
				// arbitrary rows (parts of queries)
				for _, size := range []int{1, 2, m / 3} {
					h := rng.Perm(m)[:size]
					got, err := s.HoldOut(h)
					if err != nil {
						t.Fatal(err)
					}
					l.check(t, c, lambda, want, got, oracleFit(p, edges, h, h, lambda), fmt.Sprintf("|H|=%d hold-out", size))
				}
			}
		})
	}
	l.verify(t)
}

// randomEdges draws a preference graph with magnitudes (some zero) and weights.
func randomEdges(rng *rand.Rand, m, l int) []Edge {
	var out []Edge
	for len(out) < l {
		i, j := rng.IntN(m), rng.IntN(m)
		if i == j {
			continue
		}
		mag := float64(rng.IntN(4))
		out = append(out, Edge{I: i, J: j, Magnitude: mag, Weight: 0.5 + rng.Float64()})
	}
	return out
}

func oracleEdges(edges []Edge, cost Cost) []oracle.Edge {
	var out []oracle.Edge
	for _, e := range edges {
		w := e.Weight
		if w == 0 {
			w = 1
		}
		mags := e.Magnitudes
		if mags == nil {
			mags = []float64{e.Magnitude}
		}
		z := make([]float64, len(mags))
		for c, mg := range mags {
			switch cost {
			case Unit:
				z[c] = 1
			case Magnitude:
				z[c] = mg
			case Inverse:
				z[c] = mg
			}
		}
		if cost == Inverse {
			w /= mags[0]
		}
		out = append(out, oracle.Edge{I: e.I, J: e.J, W2: w * w, Z: z})
	}
	return out
}

func TestPreferenceEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	l := newLedger()
	for _, p := range problems(rng) {
		_, tt := p.y.Dims()
		m, _ := p.x.Dims()
		for _, cost := range []Cost{Unit, Magnitude, Inverse} {
			if cost == Inverse && tt > 1 {
				continue // the inverse cost weighs edges per output: one output only
			}
			edges := randomEdges(rng, m, 3*m)
			for k := range edges {
				if cost == Inverse {
					edges[k].Magnitude++
				}
				if tt > 1 { // one magnitude per output
					edges[k].Magnitudes = []float64{edges[k].Magnitude, float64(rng.IntN(3)), 0.5 * edges[k].Magnitude}
				}
			}
			t.Run(p.name+"_"+cost.String(), func(t *testing.T) {
				pr, err := FitPreference(p.x, edges, cost, p.opts())
				if err != nil {
					t.Fatal(err)
				}
				oe := oracleEdges(edges, cost)
				c := newConditioning(p, oe)
				for _, lambda := range lambdas {
					s, err := pr.Solve(lambda)
					if err != nil {
						t.Fatal(err)
					}
					want := oracleFit(p, oe, nil, allRows(m), lambda)
					l.check(t, c, lambda, want, s.Fitted(), want, "fitted")
					for _, size := range []int{1, 2, m / 3} {
						h := rng.Perm(m)[:size]
						got, err := s.HoldOut(h)
						if err != nil {
							t.Fatal(err)
						}
						l.check(t, c, lambda, want, got, oracleFit(p, oe, h, h, lambda), fmt.Sprintf("|H|=%d hold-out", size))
					}
				}
			})
		}
	}
	l.verify(t)
}

// The preference learner on every pair of a scoring (cost 21; ties as
// zero-magnitude edges) is Global; on the pairs inside queries it is Query.
func TestPreferenceEquivalences(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x, y := randData(rng, 18, 4, 1, false)
	q := make([]int, 18)
	for i := range q {
		q[i] = i % 4
	}
	var all, within []Edge
	for i := 0; i < 18; i++ {
		for j := i + 1; j < 18; j++ {
			a, b := i, j
			if y.At(i, 0) < y.At(j, 0) {
				a, b = j, i
			}
			e := Edge{I: a, J: b, Magnitude: y.At(a, 0) - y.At(b, 0)}
			all = append(all, e)
			if q[i] == q[j] {
				within = append(within, e)
			}
		}
	}
	opt := Options{Kernel: kernel.Gaussian{Gamma: 0.3}}
	g, _ := FitGlobal(x, y, opt)
	qu, _ := FitQuery(x, y, q, opt)
	pa, err := FitPreference(x, all, Magnitude, opt)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := FitPreference(x, within, Magnitude, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{1e-3, 1, 100} {
		gs, _ := g.Solve(lambda)
		qs, _ := qu.Solve(lambda)
		as, _ := pa.Solve(lambda)
		ws, _ := pw.Solve(lambda)
		if e := relErr(as.Fitted(), gs.Fitted()); e > 1e-9 {
			t.Errorf("λ=%g: all-pairs preference vs Global: %.2e", lambda, e)
		}
		if e := relErr(ws.Fitted(), qs.Fitted()); e > 1e-9 {
			t.Errorf("λ=%g: within-query preference vs Query: %.2e", lambda, e)
		}
		h := []int{2, 7, 11}
		gh, _ := gs.HoldOut(h)
		ah, _ := as.HoldOut(h)
		if e := relErr(ah, gh); e > 1e-9 {
			t.Errorf("λ=%g: hold-out, all-pairs preference vs Global: %.2e", lambda, e)
		}
	}
}

// dual = linear (primal) on the same linear problem.
func TestDualEqualsLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x, y := randData(rng, 30, 4, 2, false)
	q := make([]int, 30)
	for i := range q {
		q[i] = i % 5
	}
	for _, form := range []learn.Form{learn.Dual, learn.Linear} {
		_ = form
	}
	k := kernel.Linear{}
	gd, _ := FitGlobal(x, y, Options{Kernel: k, Form: learn.Dual})
	gl, _ := FitGlobal(x, y, Options{Kernel: k, Form: learn.Linear})
	qd, _ := FitQuery(x, y, q, Options{Kernel: k, Form: learn.Dual})
	ql, _ := FitQuery(x, y, q, Options{Kernel: k, Form: learn.Linear})
	xn, _ := randData(rng, 7, 4, 1, false)
	for _, lambda := range []float64{1e-3, 1, 100} {
		a, _ := gd.Solve(lambda)
		b, _ := gl.Solve(lambda)
		pa, _ := a.Predictor().Predict(xn)
		pb, _ := b.Predictor().Predict(xn)
		if e := relErr(pa, pb); e > 1e-9 {
			t.Errorf("Global λ=%g: dual vs linear %.2e", lambda, e)
		}
		c, _ := qd.Solve(lambda)
		d, _ := ql.Solve(lambda)
		pc, _ := c.Predictor().Predict(xn)
		pd, _ := d.Predictor().Predict(xn)
		if e := relErr(pc, pd); e > 1e-9 {
			t.Errorf("Query λ=%g: dual vs linear %.2e", lambda, e)
		}
		if !a.Predictor().IsLinear() || !c.Predictor().IsLinear() {
			t.Error("linear-kernel rankers should give weight-vector predictors")
		}
	}
}

func TestRankBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	x, y := randData(rng, 8, 2, 1, false)
	opt := Options{Kernel: kernel.Gaussian{Gamma: 1}}
	graphs := []struct {
		name  string
		edges []Edge
		cost  Cost
	}{
		{"out of range", []Edge{{I: 0, J: 8}}, Unit},
		{"negative row", []Edge{{I: -1, J: 2}}, Unit},
		{"self-loop", []Edge{{I: 3, J: 3}}, Unit},
		{"negative magnitude", []Edge{{I: 1, J: 2, Magnitude: -1}}, Magnitude},
		{"inverse with zero magnitude", []Edge{{I: 1, J: 2, Magnitude: 0}}, Inverse},
		{"negative weight", []Edge{{I: 1, J: 2, Weight: -2}}, Unit},
		{"no edges", nil, Unit},
		{"ragged magnitudes", []Edge{{I: 0, J: 1, Magnitudes: []float64{1, 2}}, {I: 1, J: 2, Magnitudes: []float64{1}}}, Magnitude},
		{"inverse with several outputs", []Edge{{I: 0, J: 1, Magnitudes: []float64{1, 2}}}, Inverse},
	}
	for _, g := range graphs {
		if _, err := FitPreference(x, g.edges, g.cost, opt); !errors.Is(err, ErrGraph) {
			t.Errorf("%s: err = %v, want ErrGraph", g.name, err)
		}
	}
	if _, err := FitQuery(x, y, []int{1, 2}, opt); !errors.Is(err, ErrQueries) {
		t.Errorf("short query list: err = %v", err)
	}
	// a single usable query cannot be cross-validated by leaving queries out
	q, _ := FitQuery(x, y, []int{0, 0, 0, 0, 0, 0, 0, 1}, opt)
	s, _ := q.Solve(1)
	if _, err := s.LeaveQueryOut(); !errors.Is(err, ErrTooFew) {
		t.Errorf("LQO with one usable query: err = %v, want ErrTooFew", err)
	}
	g, _ := FitGlobal(x, y, opt)
	gs, _ := g.Solve(1)
	if _, _, err := gs.LeavePairOut([]learn.Pair{{I: 1, J: 1}}); !errors.Is(err, learn.ErrHoldOut) {
		t.Errorf("pair (1,1): err = %v", err)
	}
	if _, err := gs.HoldOut([]int{0, 1, 2, 3, 4, 5, 6}); !errors.Is(err, learn.ErrHoldOut) {
		t.Errorf("hold-out leaving one row: err = %v", err)
	}
	if _, err := FitGlobal(x, mat.NewDense(7, 1, nil), opt); !errors.Is(err, learn.ErrShape) {
		t.Errorf("row mismatch: err = %v", err)
	}
}

// WithLabels shares the factorization and equals a fresh fit on the new labels.
func TestWithLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	x, y := randData(rng, 20, 3, 1, false)
	_, y2 := randData(rng, 20, 3, 2, false)
	q := make([]int, 20)
	for i := range q {
		q[i] = i % 3
	}
	opt := Options{Kernel: kernel.Gaussian{Gamma: 0.3}}
	g, _ := FitGlobal(x, y, opt)
	g2, err := g.WithLabels(y2, nil)
	if err != nil {
		t.Fatal(err)
	}
	gf, _ := FitGlobal(x, y2, opt)
	qr, _ := FitQuery(x, y, q, opt)
	q2, err := qr.WithLabels(y2, nil)
	if err != nil {
		t.Fatal(err)
	}
	qf, _ := FitQuery(x, y2, q, opt)
	for _, l := range []float64{0.01, 1} {
		a, _ := g2.Solve(l)
		b, _ := gf.Solve(l)
		ha, _ := a.HoldOut([]int{1, 5})
		hb, _ := b.HoldOut([]int{1, 5})
		if e := relErr(ha, hb); e > 1e-10 {
			t.Errorf("Global λ=%g: %.2e", l, e)
		}
		c, _ := q2.Solve(l)
		d, _ := qf.Solve(l)
		lc, _ := c.LeaveQueryOut()
		ld, _ := d.LeaveQueryOut()
		if e := relErr(lc, ld); e > 1e-10 {
			t.Errorf("Query λ=%g: %.2e", l, e)
		}
	}
	if _, err := g.WithLabels(mat.NewDense(3, 1, nil), nil); !errors.Is(err, learn.ErrShape) {
		t.Errorf("wrong rows: %v", err)
	}
}

// normalizedEdges are the pairs within each query weighted 1/n over the rows
// that remain after the held rows leave (n counts them): what retraining the
// normalized query ranker on those rows minimizes.
func normalizedEdges(y *mat.Dense, q []int, held []int) []oracle.Edge {
	out := map[int]bool{}
	for _, i := range held {
		out[i] = true
	}
	size := map[int]int{}
	for i, g := range q {
		if !out[i] {
			size[g]++
		}
	}
	edges := scoringEdges(y, q)
	for n := range edges {
		edges[n].W2 = 1 / float64(size[q[edges[n].I]])
	}
	return edges
}

// FitQueryNormalized (RLScore's per-query normalization) equals retraining on
// L = blockdiag(I − 11ᵀ/n_q) — fitted values, leave-query-out and hold-outs
// that cut queries (renormalized by the remaining rows).
func TestQueryNormalizedEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	l := newLedger()
	for n, p := range problems(rng) {
		if n%3 != 0 { // a third of the problem matrix covers every kernel and form
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			q, err := FitQueryNormalized(p.x, p.y, p.q, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			m, _ := p.y.Dims()
			edges := normalizedEdges(p.y, p.q, nil)
			c := newConditioning(p, edges) // ‖L‖ = 1, and 1 for every renormalized hold-out
			for _, lambda := range lambdas {
				s, err := q.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				want := oracleFit(p, edges, nil, allRows(m), lambda)
				l.check(t, c, lambda, want, s.Fitted(), want, "fitted")
				lqo, err := s.LeaveQueryOut()
				if err != nil {
					t.Fatal(err)
				}
				for _, mem := range q.Queries() {
					l.check(t, c, lambda, want, rows(lqo, mem), oracleFit(p, normalizedEdges(p.y, p.q, mem), mem, mem, lambda), fmt.Sprintf("LQO query %v", mem))
				}
				for _, size := range []int{1, 2, m / 3} {
					h := rng.Perm(m)[:size]
					got, err := s.HoldOut(h)
					if err != nil {
						t.Fatal(err)
					}
					l.check(t, c, lambda, want, got, oracleFit(p, normalizedEdges(p.y, p.q, h), h, h, lambda), fmt.Sprintf("|H|=%d hold-out", size))
				}
			}
		})
	}
	l.verify(t)
}
