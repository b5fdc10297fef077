package selection

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
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

// retrainPredict trains without the rows held and predicts them.
func (d degenerateData) retrainPredict(name string, k kernel.Kernel, held []int, lambda float64) ([]float64, error) {
	m, _ := d.x.Dims()
	l, err := d.fitOn(name, k, cv.Complement(held, m))
	if err != nil {
		return nil, err
	}
	s, err := l.At(lambda)
	if err != nil {
		return nil, err
	}
	p, err := s.Predictor().Predict(kernel.Rows(d.x, held))
	if err != nil {
		return nil, err
	}
	return mat.Col(nil, 0, p), nil
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

// retrainValue is the CV value by retraining: every fold or pair held out and
// predicted by a model trained on the rest, scored with exact-arithmetic ties:
// differences below 1e-9·(1 + 1/λ) — above the retraining's own rounding,
// which grows like 1/λ, and far below any real difference of these problems
// (K = I predicts exactly 0; K = 11ᵀ differences are ≥ 1/(m + λ)) — are ties.
func (d degenerateData) retrainValue(name string, k kernel.Kernel, sc Scheme, measName string, lambda float64) (float64, error) {
	m, _ := d.x.Dims()
	y := mat.Col(nil, 0, d.y)
	meas, _ := mustMeasureB(measName)
	if sc.Kind == LPO {
		pairs := DefaultPairs(y, meas)
		pi, pj := make([]float64, len(pairs)), make([]float64, len(pairs))
		for n, p := range pairs {
			f, err := d.retrainPredict(name, k, []int{p.I, p.J}, lambda)
			if err != nil {
				return 0, err
			}
			pi[n], pj[n] = f[0], f[1]
		}
		return cv.PairScoreWithin(pairs, y, pi, pj, 1e-9*(1+1/lambda))
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
	snapped, _ := snap(pred, 1e-9*(1+1/lambda))
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
		snapped, _ := snap(p, 1e-9*(1+1/lambda))
		v, err := meas.Score(mat.DenseCopyOf(kernel.Rows(d.y, f)), mat.NewDense(len(f), 1, snapped), nil)
		if err != nil {
			v = math.NaN()
		}
		out[n] = v
	}
	return out, nil
}
