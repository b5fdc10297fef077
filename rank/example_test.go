package rank_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/rank"
)

// Global RankRLS learns to order all pairs of a score. LeavePairOut predicts
// both rows of each pair from the model trained without them; the share of
// pairs it orders correctly is the leave-pair-out c-index.
func ExampleFitGlobal() {
	x := mat.NewDense(8, 2, []float64{
		0.1, 1.0, 0.9, 0.2, 0.4, 0.4, 0.8, 0.9,
		0.3, 0.1, 0.7, 0.5, 0.2, 0.8, 0.6, 0.3,
	})
	y := mat.NewDense(8, 1, []float64{1.2, 1.5, 0.9, 2.4, 0.5, 1.9, 1.6, 1.4})
	opt := rank.Options{Kernel: kernel.Gaussian{Gamma: 1}}
	g, err := rank.FitGlobal(x, y, opt)
	if err != nil {
		log.Fatal(err)
	}
	s, err := g.Solve(0.5)
	if err != nil {
		log.Fatal(err)
	}
	labels := mat.Col(nil, 0, y)
	pairs := cv.DifferentLabelPairs(labels)
	pi, pj, err := s.LeavePairOut(pairs)
	if err != nil {
		log.Fatal(err)
	}
	cindex, err := cv.PairScore(pairs, labels, mat.Col(nil, 0, pi), mat.Col(nil, 0, pj))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d pairs, LPO c-index %.3f\n", len(pairs), cindex)

	// Pair 0 is rows (0, 1): retrain on the other six rows and predict both.
	rest := []int{2, 3, 4, 5, 6, 7}
	g2, err := rank.FitGlobal(kernel.Rows(x, rest), kernel.Rows(y, rest).(*mat.Dense), opt)
	if err != nil {
		log.Fatal(err)
	}
	s2, err := g2.Solve(0.5)
	if err != nil {
		log.Fatal(err)
	}
	want, err := s2.Predictor().Predict(kernel.Rows(x, []int{0, 1}))
	if err != nil {
		log.Fatal(err)
	}
	got := mat.NewDense(2, 1, []float64{pi.At(0, 0), pj.At(0, 0)})
	fmt.Printf("pair %v: %.3f, equals retraining: %v\n", pairs[0], mat.Col(nil, 0, got), mat.EqualApprox(got, want, 1e-9))
	// Output:
	// 28 pairs, LPO c-index 0.786
	// pair {0 1}: [0.164 0.117], equals retraining: true
}

// Query RankRLS learns orderings inside queries only. LeaveQueryOut predicts
// every query from the model trained on the other queries.
func ExampleFitQuery() {
	x := mat.NewDense(9, 2, []float64{
		0.1, 1.0, 0.9, 0.2, 0.4, 0.4, // query 0
		0.8, 0.9, 0.3, 0.1, 0.7, 0.5, // query 1
		0.2, 0.8, 0.6, 0.3, 0.5, 0.6, // query 2
	})
	y := mat.NewDense(9, 1, []float64{1, 3, 2, 3, 1, 2, 1, 3, 2})
	queries := []int{0, 0, 0, 1, 1, 1, 2, 2, 2}
	opt := rank.Options{Kernel: kernel.Linear{}}
	q, err := rank.FitQuery(x, y, queries, opt)
	if err != nil {
		log.Fatal(err)
	}
	s, err := q.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	lqo, err := s.LeaveQueryOut()
	if err != nil {
		log.Fatal(err)
	}

	// Retrain without each query in turn and predict it.
	retrained := mat.NewDense(9, 1, nil)
	for _, held := range q.Queries() {
		var rest []int
		var restQueries []int
		for i, qi := range queries {
			if qi != queries[held[0]] {
				rest = append(rest, i)
				restQueries = append(restQueries, qi)
			}
		}
		q2, err := rank.FitQuery(kernel.Rows(x, rest), kernel.Rows(y, rest).(*mat.Dense), restQueries, opt)
		if err != nil {
			log.Fatal(err)
		}
		s2, err := q2.Solve(0.1)
		if err != nil {
			log.Fatal(err)
		}
		p, err := s2.Predictor().Predict(kernel.Rows(x, held))
		if err != nil {
			log.Fatal(err)
		}
		for k, i := range held {
			retrained.Set(i, 0, p.At(k, 0))
		}
	}
	fmt.Printf("leave-query-out predictions %.3f\n", mat.Col(nil, 0, lqo))
	fmt.Println("equal retraining:", mat.EqualApprox(lqo, retrained, 1e-9))
	// Output:
	// leave-query-out predictions [0.220 3.136 1.353 -0.315 0.243 0.161 0.865 1.735 1.589]
	// equal retraining: true
}

// Preference RankRLS learns from an explicit graph "row I is preferred over
// row J by Magnitude". HoldOut predicts rows from the model trained without
// every preference that involves them.
func ExampleFitPreference() {
	x := mat.NewDense(6, 2, []float64{
		1.0, 0.2, 0.8, 0.5, 0.6, 0.1,
		0.4, 0.7, 0.2, 0.3, 0.1, 0.9,
	})
	edges := []rank.Edge{
		{I: 0, J: 1, Magnitude: 1}, {I: 1, J: 2, Magnitude: 0.5}, {I: 0, J: 3, Magnitude: 2},
		{I: 2, J: 4, Magnitude: 1}, {I: 3, J: 5, Magnitude: 0.5}, {I: 1, J: 4, Magnitude: 1.5},
	}
	opt := rank.Options{Kernel: kernel.Gaussian{Gamma: 0.5}}
	p, err := rank.FitPreference(x, edges, rank.Magnitude, opt)
	if err != nil {
		log.Fatal(err)
	}
	s, err := p.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	got, err := s.HoldOut([]int{1, 4})
	if err != nil {
		log.Fatal(err)
	}

	// Retrain on rows 0, 2, 3, 5 (renumbered 0..3) and the edges among them.
	rest := []int{0, 2, 3, 5}
	newIndex := map[int]int{0: 0, 2: 1, 3: 2, 5: 3}
	var restEdges []rank.Edge
	for _, e := range edges {
		i, okI := newIndex[e.I]
		j, okJ := newIndex[e.J]
		if okI && okJ {
			restEdges = append(restEdges, rank.Edge{I: i, J: j, Magnitude: e.Magnitude})
		}
	}
	p2, err := rank.FitPreference(kernel.Rows(x, rest), restEdges, rank.Magnitude, opt)
	if err != nil {
		log.Fatal(err)
	}
	s2, err := p2.Solve(0.1)
	if err != nil {
		log.Fatal(err)
	}
	want, err := s2.Predictor().Predict(kernel.Rows(x, []int{1, 4}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d of %d edges left; held-out scores %.3f\n", len(restEdges), len(edges), mat.Col(nil, 0, got))
	fmt.Println("equal retraining:", mat.EqualApprox(got, want, 1e-9))
	// Output:
	// 2 of 6 edges left; held-out scores [0.116 -0.574]
	// equal retraining: true
}
