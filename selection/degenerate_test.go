package selection

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
)

// degenerateData is m distinct points (more than 1 apart, so a gaussian with
// γ = 1e6 gives K = I exactly, and γ = 1e-300 gives K = 11ᵀ exactly), graded
// labels of both signs, 3 queries and a preference graph that follows the labels.
type degenerateData struct {
	x     *mat.Dense
	y     *mat.Dense
	q     []int
	edges []rank.Edge
}

func newDegenerateData(m int) degenerateData {
	rng := rand.New(rand.NewPCG(5, 11))
	d := degenerateData{x: mat.NewDense(m, 2, nil), y: mat.NewDense(m, 1, nil), q: make([]int, m)}
	for i := 0; i < m; i++ {
		d.x.Set(i, 0, 2*float64(i))
		d.x.Set(i, 1, rng.Float64())
		d.y.Set(i, 0, float64(rng.IntN(5)-2))
		d.q[i] = i % 3
	}
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			if a, b := d.y.At(i, 0), d.y.At(j, 0); a != b && rng.Float64() < 0.5 {
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

// fitOn trains the named learner on the rows of d (a basis of the first rows
// among them for "sparse").
func (d degenerateData) fitOn(name string, k kernel.Kernel, rows []int) (learn.Learner, error) {
	x := kernel.Rows(d.x, rows)
	y := kernel.Rows(d.y, rows).(*mat.Dense)
	opt := learn.Options{Kernel: k}
	switch name {
	case "rls":
		return rls.Fit(x, y, opt)
	case "sparse":
		pos := map[int]int{}
		for n, i := range rows {
			pos[i] = n
		}
		for b := 0; b < 4; b++ { // basis: rows 0..3 of the full data, those still present
			if n, ok := pos[b]; ok {
				opt.Basis = append(opt.Basis, n)
			}
		}
		opt.Form = learn.Sparse
		return rls.Fit(x, y, opt)
	case "globalrank":
		return rank.FitGlobal(x, y, opt)
	case "queryrank":
		q := make([]int, len(rows))
		for n, i := range rows {
			q[n] = d.q[i]
		}
		return rank.FitQuery(x, y, q, opt)
	case "prefrank":
		pos := map[int]int{}
		for n, i := range rows {
			pos[i] = n
		}
		var edges []rank.Edge
		for _, e := range d.edges {
			a, okA := pos[e.I]
			b, okB := pos[e.J]
			if okA && okB {
				edges = append(edges, rank.Edge{I: a, J: b, Magnitude: e.Magnitude, Weight: e.Weight})
			}
		}
		return rank.FitPreference(x, edges, rank.Magnitude, opt)
	}
	return nil, fmt.Errorf("unknown learner %s", name)
}

// retrainPredict trains the named learner without the rows held and predicts
// them, apart from the code under test: by the oracle's naive solves on the
// reduced data (internal/oracle, which imports no package of this module —
// kernel values from the kernel's formula, kernel ridge by LU, the sparse
// form by least squares on K_{·B}L⁻ᵀ, RankRLS by the closed forms of
// Pahikkala et al. on the graph of the rows left), not by the learners' Fit.
// The graphs are built here from their definitions: every pair of rows
// (globalrank) or of a query's rows (queryrank), magnitude-preserving; the
// preference edges with w² = weight², z = magnitude (prefrank).
func (d degenerateData) retrainPredict(name string, k kernel.Kernel, held []int, lambda float64) ([]float64, error) {
	m, _ := d.x.Dims()
	out := map[int]bool{}
	for _, i := range held {
		out[i] = true
	}
	var train []int
	for i := 0; i < m; i++ {
		if !out[i] {
			train = append(train, i)
		}
	}
	s := k.Spec()
	p := oracle.Problem{X: d.x, Y: d.y, K: oracle.Kernel{Name: s.Name, Gamma: s.Gamma, Bias: s.Bias, Coef0: s.Coef0, Degree: s.Degree}}
	var f *mat.Dense
	switch name {
	case "rls":
		f = oracle.Ridge(p, train, held, lambda)
	case "sparse":
		for b := 0; b < 4; b++ { // basis: rows 0..3 of the full data, those still present
			if !out[b] {
				p.Basis = append(p.Basis, b)
			}
		}
		f = oracle.Ridge(p, train, held, lambda)
	case "globalrank":
		f = oracle.Graph(p, oracle.ScoringEdges(d.y, nil), held, held, lambda)
	case "queryrank":
		f = oracle.Graph(p, oracle.ScoringEdges(d.y, d.q), held, held, lambda)
	case "prefrank":
		var edges []oracle.Edge
		for _, e := range d.edges {
			edges = append(edges, oracle.Edge{I: e.I, J: e.J, W2: e.Weight * e.Weight, Z: []float64{e.Magnitude}})
		}
		f = oracle.Graph(p, edges, held, held, lambda)
	default:
		return nil, fmt.Errorf("unknown learner %s", name)
	}
	return mat.Col(nil, 0, f), nil
}

// For K = I and K = 11ᵀ the shortcuts' CV values equal those of retraining —
// the tie value wherever retraining ties (the predictions of K = I are all 0;
// with K = 11ᵀ a ranker predicts a constant and every pair held out together
// is a tie) — for every learner, scheme and ordinal measure, over λ from 1e-6
// to 1e4. Before ties were taken at the rounding bound, rounding noise
// correlated with the held-out labels scored c-index 1 here.
func TestDegenerateKernelsGiveRetrainingTies(t *testing.T) {
	const m = 12
	d := newDegenerateData(m)
	kernels := map[string]kernel.Kernel{"K=I": kernel.Gaussian{Gamma: 1e6}, "K=11ᵀ": kernel.Gaussian{Gamma: 1e-300}}
	kfold, _ := cv.KFold(m, 4, 3)
	lqo, _ := cv.LeaveGroupOut(d.q)
	schemes := map[string][]Scheme{
		"rls":        {{Kind: LOO, Name: "loo"}, {Kind: Folds, Name: "kfold", Folds: kfold}, {Kind: LPO, Name: "lpo"}},
		"sparse":     {{Kind: LOO, Name: "loo", Basis: learn.Remove}, {Kind: Folds, Name: "kfold", Folds: kfold, Basis: learn.Remove}},
		"globalrank": {{Kind: LOO, Name: "loo"}, {Kind: Folds, Name: "kfold", Folds: kfold}, {Kind: LPO, Name: "lpo"}},
		"queryrank":  {{Kind: Folds, Name: "lqo", Folds: lqo}, {Kind: Folds, Name: "kfold", Folds: kfold}},
		"prefrank":   {{Kind: Folds, Name: "kfold", Folds: kfold}, {Kind: LPO, Name: "lpo"}},
	}
	for _, name := range []string{"rls", "sparse", "globalrank", "queryrank", "prefrank"} {
		for kname, k := range kernels {
			if name == "sparse" && kname == "K=11ᵀ" {
				continue // a basis of identical points has rank 1: removing it is refused, keeping it is not retraining
			}
			l, err := d.fitOn(name, k, cv.Complement(nil, m))
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{}
			if name == "prefrank" {
				opt.Labels = d.y
			}
			for _, sc := range schemes[name] {
				for _, measName := range []string{"cindex", "auc"} {
					meas := mustMeasure(t, measName)
					for _, lambda := range []float64{1e-6, 1e-3, 1, 1e2, 1e4} {
						res, err := Select(l, []float64{lambda}, sc, meas, opt)
						if err != nil {
							t.Fatalf("%s %s %s %s λ=%g: %v", name, kname, sc.Name, measName, lambda, err)
						}
						want, err := d.retrainValue(name, k, sc, meas.Name, lambda)
						if err != nil {
							t.Fatalf("%s %s %s retraining: %v", name, kname, sc.Name, err)
						}
						if got := res.Best.Value; math.Abs(got-want) > 1e-12 {
							t.Errorf("%s %s %s %s λ=%g: shortcut %v, retraining %v", name, kname, sc.Name, measName, lambda, got, want)
						}
						if sc.Kind != Folds {
							continue
						}
						// the per-fold values (the report's fold panel) take the same ties
						got := res.FoldValues(d.y, sc.Folds, meas, nil)
						wantFolds, err := d.retrainFoldValues(name, k, sc.Folds, meas, lambda)
						if err != nil {
							t.Fatal(err)
						}
						for f := range got {
							if g, w := got[f], wantFolds[f]; !(math.IsNaN(g) && math.IsNaN(w)) && !(math.Abs(g-w) <= 1e-12) {
								t.Errorf("%s %s %s %s λ=%g fold %d: shortcut %v, retraining %v", name, kname, sc.Name, measName, lambda, f, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// retrainTol is the tie tolerance of retraining at λ: 1e-9·(1 + 1/λ) —
// above the retraining's own rounding, which grows like 1/λ, and far below
// any real difference of these problems (K = I predicts exactly 0; K = 11ᵀ
// differences are ≥ 1/(m + λ)).
func retrainTol(lambda float64) float64 { return 1e-9 * (1 + 1/lambda) }

// retrainValue is the CV value by retraining: every fold or pair held out and
// predicted by a model trained on the rest, scored with exact-arithmetic ties
// (differences below retrainTol are ties). The ties are the oracle's
// (oracle.Snap), the leave-pair-out design and its concordance count are
// written here from the measures' definitions: neither the package's snap
// nor DefaultPairs nor cv's pair scoring enters.
func (d degenerateData) retrainValue(name string, k kernel.Kernel, sc Scheme, measName string, lambda float64) (float64, error) {
	m, _ := d.x.Dims()
	y := mat.Col(nil, 0, d.y)
	meas, _ := mustMeasureB(measName)
	tol := retrainTol(lambda)
	if sc.Kind == LPO {
		// the pairs: auc's positive (y > 0) against negative rows, cindex's
		// rows of different labels; each scores 1 when its held-out
		// predictions are in the labels' order, ½ when they tie
		halves, counted := 0, 0
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				if measName == "auc" && !(y[i] > 0 && y[j] <= 0) || measName != "auc" && !(i < j && y[i] != y[j]) {
					continue
				}
				f, err := d.retrainPredict(name, k, []int{i, j}, lambda)
				if err != nil {
					return 0, err
				}
				counted++
				switch {
				case math.Abs(f[0]-f[1]) <= tol:
					halves++
				case (y[i] > y[j]) == (f[0] > f[1]):
					halves += 2
				}
			}
		}
		return float64(halves) / float64(2*counted), nil
	}
	folds := sc.Folds
	if sc.Kind == LOO {
		for i := 0; i < m; i++ {
			folds = append(folds, []int{i})
		}
	}
	pred := make([]float64, m)
	for _, f := range folds {
		p, err := d.retrainPredict(name, k, f, lambda)
		if err != nil {
			return 0, err
		}
		for n, i := range f {
			pred[i] = p[n]
		}
	}
	snapped, _ := oracle.Snap(pred, tol)
	return meas.Score(d.y, mat.NewDense(m, 1, snapped), nil)
}

// retrainFoldValues is each fold's value by retraining without it, scored on
// its own with the exact-arithmetic ties of retrainValue (NaN where the
// measure is undefined on the fold).
func (d degenerateData) retrainFoldValues(name string, k kernel.Kernel, folds [][]int, meas measure.Measure, lambda float64) ([]float64, error) {
	out := make([]float64, len(folds))
	for n, f := range folds {
		p, err := d.retrainPredict(name, k, f, lambda)
		if err != nil {
			return nil, err
		}
		snapped, _ := oracle.Snap(p, retrainTol(lambda))
		yf := mat.NewDense(len(f), 1, nil)
		for a, i := range f {
			yf.Set(a, 0, d.y.At(i, 0))
		}
		v, err := meas.Score(yf, mat.NewDense(len(f), 1, snapped), nil)
		if err != nil {
			v = math.NaN()
		}
		out[n] = v
	}
	return out, nil
}
