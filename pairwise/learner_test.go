package pairwise

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/selection"
)

// designRuns collects the n×1 predictions CrossValidateDesign hands visit,
// copied, by (i, j); it fails on a point visited twice or an out-of-range index.
func designRuns(t *testing.T, v learn.DesignValidator, d learn.Design, lambdas, colLambdas []float64) [][]*mat.Dense {
	t.Helper()
	nc := max(1, len(colLambdas))
	out := make([][]*mat.Dense, len(lambdas))
	for i := range out {
		out[i] = make([]*mat.Dense, nc)
	}
	err := v.CrossValidateDesign(d, lambdas, colLambdas, func(i, j int, p *mat.Dense) error {
		if i < 0 || i >= len(lambdas) || j < 0 || j >= nc || out[i][j] != nil {
			t.Fatalf("%+v: visit(%d, %d) out of range or twice", d, i, j)
		}
		out[i][j] = mat.DenseCopyOf(p)
		return nil
	})
	if err != nil {
		t.Fatalf("%+v: %v", d, err)
	}
	for i := range out {
		for j := range out[i] {
			if out[i][j] == nil {
				t.Fatalf("%+v: point (%d, %d) not visited", d, i, j)
			}
		}
	}
	return out
}

// sameValues reports whether a and b are equal entry by entry, NaN where NaN.
func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// CrossValidateDesign hands visit, for (lambdas[i], colLambdas[j]), exactly
// the CV predictions of CrossValidate at that point picked at the labelled
// pairs in their given (shuffled) order — NaN for pairs of rows in no fold
// — for both learners, every setting and both orientations of two-step
// RLS's joint grid (m < q and m > q).
func TestCrossValidateDesign(t *testing.T) {
	for _, sh := range [][2]int{{4, 6}, {6, 4}} {
		rng := rand.New(rand.NewPCG(41, uint64(sh[0])))
		m, q := sh[0], sh[1]
		rows, cols := randSides(t, rng, m, q, kernelCases[0].k)
		pairs, y := gridLabels(rng, rows, cols)
		k, err := FitKron(rows, cols, pairs, y, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rg, cg := []float64{1e-2, 1, 30}, []float64{0.1, 5}
		for _, d := range []Design{{Setting: Pairs}, {Setting: Rows}, {Setting: Rows, RowFolds: [][]int{{0, 2}, {3}}},
			{Setting: Cols, ColFolds: randFolds(rng, q, 2)}, {Setting: Both}, {Setting: Both, RowFolds: randFolds(rng, m, 2)}} {
			got := designRuns(t, k, d.Learn(), rg, nil)
			i := 0
			if err := k.CrossValidate(d, rg, func(_ int, p *mat.Dense) error {
				if want := k.lab.pick(p); !sameValues(got[i][0].RawMatrix().Data, want) {
					t.Errorf("kronrls %s λ=%g: design predictions differ from CrossValidate's", d, rg[i])
				}
				i++
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			got = designRuns(t, ts, d.Learn(), rg, cg)
			for i, lr := range rg {
				for j, lc := range cg {
					if err := ts.CrossValidate(d, []float64{lr}, []float64{lc}, func(_, _ int, p *mat.Dense) error {
						if want := ts.lab.pick(p); !sameValues(got[i][j].RawMatrix().Data, want) {
							t.Errorf("twostep %s (%g, %g): design predictions differ", d, lr, lc)
						}
						return nil
					}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if d.RowFolds != nil && d.Setting == Rows {
				for n, p := range pairs {
					if uncovered := !slices.Contains([]int{0, 2, 3}, p.Row); uncovered != math.IsNaN(got[0][0].At(n, 0)) {
						t.Errorf("pair %d (%d, %d): NaN %v, row in no fold %v", n, p.Row, p.Col, !uncovered, uncovered)
					}
				}
			}
		}
		// setting A at (λ, λ_c) is the solution's leave-one-out, in the pairs' order
		got := designRuns(t, ts, learn.Design{Setting: "pairs"}, rg, cg)
		for i := range rg {
			for j := range cg {
				s, _ := ts.Solve(rg[i], cg[j])
				loo, _ := s.LeaveOneOut()
				check(t, "twostep pairs vs LeaveOneOut", got[i][j].RawMatrix().Data, loo.RawMatrix().Data)
			}
		}
		// errors: one λ for Kronecker RLS, two for two-step RLS, known settings
		visit := func(int, int, *mat.Dense) error { return nil }
		if err := k.CrossValidateDesign(learn.Design{Setting: "pairs"}, rg, []float64{}, visit); !errors.Is(err, ErrSetting) {
			t.Errorf("kronrls with column λ values: %v", err)
		}
		if err := ts.CrossValidateDesign(learn.Design{Setting: "pairs"}, rg, nil, visit); !errors.Is(err, ErrSetting) {
			t.Errorf("twostep without column λ values: %v", err)
		}
		if err := k.CrossValidateDesign(learn.Design{Setting: "vertices"}, rg, nil, visit); !errors.Is(err, ErrSetting) {
			t.Errorf("kronrls: vertices on two sets of objects: %v", err)
		}
		if err := ts.CrossValidateDesign(learn.Design{Setting: "both", RowFolds: [][]int{{m}}}, rg, cg, visit); !errors.Is(err, ErrSetting) {
			t.Errorf("twostep: a fold outside the rows: %v", err)
		}
		stop := errors.New("stop")
		if err := ts.CrossValidateDesign(learn.Design{Setting: "rows"}, rg, cg, func(int, int, *mat.Dense) error { return stop }); err != stop {
			t.Errorf("visit's error not returned: %v", err)
		}
	}
}

// Homogeneous networks: pairs and vertices through CrossValidateDesign.
func TestCrossValidateDesignHomogeneous(t *testing.T) {
	for _, sym := range symmetries {
		rng := rand.New(rand.NewPCG(43, uint64(sym)))
		s, pairs, y, _ := homoNetwork(t, rng, 5, kernelCases[0], sym)
		k, err := FitKron(s, nil, pairs, y, Options{Symmetry: sym})
		if err != nil {
			t.Fatal(err)
		}
		ts, err := FitTwoStep(s, nil, pairs, y, Options{Symmetry: sym})
		if err != nil {
			t.Fatal(err)
		}
		rg := []float64{0.1, 10}
		for _, d := range []Design{{Setting: Pairs}, {Setting: Vertices}, {Setting: Vertices, RowFolds: [][]int{{0, 3}, {1}}}} {
			got := designRuns(t, k, d.Learn(), rg, nil)
			i := 0
			_ = k.CrossValidate(d, rg, func(_ int, p *mat.Dense) error {
				if !sameValues(got[i][0].RawMatrix().Data, k.lab.pick(p)) {
					t.Errorf("kronrls %s %s λ=%g differs", sym, d, rg[i])
				}
				i++
				return nil
			})
			got = designRuns(t, ts, d.Learn(), rg, rg[:1])
			for i := range rg {
				_ = ts.CrossValidate(d, rg[i:i+1], rg[:1], func(_, _ int, p *mat.Dense) error {
					if !sameValues(got[i][0].RawMatrix().Data, ts.lab.pick(p)) {
						t.Errorf("twostep %s %s λ=%g differs", sym, d, rg[i])
					}
					return nil
				})
			}
		}
	}
}

// Two-step RLS as a learner: At(λ) is (λ, λ), AtBoth any (λ, λ_c), the
// fixed-column learner still solves at its column λ, and every solution
// gives its pair model without a type switch.
func TestTwoStepLearner(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 1))
	rows, cols := randSides(t, rng, 5, 4, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ts.Name() != learn.TwoStep || !sameValues(ts.Labels().RawMatrix().Data, y) {
		t.Errorf("name %s, labels %v", ts.Name(), ts.Labels().RawMatrix().Data)
	}
	type pairModeler interface{ PairModel() *model.PairPredictor }
	for _, tc := range []struct {
		name   string
		at     func() (learn.Solution, error)
		lr, lc float64
	}{
		{"At", func() (learn.Solution, error) { return ts.At(0.3) }, 0.3, 0.3},
		{"AtBoth", func() (learn.Solution, error) { return ts.AtBoth(0.3, 7) }, 0.3, 7},
		{"WithColLambda", func() (learn.Solution, error) { return ts.WithColLambda(7).At(0.3) }, 0.3, 7},
	} {
		sol, err := tc.at()
		if err != nil {
			t.Fatal(err)
		}
		s := sol.(*TwoStepSolution)
		if s.RowLambda != tc.lr || s.ColLambda != tc.lc {
			t.Errorf("%s: solved at (%g, %g), want (%g, %g)", tc.name, s.RowLambda, s.ColLambda, tc.lr, tc.lc)
		}
		pm := sol.(pairModeler).PairModel()
		if pm.Lambda != tc.lr || pm.ColLambda != tc.lc || pm.Learner != string(learn.TwoStep) {
			t.Errorf("%s: pair model at (%g, %g) of %s", tc.name, pm.Lambda, pm.ColLambda, pm.Learner)
		}
	}
	sol, _ := k.At(2)
	if pm := sol.(pairModeler).PairModel(); pm.Lambda != 2 || pm.Learner != string(learn.KronRLS) {
		t.Errorf("kronrls pair model: %+v", pm)
	}
	for _, f := range []func() (learn.Solution, error){
		func() (learn.Solution, error) { return ts.At(0) },
		func() (learn.Solution, error) { return ts.AtBoth(1, -1) },
		func() (learn.Solution, error) { return k.At(math.NaN()) },
	} {
		if s, err := f(); !errors.Is(err, learn.ErrLambda) || s != nil {
			t.Errorf("bad λ: %v, %v (want a nil solution and ErrLambda)", s, err)
		}
	}
}

// twinCase is a learner of the twin tests with its designs and grids.
type twinCase struct {
	name       string
	l          learn.Learner
	designs    []Design
	colLambdas []float64
	cond       func(lambda, colLambda float64) float64
	m, q       int
}

func twinCases(t *testing.T) []twinCase {
	rng := rand.New(rand.NewPCG(45, 2))
	rows, cols := randSides(t, rng, 6, 5, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hetero := []Design{{Setting: Pairs}, {Setting: Rows}, {Setting: Rows, RowFolds: randFolds(rng, 6, 3)},
		{Setting: Cols}, {Setting: Both}, {Setting: Both, RowFolds: randFolds(rng, 6, 2), ColFolds: randFolds(rng, 5, 2)}}
	s, hp, hy, _ := homoNetwork(t, rng, 6, kernelCases[0], Antisymmetric)
	hk, err := FitKron(s, nil, hp, hy, Options{Symmetry: Antisymmetric})
	if err != nil {
		t.Fatal(err)
	}
	hts, err := FitTwoStep(s, nil, hp, hy, Options{Symmetry: Antisymmetric})
	if err != nil {
		t.Fatal(err)
	}
	homo := []Design{{Setting: Pairs}, {Setting: Vertices}, {Setting: Vertices, RowFolds: randFolds(rng, 6, 2)}}
	kc := func(k *KronRLS) func(l, _ float64) float64 {
		return func(l, _ float64) float64 { s, _ := k.Solve(l); return s.Conditioning() }
	}
	tc := func(ts *TwoStep) func(l, lc float64) float64 {
		return func(l, lc float64) float64 { s, _ := ts.Solve(l, lc); return s.Conditioning() }
	}
	return []twinCase{
		{"kronrls", k, hetero, nil, kc(k), 6, 5},
		{"twostep", ts, hetero, []float64{0.1, 10}, tc(ts), 6, 5},
		{"kronrls antisymmetric", hk, homo, nil, kc(hk), 6, 6},
		{"twostep antisymmetric", hts, homo, []float64{0.1, 10}, tc(hts), 6, 6},
	}
}

// The twin shares the eigenvectors and sides, has every eigenvalue of both
// sides moved up by (0, r·ε·max|e|], the labels (and UᵀYV) times s, and is a
// learner of the same kind; two-step RLS with a fixed column λ keeps it.
func TestPerturbedStructure(t *testing.T) {
	const s = selection.TwinScale
	for _, tc := range twinCases(t) {
		tw, err := tc.l.(learn.Perturber).Perturbed(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tw.(learn.DesignValidator); !ok || tw.Name() != tc.l.Name() {
			t.Fatalf("%s: twin %T is not a design validator of the same learner", tc.name, tw)
		}
		var p, q *problem
		var a, b *spectrum
		switch l := tc.l.(type) {
		case *KronRLS:
			w := tw.(*KronRLS)
			p, q, a, b = &l.problem, &w.problem, &l.spectrum, &w.spectrum
			if !w.perturbed || l.perturbed {
				t.Errorf("%s: the twin's per-fold eigendecompositions are not perturbed", tc.name)
			}
			// settings D and vertices eigendecompose a side per fold: the
			// twin's are perturbed too, so its predictions differ from those
			// of the same twin with them unperturbed
			plain := &KronRLS{problem: w.problem, spectrum: w.spectrum}
			d := Design{Setting: Both}
			if l.Symmetry() != Heterogeneous {
				d = Design{Setting: Vertices}
			}
			a := designRuns(t, w, d.Learn(), []float64{0.1}, nil)[0][0]
			b := designRuns(t, plain, d.Learn(), []float64{0.1}, nil)[0][0]
			if sameValues(a.RawMatrix().Data, b.RawMatrix().Data) {
				t.Errorf("%s: %s of the twin ignores the per-fold perturbation", tc.name, d)
			}
		case *TwoStep:
			w := tw.(*TwoStep)
			p, q, a, b = &l.problem, &w.problem, &l.spectrum, &w.spectrum
		}
		if q.rows != p.rows || q.cols != p.cols || b.u != a.u || b.v != a.v || b.u2 != a.u2 {
			t.Errorf("%s: sides or eigenvectors not shared", tc.name)
		}
		for side, ev := range map[string][2][]float64{"rows": {a.er, b.er}, "cols": {a.ec, b.ec}} {
			e, e2 := ev[0], ev[1]
			bound := float64(len(e)) * 2.220446049250313e-16 * maxAbs(e)
			for k := range e {
				if d := e2[k] - e[k]; !(d > 0 && d <= bound) {
					t.Errorf("%s %s: eigenvalue %d moved by %g, want (0, %g]", tc.name, side, k, d, bound)
				}
			}
		}
		for i, v := range p.lab.givenY {
			if q.lab.givenY[i] != s*v {
				t.Fatalf("%s: twin label %d = %v, want %v", tc.name, i, q.lab.givenY[i], s*v)
			}
		}
		var want mat.Dense
		want.Scale(s, p.lab.full)
		if !mat.Equal(&want, q.lab.full) || !sameValues(tw.Labels().RawMatrix().Data, mat.Col(nil, 0, scaleDense(tc.l.Labels(), s))) {
			t.Errorf("%s: twin label matrix is not s·Y", tc.name)
		}
		want.Scale(s, a.yt)
		if !mat.Equal(&want, b.yt) {
			t.Errorf("%s: twin UᵀYV is not s·UᵀYV", tc.name)
		}
		if _, err := tc.l.(learn.Perturber).Perturbed(0); err == nil {
			t.Errorf("%s: twin scale 0 accepted", tc.name)
		}
	}
	// the fixed-column learner's twin solves at the same column λ
	ts := twinCases(t)[1].l.(*TwoStep)
	tw, err := ts.WithColLambda(7).Perturbed(s)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := tw.At(0.5)
	if err != nil {
		t.Fatal(err)
	}
	if st := sol.(*TwoStepSolution); st.ColLambda != 7 || st.RowLambda != 0.5 {
		t.Errorf("fixed-column twin solves at (%g, %g), want (0.5, 7)", st.RowLambda, st.ColLambda)
	}
}

func scaleDense(a *mat.Dense, s float64) *mat.Dense {
	var out mat.Dense
	out.Scale(s, a)
	return &out
}

// In exact arithmetic, without the perturbation, the twin's CV predictions
// are s times the learner's. With it they differ by the perturbation's effect
// plus both computations' rounding: relative to max|y|, at most about the
// condition number κ (Conditioning) times the relative perturbation
// (m + q)·ε of the eigenvalues — here held to 2·κ·(m + q)·ε·max|y| (the
// largest seen is about 1/12 of it), at moderate λ, for every design of both
// learners, homogeneous networks included.
func TestPerturbedTwinPredictions(t *testing.T) {
	const s = selection.TwinScale
	const eps = 2.220446049250313e-16
	lambdas := []float64{1e-2, 1, 1e2}
	for _, tc := range twinCases(t) {
		tw, err := tc.l.(learn.Perturber).Perturbed(s)
		if err != nil {
			t.Fatal(err)
		}
		ymax := mat.Norm(tc.l.Labels(), math.Inf(1))
		for _, d := range tc.designs {
			p := designRuns(t, tc.l.(learn.DesignValidator), d.Learn(), lambdas, tc.colLambdas)
			p2 := designRuns(t, tw.(learn.DesignValidator), d.Learn(), lambdas, tc.colLambdas)
			worst := 0.0
			for i, lambda := range lambdas {
				for j := range p[i] {
					lc := 0.0
					if tc.colLambdas != nil {
						lc = tc.colLambdas[j]
					}
					kappa := tc.cond(lambda, lc)
					bound := 2 * kappa * float64(tc.m+tc.q) * eps * ymax
					diff := 0.0
					a, b := p[i][j].RawMatrix().Data, p2[i][j].RawMatrix().Data
					for n := range a {
						if math.IsNaN(a[n]) != math.IsNaN(b[n]) {
							t.Fatalf("%s %s: pair %d covered by one of learner and twin only", tc.name, d, n)
						}
						if !math.IsNaN(a[n]) {
							diff = math.Max(diff, math.Abs(b[n]/s-a[n]))
						}
					}
					if diff > bound {
						t.Errorf("%s %s (λ=%g, λc=%g): |p₂/s − p| = %.3g > %.3g (κ = %.3g)", tc.name, d, lambda, lc, diff, bound, kappa)
					}
					worst = math.Max(worst, diff/bound)
				}
			}
			t.Logf("%s %s: largest |p₂/s − p| is %.3g of the bound", tc.name, d, worst)
		}
	}
}

// The registered descriptors: what they declare, every declared capability
// present on a trained learner, the input checks and the side cache.
func TestDescriptors(t *testing.T) {
	for _, tc := range []struct {
		d      learn.Descriptor
		caps   []learn.Capability
		params []learn.Param
	}{
		{KronRLSDescriptor(), []learn.Capability{learn.CanHoldOutObjects, learn.CanPerturb, learn.CanCG}, []learn.Param{learn.ParamSymmetry}},
		{TwoStepDescriptor(), []learn.Capability{learn.CanHoldOutObjects, learn.CanPerturb, learn.CanColLambda},
			[]learn.Param{learn.ParamSymmetry, learn.ParamColLambda}},
	} {
		reg, err := learn.Lookup(string(tc.d.Name))
		if err != nil {
			t.Fatal(err)
		}
		if reg.Summary != tc.d.Summary || !strings.HasPrefix(reg.Summary, string(tc.d.Name)+" (") {
			t.Errorf("%s: summary %q", tc.d.Name, reg.Summary)
		}
		if reg.Needs != learn.NeedsPairs|learn.NeedsLabels || !slices.Equal(reg.Caps, tc.caps) || !slices.Equal(reg.Params, tc.params) ||
			reg.Loss != learn.PairSquared || !reg.SelfScaling || reg.Measure("rows") != "mse" || reg.Measure("pairs") != "mse" {
			t.Errorf("%s: %+v", tc.d.Name, reg)
		}
		rng := rand.New(rand.NewPCG(46, 1))
		pairs, y := noisePairs(rng, 4, 3)
		in := &learn.Input{X: spreadObjects(rng, 4, 2), Cols: spreadObjects(rng, 3, 2), Pairs: pairs, Y: y}
		l := fitRegistered(t, tc.d.Name, in, kernelCases[0].k)
		for _, c := range reg.Caps {
			if c == learn.CanCG {
				continue // a solver of the loss (FitKronCG), not an interface of the learner
			}
			if !learn.Has(l, c) {
				t.Errorf("%s: declares %s, the trained learner has not", tc.d.Name, c)
			}
		}
		if l.Name() != tc.d.Name {
			t.Errorf("%s: trained %s", tc.d.Name, l.Name())
		}
	}
}

func TestPairMethodInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 1))
	pairs, y := noisePairs(rng, 4, 3)
	x, cols := spreadObjects(rng, 4, 2), spreadObjects(rng, 3, 2)
	hp, hy := noiseNetwork(rng, 4, Antisymmetric)
	for _, name := range []learn.Name{learn.KronRLS, learn.TwoStep} {
		d, _ := learn.Lookup(string(name))
		for _, tc := range []struct {
			what string
			in   *learn.Input
			want error
			says string
		}{
			{"no objects", &learn.Input{Cols: cols, Pairs: pairs, Y: y}, learn.ErrShape, "row objects"},
			{"no labels", &learn.Input{X: x, Cols: cols, Pairs: pairs}, learn.ErrShape, "labels"},
			{"two label columns", &learn.Input{X: x, Cols: cols, Pairs: pairs, Y: mat.NewDense(len(pairs), 2, nil)}, learn.ErrShape, "one label per pair"},
			{"pairs and labels", &learn.Input{X: x, Cols: cols, Pairs: pairs[1:], Y: y}, learn.ErrShape, "pairs"},
			{"symmetry of two sets", &learn.Input{X: x, Cols: cols, Pairs: pairs, Y: y, Symmetry: "symmetric"}, learn.ErrShape, "one set of objects"},
			{"none without columns", &learn.Input{X: x, Pairs: hp, Y: hy, Symmetry: "none"}, learn.ErrShape, "homogeneous"},
			{"unknown symmetry", &learn.Input{X: x, Cols: cols, Pairs: pairs, Y: y, Symmetry: "skew"}, ErrSetting, "skew"},
			{"pair outside", &learn.Input{X: x, Cols: spreadObjects(rng, 2, 2), Pairs: pairs, Y: y}, ErrPair, "outside"},
			{"incomplete", &learn.Input{X: x, Cols: cols, Pairs: pairs[1:], Y: mat.NewDense(len(pairs)-1, 1, y.RawMatrix().Data[1:])},
				ErrIncomplete, "conjugate gradients (FitKronCG)"},
		} {
			_, err := d.New(tc.in)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%s %s: %v, want %v saying %q", name, tc.what, err, tc.want, tc.says)
			}
		}
		// a homogeneous network: columns nil, symmetric by default, the column kernel ignored
		sp, sy := noiseNetwork(rng, 4, Symmetric)
		for sym, in := range map[Symmetry]*learn.Input{
			Symmetric:     {X: x, Pairs: sp, Y: sy},
			Antisymmetric: {X: x, Pairs: hp, Y: hy, Symmetry: "antisymmetric"},
		} {
			method, err := d.New(in)
			if err != nil {
				t.Fatal(err)
			}
			l, err := method(learn.Setting{Kernel: kernelCases[0].k})
			if err != nil {
				t.Fatal(err)
			}
			r, c := l.(interface{ Sides() (*Side, *Side) }).Sides()
			if got := l.(interface{ Symmetry() Symmetry }).Symmetry(); got != sym || r != c {
				t.Errorf("%s homogeneous: symmetry %s, one side %v", name, got, r == c)
			}
		}
		method, err := d.New(&learn.Input{X: x, Cols: cols, Pairs: pairs, Y: y})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := method(learn.Setting{Kernel: kernelCases[0].k}); err == nil || !strings.Contains(err.Error(), "column kernel") {
			t.Errorf("%s: no column kernel: %v", name, err)
		}
		if _, err := method(learn.Setting{ColKernel: kernelCases[0].k}); err == nil {
			t.Errorf("%s: no row kernel accepted", name)
		}
	}
}

// A kernel grid costs one kernel matrix and one eigendecomposition per
// distinct kernel per side: the row side is reused while the row kernel
// stays, every column side across all settings; the learners equal those
// fitted on sides built directly, standardized when asked.
func TestPairMethodSides(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 1))
	rx, cx := randObjects(rng, 5, 3, kernelCases[0].k), randObjects(rng, 4, 2, kernelCases[0].k)
	var pairs []learn.ObjectPair
	var yv []float64
	for i := 0; i < 5; i++ {
		for j := 0; j < 4; j++ {
			pairs = append(pairs, learn.ObjectPair{Row: i, Col: j})
			yv = append(yv, rng.NormFloat64())
		}
	}
	rowKernels := []kernel.Kernel{kernel.Gaussian{Gamma: 0.5}, kernel.Gaussian{Gamma: 2}}
	colKernels := []kernel.Kernel{kernel.Gaussian{Gamma: 0.5}, kernel.Linear{Bias: 1}, kernel.Polynomial{Gamma: 1, Coef0: 1, Degree: 2}}
	for _, name := range []learn.Name{learn.KronRLS, learn.TwoStep} {
		phases := map[string]int{}
		in := &learn.Input{X: rx, Cols: cx, Pairs: pairs, Y: mat.NewDense(len(yv), 1, yv), Standardize: true,
			Observe: func(p progress.Event) { phases[p.Stage]++ }}
		d, _ := learn.Lookup(string(name))
		method, err := d.New(in)
		if err != nil {
			t.Fatal(err)
		}
		rowSide := map[int]*Side{}
		colSide := map[int]*Side{}
		for ri, rk := range rowKernels {
			for ci, ck := range colKernels {
				l, err := method(learn.Setting{Kernel: rk, ColKernel: ck})
				if err != nil {
					t.Fatal(err)
				}
				r, c := l.(interface{ Sides() (*Side, *Side) }).Sides()
				if rowSide[ri] == nil {
					rowSide[ri] = r
				}
				if colSide[ci] == nil {
					colSide[ci] = c
				}
				if r != rowSide[ri] || c != colSide[ci] {
					t.Errorf("%s (%d, %d): sides not reused", name, ri, ci)
				}
				if r.Kernel().Spec() != rk.Spec() || c.Kernel().Spec() != ck.Spec() || r.Scaler() == nil || c.Scaler() == nil {
					t.Errorf("%s (%d, %d): sides with %s, %s, scalers %v %v", name, ri, ci, r.Kernel().Spec(), c.Kernel().Spec(), r.Scaler(), c.Scaler())
				}
				// the same learner as on sides built directly
				rs, _ := NewSide(rx, rk, true)
				cs, _ := NewSide(cx, ck, true)
				var want learn.Learner
				pp := make([]Pair, len(pairs))
				for n, p := range pairs {
					pp[n] = Pair{p.Row, p.Col}
				}
				if name == learn.KronRLS {
					want, err = FitKron(rs, cs, pp, yv, Options{})
				} else {
					want, err = FitTwoStep(rs, cs, pp, yv, Options{})
				}
				if err != nil {
					t.Fatal(err)
				}
				a, _ := l.At(0.5)
				b, _ := want.At(0.5)
				fa, _ := a.(learn.LeaveOneOuter).LeaveOneOut()
				fb, _ := b.(learn.LeaveOneOuter).LeaveOneOut()
				check(t, string(name)+" method vs direct", fa.RawMatrix().Data, fb.RawMatrix().Data)
			}
		}
		want := len(rowKernels) + len(colKernels)
		if phases["kernel matrix"] != want || phases["eigendecomposition"] != want {
			t.Errorf("%s: %v for %d distinct kernels", name, phases, want)
		}
	}
}
