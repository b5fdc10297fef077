package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
)

// writeSVM writes m rows in q queries: "label qid:Q 1:a 2:b 3:c".
func writeSVM(t *testing.T, dir string, m, q int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	for i := 0; i < m; i++ {
		a, bb, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		y := math.Round(a - 0.5*bb + 0.3*rng.NormFloat64())
		fmt.Fprintf(&b, "%g qid:%d 1:%g 2:%g 3:%g\n", y, i%q, a, bb, c)
	}
	path := filepath.Join(dir, fmt.Sprintf("rank%d.svm", seed))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitRankers: every ranker's CV curve, at each λ, is that of retraining
// it from scratch on each fold (bruteRLS with the ranker's cost: all pairs,
// the pairs within queries, or the preference graph's edges between training
// rows; the oracle's tolerances), scored as the CLI scores it — leave-pair-out
// over the pairs' own predictions, the other schemes over the pooled
// predictions — with the CV predictions at the chosen λ those of
// --cv-predictions; the saved model predicts the data as the model retrained
// on all rows at the chosen λ does, with predict's c-index that of those
// predictions. The k-fold folds are the CLI's draw (cv.KFold, seed 1) and
// the sparse basis the model's points; the numbers are computed here.
func TestFitRankers(t *testing.T) {
	dir := t.TempDir()
	data := writeSVM(t, dir, 40, 4, 1)
	prefs := filepath.Join(dir, "prefs.txt")
	os.WriteFile(prefs, []byte("0 1\n2 3 2\n4 5 1 0.5\n6 7\n8 9\n10 11 3\n12 13\n14 15\n16 0\n"), 0o644)
	modelPath := filepath.Join(dir, "m.json")
	x, y, q := readSVM(t, data)
	or := newOracle(y)
	// the preferences "i j [magnitude [weight]]", magnitude and weight 1 when
	// not given; the unit cost ignores the magnitudes
	edges := func(unit bool) []prefEdge {
		var out []prefEdge
		for _, l := range strings.Split(strings.TrimSpace(readFileT(t, prefs)), "\n") {
			f := predictionsOf(t, l)
			e := prefEdge{i: int(f[0]), j: int(f[1]), z: 1, w: 1}
			if len(f) > 2 && !unit {
				e.z = f[2]
			}
			if len(f) > 3 {
				e.w = f[3]
			}
			out = append(out, e)
		}
		return out
	}
	linear := bruteRLS{x: x, linear: true} // the rankers' default: bias 0
	gauss := func(g float64) bruteRLS { return bruteRLS{x: x, k: gaussianKernel(g)}.cached() }
	kfold := func(k int) [][]int {
		f, err := cv.KFold(40, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	var lqo [][]int
	for query := 0; query < 4; query++ {
		var f []int
		for i := range q {
			if q[i] == query {
				f = append(f, i)
			}
		}
		lqo = append(lqo, f)
	}
	cases := []struct {
		name     string
		args     []string
		strategy string
		measure  string
		s        bruteRLS
		loss     bruteLoss
		lpo      [][2]int // leave-pair-out: the pairs
		folds    [][]int  // else the folds
		sparse   bool
	}{
		{"globalrank lpo", []string{"--learner", "globalrank", "--kernel", "gaussian", "--gamma", "0.3", "--cv", "lpo"}, "lpo", "cindex",
			gauss(0.3), pairLoss(y, nil), diffPairs(y, nil), nil, false},
		{"globalrank lpo auc", []string{"--learner", "globalrank", "--cv", "lpo", "--measure", "auc"}, "lpo", "auc",
			linear, pairLoss(y, nil), posNegPairs(y), nil, false},
		{"queryrank lqo", []string{"--learner", "queryrank", "--kernel", "gaussian", "--gamma", "0.3", "--cv", "lqo"}, "lqo", "disagreement",
			gauss(0.3), pairLoss(y, q), nil, lqo, false},
		{"queryrank lpo", []string{"--learner", "queryrank", "--cv", "lpo"}, "lpo", "cindex",
			linear, pairLoss(y, q), diffPairs(y, q), nil, false},
		{"queryrank kfold", []string{"--learner", "queryrank", "--cv", "kfold:4", "--measure", "disagreement"}, "kfold:4", "disagreement",
			linear, pairLoss(y, q), nil, kfold(4), false},
		{"prefrank", []string{"--learner", "prefrank", "--preferences", prefs, "--cost", "unit", "--cv", "loo"}, "loo", "cindex",
			linear, graphLoss(edges(true)), nil, looFolds(40), false},
		{"prefrank sparse", []string{"--learner", "prefrank", "--preferences", prefs, "--kernel", "gaussian", "--basis", "10", "--cv", "kfold:5"}, "kfold:5", "cindex",
			gauss(1), graphLoss(edges(false)), nil, kfold(5), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cvPath := filepath.Join(dir, "cv.tsv")
			args := append([]string{"fit", "--data", data, "--lambda-grid", "0.1,1,10", "--quiet", "--model", modelPath, "--cv-predictions", cvPath}, c.args...)
			stdout, _, err := run(t, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			o := decodeFit(t, stdout)
			if o.CV.Strategy != c.strategy || o.CV.Measure != c.measure || len(o.CV.Curve) != 3 {
				t.Fatalf("cv %+v", o.CV)
			}
			if o.Queries == nil || o.Queries.Count != 4 {
				t.Errorf("queries %+v", o.Queries)
			}
			if o.Kernel.Name == "linear" && o.Kernel.Bias != 0 {
				t.Errorf("rankers default to bias 0, got %+v", o.Kernel)
			}
			var b []int // the sparse model's basis: the rows its points are
			if c.sparse {
				pm := loadModel(t, modelPath)
				r, _ := pm.Points.Dims()
				for k := 0; k < r; k++ {
					i := slices.IndexFunc(x, func(row []float64) bool { return slices.Equal(row, mat.Row(nil, k, pm.Points)) })
					if i < 0 {
						t.Fatalf("basis point %d is no row of the data", k)
					}
					b = append(b, i)
				}
				if len(b) != 10 {
					t.Fatalf("%d basis points", len(b))
				}
			}
			for _, pt := range o.CV.Curve {
				what := fmt.Sprintf("%s at λ %g", c.name, pt.Lambda)
				if c.lpo != nil {
					pp := map[[2]int][2]float64{}
					gap := math.Inf(1)
					for _, pr := range c.lpo {
						p, k := c.s.holdOut(t, c.loss, [][]int{{pr[0], pr[1]}}, b, o.CV.BasisHoldOut, pt.Lambda)
						or.kappa(k)
						pp[pr] = [2]float64{p[pr[0]], p[pr[1]]}
						gap = math.Min(gap, math.Abs(p[pr[0]]-p[pr[1]]))
					}
					or.ordinal(what, pt.Value, pairShare(c.lpo, y, func(i, j int) (float64, float64) {
						return pp[[2]int{i, j}][0], pp[[2]int{i, j}][1]
					}), gap)
					if pt.Lambda != o.Lambda {
						continue
					}
					got := readPairPredictions(t, cvPath)
					if len(got) != len(c.lpo) {
						t.Errorf("%d pairs in --cv-predictions, want %d", len(got), len(c.lpo))
					}
					for _, pr := range c.lpo {
						g, ok := got[pr]
						if !ok {
							g, ok = got[[2]int{pr[1], pr[0]}]
							g[0], g[1] = g[1], g[0]
						}
						if !ok {
							t.Errorf("pair %v not in --cv-predictions", pr)
							continue
						}
						w := pp[pr]
						or.predictions(fmt.Sprintf("%s: pair %v", c.name, pr), g[:], w[:])
					}
					continue
				}
				p, k := c.s.holdOut(t, c.loss, c.folds, b, o.CV.BasisHoldOut, pt.Lambda)
				or.kappa(k)
				if pt.Lambda == o.Lambda {
					or.predictions(c.name+": CV predictions", readCVColumn(t, cvPath, 40), p)
				}
				if c.measure == "disagreement" {
					or.ordinal(what, pt.Value, disagreementOf(y, p, q), minGap(labelPairs(y, p, q), y, p))
				} else {
					pairs := labelPairs(y, p, nil)
					or.ordinal(what, pt.Value, pooledShare(pairs, y, p), minGap(pairs, y, p))
				}
			}
			// the model retrained on all rows at the chosen λ
			all := make([]int, 40)
			for i := range all {
				all[i] = i
			}
			want, k := c.s.fit(t, c.loss, all, b, o.Lambda, x)
			or.kappa(k)
			pout, perr, err := run(t, "", "predict", "--model", modelPath, "--data", data, "--measure", "cindex")
			if err != nil {
				t.Fatalf("predict: %v", err)
			}
			or.predictions(c.name+": predict", predictionsOf(t, pout), want)
			var score struct {
				Measure string
				Value   float64
			}
			if err := json.Unmarshal([]byte(perr), &score); err != nil || score.Measure != "cindex" {
				t.Fatalf("measure line %q: %v", perr, err)
			}
			pairs := labelPairs(y, want, nil)
			or.ordinal(c.name+": predict's c-index", score.Value, pooledShare(pairs, y, want), minGap(pairs, y, want))
		})
	}
	or.check(t)
}

func TestFitRankerErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeSVM(t, dir, 12, 3, 2)
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	oneQuery := write("one.svm", "1 qid:1 1:1\n2 qid:1 1:2\n3 qid:1 1:0.5\n1 qid:2 1:3\n")
	someQids := write("some.svm", "1 qid:1 1:1\n2 1:2\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--learner", "prefrank", "--preferences", write("p1", "0 12\n")}, "p1:1"},
		{[]string{"--learner", "prefrank", "--preferences", write("p2", "3 3\n")}, "p2:1"},
		{[]string{"--learner", "prefrank", "--preferences", write("p3", "0 1 -1\n")}, "negative magnitude"},
		{[]string{"--learner", "prefrank", "--preferences", write("p4", "0 1 0\n"), "--cost", "inverse"}, "magnitude 0"},
		{[]string{"--learner", "prefrank"}, "--preferences"},
		{[]string{"--learner", "rls", "--preferences", write("p5", "0 1\n")}, "--preferences"},
		{[]string{"--learner", "queryrank", "--cv", "lqo", "--data", oneQuery}, "leaving queries out needs 2"},
		{[]string{"--learner", "globalrank", "--cv", "lpo", "--data", write("tie.svm", "1 1:1\n1 1:2\n1 1:3\n1 1:0\n")}, "leave-pair-out needs 2"},
		{[]string{"--learner", "queryrank", "--data", someQids}, "qid"},
		{[]string{"--learner", "rank"}, "unknown learner"},
		{[]string{"--cost", "unit"}, "--cost"},
	}
	for _, c := range cases {
		args := append([]string{"fit", "--data", data, "--lambda", "1", "--quiet"}, c.args...)
		_, _, err := run(t, "", args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.args, err, c.want)
		}
	}
}

// readSVM reads what writeSVM wrote: labels, query ids and the 3 features.
func readSVM(t *testing.T, path string) (x [][]float64, y []float64, q []int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(readFileT(t, path)), "\n") {
		var yi, a, b, c float64
		var qi int
		if _, err := fmt.Sscanf(l, "%g qid:%d 1:%g 2:%g 3:%g", &yi, &qi, &a, &b, &c); err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		x, y, q = append(x, []float64{a, b, c}), append(y, yi), append(q, qi)
	}
	return x, y, q
}

// linearSystem is A = X̃ᵀLX̃ + λI and b = X̃ᵀLy for X̃ = [X, √bias·1] (X
// alone for bias 0) and the Laplacian of the learner's loss: I (rls),
// mI − 11ᵀ (globalrank, all pairs), n_q·I − 11ᵀ per query (queryrank).
func linearSystem(x [][]float64, y []float64, q []int, learner string, bias, lambda float64) (xt, a *mat.Dense, b *mat.VecDense) {
	m, d := len(x), len(x[0])
	n := d
	if bias > 0 {
		n++
	}
	xt = mat.NewDense(m, n, nil)
	for i := range x {
		for j, v := range x[i] {
			xt.Set(i, j, v)
		}
		if bias > 0 {
			xt.Set(i, d, math.Sqrt(bias))
		}
	}
	l := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			switch {
			case learner == "rls":
				if i == j {
					l.Set(i, j, 1)
				}
			case learner == "globalrank" || q[i] == q[j]:
				l.Set(i, j, -1)
			}
		}
	}
	if learner != "rls" {
		for i := 0; i < m; i++ {
			s := 0.0
			for j := 0; j < m; j++ {
				s += l.At(i, j)
			}
			l.Set(i, i, l.At(i, i)-s) // rows sum to 0: the diagonal is the degree
		}
	}
	var lx mat.Dense
	a = new(mat.Dense)
	lx.Mul(l, xt)
	a.Mul(xt.T(), &lx)
	for k := 0; k < n; k++ {
		a.Set(k, k, a.At(k, k)+lambda)
	}
	var ly mat.VecDense
	ly.MulVec(l, mat.NewVecDense(m, y))
	b = new(mat.VecDense)
	b.MulVec(xt.T(), &ly)
	return xt, a, b
}

// --solver cg trains the same linear model as the direct solver, each to its
// own accuracy, checked against the weights w = A⁻¹b solved here (LU) for
// A = X̃ᵀLX̃ + λI: the direct solver to n·κ(A)·ε (an eigendecomposition,
// backward stable; the factor 100 covers the constants), conjugate gradients
// to its stopping rule, ‖w − w*‖ ≤ κ(A)·Tol·‖w*‖ (times 2 for the drift of
// its recurred residual, plus the direct solver's rounding). The predictions
// X̃_test·w are off by at most κ(X̃_test) times the weights' relative error.
// Both bounds are asserted below 1e-8, so a 1e-7 error fails.
func TestFitCG(t *testing.T) {
	dir := t.TempDir()
	data := writeSVM(t, dir, 60, 5, 3)
	test := writeSVM(t, dir, 15, 3, 4)
	const lambda, tol = 0.5, 1e-12
	x, y, q := readSVM(t, data)
	xtest, _, _ := readSVM(t, test)
	for _, learner := range []string{"rls", "globalrank", "queryrank"} {
		direct, cgm := filepath.Join(dir, learner+"-d.json"), filepath.Join(dir, learner+"-c.json")
		if _, _, err := run(t, "", "fit", "--data", data, "--learner", learner, "--lambda", "0.5", "--cv", "none", "--model", direct, "--quiet"); err != nil {
			t.Fatal(err)
		}
		stdout, _, err := run(t, "", "fit", "--data", data, "--learner", learner, "--lambda", "0.5", "--cv", "none", "--solver", "cg", "--tol", "1e-12", "--model", cgm, "--quiet")
		if err != nil {
			t.Fatal(err)
		}
		o := decodeFit(t, stdout)
		if o.CG == nil || !o.CG.Converged[0] || o.CG.Iterations[0] < 1 {
			t.Errorf("%s: cg report %+v", learner, o.CG)
		}
		bias := 0.0 // the rankers' default
		if learner == "rls" {
			bias = 1
		}
		_, a, b := linearSystem(x, y, q, learner, bias, lambda)
		var w mat.VecDense
		if err := w.SolveVec(a, b); err != nil {
			t.Fatal(err)
		}
		xtt, _, _ := linearSystem(xtest, make([]float64, len(xtest)), nil, "rls", bias, lambda)
		var want mat.VecDense
		want.MulVec(xtt, &w)
		n, _ := a.Dims()
		kA, kT := condSym(t, a), mat.Cond(xtt, 2)
		boundDirect := kT * 100 * float64(n) * kA * eps
		boundCG := kT * 2 * (kA*tol + 100*float64(n)*kA*eps)
		if boundDirect > 1e-8 || boundCG > 1e-8 {
			t.Fatalf("%s: bounds %.2g, %.2g (κ(A) %.3g, κ(X̃_test) %.3g): too loose to catch 1e-7", learner, boundDirect, boundCG, kA, kT)
		}
		for _, c := range []struct {
			model string
			bound float64
		}{{direct, boundDirect}, {cgm, boundCG}} {
			out, _, err := run(t, "", "predict", "--model", c.model, "--data", test)
			if err != nil {
				t.Fatal(err)
			}
			got := mat.NewVecDense(len(xtest), predictionsOf(t, out))
			var diff mat.VecDense
			diff.SubVec(got, &want)
			t.Logf("%s %s: off by %.2g relative, bound %.2g", learner, filepath.Base(c.model), mat.Norm(&diff, 2)/mat.Norm(&want, 2), c.bound)
			if e := mat.Norm(&diff, 2) / mat.Norm(&want, 2); e > c.bound {
				t.Errorf("%s %s: predictions off by %.3g relative, bound %.3g", learner, filepath.Base(c.model), e, c.bound)
			}
		}
	}
	for _, bad := range [][]string{
		{"--solver", "cg", "--kernel", "gaussian", "--cv", "none", "--lambda", "1"},
		{"--solver", "cg", "--lambda", "1"},
		{"--solver", "cg", "--cv", "none", "--lambda", "1", "--max-iter", "0"},
		{"--solver", "sgd", "--cv", "none", "--lambda", "1"},
		{"--tol", "1e-3", "--cv", "none", "--lambda", "1"},
	} {
		if _, _, err := run(t, "", append([]string{"fit", "--data", data, "--quiet"}, bad...)...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
