package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/selection"
)

// The degenerate kernels of the tie rule's acceptance: on objects more than
// 1 apart a gaussian with γ = 1e8 gives K = I exactly, one with γ = 1e-290
// gives K = 11ᵀ exactly.
var degenerateKernels = []struct {
	name string
	k    kernel.Kernel
}{
	{"K=I", kernel.Gaussian{Gamma: 1e8}},
	{"K=11ᵀ", kernel.Gaussian{Gamma: 1e-290}},
}

// spreadObjects returns n objects 2 apart along the first of d features
// (the others uniform in [0, 1)).
func spreadObjects(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, 2*float64(i))
		for c := 1; c < d; c++ {
			x.Set(i, c, rng.Float64())
		}
	}
	return x
}

// noisePairs labels every (row, column) pair of m × q objects, in shuffled
// order, with pure noise: integers in −2…2.
func noisePairs(rng *rand.Rand, m, q int) ([]learn.ObjectPair, *mat.Dense) {
	var pairs []learn.ObjectPair
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs = append(pairs, learn.ObjectPair{Row: i, Col: j})
		}
	}
	rng.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
	y := mat.NewDense(len(pairs), 1, nil)
	for i := range pairs {
		y.Set(i, 0, float64(rng.IntN(5)-2))
	}
	return pairs, y
}

// noiseNetwork labels every unordered pair of m vertices once, in a random
// orientation, with pure noise (symmetric: the diagonal too).
func noiseNetwork(rng *rand.Rand, m int, sym Symmetry) ([]learn.ObjectPair, *mat.Dense) {
	var pairs []learn.ObjectPair
	var y []float64
	for u := 0; u < m; u++ {
		for v := u; v < m; v++ {
			if sym == Antisymmetric && u == v {
				continue
			}
			val := float64(rng.IntN(5) - 2)
			if rng.IntN(2) == 0 {
				pairs = append(pairs, learn.ObjectPair{Row: u, Col: v})
			} else {
				pairs = append(pairs, learn.ObjectPair{Row: v, Col: u})
				if sym == Antisymmetric {
					val = -val
				}
			}
			y = append(y, val)
		}
	}
	return pairs, mat.NewDense(len(y), 1, y)
}

// fitRegistered trains the registered learner on the input with the same
// kernel on both sides, through its descriptor's method.
func fitRegistered(t *testing.T, name learn.Name, in *learn.Input, k kernel.Kernel) learn.Learner {
	t.Helper()
	d, err := learn.Lookup(string(name))
	if err != nil {
		t.Fatal(err)
	}
	method, err := d.New(in)
	if err != nil {
		t.Fatal(err)
	}
	l, err := method(learn.Setting{Kernel: k, ColKernel: k})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// inputData is the test's own reading of a learner's input for the brute
// force: the pairs and labels as given, the symmetry, and the label grid
// assembled from them (labelGrid), never read back from the learner.
func inputData(in *learn.Input) (drawn, Symmetry) {
	sym := Heterogeneous
	switch in.Symmetry {
	case "symmetric":
		sym = Symmetric
	case "antisymmetric":
		sym = Antisymmetric
	}
	pairs, y := make([]Pair, len(in.Pairs)), make([]float64, len(in.Pairs))
	for n, p := range in.Pairs {
		pairs[n], y[n] = Pair{p.Row, p.Col}, in.Y.At(n, 0)
	}
	m, _ := in.X.Dims()
	q := m
	if in.Cols != nil {
		q, _ = in.Cols.Dims()
	}
	return drawn{pairs, y, labelGrid(m, q, pairs, y, sym)}, sym
}

// exactPredictions are the CV predictions of a design at (λ, λ_c) computed
// by retraining (the brute force of the property tests, solved in twice the
// working precision) on the input's own label grid, as an m×q matrix (NaN
// where no fold predicts). The learner gives only its sides.
func exactPredictions(l learn.Learner, in *learn.Input, d Design, lambda, colLambda float64) *mat.Dense {
	data, sym := inputData(in)
	switch l := l.(type) {
	case *KronRLS:
		return exactKron(l.rows, l.cols, data, sym, d, lambda)
	case *TwoStep:
		return exactTwoStep(l, data, sym, d, lambda, colLambda)
	}
	panic("unknown learner")
}

func foldsOr(f [][]int, n int) [][]int {
	if f == nil {
		return loo(n)
	}
	return f
}

func exactKron(rows, cols *Side, data drawn, sym Symmetry, d Design, lambda float64) *mat.Dense {
	y := data.grid
	m, q := y.Dims()
	homo := sym != Heterogeneous
	out := nanDense(m, q)
	predict := func(keep func(i, j int) bool, test []Pair) {
		for a, v := range bruteKronGrid(rows, cols, y, keep, test, lambda) {
			out.Set(test[a].Row, test[a].Col, v)
		}
	}
	in := func(f []int) map[int]bool {
		s := map[int]bool{}
		for _, i := range f {
			s[i] = true
		}
		return s
	}
	switch d.Setting {
	case Pairs:
		for _, p := range data.pairs {
			predict(func(i, j int) bool {
				return !(i == p.Row && j == p.Col || homo && i == p.Col && j == p.Row)
			}, []Pair{p})
		}
	case Rows, Vertices:
		for _, f := range foldsOr(d.RowFolds, m) {
			h := in(f)
			var test []Pair
			for _, i := range f {
				for j := 0; j < q; j++ {
					test = append(test, Pair{i, j})
				}
			}
			predict(func(i, j int) bool { return !h[i] && !(d.Setting == Vertices && h[j]) }, test)
		}
	case Cols:
		for _, f := range foldsOr(d.ColFolds, q) {
			h := in(f)
			var test []Pair
			for i := 0; i < m; i++ {
				for _, j := range f {
					test = append(test, Pair{i, j})
				}
			}
			predict(func(_, j int) bool { return !h[j] }, test)
		}
	case Both:
		return bruteBoth(rows, cols, y, foldsOr(d.RowFolds, m), foldsOr(d.ColFolds, q), lambda)
	}
	return out
}

func exactTwoStep(ts *TwoStep, data drawn, sym Symmetry, d Design, lr, lc float64) *mat.Dense {
	y := data.grid
	m, q := y.Dims()
	switch d.Setting {
	case Pairs:
		// the self-consistent imputation p = f(p), f affine in the label:
		// p = f(0)/(1 − (f(1) − f(0))), the pair (and its mirror) set to 0 and 1
		sign := 1.0
		if sym == Antisymmetric {
			sign = -1
		}
		out := nanDense(m, q)
		for _, p := range data.pairs {
			f := func(v float64) float64 {
				yy := mat.DenseCopyOf(y)
				yy.Set(p.Row, p.Col, v)
				if sym != Heterogeneous && p.Row != p.Col {
					yy.Set(p.Col, p.Row, sign*v)
				}
				return bruteTwoStep(ts.rows, ts.cols, yy, seq(m), seq(q), []int{p.Row}, []int{p.Col}, lr, lc).At(0, 0)
			}
			f0, f1 := f(0), f(1)
			out.Set(p.Row, p.Col, f0/(1-(f1-f0)))
		}
		return out
	case Vertices:
		out := nanDense(m, q)
		for _, f := range foldsOr(d.RowFolds, m) {
			tr := cv.Complement(f, m)
			pr := bruteTwoStep(ts.rows, ts.cols, y, tr, tr, f, seq(m), lr, lc)
			for a, i := range f {
				copy(out.RawRowView(i), pr.RawRowView(a))
			}
		}
		return out
	}
	return bruteTwoStepDesign(ts, y, d, lr, lc)
}

// degenerateCase is one learner on one problem with its designs and grids.
type degenerateCase struct {
	name       string
	learner    learn.Name
	in         *learn.Input
	designs    []Design
	lambdas    []float64
	colLambdas []float64
}

func degenerateCases() []degenerateCase {
	rng := rand.New(rand.NewPCG(51, 52))
	var out []degenerateCase
	for _, sh := range [][2]int{{7, 5}, {5, 7}} {
		m, q := sh[0], sh[1]
		pairs, y := noisePairs(rng, m, q)
		in := &learn.Input{X: spreadObjects(rng, m, 2), Cols: spreadObjects(rng, q, 3), Pairs: pairs, Y: y}
		designs := []Design{{Setting: Pairs}, {Setting: Rows}, {Setting: Cols}, {Setting: Both},
			{Setting: Rows, RowFolds: randFolds(rng, m, 3)}, {Setting: Both, RowFolds: randFolds(rng, m, 2), ColFolds: randFolds(rng, q, 2)}}
		name := fmt.Sprintf("%dx%d", m, q)
		out = append(out,
			degenerateCase{"kronrls " + name, learn.KronRLS, in, designs, []float64{1e-3, 1e-1, 10, 1e3}, nil},
			degenerateCase{"twostep " + name, learn.TwoStep, in, designs, []float64{1e-2, 1, 1e2}, []float64{1e-1, 10}})
	}
	for _, sym := range []Symmetry{Symmetric, Antisymmetric} {
		const m = 7
		pairs, y := noiseNetwork(rng, m, sym)
		in := &learn.Input{X: spreadObjects(rng, m, 2), Pairs: pairs, Y: y, Symmetry: sym.String()}
		designs := []Design{{Setting: Pairs}, {Setting: Vertices}, {Setting: Vertices, RowFolds: randFolds(rng, m, 3)}}
		out = append(out,
			degenerateCase{"kronrls " + sym.String(), learn.KronRLS, in, designs, []float64{1e-3, 1e-1, 10, 1e3}, nil},
			degenerateCase{"twostep " + sym.String(), learn.TwoStep, in, designs, []float64{1e-2, 1, 1e2}, []float64{1e-1, 10}})
	}
	return out
}

// scored is one measure's labels and query ids (each pair's row object).
type scored struct {
	meas    measure.Measure
	y       *mat.Dense
	queries []int
}

func scoredMeasures(t *testing.T, in *learn.Input) []scored {
	n, _ := in.Y.Dims()
	bin := mat.NewDense(n, 1, nil) // auc: positive labels against the others
	rows := make([]int, n)
	for i, p := range in.Pairs {
		if in.Y.At(i, 0) > 0 {
			bin.Set(i, 0, 1)
		}
		rows[i] = p.Row
	}
	var out []scored
	for _, name := range []string{"auc", "cindex", "cindex-row"} {
		m, err := measure.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		s := scored{meas: m, y: in.Y}
		if name == "auc" {
			s.y = bin
		}
		if m.NeedsQueries {
			s.queries = rows
		}
		out = append(out, s)
	}
	return out
}

// The acceptance of the one tie rule for the learners of pairs. On pure-noise
// labels with K = I on both sides every CV prediction of every design is 0 in
// exact arithmetic, so every ordinal measure must be exactly 0.5 with the
// predictions indistinguishable; with K = 11ᵀ the predictions of objects held
// out together are equal (a row's pairs in setting B, a vertex's) while the
// rest differ by real amounts (≥ 1/(n + λ) of a label step). The CV
// predictions of the learner and of its Perturbed(selection.TwinScale) twin
// give the tolerance (selection.NoiseTolerance), and selection.ScoreWithin
// must then give, for auc, cindex and cindex-row, exactly the value of the
// predictions retraining gives (oracle, twice the working precision, ties
// below 1e-9 — far above its rounding, far below the real differences):
// 0.5 throughout for K = I. Without the tolerance (exact comparisons) rounding
// noise decides the order instead — the values logged at the end, e.g. AUC
// 1.0 for two-step RLS in setting A with K = I.
func TestDegenerateKernelsTieRule(t *testing.T) {
	noTieRule := map[string]float64{} // the worst |value − exact| without the tolerance, per learner / kernel / measure
	var cases int
	for _, dc := range degenerateCases() {
		for _, kc := range degenerateKernels {
			l := fitRegistered(t, dc.learner, dc.in, kc.k)
			tw, err := l.(learn.Perturber).Perturbed(selection.TwinScale)
			if err != nil {
				t.Fatal(err)
			}
			measures := scoredMeasures(t, dc.in)
			for _, d := range dc.designs {
				p := designRuns(t, l.(learn.DesignValidator), d.Learn(), dc.lambdas, dc.colLambdas)
				p2 := designRuns(t, tw.(learn.DesignValidator), d.Learn(), dc.lambdas, dc.colLambdas)
				for i, lambda := range dc.lambdas {
					for j := range p[i] {
						lc := 0.0
						if dc.colLambdas != nil {
							lc = dc.colLambdas[j]
						}
						exact := pickDense(dc.in, exactPredictions(l, dc.in, d, lambda, lc))
						// the oracle's ties (1e-9) separate its rounding from real differences
						if lo, hi := gaps(exact); lo > 1e-11 || hi < 1e-7 {
							t.Errorf("%s %s %s λ=%g,%g: retraining's gaps: ties up to %.3g, differences from %.3g", dc.name, kc.name, d, lambda, lc, lo, hi)
						}
						tol := selection.NoiseTolerance(p[i][j], p2[i][j])
						for _, s := range measures {
							name := fmt.Sprintf("%s %s %s λ=%g,%g %s", dc.name, kc.name, d, lambda, lc, s.meas.Name)
							got, indistinct, err := selection.ScoreWithin(s.meas, s.y, p[i][j], s.queries, tol)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							want, wantIndistinct, err := selection.ScoreWithin(s.meas, s.y, exact, s.queries, []float64{1e-9})
							if err != nil {
								t.Fatalf("%s retraining: %v", name, err)
							}
							cases++
							if got != want || indistinct != wantIndistinct {
								t.Errorf("%s: %v (indistinguishable %v), retraining %v (%v); tolerance %.3g",
									name, got, indistinct, want, wantIndistinct, tol[0])
							}
							if kc.name == "K=I" && (want != 0.5 || !wantIndistinct) {
								t.Errorf("%s: retraining gives %v (indistinguishable %v), want exactly 0.5 and true", name, want, wantIndistinct)
							}
							raw, _, err := selection.ScoreWithin(s.meas, s.y, p[i][j], s.queries, nil)
							if err != nil {
								t.Fatal(err)
							}
							key := strings.Fields(dc.name)[0] + " " + kc.name + " " + s.meas.Name
							noTieRule[key] = math.Max(noTieRule[key], math.Abs(raw-want))
						}
					}
				}
			}
		}
	}
	keys := make([]string, 0, len(noTieRule))
	for k := range noTieRule {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("without the tie rule, %-26s off the exact value by up to %.3g", k, noTieRule[k])
	}
	t.Logf("%d scored points", cases)
}

// pickDense returns the n×1 predictions of the input's pairs, in the order
// given, from an m×q matrix.
func pickDense(in *learn.Input, p *mat.Dense) *mat.Dense {
	v := make([]float64, len(in.Pairs))
	for n, pr := range in.Pairs {
		v[n] = p.At(pr.Row, pr.Col)
	}
	return mat.NewDense(len(v), 1, v)
}

// gaps returns, over the sorted covered predictions, the largest gap below
// 1e-9 (rounding between values equal in exact arithmetic) and the smallest
// gap above it (a real difference).
func gaps(p *mat.Dense) (ties, diffs float64) {
	var v []float64
	for _, x := range p.RawMatrix().Data {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	sort.Float64s(v)
	diffs = math.Inf(1)
	for i := 1; i < len(v); i++ {
		if g := v[i] - v[i-1]; g <= 1e-9 {
			ties = math.Max(ties, g)
		} else {
			diffs = math.Min(diffs, g)
		}
	}
	return ties, diffs
}

// On informative data — labels a smooth function of the objects — the tie
// tolerance is tiny against the spread of the CV predictions (< 1e-8 of it,
// for every design, λ and learner), so real signal is never snapped away,
// and the tie rule leaves the c-index as exact comparisons give it.
func TestInformativeTolerance(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	smooth := func(a, b []float64) float64 { return math.Sin(a[0]+2*b[0]) + a[1]*b[1] - 0.5*math.Cos(a[0]*b[1]) }
	const m, q = 7, 6
	rx, cx := mat.NewDense(m, 2, nil), mat.NewDense(q, 2, nil)
	for _, x := range []*mat.Dense{rx, cx} {
		raw := x.RawMatrix().Data
		for i := range raw {
			raw[i] = rng.NormFloat64()
		}
	}
	var pairs []learn.ObjectPair
	var y []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs = append(pairs, learn.ObjectPair{Row: i, Col: j})
			y = append(y, smooth(rx.RawRowView(i), cx.RawRowView(j)))
		}
	}
	hetero := &learn.Input{X: rx, Cols: cx, Pairs: pairs, Y: mat.NewDense(len(y), 1, y)}
	var hp []learn.ObjectPair
	var hy []float64
	for u := 0; u < m; u++ {
		for v := u + 1; v < m; v++ {
			hp = append(hp, learn.ObjectPair{Row: u, Col: v})
			a, b := rx.RawRowView(u), rx.RawRowView(v)
			hy = append(hy, smooth(a, b)-smooth(b, a)) // antisymmetric
		}
	}
	homo := &learn.Input{X: rx, Pairs: hp, Y: mat.NewDense(len(hy), 1, hy), Symmetry: "antisymmetric"}
	cindex, _ := measure.ByName("cindex")
	for _, tc := range []struct {
		in      *learn.Input
		designs []Design
	}{
		{hetero, []Design{{Setting: Pairs}, {Setting: Rows}, {Setting: Cols}, {Setting: Both}}},
		{homo, []Design{{Setting: Pairs}, {Setting: Vertices}}},
	} {
		for _, name := range []learn.Name{learn.KronRLS, learn.TwoStep} {
			l := fitRegistered(t, name, tc.in, kernel.Gaussian{Gamma: 0.5})
			tw, err := l.(learn.Perturber).Perturbed(selection.TwinScale)
			if err != nil {
				t.Fatal(err)
			}
			lambdas := []float64{1e-2, 1, 1e2}
			var cols []float64
			if name == learn.TwoStep {
				cols = []float64{1e-2, 1}
			}
			for _, d := range tc.designs {
				p := designRuns(t, l.(learn.DesignValidator), d.Learn(), lambdas, cols)
				p2 := designRuns(t, tw.(learn.DesignValidator), d.Learn(), lambdas, cols)
				worst := 0.0
				for i := range p {
					for j := range p[i] {
						tol := selection.NoiseTolerance(p[i][j], p2[i][j])
						data := p[i][j].RawMatrix().Data
						spread := slicesMax(data) - slicesMin(data)
						if r := tol[0] / spread; r > worst {
							worst = r
						}
						within, _, err1 := selection.ScoreWithin(cindex, tc.in.Y, p[i][j], nil, tol)
						exact, _, err2 := selection.ScoreWithin(cindex, tc.in.Y, p[i][j], nil, nil)
						if err1 != nil || err2 != nil || within != exact {
							t.Errorf("%s %s: c-index %v with the tolerance, %v without (%v, %v)", name, d, within, exact, err1, err2)
						}
					}
				}
				if worst >= 1e-8 {
					t.Errorf("%s %s: tolerance up to %.3g of the predictions' spread", name, d, worst)
				}
				t.Logf("%s %s: tolerance at most %.3g of the spread", name, d, worst)
			}
		}
	}
}

func slicesMax(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

func slicesMin(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

// selection.Select finds the twin by itself (learn.Perturber) for the
// schemes over pairs the solutions have shortcuts for (leave-one-out,
// HoldOut folds of pairs): with K = I every CV prediction is 0 in exact
// arithmetic and the c-index is 0.5, for Kronecker RLS and for two-step RLS
// with its column λ fixed.
func TestSelectionFindsTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	pairs, y := noisePairs(rng, 6, 5)
	in := &learn.Input{X: spreadObjects(rng, 6, 2), Cols: spreadObjects(rng, 5, 2), Pairs: pairs, Y: y}
	cindex, _ := measure.ByName("cindex")
	folds, _ := cv.KFold(len(pairs), 5, 1)
	k := fitRegistered(t, learn.KronRLS, in, degenerateKernels[0].k)
	ts := fitRegistered(t, learn.TwoStep, in, degenerateKernels[0].k).(*TwoStep)
	for _, l := range []learn.Learner{k, ts.WithColLambda(0.1)} {
		for _, sc := range []selection.Scheme{{Kind: selection.LOO, Name: "loo"}, {Kind: selection.Folds, Name: "kfold", Folds: folds}} {
			if _, ok := l.(*TwoStepAt); ok && sc.Kind != selection.LOO {
				continue // two-step solutions hold out no sets of pairs
			}
			res, err := selection.Select(l, []float64{1e-3, 1, 1e3}, sc, cindex, selection.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, pt := range res.Curve {
				if pt.Value != 0.5 {
					t.Errorf("%T %s λ=%g: c-index %v, want 0.5", l, sc.Name, pt.Lambda, pt.Value)
				}
			}
		}
	}
}

// selection.Search cross-validates the registered learners of pairs like
// every learner: a kernel grid on each side, the design as the scheme, the
// column λ grid of two-step RLS, each pair's row object its query. Its curves
// equal the learner's own CrossValidateDesign scored exactly (designCurve)
// for a measure without ties (mse); with K = I on both sides every ordinal
// value is the tie value 0.5 and every point indistinguishable.
func TestSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	pairs, y := noisePairs(rng, 6, 5)
	rx, cx := spreadObjects(rng, 6, 2), spreadObjects(rng, 5, 3)
	in := &learn.Input{X: rx, Cols: cx, Pairs: pairs, Y: y}
	pp := make([]Pair, len(pairs))
	for n, p := range pairs {
		pp[n] = Pair{p.Row, p.Col}
	}
	mse, _ := measure.ByName("mse")
	for _, name := range []learn.Name{learn.KronRLS, learn.TwoStep} {
		d, _ := learn.Lookup(string(name))
		st := selection.Settings{
			Kernels:    []kernel.Spec{{Name: "gaussian", Gamma: 0.1}, {Name: "gaussian", Gamma: 1}},
			ColKernels: []kernel.Spec{{Name: "gaussian", Gamma: 0.3}, {Name: "linear", Bias: 1}},
			Lambdas:    []float64{1e-2, 1, 1e2},
			Measure:    mse,
		}
		if name == learn.TwoStep {
			st.ColLambdas = []float64{0.1, 10}
		}
		sc, err := selection.NewScheme("both:2", selection.SchemeOptions{RowObjects: 6, ColObjects: 5, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		st.Scheme = sc
		res, err := selection.Search(selection.Problem{Learner: d, Input: in}, st)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Curves) != 4 {
			t.Fatalf("%s: %d curves", name, len(res.Curves))
		}
		for _, c := range res.Curves {
			rk, _ := kernel.New(c.Kernel)
			ck, _ := kernel.New(*c.ColKernel)
			rs, _ := NewSide(rx, rk, false)
			cs, _ := NewSide(cx, ck, false)
			var own []selection.Point
			if name == learn.KronRLS {
				k, _ := FitKron(rs, cs, pp, mat.Col(nil, 0, y), Options{})
				own, err = designCurve(k, sc.Design, st.Lambdas, nil, mse)
			} else {
				ts, _ := FitTwoStep(rs, cs, pp, mat.Col(nil, 0, y), Options{})
				own, err = designCurve(ts, sc.Design, st.Lambdas, st.ColLambdas, mse)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(own) != len(c.Curve) {
				t.Fatalf("%s %s × %s: %d points, the learner's design %d", name, c.Kernel, *c.ColKernel, len(c.Curve), len(own))
			}
			for n, pt := range c.Curve {
				if o := own[n]; pt.Lambda != o.Lambda || pt.ColLambda != o.ColLambda || math.Abs(pt.Value-o.Value) > 1e-13*o.Value {
					t.Errorf("%s %s × %s: point %d %+v, the learner's design %+v", name, c.Kernel, *c.ColKernel, n, pt, o)
				}
			}
		}
		if _, ok := res.Solution.(interface{ PairModel() *model.PairPredictor }); !ok {
			t.Errorf("%s: the chosen solution %T gives no pair model", name, res.Solution)
		}
		// K = I: nothing to learn, and the tie rule says so
		st.Kernels, st.ColKernels = []kernel.Spec{{Name: "gaussian", Gamma: 1e8}}, []kernel.Spec{{Name: "gaussian", Gamma: 1e8}}
		for _, setting := range []string{"pairs", "rows:3", "both"} {
			for _, mn := range []string{"cindex", "cindex-row"} {
				st.Measure, _ = measure.ByName(mn)
				if st.Scheme, err = selection.NewScheme(setting, selection.SchemeOptions{RowObjects: 6, ColObjects: 5, Seed: 4}); err != nil {
					t.Fatal(err)
				}
				res, err := selection.Search(selection.Problem{Learner: d, Input: in}, st)
				if err != nil {
					t.Fatalf("%s %s %s: %v", name, setting, mn, err)
				}
				for _, pt := range res.Curves[0].Curve {
					if pt.Value != 0.5 || !pt.Indistinguishable {
						t.Errorf("%s K=I %s %s: %+v, want 0.5 and indistinguishable", name, setting, mn, pt)
					}
				}
			}
		}
	}
}
