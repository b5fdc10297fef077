package rank

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/learn"
)

// pathRoute sets the budgets of HoldOutPath for one route through it and
// restores them when the test ends: "one pass" (every λ in one chunk, the
// Khatri–Rao product in one block), "chunked" (λ two at a time, the
// Khatri–Rao product two rows at a time) or "per λ" (X·D_λ·Xᵀ by a rank-k
// update per λ).
func pathRoute(t *testing.T, route string, m, k, tt int) {
	t.Helper()
	pb, kb := pathBudget, krBudget
	t.Cleanup(func() { pathBudget, krBudget = pb, kb })
	switch route {
	case "one pass":
	case "chunked":
		pathBudget, krBudget = 2*2*m*tt, 2*k
	case "per λ":
		pathBudget, krBudget = 2*m*tt, 0
	default:
		t.Fatalf("unknown route %q", route)
	}
}

// pathFolds are the folds a problem is cross-validated with: its queries
// (leave-query-out), three random folds that cut queries and leave one row
// in no fold, every row alone (leave-one-out: more hold-out shapes than
// HoldOutPath keeps), and a few folds over few rows (the tie rule's twin).
func pathFolds(rng *rand.Rand, queries [][]int, m int) map[string][][]int {
	perm := rng.Perm(m)[1:] // perm[0] is in no fold
	random := [][]int{perm[:len(perm)/3], perm[len(perm)/3 : 2*len(perm)/3], perm[2*len(perm)/3:]}
	loo := make([][]int, m)
	for i := range loo {
		loo[i] = []int{i}
	}
	// one query and two single rows of other queries (folds are disjoint):
	// fewer than a quarter of the rows held out, so HoldOutPath forms the
	// training predictions of their rows only
	inFirst := make(map[int]bool, len(queries[0]))
	for _, i := range queries[0] {
		inFirst[i] = true
	}
	few := [][]int{queries[0]}
	for _, i := range perm {
		if !inFirst[i] && len(few) < 3 {
			few = append(few, []int{i})
		}
	}
	return map[string][][]int{"lqo": queries, "random": random, "loo": loo, "few": few}
}

// HoldOutPath gives, at every λ of the grid in one call, the predictions of
// retraining without each fold — for query rankers (plain and normalized)
// and preference rankers, every shape, kernel and form of the problem
// matrix, one and three outputs, λ from 1e-6 to 1e4, folds that are whole
// queries and folds that cut them — to the forward-error bound of the
// oracle tests (the ledger, oracle_test.go), through each of its routes
// (one pass, several λ chunks and Khatri–Rao blocks, X·D·Xᵀ λ by λ). Rows in
// no fold are NaN.
func TestHoldOutPathEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 7))
	l := newLedger()
	routes := []string{"one pass", "chunked", "per λ"}
	for n, p := range problems(rng) {
		m, _ := p.x.Dims()
		_, tt := p.y.Dims()
		route := routes[n%len(routes)]
		pedges := randomEdges(rng, m, 3*m)
		if tt > 1 {
			for k := range pedges {
				pedges[k].Magnitudes = []float64{pedges[k].Magnitude, float64(rng.IntN(3)), 1}
			}
		}
		t.Run(p.name+"/"+route, func(t *testing.T) {
			q, err := FitQuery(p.x, p.y, p.q, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			qn, err := FitQueryNormalized(p.x, p.y, p.q, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			pr, err := FitPreference(p.x, pedges, Magnitude, p.opts())
			if err != nil {
				t.Fatal(err)
			}
			_, k := q.psi.Dims()
			pathRoute(t, route, m, k, tt)
			learners := []struct {
				name  string
				gm    *graphModel
				edges func(held []int) []oracle.Edge
			}{
				{"query", q.graphModel, func([]int) []oracle.Edge { return scoringEdges(p.y, p.q) }},
				{"normalized", qn.graphModel, func(held []int) []oracle.Edge { return normalizedEdges(p.y, p.q, held) }},
				{"preference", pr.graphModel, func([]int) []oracle.Edge { return oracleEdges(pedges, Magnitude) }},
			}
			for fname, folds := range pathFolds(rng, q.Queries(), m) {
				covered := make([]bool, m)
				for _, f := range folds {
					for _, i := range f {
						covered[i] = true
					}
				}
				for _, ln := range learners {
					c := newConditioning(p, ln.edges(nil))
					visited := 0
					err := ln.gm.HoldOutPath(folds, lambdas, func(n int, got *mat.Dense) error {
						if n != visited {
							return fmt.Errorf("visited λ %d after %d", n, visited)
						}
						visited++
						lambda := lambdas[n]
						want := oracleFit(p, ln.edges(nil), nil, allRows(m), lambda)
						for i, ok := range covered {
							if !ok && !math.IsNaN(got.At(i, 0)) {
								t.Errorf("%s %s λ=%g: row %d is in no fold but predicted %v", ln.name, fname, lambda, i, got.At(i, 0))
							}
						}
						for k, f := range folds {
							l.check(t, c, lambda, want, rows(got, f), oracleFit(p, ln.edges(f), f, f, lambda), fmt.Sprintf("%s %s fold %d", ln.name, fname, k))
						}
						return nil
					})
					if err != nil {
						t.Fatalf("%s %s: %v", ln.name, fname, err)
					}
					if visited != len(lambdas) {
						t.Fatalf("%s %s: %d of %d λ visited", ln.name, fname, visited, len(lambdas))
					}
				}
			}
		})
	}
	l.verify(t)
}

// HoldOutPath refuses a bad λ or fold before any work, and a visit's error
// ends it with that error.
func TestHoldOutPathErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	x, y := randData(rng, 12, 3, 1, false)
	queries := make([]int, 12)
	for i := range queries {
		queries[i] = i % 3
	}
	q, err := FitQuery(x, y, queries, Options{Kernel: problems(rng)[2].kern})
	if err != nil {
		t.Fatal(err)
	}
	none := func(int, *mat.Dense) error { t.Fatal("visited"); return nil }
	if err := q.HoldOutPath(q.Queries(), []float64{1, 0}, none); !errors.Is(err, learn.ErrLambda) {
		t.Errorf("λ = 0: %v, want ErrLambda", err)
	}
	if err := q.HoldOutPath([][]int{{0, 1}, {2, 2}}, []float64{1}, none); !errors.Is(err, learn.ErrHoldOut) {
		t.Errorf("a row twice in a fold: %v, want ErrHoldOut", err)
	}
	stop := errors.New("stop")
	calls := 0
	err = q.HoldOutPath(q.Queries(), []float64{1, 2, 3}, func(int, *mat.Dense) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("visit's error: %v after %d calls, want stop after 1", err, calls)
	}
}

// HoldOutPath keeps hold-out shapes for later passes (the twin's among them)
// only while their X's hold at most m rows — Ψ's memory: leave-one-out of a
// query ranker, whose every fold touches a whole query, keeps a part of them
// and forms the rest anew; leave-query-out keeps all (Σ (n_q − 1) < m), and
// the twin's pass finds them.
func TestHoldOutPathKeepsBoundedShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 7))
	const m = 30
	x, y := randData(rng, m, 3, 1, false)
	queries := make([]int, m)
	for i := range queries {
		queries[i] = i % 3
	}
	kept := func(gm *graphModel) (shapes, rows int) {
		gm.shapes.Range(func(_, v any) bool {
			shapes++
			if sh := v.(*holdShape); sh.x != nil {
				r, _ := sh.x.Dims()
				rows += r
			}
			return true
		})
		return shapes, rows
	}
	none := func(int, *mat.Dense) error { return nil }
	q, err := FitQuery(x, y, queries, Options{Kernel: problems(rng)[2].kern})
	if err != nil {
		t.Fatal(err)
	}
	loo := make([][]int, m)
	for i := range loo {
		loo[i] = []int{i}
	}
	if err := q.HoldOutPath(loo, []float64{1, 2}, none); err != nil {
		t.Fatal(err)
	}
	if n, rows := kept(q.graphModel); rows > m || n == 0 || n == m {
		t.Errorf("leave-one-out kept %d shapes of %d X rows; want some, not all, of at most %d rows", n, rows, m)
	}
	// queries of 12, 12 and 6 rows, folds one worker after the other: the
	// shapes have 11, 11 and 5 rows, and a shape that does not fit leaves
	// room for a smaller one (kept: 11 + 11 + 5 rows)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	uneven := make([]int, m)
	for i := range uneven {
		uneven[i] = min(i/12, 2)
	}
	qu, err := FitQuery(x, y, uneven, Options{Kernel: problems(rng)[2].kern})
	if err != nil {
		t.Fatal(err)
	}
	if err := qu.HoldOutPath(loo, []float64{1}, none); err != nil {
		t.Fatal(err)
	}
	if n, rows := kept(qu.graphModel); n != 3 || rows != 27 {
		t.Errorf("leave-one-out over queries of 12, 12, 6 rows kept %d shapes of %d X rows, want 3 of 27", n, rows)
	}
	q2, err := FitQuery(x, y, queries, Options{Kernel: problems(rng)[2].kern})
	if err != nil {
		t.Fatal(err)
	}
	if err := q2.HoldOutPath(q2.Queries(), []float64{1, 2}, none); err != nil {
		t.Fatal(err)
	}
	if n, rows := kept(q2.graphModel); n != 3 || rows != m-3 {
		t.Errorf("leave-query-out kept %d shapes of %d X rows, want 3 of %d", n, rows, m-3)
	}
	tw, err := q2.Perturbed(0.5)
	if err != nil {
		t.Fatal(err)
	}
	twin := tw.(*Query).graphModel
	for _, mem := range q2.Queries() {
		v, ok := twin.shapes.Load(holdKey(mem))
		w, _ := q2.shapes.Load(holdKey(mem))
		if !ok || v != w {
			t.Errorf("the twin does not share the shape of query %v", mem)
		}
	}
}
