package interval

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
)

// TestRankerScoresHaveNoLevel is why the rankers record no prediction
// interval (plan refuses --interval for them): their loss is a sum over
// differences, ((y_i − y_j) − (f_i − f_j))², over all pairs (globalrank) or
// the pairs inside each query (queryrank), so it does not see a constant
// added to every label (to each query's labels). Checked here: the model
// trained on y + c (y + c_q per query, c = 100, c_q = ±50) is the model
// trained on y — fitted values and hold-out predictions equal to 1e-9 of
// max|f| — while the hold-out residuals y − μ₋ᵢ move by c. The residuals
// that CV+ would pool have no fixed level, so a "prediction interval" built
// from them would be off by whatever the labels' level happens to be. The
// contrast: rls (squared loss on y itself) trained on y + c does move, by
// more than 1e-3·c, so the check can tell the two kinds of loss apart.
func TestRankerScoresHaveNoLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 3))
	const m = 30
	x := mat.NewDense(m, 3, nil)
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		for c := 0; c < 3; c++ {
			x.Set(i, c, rng.NormFloat64())
		}
		y.Set(i, 0, math.Sin(x.At(i, 0))+x.At(i, 1)+0.2*rng.NormFloat64())
	}
	queries := make([]int, m)
	for i := range queries {
		queries[i] = i / 10 // three queries of 10 rows
	}
	shift := func(per func(i int) float64) *mat.Dense {
		s := mat.DenseCopyOf(y)
		for i := 0; i < m; i++ {
			s.Set(i, 0, y.At(i, 0)+per(i))
		}
		return s
	}
	opt := learn.Options{Kernel: kernel.Gaussian{Gamma: 0.3}}
	type holdOuter interface {
		Fitted() *mat.Dense
		HoldOut(u []int) (*mat.Dense, error)
	}
	fit := func(name string, labels *mat.Dense) holdOuter {
		var s holdOuter
		var err error
		switch name {
		case "globalrank":
			var g *rank.Global
			if g, err = rank.FitGlobal(x, labels, opt); err == nil {
				s, err = g.Solve(0.5)
			}
		case "rls":
			var r *rls.RLS
			if r, err = rls.Fit(x, labels, opt); err == nil {
				s, err = r.Solve(0.5)
			}
		case "queryrank":
			var q *rank.Query
			if q, err = rank.FitQuery(x, labels, queries, opt); err == nil {
				s, err = q.Solve(0.5)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name string
		per  func(i int) float64
	}{
		{"globalrank", func(int) float64 { return 100 }},
		{"queryrank", func(i int) float64 { return 50 * float64(1-2*(queries[i]%2)) }},
	} {
		base, moved := fit(c.name, y), fit(c.name, shift(c.per))
		if c.name == "globalrank" { // the contrast: a squared loss on y sees the level
			rb, rm := fit("rls", y), fit("rls", shift(c.per))
			if d := math.Abs(rb.Fitted().At(0, 0) - rm.Fitted().At(0, 0)); !(d > 1e-3*c.per(0)) {
				t.Fatalf("rls: the fitted value moved by %v with the labels' level %v: the check cannot tell the losses apart", d, c.per(0))
			}
		}
		fb, fm := base.Fitted().RawMatrix().Data, moved.Fitted().RawMatrix().Data
		scale := 0.0
		for _, v := range fb {
			scale = max(scale, math.Abs(v))
		}
		for i := range fb {
			if math.Abs(fb[i]-fm[i]) > 1e-9*scale {
				t.Fatalf("%s: fitted value %d moved from %v to %v with the labels' level", c.name, i, fb[i], fm[i])
			}
		}
		fold := []int{3, 14, 25}
		hb, err := base.HoldOut(fold)
		if err != nil {
			t.Fatal(err)
		}
		hm, err := moved.HoldOut(fold)
		if err != nil {
			t.Fatal(err)
		}
		for a, i := range fold {
			pb, pm := hb.At(a, 0), hm.At(a, 0)
			if math.Abs(pb-pm) > 1e-9*scale {
				t.Fatalf("%s: hold-out prediction of row %d moved from %v to %v", c.name, i, pb, pm)
			}
			rb, rm := y.At(i, 0)-pb, y.At(i, 0)+c.per(i)-pm
			if math.Abs((rm-rb)-c.per(i)) > 1e-9*(scale+math.Abs(c.per(i))) {
				t.Fatalf("%s: row %d: residual %v → %v, want it moved by %v", c.name, i, rb, rm, c.per(i))
			}
		}
	}
}
