package stream

import (
	"errors"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// misuseRows are a few rows of two groups for the plans below.
func misuseRows() []Row {
	return []Row{
		{Value: []float64{1, 2}, Y: []float64{1}, Group: "a"},
		{Value: []float64{2, 0.5}, Y: []float64{-1}, Group: "a"},
		{Value: []float64{0, 1}, Y: []float64{0.5}, Group: "b"},
		{Value: []float64{1.5, 1}, Y: []float64{2}, Group: "b"},
		{Value: []float64{3, -1}, Y: []float64{0.1}, Group: "c"},
	}
}

// TestPlanMisuseIsAnError: an engine that drives a Plan out of order, or
// hands it what another pass made, gets ErrOptions — not a silently wrong
// fit or a panic: finishing an accumulator of a pass already finished,
// joining a group's piece into a pass without groups, asking for an
// accumulator or the result at the wrong time.
func TestPlanMisuseIsAnError(t *testing.T) {
	cindex, _ := measure.ByName("cindex")
	opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "lgo", Lambdas: []float64{0.1, 1}, Measure: cindex}
	p, err := NewPlan(opt)
	if err != nil {
		t.Fatal(err)
	}
	rows := misuseRows()
	if err := p.SetPilot(rows); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Result(); !errors.Is(err, ErrOptions) {
		t.Errorf("the result before any pass: %v, want ErrOptions", err)
	}
	stats, err := p.NewAccumulator()
	if err != nil {
		t.Fatal(err)
	}
	if err := stats.AddChunk(orcChunk(rows, false, 2)); err != nil {
		t.Fatal(err)
	}
	pieces, err := stats.Pieces() // three groups, few: their moments are kept, as pieces "group/…"
	if err != nil {
		t.Fatal(err)
	}
	var groupPieces []Piece
	for _, pc := range pieces {
		if strings.HasPrefix(pc.Key, "group/") {
			groupPieces = append(groupPieces, pc)
		}
	}
	if len(groupPieces) != 3 {
		t.Fatalf("%d group pieces of 3 groups", len(groupPieces))
	}
	if err := p.Finish(stats, nil); err != nil {
		t.Fatal(err)
	}
	if pass, more := p.Next(); !more || pass.Kind != PredictPass {
		t.Fatalf("after the statistics: %+v, %v; want the prediction pass", pass, more)
	}
	// the statistics pass's accumulator again, now that the plan expects predictions
	if err := p.Finish(stats, nil); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "the plan expects hold-out predictions") {
		t.Errorf("finishing the statistics pass twice: %v, want ErrOptions", err)
	}
	// a group's moments in the prediction pass, which has neither groups nor folds
	if _, err := p.Join(groupPieces); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "group piece in a pass without groups") {
		t.Errorf("joining group pieces into the prediction pass: %v, want ErrOptions", err)
	}
	if _, err := p.Result(); !errors.Is(err, ErrOptions) {
		t.Errorf("the result before the prediction pass: %v, want ErrOptions", err)
	}
	pred, err := p.NewAccumulator()
	if err != nil {
		t.Fatal(err)
	}
	if err := pred.Merge(stats); !errors.Is(err, ErrOptions) {
		t.Errorf("merging a statistics accumulator into a prediction one: %v, want ErrOptions", err)
	}
}

// TestGroupMemoryIsABound: a grouped pass may hold rows of incomplete
// groups up to RunOptions.GroupMemory bytes — exactly that much included —
// and refuses one byte more (ErrData); released rows make room again.
func TestGroupMemoryIsABound(t *testing.T) {
	rows := misuseRows()
	one := rowBytes(rows[0])
	if one != 16*2+8+1+96 {
		t.Fatalf("a row of 2 values, 1 label and a 1-byte group counts %d bytes", one)
	}
	g := &groupBuffers{limit: 2 * one}
	if err := g.hold(rows[:1]); err != nil {
		t.Fatal(err)
	}
	if err := g.hold(rows[1:2]); err != nil {
		t.Errorf("holding exactly the limit: %v", err)
	}
	if err := g.hold([]Row{{Y: []float64{1}}}); !errors.Is(err, ErrData) {
		t.Errorf("holding beyond the limit: %v, want ErrData", err)
	}
	g.release([]Row{{Y: []float64{1}}})
	g.release(rows[:2])
	if n := g.held.Load(); n != 0 {
		t.Errorf("%d bytes held after every row was released", n)
	}
	if err := g.hold(rows[:2]); err != nil {
		t.Errorf("after the release: %v", err)
	}
}

// TestStoreToleranceShape: ScoreWithin takes one tolerance row per λ of
// the store (or none); another number is ErrShape, not a panic or a
// silently shifted grid.
func TestStoreToleranceShape(t *testing.T) {
	s, err := NewStore(t.TempDir(), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Writer()
	if err != nil {
		t.Fatal(err)
	}
	for i, y := range []float64{1, 2, 3} {
		if err := w.Write(Prediction{Y: []float64{y}, P: []float64{y, float64(-i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(Prediction{Y: []float64{1}, P: []float64{1}}); !errors.Is(err, ErrShape) {
		t.Errorf("a prediction of one λ in a store of two: %v, want ErrShape", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cindex, _ := measure.ByName("cindex")
	for _, n := range []int{1, 3} {
		if _, _, err := s.ScoreWithin(cindex, make([][]float64, n)); !errors.Is(err, ErrShape) {
			t.Errorf("tolerances for %d λ in a store of 2: %v, want ErrShape", n, err)
		}
	}
	for _, tol := range [][][]float64{nil, {{0}, {0}}} {
		v, ind, err := s.ScoreWithin(cindex, tol)
		if err != nil {
			t.Fatal(err)
		}
		// λ₀ predicts the labels themselves, λ₁ their reverse order
		if len(v) != 2 || v[0] != 1 || v[1] != 0 || ind[0] || ind[1] {
			t.Errorf("tolerances %v: cindex %v (indistinct %v), want [1 0]", tol, v, ind)
		}
	}
}
