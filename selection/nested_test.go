package selection

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
)

// nestedCase is a nested CV to compare with brute-force retraining.
type nestedCase struct {
	name        string
	specs       []kernel.Spec
	lambdas     []float64
	meas        string
	loo         bool // leave-one-out inner CV (else the 5 folds of kfold:5)
	standardize bool
	primal      bool // linear form: the oracle retrains the primal
	// learner is "rls" (the default), "sparse" (basis: every 5th row, under
	// policy), "globalrank", "queryrank" or "prefrank"
	learner string
	policy  learn.Policy
	oneSE   bool // --choose 1se on the best kernel setting's curve
	// innerIsOuter: the inner folds are the outer folds (Bates et al.'s
	// design: each outer part's inner CV is over the K − 1 other outer folds)
	innerIsOuter bool
}

// nestedData is the data of a case: rows, labels, 4 queries, a preference
// graph that follows the labels, and the sparse basis.
type nestedData struct {
	x, y  *mat.Dense
	q     []int
	edges []rank.Edge
	basis []int
}

func newNestedData(c nestedCase, m int) nestedData {
	rng := rand.New(rand.NewPCG(22, 3))
	tt := 2
	if c.learner != "" && c.learner != "rls" && c.learner != "sparse" {
		tt = 1
	}
	x, y := oracle.Data(rng, m, 3, tt, false, 0, oracle.Smooth)
	d := nestedData{x: x, y: y, q: make([]int, m)}
	for i := 0; i < m; i++ {
		d.q[i] = i % 4
		if i%5 == 0 {
			d.basis = append(d.basis, i)
		}
		for j := i + 1; j < m; j++ {
			if a, b := y.At(i, 0), y.At(j, 0); rng.Float64() < 0.3 {
				if a > b {
					d.edges = append(d.edges, rank.Edge{I: i, J: j, Magnitude: a - b, Weight: 1})
				} else {
					d.edges = append(d.edges, rank.Edge{I: j, J: i, Magnitude: b - a, Weight: 1})
				}
			}
		}
	}
	return d
}

// bruteFold is what retraining gives for one outer fold.
type bruteFold struct {
	curves [][]float64 // per kernel setting, per λ
	kernel int
	lambda float64
	inner  float64
	pred   *mat.Dense // |O|×t
	eIn    []float64  // inner losses (mse) at the chosen point, T's rows
}

// bruteNested is nested cross-validation by retraining at every grid point
// (internal/oracle: kernel ridge by LU, the primal by QR, RankRLS by the
// closed forms on the graph of the rows left; no code of the shortcuts):
// for every outer fold O, scale by a scaler fitted on T = all ∖ O (when
// asked), retrain on T ∖ I for every inner fold I (the scheme's folds
// restricted to T, or each row of T) at every kernel setting and λ and
// score T's pooled predictions; choose the best (ties: the larger λ, then
// the first setting); retrain on T at the choice and predict O.
func bruteNested(t *testing.T, c nestedCase, d nestedData, outer, inner [][]int) []bruteFold {
	t.Helper()
	x, y := d.x, d.y
	m, tt := y.Dims()
	meas, err := measure.ByName(c.meas)
	if err != nil {
		t.Fatal(err)
	}
	var out []bruteFold
	for _, o := range outer {
		isO := map[int]bool{}
		for _, i := range o {
			isO[i] = true
		}
		var train []int
		for i := 0; i < m; i++ {
			if !isO[i] {
				train = append(train, i)
			}
		}
		xs := x
		if c.standardize {
			sc := model.FitScaler(oracle.Rows(x, train))
			v, err := sc.Transform(x)
			if err != nil {
				t.Fatal(err)
			}
			xs = oracle.Dense(v)
		}
		var folds [][]int
		if c.loo {
			for _, i := range train {
				folds = append(folds, []int{i})
			}
		} else {
			for _, f := range inner {
				var g []int
				for _, i := range f {
					if !isO[i] {
						g = append(g, i)
					}
				}
				if len(g) > 0 {
					folds = append(folds, g)
				}
			}
		}
		retrain := func(spec kernel.Spec, tr, te []int, lambda float64) *mat.Dense {
			p := oracle.Problem{X: xs, Y: y, K: oracle.Kernel{Name: spec.Name, Gamma: spec.Gamma, Bias: spec.Bias}, Primal: c.primal}
			in := map[int]bool{}
			for _, i := range tr {
				in[i] = true
			}
			var held []int // every row but the training rows: their edges leave the graph
			for i := 0; i < m; i++ {
				if !in[i] {
					held = append(held, i)
				}
			}
			switch c.learner {
			case "globalrank":
				return oracle.Graph(p, oracle.ScoringEdges(y, nil), held, te, lambda)
			case "queryrank":
				return oracle.Graph(p, oracle.ScoringEdges(y, d.q), held, te, lambda)
			case "prefrank":
				var edges []oracle.Edge
				for _, e := range d.edges {
					edges = append(edges, oracle.Edge{I: e.I, J: e.J, W2: e.Weight * e.Weight, Z: []float64{e.Magnitude}})
				}
				return oracle.Graph(p, edges, held, te, lambda)
			case "sparse":
				p.Basis = d.basis // keep: the held-out basis rows stay
				if c.policy == learn.Remove {
					p.Basis = nil
					for _, b := range d.basis {
						if in[b] {
							p.Basis = append(p.Basis, b)
						}
					}
				}
			}
			return oracle.Ridge(p, tr, te, lambda)
		}
		yT := oracle.Rows(y, train)
		var qT []int
		for _, i := range train {
			qT = append(qT, d.q[i])
		}
		bf := bruteFold{kernel: -1}
		var bestPred *mat.Dense
		var bestPreds []*mat.Dense // the chosen setting's inner predictions at every λ
		var bestMeans, bestSEs []float64
		for si, spec := range c.specs {
			var curve, means, ses []float64
			var preds []*mat.Dense
			bestV, bestL := math.NaN(), 0.0
			var bestP *mat.Dense
			for _, lambda := range c.lambdas {
				p := mat.NewDense(m, tt, nil)
				for _, f := range folds {
					fIn := map[int]bool{}
					for _, i := range f {
						fIn[i] = true
					}
					var tr []int
					for _, i := range train {
						if !fIn[i] {
							tr = append(tr, i)
						}
					}
					pf := retrain(spec, tr, f, lambda)
					for k, i := range f {
						p.SetRow(i, pf.RawRowView(k))
					}
				}
				pT := oracle.Rows(p, train)
				v, err := meas.Score(yT, pT, qT)
				if err != nil {
					t.Fatal(err)
				}
				curve, preds = append(curve, v), append(preds, p)
				// the spread of the inner folds' values (each fold scored alone)
				var fv []float64
				for _, f := range folds {
					if !c.oneSE {
						break
					}
					fy, fp := oracle.Rows(y, f), oracle.Rows(p, f)
					v, err := meas.Score(fy, fp, nil)
					if err != nil {
						t.Fatal(err)
					}
					fv = append(fv, v)
				}
				mean, ss := 0.0, 0.0
				for _, v := range fv {
					mean += v
				}
				mean /= float64(len(fv))
				for _, v := range fv {
					ss += (v - mean) * (v - mean)
				}
				if c.oneSE {
					means, ses = append(means, mean), append(ses, math.Sqrt(ss/float64(len(fv)-1)/float64(len(fv))))
				}
				if math.IsNaN(bestV) || meas.Better(v, bestV) || (v == bestV && lambda > bestL) {
					bestV, bestL, bestP = v, lambda, p
				}
			}
			bf.curves = append(bf.curves, curve)
			if bf.kernel < 0 || meas.Better(bestV, bf.inner) {
				bf.kernel, bf.lambda, bf.inner, bestPred = si, bestL, bestV, bestP
				bestPreds, bestMeans, bestSEs = preds, means, ses
			}
		}
		if c.oneSE { // glmnet's lambda.1se on the chosen setting's fold means (mse: lower is better)
			b := 0
			for k := range bestMeans {
				if bestMeans[k] < bestMeans[b] || bestMeans[k] == bestMeans[b] && c.lambdas[k] > c.lambdas[b] {
					b = k
				}
			}
			ch := b
			for k := range bestMeans {
				if bestMeans[k] <= bestMeans[b]+bestSEs[b] && c.lambdas[k] > c.lambdas[ch] {
					ch = k
				}
			}
			bf.lambda, bf.inner, bestPred = c.lambdas[ch], bf.curves[bf.kernel][ch], bestPreds[ch]
		}
		bf.pred = retrain(c.specs[bf.kernel], train, o, bf.lambda)
		for _, i := range train {
			s := 0.0
			for k := 0; k < tt; k++ {
				d := y.At(i, k) - bestPred.At(i, k)
				s += d * d
			}
			bf.eIn = append(bf.eIn, s/float64(tt))
		}
		out = append(out, bf)
	}
	return out
}

// nestedMethodOf trains the case's learner with the library, for Nested.
func nestedMethodOf(c nestedCase, d nestedData) Method {
	return func(x mat.Matrix, k kernel.Kernel) (learn.Learner, error) {
		opt := learn.Options{Kernel: k}
		if c.primal {
			opt.Form = learn.Linear
		} else {
			opt.Form = learn.Dual
		}
		switch c.learner {
		case "globalrank":
			return rank.FitGlobal(x, d.y, opt)
		case "queryrank":
			return rank.FitQuery(x, d.y, d.q, opt)
		case "prefrank":
			return rank.FitPreference(x, d.edges, rank.Magnitude, opt)
		case "sparse":
			opt.Form, opt.Basis = learn.Sparse, d.basis
		}
		return rls.Fit(x, d.y, opt)
	}
}

// argBest is the index of the smallest value (mse), ties to the larger λ.
func argBest(curve, lambdas []float64) int {
	b := 0
	for k := range curve {
		if curve[k] < curve[b] || curve[k] == curve[b] && lambdas[k] > lambdas[b] {
			b = k
		}
	}
	return b
}

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(b), 1e-300) || a == b
}

// Nested CV by the hold-outs O ∪ I of one factorization per kernel setting
// equals brute-force nested retraining — every outer part, every inner
// fold, every grid point — to 1e-8 relative: each fold's inner curves, its
// chosen kernel and λ, its outer value, the pooled value, and (mse) the
// nested-CV interval recomputed here from the retrained losses by Bates,
// Hastie & Tibshirani's formulas. rls dual (gaussian 2 γ × 5 λ, k-fold and
// leave-one-out inner CV, with and without per-part standardization), rls
// linear (primal), and globalrank (cindex and mse), m = 44, t = 2 for rls.
func TestNestedEqualsRetraining(t *testing.T) {
	gauss := []kernel.Spec{{Name: "gaussian", Gamma: 0.2}, {Name: "gaussian", Gamma: 2}}
	lambdas := []float64{1e-3, 1e-2, 0.1, 1, 10}
	cases := []nestedCase{
		{name: "rls dual kfold", specs: gauss, lambdas: lambdas, meas: "mse"},
		{name: "rls dual loo", specs: gauss, lambdas: lambdas, meas: "mse", loo: true},
		{name: "rls dual inner = outer folds", specs: gauss, lambdas: lambdas, meas: "mse", innerIsOuter: true},
		{name: "rls dual kfold 1se", specs: gauss, lambdas: lambdas, meas: "mse", oneSE: true},
		{name: "rls dual loo 1se", specs: gauss, lambdas: lambdas, meas: "mse", loo: true, oneSE: true},
		// two nearly equal γ, in both orders: the second setting's best lies between the first's best
		// and its 1se value in one of them, and the settings are compared by their best values
		{name: "rls 1se near γ", specs: []kernel.Spec{{Name: "gaussian", Gamma: 0.2}, {Name: "gaussian", Gamma: 0.2004}}, lambdas: lambdas, meas: "mse", oneSE: true},
		{name: "rls 1se near γ reversed", specs: []kernel.Spec{{Name: "gaussian", Gamma: 0.2004}, {Name: "gaussian", Gamma: 0.2}}, lambdas: lambdas, meas: "mse", oneSE: true},
		{name: "rls dual standardized", specs: gauss, lambdas: lambdas, meas: "mse", standardize: true},
		{name: "rls linear", specs: []kernel.Spec{{Name: "linear", Bias: 1}}, lambdas: lambdas, meas: "mse", primal: true},
		{name: "globalrank cindex", specs: gauss, lambdas: lambdas, meas: "cindex", learner: "globalrank"},
		{name: "globalrank mse", specs: gauss, lambdas: lambdas, meas: "mse", learner: "globalrank"},
		{name: "queryrank disagreement", specs: gauss, lambdas: lambdas, meas: "disagreement", learner: "queryrank"},
		{name: "prefrank cindex loo", specs: gauss, lambdas: lambdas, meas: "cindex", learner: "prefrank", loo: true},
		{name: "sparse keep", specs: gauss, lambdas: lambdas, meas: "mse", learner: "sparse", policy: learn.Keep},
		{name: "sparse remove", specs: gauss, lambdas: lambdas, meas: "mse", learner: "sparse", policy: learn.Remove},
	}
	const m = 44
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newNestedData(c, m)
			x, y := d.x, d.y
			_, tt := y.Dims()
			if c.standardize { // features far from mean 0, variance 1
				for i := 0; i < m; i++ {
					x.Set(i, 0, 3*x.At(i, 0)+5)
					x.Set(i, 2, 0.2*x.At(i, 2)-1)
				}
			}
			outer, _ := cv.KFold(m, 4, 7)
			innerFolds, _ := cv.KFold(m, 5, 3)
			if c.innerIsOuter {
				innerFolds = outer
			}
			if c.learner == "queryrank" { // whole queries: leave-query-out inside, 2 × 2 queries outside
				outer, _ = cv.GroupKFold(d.q, 2, 7)
				innerFolds, _ = cv.LeaveGroupOut(d.q)
			}
			meas, _ := measure.ByName(c.meas)
			sc := Scheme{Kind: Folds, Name: "kfold:5", Folds: innerFolds, Basis: c.policy}
			if c.loo {
				sc = Scheme{Kind: LOO, Name: "loo", Basis: c.policy}
			}
			opt := Options{Queries: d.q}
			if c.learner == "prefrank" {
				opt.Labels = y
			}
			choose := ChooseBest
			if c.oneSE {
				choose = Choose1SE
			}
			got, err := Nested(Problem{X: x, Method: nestedMethodOf(c, d), Standardize: c.standardize},
				Settings{Kernels: c.specs, Lambdas: c.lambdas, Scheme: sc, Measure: meas, Options: opt, Choose: choose}, outer, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteNested(t, c, d, outer, innerFolds)
			const tol = 1e-8
			pooled := mat.NewDense(m, tt, nil)
			for n, w := range want {
				g := got.Folds[n]
				for si := range c.specs {
					for k := range c.lambdas {
						if gv, wv := g.Curves[si].Curve[k].Value, w.curves[si][k]; !relClose(gv, wv, tol) {
							t.Fatalf("outer fold %d, %s, λ = %g: inner value %.17g, retraining %.17g", n, c.specs[si], c.lambdas[k], gv, wv)
						}
					}
				}
				if g.Kernel != c.specs[w.kernel] || g.Lambda != w.lambda || !relClose(g.Inner, w.inner, tol) {
					t.Fatalf("outer fold %d: chose %s λ = %g (%g), retraining %s λ = %g (%g)", n, g.Kernel, g.Lambda, g.Inner, c.specs[w.kernel], w.lambda, w.inner)
				}
				yo := oracle.Rows(y, outer[n])
				var qo []int
				for _, i := range outer[n] {
					qo = append(qo, d.q[i])
				}
				wo, err := meas.Score(yo, w.pred, qo)
				if err != nil {
					t.Fatal(err)
				}
				if !relClose(g.Outer, wo, tol) {
					t.Fatalf("outer fold %d: outer value %.17g, retraining %.17g", n, g.Outer, wo)
				}
				for k, i := range outer[n] {
					pooled.SetRow(i, w.pred.RawRowView(k))
				}
			}
			if c.oneSE { // the rule must have chosen another λ than the best somewhere
				moved := false
				for _, w := range want {
					moved = moved || w.lambda != c.lambdas[argBest(w.curves[w.kernel], c.lambdas)]
				}
				if !moved {
					t.Fatal("the one-standard-error rule chose the best λ in every outer fold: the case tests nothing")
				}
			}
			wv, err := meas.Score(y, pooled, d.q)
			if err != nil {
				t.Fatal(err)
			}
			if !relClose(got.Value, wv, tol) {
				t.Fatalf("pooled outer value %.17g, retraining %.17g", got.Value, wv)
			}
			if c.meas != "mse" {
				if got.Method != IntervalFoldSE {
					t.Fatalf("method %q for %s", got.Method, c.meas)
				}
				var vals []float64
				for _, f := range got.Folds {
					vals = append(vals, f.Outer)
				}
				mean := 0.0
				for _, v := range vals {
					mean += v
				}
				mean /= float64(len(vals))
				ss := 0.0
				for _, v := range vals {
					ss += (v - mean) * (v - mean)
				}
				se := math.Sqrt(ss/float64(len(vals)-1)) / math.Sqrt(float64(len(vals)))
				if !relClose(got.SE, se, 1e-12) || !relClose(got.Interval[0], got.Value-1.6448536269514722*se, 1e-12) {
					t.Fatalf("fold SE %g interval %v, want %g around %g", got.SE, got.Interval, se, got.Value)
				}
				return
			}
			// Bates, Hastie & Tibshirani (2024), Algorithm 1 and Sect. 4, from the retrained losses.
			K := float64(len(outer))
			var sumA, sumB, sumIn, sumOut, nIn, nOut float64
			var all []float64
			for n, w := range want {
				var eo []float64
				for k := range outer[n] {
					s := 0.0
					for c := 0; c < tt; c++ {
						d := y.At(outer[n][k], c) - w.pred.At(k, c)
						s += d * d
					}
					eo = append(eo, s/float64(tt))
				}
				mi, mo := 0.0, 0.0
				for _, e := range w.eIn {
					mi += e
					sumIn += e
					nIn++
				}
				mi /= float64(len(w.eIn))
				for _, e := range eo {
					mo += e
					sumOut += e
					nOut++
				}
				mo /= float64(len(eo))
				v := 0.0
				for _, e := range eo {
					v += (e - mo) * (e - mo)
				}
				v /= float64(len(eo) - 1)
				sumA += (mi - mo) * (mi - mo)
				sumB += v / float64(len(eo))
				all = append(all, eo...)
			}
			errCV, errNCV := sumOut/nOut, sumIn/nIn
			sd := 0.0
			for _, e := range all {
				sd += (e - errCV) * (e - errCV)
			}
			naive := math.Sqrt(sd/(nOut-1)) / math.Sqrt(nOut)
			mse := sumA/K - sumB/K
			se := math.Sqrt(math.Min(math.Max((K-1)/K*mse, naive*naive), K*naive*naive))
			// the bias factor of the 1/n model from the mean training sizes (Bates et al.'s (K−2)/K in their design)
			rho := 0.0
			{
				var so, si float64
				for n := range outer {
					tsize := float64(m - len(outer[n]))
					so += tsize
					// inner folds of T: each row alone (loo) or the kfold:5 folds restricted to T
					var sizes []float64
					if c.loo {
						sizes = append(sizes, 1)
					} else {
						isO := map[int]bool{}
						for _, i := range outer[n] {
							isO[i] = true
						}
						for _, f := range innerFolds {
							cnt := 0
							for _, i := range f {
								if !isO[i] {
									cnt++
								}
							}
							if cnt > 0 {
								sizes = append(sizes, float64(cnt))
							}
						}
					}
					mean := 0.0
					for _, z := range sizes {
						mean += tsize - z
					}
					si += mean / float64(len(sizes))
				}
				no, ni := so/K, si/K
				rho = (1/no - 1/float64(m)) / (1/ni - 1/no)
				rho = math.Min(1, math.Max(0, rho))
				if 1/ni-1/no <= 0 {
					rho = 0
				}
			}
			if c.innerIsOuter && math.Abs(rho-(K-2)/K) > 1e-12 {
				t.Fatalf("ρ = %g in Bates et al.'s design, want (K−2)/K = %g", rho, (K-2)/K)
			}
			bias := rho * (errNCV - errCV)
			lo, hi := errCV-bias-1.6448536269514722*se, errCV-bias+1.6448536269514722*se
			if got.Method != IntervalNestedCV || !relClose(got.SE, se, tol) || !relClose(got.Bias, bias, tol) ||
				!relClose(got.Interval[0], lo, tol) || !relClose(got.Interval[1], hi, tol) || got.Level != 0.9 {
				t.Fatalf("%s: SE %.17g bias %.17g interval %v at %g, retraining: SE %.17g bias %.17g [%.17g, %.17g]",
					got.Method, got.SE, got.Bias, got.Interval, got.Level, se, bias, lo, hi)
			}
			t.Logf("value %.6g, interval [%.6g, %.6g], SE %.3g (naive %.3g), bias %.3g (ρ = %.3g)", got.Value, lo, hi, se, naive, bias, rho)
		})
	}
}

// Nested refuses what it cannot do exactly: learners of pairs' settings,
// leave-pair-out and repeated inner schemes, one outer fold, a bad level.
func TestNestedRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := oracle.Data(rng, 20, 2, 1, false, 0, oracle.Smooth)
	mse, _ := measure.ByName("mse")
	outer, _ := cv.KFold(20, 4, 1)
	p := Problem{X: x, Method: nestedMethodOf(nestedCase{}, nestedData{y: y})}
	s := Settings{Kernels: []kernel.Spec{{Name: "gaussian", Gamma: 1}}, Lambdas: []float64{1}, Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse}
	for name, f := range map[string]func() error{
		"lpo": func() error {
			s := s
			s.Scheme = Scheme{Kind: LPO, Name: "lpo"}
			_, err := Nested(p, s, outer, 0.9)
			return err
		},
		"col lambda": func() error { s := s; s.ColLambdas = []float64{1}; _, err := Nested(p, s, outer, 0.9); return err },
		"one fold":   func() error { _, err := Nested(p, s, outer[:1], 0.9); return err },
		"per output": func() error { s := s; s.LambdaPerOutput = true; _, err := Nested(p, s, outer, 0.9); return err },
		"level":      func() error { _, err := Nested(p, s, outer, 1.5); return err },
		"overlap":    func() error { _, err := Nested(p, s, [][]int{{0, 1}, {1, 2}}, 0.9); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Ties are broken as Search breaks them: labels all 0 give predictions 0
// and an mse of 0 at every grid point, so every outer fold chooses the
// largest λ and the first kernel setting.
func TestNestedTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, _ := oracle.Data(rng, 24, 2, 1, false, 0, oracle.Smooth)
	y := mat.NewDense(24, 1, nil)
	mse, _ := measure.ByName("mse")
	outer, _ := cv.KFold(24, 3, 1)
	specs := []kernel.Spec{{Name: "gaussian", Gamma: 0.5}, {Name: "gaussian", Gamma: 5}}
	got, err := Nested(Problem{X: x, Method: nestedMethodOf(nestedCase{}, nestedData{y: y})},
		Settings{Kernels: specs, Lambdas: []float64{0.01, 1, 100, 0.1}, Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse}, outer, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for n, f := range got.Folds {
		if f.Lambda != 100 || f.Kernel != specs[0] || f.Inner != 0 || f.Outer != 0 {
			t.Errorf("outer fold %d: chose %s λ = %g (inner %g, outer %g), want %s λ = 100, values 0", n, f.Kernel, f.Lambda, f.Inner, f.Outer, specs[0])
		}
	}
}
