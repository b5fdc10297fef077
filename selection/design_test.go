package selection

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/rls"
)

// fakePairs is a learner of pairs written for the tests: its design
// cross-validation hands visit, at grid point (i, j), the predictions
// pred(i, j), so the test knows every point's predictions and value.
type fakePairs struct {
	y    *mat.Dense
	pred func(i, j int) []float64
	// order lists the points visited (nil: every i, and within it every j)
	order [][2]int
	// fail, when set, is returned after the last visit
	fail error
	// perturbed makes the twin (fakeTwin.Perturbed)
	perturbed func(s float64) (learn.Learner, error)
}

func (f *fakePairs) Name() learn.Name                   { return "fakepairs" }
func (f *fakePairs) Labels() *mat.Dense                 { return f.y }
func (f *fakePairs) At(float64) (learn.Solution, error) { return noModel{}, nil }

func (f *fakePairs) CrossValidateDesign(d learn.Design, lambdas, colLambdas []float64, visit func(i, j int, p *mat.Dense) error) error {
	order := f.order
	if order == nil {
		for i := range lambdas {
			for j := 0; j < max(1, len(colLambdas)); j++ {
				order = append(order, [2]int{i, j})
			}
		}
	}
	var buf *mat.Dense // reused: valid during the call only
	for _, ij := range order {
		p := f.pred(ij[0], ij[1])
		if buf == nil {
			buf = mat.NewDense(len(p), 1, nil)
		}
		buf.SetCol(0, p)
		if err := visit(ij[0], ij[1], buf); err != nil {
			return err
		}
	}
	return f.fail
}

// fakePairs2 has a column λ; fakeTwin and fakeTwin2 have twins.
type (
	fakePairs2 struct{ *fakePairs }
	fakeTwin   struct{ *fakePairs }
	fakeTwin2  struct{ *fakePairs }
)

func (f fakePairs2) AtBoth(float64, float64) (learn.Solution, error) { return noModel{}, nil }
func (f fakeTwin2) AtBoth(float64, float64) (learn.Solution, error)  { return noModel{}, nil }
func (f fakeTwin) Perturbed(s float64) (learn.Learner, error)        { return f.perturbed(s) }
func (f fakeTwin2) Perturbed(s float64) (learn.Learner, error)       { return f.perturbed(s) }

type noModel struct{}

func (noModel) Predictor() *model.Predictor { return nil }

// rowsOnly is a learner with none of the object capabilities.
type rowsOnly struct{ y *mat.Dense }

func (r rowsOnly) Name() learn.Name                   { return "rowsonly" }
func (r rowsOnly) Labels() *mat.Dense                 { return r.y }
func (r rowsOnly) At(float64) (learn.Solution, error) { return noModel{}, nil }

var objectsScheme = Scheme{Kind: Objects, Name: "rows", Design: learn.Design{Setting: "rows"}}

// mseOf is the mean squared error by its definition.
func mseOf(y, p []float64) float64 {
	s := 0.0
	for i := range y {
		s += (p[i] - y[i]) * (p[i] - y[i])
	}
	return s / float64(len(y))
}

// bestPoint is the tie rule of selectDesign written out: the best value
// (lower for mse), among equal values the larger λ·λ_c (λ_c taken as 1
// without a column λ), among those the first visited.
func bestPoint(curve []Point) int {
	best := 0
	prod := func(p Point) float64 {
		if p.ColLambda == 0 {
			return p.Lambda
		}
		return p.Lambda * p.ColLambda
	}
	for n, p := range curve {
		b := curve[best]
		if p.Value < b.Value || p.Value == b.Value && prod(p) > prod(b) {
			best = n
		}
	}
	return best
}

// TestSelectDesignCurve checks the curve and best point of a design
// search over both λ grids against the mse of each point's predictions,
// computed here, and the tie rule: the best value, ties to the larger
// λ·λ_c, equal products to the point visited first; one λ compares λ alone.
func TestSelectDesignCurve(t *testing.T) {
	y := []float64{1, 2, 3, 4}
	grid, colGrid := []float64{0.5, 2, 8}, []float64{1, 3}
	mse := measureNamed(t, "mse")
	// offsets of the predictions from the labels, per (λ, λ_c): multiples
	// of 1/8, so every value is exact
	for _, tc := range []struct {
		name string
		off  [3][2]float64
		cols []float64
	}{
		{"unique best", [3][2]float64{{0.5, 0.25}, {0.125, 0.375}, {1, 0.5}}, colGrid},
		{"all tie", [3][2]float64{{0.25, 0.25}, {0.25, 0.25}, {0.25, 0.25}}, colGrid},
		{"tie, larger product at smaller λ", [3][2]float64{{1, 0.25}, {0.25, 0.5}, {1, 1}}, []float64{1, 16}},
		{"tie, larger product at smaller λ_c", [3][2]float64{{1, 1}, {0.5, 0.25}, {0.25, 1}}, []float64{8, 1}},
		{"equal products", [3][2]float64{{1, 1}, {0.25, 1}, {1, 0.25}}, []float64{16, 4}},
		{"worse point simpler", [3][2]float64{{0.125, 1}, {0.25, 0.5}, {0.5, 1}}, colGrid},
		{"best first", [3][2]float64{{0, 0.5}, {0.125, 0.25}, {0.5, 1}}, colGrid},
		{"best last", [3][2]float64{{0.5, 0.5}, {0.25, 0.25}, {0.5, 0.125}}, colGrid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pred := func(i, j int) []float64 {
				p := make([]float64, len(y))
				for k := range y {
					p[k] = y[k] + tc.off[i][j]
				}
				return p
			}
			l := fakePairs2{&fakePairs{y: mat.NewDense(len(y), 1, y), pred: pred}}
			var steps []progress.Event
			res, err := selectDesign(l, grid, tc.cols, objectsScheme, mse, Options{Progress: func(e progress.Event) { steps = append(steps, e) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Curve) != len(grid)*len(tc.cols) {
				t.Fatalf("%d points, want %d", len(res.Curve), len(grid)*len(tc.cols))
			}
			for n, pt := range res.Curve {
				i, j := n/len(tc.cols), n%len(tc.cols)
				if pt.Lambda != grid[i] || pt.ColLambda != tc.cols[j] || pt.Value != mseOf(y, pred(i, j)) {
					t.Errorf("point %d = %+v, want λ %g, λ_c %g, mse %g", n, pt, grid[i], tc.cols[j], mseOf(y, pred(i, j)))
				}
			}
			b := bestPoint(res.Curve)
			if res.BestIndex != b || res.Best != res.Curve[b] {
				t.Errorf("best %d %+v, want %d %+v", res.BestIndex, res.Best, b, res.Curve[b])
			}
			if want := pred(b/len(tc.cols), b%len(tc.cols)); !mat.Equal(res.Predictions, mat.NewDense(len(y), 1, want)) {
				t.Errorf("predictions %v, want those of the best point %v", mat.Col(nil, 0, res.Predictions), want)
			}
			if res.Tolerance != nil {
				t.Errorf("tolerance %v for mse", res.Tolerance)
			}
			// progress: one step per point, done of all points
			if len(steps) != len(res.Curve) {
				t.Fatalf("%d progress steps for %d points", len(steps), len(res.Curve))
			}
			for n, e := range steps {
				if e.Done != int64(n+1) || e.Total != int64(len(res.Curve)) {
					t.Errorf("progress step %d: %d of %d", n, e.Done, e.Total)
				}
			}
		})
	}
	// one λ: the larger λ wins a tie
	for _, off := range [][3]float64{{0.25, 0.25, 0.25}, {0.5, 0.25, 0.25}, {0.25, 0.25, 0.5}, {0.125, 0.25, 0.125}} {
		pred := func(i, j int) []float64 {
			p := make([]float64, len(y))
			for k := range y {
				p[k] = y[k] + off[i]
			}
			return p
		}
		res, err := selectDesign(&fakePairs{y: mat.NewDense(len(y), 1, y), pred: pred}, grid, nil, objectsScheme, mse, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for n, pt := range res.Curve {
			if pt.Lambda != grid[n] || pt.ColLambda != 0 || pt.Value != mseOf(y, pred(n, 0)) {
				t.Errorf("one λ, offsets %v: point %d = %+v", off, n, pt)
			}
		}
		if b := bestPoint(res.Curve); res.BestIndex != b || res.Best != res.Curve[b] {
			t.Errorf("one λ, offsets %v: best %d, want %d", off, res.BestIndex, b)
		}
	}
}

// twinOf makes the twin of f on labels × s whose predictions carry the
// forward error noise[k] (relative to the learner's, before scaling).
func twinOf(f *fakePairs, noise []float64) func(s float64) (learn.Learner, error) {
	return func(s float64) (learn.Learner, error) {
		return &fakePairs{y: f.y, order: f.order, pred: func(i, j int) []float64 {
			p := f.pred(i, j)
			for k := range p {
				p[k] = s * (p[k] + noise[k])
			}
			return p
		}}, nil
	}
}

// TestSelectDesignTwinTies checks the one tie rule on a design: for an
// ordinal measure the twin's predictions measure the forward error, and
// predictions within 16 times it are ties — a point whose predictions all
// lie within it scores the tie value 0.5 (c-index) and is
// Indistinguishable, as retraining would; the tolerance at the best point
// is 16·max|p2/s − p|, computed here.
func TestSelectDesignTwinTies(t *testing.T) {
	y := []float64{1, 2, 3, 4, 5, 6}
	noise := []float64{1e-12, -1e-12, 1e-12, -1e-12, 1e-12, -1e-12}
	pred := func(i, j int) []float64 {
		p := make([]float64, len(y))
		for k := range p {
			switch i {
			case 0: // ordered against the labels, but only by rounding noise
				p[k] = 1 - 1e-13*float64(k)
			case 1: // some pairs ordered, some not, clearly
				p[k] = []float64{3, 1, 2, 6, 5, 4}[k]
			}
		}
		return p
	}
	f := &fakePairs{y: mat.NewDense(len(y), 1, y), pred: pred}
	f.perturbed = twinOf(f, noise)
	cindex := measureNamed(t, "cindex")
	for _, l := range []learn.Learner{fakeTwin{f}, fakeTwin2{f}} {
		var cols []float64
		if _, ok := l.(fakeTwin2); ok {
			cols = []float64{1}
		}
		res, err := selectDesign(l, []float64{1, 2}, cols, objectsScheme, cindex, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v := res.Curve[0]; v.Value != 0.5 || !v.Indistinguishable {
			t.Errorf("%T: noise-ordered point %+v, want the tie value 0.5, indistinguishable", l, v)
		}
		want, err := measure.CIndex(y, pred(1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if v := res.Curve[1]; v.Value != want || v.Indistinguishable {
			t.Errorf("%T: point %+v, want c-index %g", l, v, want)
		}
		b := 0
		if want > 0.5 {
			b = 1
		}
		tw, _ := f.perturbed(TwinScale)
		p, p2 := pred(b, 0), tw.(*fakePairs).pred(b, 0)
		tol := 0.0
		for k := range p {
			tol = math.Max(tol, math.Abs(p2[k]/TwinScale-p[k]))
		}
		if res.BestIndex != b || len(res.Tolerance) != 1 || res.Tolerance[0] != 16*tol {
			t.Errorf("%T: best %d, tolerance %v; want %d, [%g]", l, res.BestIndex, res.Tolerance, b, 16*tol)
		}
	}
	// without a twin the predictions are compared exactly: the noise decides
	res, err := selectDesign(&fakePairs{y: f.y, pred: pred}, []float64{1, 2}, nil, objectsScheme, cindex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Curve[0]; v.Value != 0 || v.Indistinguishable || res.Tolerance != nil {
		t.Errorf("no twin: point %+v, tolerance %v; want c-index 0", v, res.Tolerance)
	}
}

// TestSelectDesignErrors checks every refusal and failure of a design
// search: each is an error (with the documented sentinel), none a result.
func TestSelectDesignErrors(t *testing.T) {
	y := mat.NewDense(4, 1, []float64{1, 2, 3, 4})
	ok := func(i, j int) []float64 { return []float64{1, 2, 4, 3} }
	infAt := func(i, j int) []float64 {
		if i == 1 {
			return []float64{1, math.Inf(1), 3, 4}
		}
		return ok(i, j)
	}
	boom := errors.New("boom")
	mse, cindex := measureNamed(t, "mse"), measureNamed(t, "cindex")
	newTwin := func(f *fakePairs, twin learn.Learner) fakeTwin {
		f.perturbed = func(float64) (learn.Learner, error) { return twin, nil }
		return fakeTwin{f}
	}
	for _, tc := range []struct {
		name    string
		l       learn.Learner
		grid    []float64
		cols    []float64
		meas    measure.Measure
		opt     Options
		want    error
		message string
	}{
		{"no λ", &fakePairs{y: y, pred: ok}, nil, nil, mse, Options{}, ErrGrid, ""},
		{"no design CV", rowsOnly{y}, []float64{1}, nil, mse, Options{}, learn.ErrCapability, ""},
		{"column λ grid missing", fakePairs2{&fakePairs{y: y, pred: ok}}, []float64{1}, nil, mse, Options{}, ErrGrid, ""},
		{"column λ grid for one λ", &fakePairs{y: y, pred: ok}, []float64{1}, []float64{1}, mse, Options{}, ErrGrid, ""},
		{"no labels", &fakePairs{pred: ok}, []float64{1}, nil, mse, Options{}, ErrScheme, ""},
		{"labels twice", &fakePairs{y: y, pred: ok}, []float64{1}, nil, mse, Options{Labels: y}, ErrScheme, ""},
		{"infinite prediction", &fakePairs{y: y, pred: infAt}, []float64{1, 2}, nil, mse, Options{}, ErrNonFinite, "rows at λ = 2: "},
		{"infinite prediction, two λ", fakePairs2{&fakePairs{y: y, pred: infAt}}, []float64{1, 2}, []float64{3}, mse, Options{}, ErrNonFinite, "rows at λ = 2, col λ = 3: "},
		{"design CV fails", &fakePairs{y: y, pred: ok, fail: boom}, []float64{1}, nil, mse, Options{}, boom, ""},
		{"twin fails", fakeTwin{&fakePairs{y: y, pred: ok, perturbed: func(float64) (learn.Learner, error) { return nil, boom }}}, []float64{1}, nil, cindex, Options{}, boom, ""},
		{"twin without design CV", newTwin(&fakePairs{y: y, pred: ok}, rowsOnly{y}), []float64{1}, nil, cindex, Options{}, learn.ErrCapability, ""},
		{"twin fails after its last point", newTwin(&fakePairs{y: y, pred: ok}, &fakePairs{y: y, pred: ok, fail: boom}), []float64{1, 2}, nil, cindex, Options{}, boom, "twin: "},
		{"learner fails, twin fine", newTwin(&fakePairs{y: y, pred: ok, fail: boom}, &fakePairs{y: y, pred: ok}), []float64{1, 2}, nil, cindex, Options{}, boom, ""},
		{"twin ends early", newTwin(&fakePairs{y: y, pred: ok}, &fakePairs{y: y, pred: ok, order: [][2]int{{0, 0}}}), []float64{1, 2}, nil, cindex, Options{}, nil, "ended early"},
		{"twin on another λ", newTwin(&fakePairs{y: y, pred: ok}, &fakePairs{y: y, pred: ok, order: [][2]int{{1, 0}, {0, 0}}}), []float64{1, 2}, nil, cindex, Options{}, nil, "the twin's cross-validation is at point (1, 0), the learner's at (0, 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := selectDesign(tc.l, tc.grid, tc.cols, objectsScheme, tc.meas, tc.opt)
			if err == nil {
				t.Fatalf("no error; result %+v", res)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Errorf("error %q does not say %q", err, tc.message)
			}
		})
	}
	// a twin on another λ_c is out of step too
	f := &fakePairs{y: y, pred: ok}
	f.perturbed = func(float64) (learn.Learner, error) {
		return &fakePairs{y: y, pred: ok, order: [][2]int{{0, 1}, {0, 0}}}, nil
	}
	if _, err := selectDesign(fakeTwin2{f}, []float64{1}, []float64{1, 2}, objectsScheme, cindex, Options{}); err == nil || !strings.Contains(err.Error(), "at point (0, 1), the learner's at (0, 0)") {
		t.Errorf("twin on another λ_c: %v", err)
	}
	// labels for a learner without: scored against them
	res, err := selectDesign(&fakePairs{pred: ok}, []float64{1}, nil, objectsScheme, mse, Options{Labels: y})
	if err != nil || res.Best.Value != mseOf(y.RawMatrix().Data, ok(0, 0)) {
		t.Errorf("labels from the options: %+v, %v", res, err)
	}
}

// TestSelectGrid checks the routing of a search's λ grids: object designs
// go to the design search (both grids), no cross-validation of a learner
// with a column λ takes its one value, and a second grid on a row scheme
// is refused.
func TestSelectGrid(t *testing.T) {
	y := mat.NewDense(4, 1, []float64{1, 2, 3, 4})
	pred := func(i, j int) []float64 { return []float64{1, 2, 3, 4 + float64(i+j)} }
	mse := measureNamed(t, "mse")
	two := fakePairs2{&fakePairs{y: y, pred: pred}}
	res, err := selectGrid(two, []float64{1, 2}, []float64{5, 6}, objectsScheme, mse, Options{})
	if err != nil || len(res.Curve) != 4 || res.Best != (Point{Lambda: 1, ColLambda: 5, Value: 0}) {
		t.Errorf("design: %+v, %v", res, err)
	}
	res, err = selectGrid(two, []float64{2}, []float64{7}, Scheme{Kind: None, Name: "none"}, mse, Options{})
	if err != nil || len(res.Curve) != 1 || res.Best.Lambda != 2 || res.Best.ColLambda != 7 || res.Curve[0].ColLambda != 7 || !math.IsNaN(res.Best.Value) {
		t.Errorf("none: %+v, %v", res, err)
	}
	for _, tc := range []struct {
		name string
		grid []float64
		cols []float64
		sc   Scheme
	}{
		{"none, two column λ", []float64{2}, []float64{7, 8}, Scheme{Kind: None, Name: "none"}},
		{"loo, a column λ", []float64{2}, []float64{7}, Scheme{Kind: LOO, Name: "loo"}},
		{"folds, column λ", []float64{2}, []float64{7, 8}, Scheme{Kind: Folds, Name: "folds", Folds: [][]int{{0}}}},
	} {
		if _, err := selectGrid(two, tc.grid, tc.cols, tc.sc, mse, Options{}); !errors.Is(err, ErrScheme) {
			t.Errorf("%s: %v, want ErrScheme", tc.name, err)
		}
	}
	// a row scheme without a second grid is Select's
	x := mat.NewDense(12, 1, nil)
	ry := mat.NewDense(12, 1, nil)
	for i := 0; i < 12; i++ {
		x.Set(i, 0, float64(i)/4)
		ry.Set(i, 0, math.Sin(float64(i)))
	}
	r, err := rls.Fit(x, ry, rls.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := selectGrid(r, []float64{0.5, 2}, nil, Scheme{Kind: LOO, Name: "loo"}, mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Select(r, []float64{0.5, 2}, Scheme{Kind: LOO, Name: "loo"}, mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Curve) != fmt.Sprint(want.Curve) || !mat.Equal(got.Predictions, want.Predictions) {
		t.Errorf("loo: %v, want %v", got.Curve, want.Curve)
	}
}
