package selection

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// The interval methods of a NestedResult.
const (
	// IntervalNestedCV is the interval of Bates, Hastie & Tibshirani (2024)
	// from nested cross-validation, for measures that are a mean of
	// per-observation losses (mse, mae).
	IntervalNestedCV = "nested-cv"
	// IntervalFoldSE is the normal interval Value ± z·SE with SE the plain
	// standard error of the outer folds' values (sd/√K), for the other
	// measures (auc, cindex, r2, …), whose value is not a mean of
	// per-observation losses. It ignores the correlation between folds
	// (Bates et al. 2024, Sect. 3) and is labelled as such.
	IntervalFoldSE = "fold-se"
)

// DefaultLevel is the confidence level of a NestedResult's interval unless
// asked otherwise: 90 %, as in Bates, Hastie & Tibshirani (2024).
const DefaultLevel = 0.9

// NestedFold is one outer fold of a nested cross-validation: the inner
// search on the outer training part T = all ∖ Rows and what it chose.
type NestedFold struct {
	// Rows is the outer fold O, the rows held out from the inner search.
	Rows []int
	// Kernel and Lambda are the point the inner search on T chose (by
	// Search's rule: the kernel setting of the best value, the first on
	// ties; on its curve the best value, the larger λ on ties, or with
	// Settings.Choose 1se the one-standard-error rule's λ, OneSE); ColKernel and ColLambda
	// the column kernel and λ of a learner of pairs (NestedDesign; nil and
	// 0 otherwise). For a learner of pairs Rows are the labelled pairs of
	// the outer block.
	Kernel    kernel.Spec
	ColKernel *kernel.Spec
	Lambda    float64
	ColLambda float64
	// Inner is the inner CV value there (optimistic: it is chosen on the
	// grid); Outer the measure of O's predictions by the model
	// trained on T at that point (NaN when the measure is undefined on O
	// alone, e.g. auc on a fold of one class).
	Inner, Outer float64
	// Curves are the inner CV curves on T, one per kernel setting in the
	// order searched (Curve.Result holds Curve, Best and BestIndex only).
	Curves []Curve
}

// NestedResult is a nested cross-validation (Nested).
type NestedResult struct {
	// Measure names the measure.
	Measure string
	// Folds holds one entry per outer fold, in the order given.
	Folds []NestedFold
	// Value is the measure of the pooled outer predictions (every outer
	// fold's rows predicted by the model its inner search chose): for mse
	// and mae the mean of the per-observation losses, Bates et al.'s
	// Err^(CV) of the tuned procedure.
	Value float64
	// SE is the standard error the interval uses (Method).
	SE float64
	// Interval is [lo, hi] at Level (see Method); Level is in (0, 1).
	Interval [2]float64
	Level    float64
	// Method is IntervalNestedCV or IntervalFoldSE.
	Method string
	// ErrNCV is the mean of the inner CV losses at the chosen points over
	// all outer folds, and Bias the estimated bias of Value as an estimate
	// of the error of the search on all rows (NestedCVInterval, BiasRatio;
	// IntervalNestedCV only, else 0). The interval is centred at
	// Value − Bias.
	ErrNCV, Bias float64
	// Predictions are the outer predictions, m×t (NaN in rows of no fold).
	Predictions *mat.Dense
}

// Nested estimates the whole search — the kernel grid × the λ grid chosen
// by the inner scheme s.Scheme — by an outer cross-validation over the
// folds outer, exactly and without a factorization per outer fold.
//
// For an outer fold O with training part T = all ∖ O, the inner folds are
// the scheme's folds restricted to T (F ∖ O for each fold F, empty ones
// dropped; leave-one-out: each row of T). For an inner fold I the model
// trained on T ∖ I is the model of all rows with O ∪ I held out, so with
// one factorization per kernel setting on all m rows the inner CV
// predictions of T at every λ are the hold-out predictions of the union
// folds O ∪ I restricted to I's rows (learn.HoldOuter, or HoldOutBasis
// under the Remove policy), and the outer predictions at the inner-chosen
// point are HoldOut(O). The result equals running Search on T alone and
// predicting O with its model, for every outer fold, to rounding (the
// tests compare with brute-force retraining at every grid point).
//
// With p.Standardize (or s.GammaScale) the scaler (and γ's scale) of an
// outer part are fitted on T alone, as Search on T would: each outer fold
// then needs its own factorization per kernel setting, K times the cost;
// without them every outer fold shares each setting's one factorization.
// The tie rule of ordinal measures works as in Select: the learner's
// Perturber twin measures the noise of the inner CV predictions; the
// outer pooled predictions are compared exactly. Settings.Choose applies
// inside as in Search (1se: OneSE on each outer part's best kernel
// setting's curve); Settings.LambdaPerOutput is refused.
//
// The interval (Level, default DefaultLevel): for mse and mae, whose value
// is the mean of per-observation losses ℓ_i (for t outputs the mean over
// the outputs of the squared or absolute errors of row i), the nested-CV
// interval of Bates, Hastie & Tibshirani (2024; NestedCVInterval, its bias
// factor from the training sizes by BiasRatio); for other measures the
// folds' standard-error interval (FoldSEInterval, IntervalFoldSE).
//
// Learners on rows only (a learner of pairs takes NestedDesign;
// Settings.ColKernels or ColLambdas, a Retrain problem and leave-pair-out
// or repeated schemes are refused). Cost: per kernel setting one training (K with
// standardization), then per λ one re-solve and, per outer fold O and
// inner fold I, HoldOut(O ∪ I): O(Σ_I (|O|+|I|)²r + (|O|+|I|)³) for a
// rank-r factor — for leave-one-out inner CV |T| hold-outs of |O|+1 rows
// per outer fold. On long λ grids refitting each inner training set once
// can be cheaper (BenchmarkNested). Memory: the factorization plus two
// m×t matrices per outer fold.
func Nested(p Problem, s Settings, outer [][]int, level float64) (*NestedResult, error) {
	if level == 0 {
		level = DefaultLevel
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("%w: nested CV level %v: want a number in (0, 1)", ErrScheme, level)
	}
	switch {
	case len(s.Kernels) == 0:
		return nil, fmt.Errorf("%w: no kernel settings", ErrGrid)
	case len(s.Lambdas) == 0:
		return nil, fmt.Errorf("%w: no λ values", ErrGrid)
	case len(s.ColKernels) > 0 || len(s.ColLambdas) > 0 || s.Scheme.Kind == Objects || p.Learner != nil && p.Learner.Needs.Has(learn.NeedsPairs):
		return nil, fmt.Errorf("%w: Nested is for learners on rows (rls, globalrank, queryrank, prefrank); a learner of pairs takes NestedDesign", ErrScheme)
	case p.Retrain != nil:
		return nil, fmt.Errorf("%w: nested cross-validation uses the learner's hold-outs: not with a design that retrains per fold", ErrScheme)
	case s.Scheme.Kind != LOO && s.Scheme.Kind != Folds:
		return nil, fmt.Errorf("%w: the inner scheme of a nested cross-validation is leave-one-out or folds, not %s", ErrScheme, s.Scheme.Name)
	case s.Scheme.Repeats > 1:
		return nil, fmt.Errorf("%w: the inner scheme of a nested cross-validation is one partition, not %s", ErrScheme, s.Scheme.Name)
	case s.LambdaPerOutput:
		return nil, fmt.Errorf("%w: nested cross-validation estimates the search with one λ for all outputs, not a λ per output", ErrScheme)
	case s.Scheme.Basis == learn.Skip:
		return nil, fmt.Errorf("%w: the basis policy skip predicts no basis row: nested cross-validation needs keep or remove", ErrScheme)
	case len(outer) < 2:
		return nil, fmt.Errorf("%w: nested cross-validation needs at least 2 outer folds, got %d", ErrScheme, len(outer))
	}
	if err := CheckChoose(s.Choose, s.Scheme, s.Measure); err != nil {
		return nil, err
	}
	if p.Input != nil && p.Input.Y != nil {
		if err := s.Measure.CheckLabels(p.Input.Y, p.Input.Outputs); err != nil {
			return nil, err
		}
	}
	m, err := rowsOf(p)
	if err != nil {
		return nil, err
	}
	if err := cv.Check(outer, m); err != nil {
		return nil, fmt.Errorf("%w: outer folds: %w", ErrScheme, err)
	}
	folds := make([]*nestedState, len(outer))
	for n, o := range outer {
		if folds[n], err = newNestedState(o, s.Scheme, m); err != nil {
			return nil, fmt.Errorf("outer fold %d: %w", n, err)
		}
	}
	settings := make([]kernel.Spec, len(s.Kernels))
	copy(settings, s.Kernels)
	var y *mat.Dense
	var opt Options
	perPart := p.Standardize || s.GammaScale
	if !perPart {
		method, sCopy, err := nestedMethod(p, s, nil)
		if err != nil {
			return nil, err
		}
		opt = sCopy.Options
		opt.Progress = s.Progress
		for _, spec := range sCopy.Kernels {
			l, err := method(setting{row: spec})
			if err != nil {
				return nil, fmt.Errorf("training with %s: %w", spec, err)
			}
			if y == nil {
				if y, err = labels(l, opt); err != nil {
					return nil, err
				}
			}
			if err := nestedSetting(l, spec, folds, sCopy, y, opt); err != nil {
				return nil, fmt.Errorf("nested cross-validation with %s: %w", spec, err)
			}
		}
	} else {
		for n, st := range folds {
			method, sCopy, err := nestedMethod(p, s, st.train)
			if err != nil {
				return nil, fmt.Errorf("outer fold %d: %w", n, err)
			}
			opt = sCopy.Options
			opt.Progress = s.Progress.Prefixed(fmt.Sprintf("outer fold %d/%d: ", n+1, len(folds)))
			for _, spec := range sCopy.Kernels {
				l, err := method(setting{row: spec})
				if err != nil {
					return nil, fmt.Errorf("outer fold %d: training with %s: %w", n, spec, err)
				}
				if y == nil {
					if y, err = labels(l, opt); err != nil {
						return nil, err
					}
				}
				if err := nestedSetting(l, spec, folds[n:n+1], sCopy, y, opt); err != nil {
					return nil, fmt.Errorf("nested cross-validation with %s: outer fold %d: %w", spec, n, err)
				}
			}
		}
	}
	return nestedResult(folds, y, s.Measure, opt.Queries, level)
}

// rowsOf is the number of training rows of a problem.
func rowsOf(p Problem) (int, error) {
	x := p.X
	if p.Learner != nil {
		if p.Input == nil || p.Input.X == nil {
			return 0, fmt.Errorf("%w: nested cross-validation needs the learner's input", ErrScheme)
		}
		x = p.Input.X
	}
	if x == nil {
		return 0, fmt.Errorf("%w: nested cross-validation needs data", ErrScheme)
	}
	m, _ := x.Dims()
	return m, nil
}

// nestedMethod is Search's training function for the problem (with the
// settings it fills in: queries, labels, γ resolved), the features scaled
// by a scaler fitted on the rows train (and γ = scale resolved on them)
// when train is not nil, on all rows otherwise.
func nestedMethod(p Problem, s Settings, train []int) (func(setting) (learn.Learner, error), Settings, error) {
	if train != nil {
		x := p.X
		if p.Learner != nil {
			x = p.Input.X
		}
		if p.Standardize {
			sc := model.FitScaler(kernel.Rows(x, train))
			xs, err := sc.Transform(x)
			if err != nil {
				return nil, s, err
			}
			x = xs
			p.Standardize = false
		}
		if s.GammaScale {
			g := kernel.ScaleGamma(kernel.Rows(x, train))
			specs := make([]kernel.Spec, len(s.Kernels))
			for i, spec := range s.Kernels {
				if spec.Name == "gaussian" || spec.Name == "polynomial" {
					spec.Gamma *= g
				}
				specs[i] = spec
			}
			s.Kernels, s.GammaScale = specs, false
		}
		if p.Learner != nil {
			in := *p.Input
			in.X = x
			p.Input = &in
		} else {
			p.X = x
		}
	}
	var out SearchResult
	method, err := p.method(&s, &out)
	return method, s, err
}

// nestedState is one outer fold's inner search as it goes.
type nestedState struct {
	outer, train []int
	inT          []bool  // the rows of T
	inner        [][]int // the inner folds, restricted to T
	innerSizes   []int   // the training rows (pairs) of T each inner fold holds out
	union        [][]int // O ∪ I for each inner fold I
	fold         NestedFold
	bestValue    float64    // the best inner value of the chosen kernel setting (Search's rule between settings)
	best         *mat.Dense // the inner CV predictions at the chosen point (rows of T)
	bestTol      []float64
	outerPred    *mat.Dense // the predictions of O at the chosen point (|O|×t)
}

func newNestedState(o []int, sc Scheme, m int) (*nestedState, error) {
	st := &nestedState{outer: o, train: cv.Complement(o, m), inT: make([]bool, m)}
	for _, i := range st.train {
		st.inT[i] = true
	}
	if sc.Kind == LOO {
		for _, i := range st.train {
			st.inner = append(st.inner, []int{i})
		}
	} else {
		if err := cv.Check(sc.Folds, m); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrScheme, err)
		}
		for _, f := range sc.Folds {
			var in []int
			for _, i := range f {
				if st.inT[i] {
					in = append(in, i)
				}
			}
			if len(in) > 0 {
				st.inner = append(st.inner, in)
			}
		}
	}
	if len(st.inner) == 0 {
		return nil, fmt.Errorf("%w: no inner fold holds a row of the outer training part", ErrScheme)
	}
	for _, in := range st.inner {
		st.innerSizes = append(st.innerSizes, len(in))
		u := make([]int, 0, len(o)+len(in))
		st.union = append(st.union, append(append(u, o...), in...))
		if len(o)+len(in) >= m {
			return nil, fmt.Errorf("%w: the inner fold of %d rows is the whole outer training part: nothing is left to train on", ErrScheme, len(in))
		}
	}
	st.fold = NestedFold{Rows: o, Inner: math.NaN(), Outer: math.NaN()}
	return st, nil
}

// nestedSetting cross-validates one kernel setting's learner l — trained
// on all m rows — for every outer fold in folds: the inner curve of T at
// every λ from the hold-outs O ∪ I, and, where the setting's best point
// beats the fold's best so far, the outer predictions HoldOut(O) there.
// The capability the scheme needs is checked at the first λ.
func nestedSetting(l learn.Learner, spec kernel.Spec, folds []*nestedState, s Settings, y *mat.Dense, opt Options) error {
	sc := s.Scheme
	meas := s.Measure
	tw, err := twin(l, meas, sc)
	if err != nil {
		return err
	}
	union := Scheme{Kind: Folds, Name: sc.Name, Basis: sc.Basis}
	curves := make([]*Result, len(folds))
	bests := make([]*mat.Dense, len(folds))
	tols := make([][]float64, len(folds))
	for n := range curves {
		curves[n] = &Result{BestIndex: -1}
	}
	for k, lambda := range s.Lambdas {
		sol, err := l.At(lambda)
		if err != nil {
			return fmt.Errorf("λ = %g: %w", lambda, err)
		}
		var sol2 learn.Solution
		if tw != nil {
			if sol2, err = tw.At(lambda); err != nil {
				return fmt.Errorf("λ = %g: %w", lambda, err)
			}
		}
		if k == 0 {
			if err := learn.Require(l.Name(), sol, union.Needs()...); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrScheme, sc.Name, err)
			}
		}
		for n, st := range folds {
			c, err := st.predict(sol, sol2, union, y)
			if err != nil {
				return fmt.Errorf("outer fold %d at λ = %g: %w", n, lambda, err)
			}
			ci := &cvPredictions{p: c.p, covered: st.inT, tol: c.tol} // I's rows of each O ∪ I: all of T
			pt := Point{Lambda: lambda}
			if pt.Value, pt.Indistinguishable, err = ci.value(meas, y, opt.Queries, sc, st.inner); err != nil {
				return fmt.Errorf("outer fold %d: %s at λ = %g: %w", n, sc.Name, lambda, err)
			}
			pt.setSpread(ci.spreadValues(meas, y, opt.Queries, sc, st.inner))
			r := curves[n]
			r.Curve = append(r.Curve, pt)
			if r.BestIndex < 0 || meas.Better(pt.Value, r.Best.Value) || (pt.Value == r.Best.Value && lambda > r.Best.Lambda) {
				r.BestIndex, r.Best, bests[n], tols[n] = k, pt, copyInto(bests[n], c.p), c.tol
			}
		}
		opt.Progress.Step("nested cross-validation: λ", k+1, len(s.Lambdas))
	}
	for n, st := range folds {
		r := curves[n]
		st.fold.Curves = append(st.fold.Curves, Curve{Kernel: spec, Result: &Result{Curve: r.Curve, Best: r.Best, BestIndex: r.BestIndex}})
		if len(st.fold.Curves) > 1 && !meas.Better(r.Best.Value, st.bestValue) {
			continue
		}
		chosen := r.Curve[r.BestIndex]
		if s.Choose == Choose1SE { // on the best kernel setting's curve, as Search
			k, err := OneSE(r.Curve, meas)
			if err != nil {
				return fmt.Errorf("outer fold %d: the one-standard-error rule: %w", n, err)
			}
			if k != r.BestIndex { // the inner predictions at the chosen λ, again
				chosen = r.Curve[k]
				sol, err := l.At(chosen.Lambda)
				var sol2 learn.Solution
				if err == nil && tw != nil {
					sol2, err = tw.At(chosen.Lambda)
				}
				var c *cvPredictions
				if err == nil {
					c, err = st.predict(sol, sol2, union, y)
				}
				if err != nil {
					return fmt.Errorf("outer fold %d at λ = %g: %w", n, chosen.Lambda, err)
				}
				bests[n], tols[n] = copyInto(bests[n], c.p), c.tol
			}
		}
		sol, err := l.At(chosen.Lambda)
		if err != nil {
			return fmt.Errorf("λ = %g: %w", chosen.Lambda, err)
		}
		c, err := predict(sol, Scheme{Kind: Folds, Folds: [][]int{st.outer}, Basis: sc.Basis}, y)
		if err != nil {
			return fmt.Errorf("outer fold %d at λ = %g: %w", n, chosen.Lambda, err)
		}
		st.bestValue = r.Best.Value
		st.fold.Kernel, st.fold.Lambda, st.fold.Inner = spec, chosen.Lambda, chosen.Value
		st.best, st.bestTol, st.outerPred = bests[n], tols[n], kernel.Rows(c.p, st.outer).(*mat.Dense)
	}
	return nil
}

// predict is the hold-outs O ∪ I of every inner fold I by the solution s
// (one scheme of folds under the basis policy of sc), the rows of each I
// holding its fold's predictions (those of O are overwritten fold after
// fold: not read), and, with the twin's solution s2, the tie tolerances
// measured against the twin's hold-outs of every twinStride-th union fold
// on the rows of those folds' I alone.
func (st *nestedState) predict(s, s2 learn.Solution, sc Scheme, y *mat.Dense) (*cvPredictions, error) {
	sc.Folds = st.union
	c, err := predict(s, sc, y)
	if err != nil || s2 == nil {
		return c, err
	}
	sc.Folds = twinFolds(st.union)
	c2, err := predict(s2, sc, y)
	if err != nil {
		return nil, err
	}
	m, _ := y.Dims()
	sampled := make([]bool, m)
	for _, f := range twinFolds(st.inner) { // the inner parts of the twin's union folds
		for _, i := range f {
			sampled[i] = true
		}
	}
	c.tol = noiseTolerance(c.p, c2.p, sampled)
	return c, nil
}

// nestedResult scores the outer predictions and forms the interval.
func nestedResult(folds []*nestedState, y *mat.Dense, meas measure.Measure, q []int, level float64) (*NestedResult, error) {
	m, t := y.Dims()
	out := &NestedResult{Measure: meas.Name, Level: level, Predictions: nanDense(m, t)}
	covered := make([]bool, m)
	for n, st := range folds {
		for k, i := range st.outer {
			out.Predictions.SetRow(i, st.outerPred.RawRowView(k))
			covered[i] = true
		}
		in := make([]bool, m)
		for _, i := range st.outer {
			in[i] = true
		}
		v, _, err := (&cvPredictions{p: out.Predictions, covered: in}).score(meas, y, q)
		switch {
		case errors.Is(err, measure.ErrUndefined):
			v = math.NaN()
		case err != nil:
			return nil, fmt.Errorf("outer fold %d: %w", n, err)
		}
		st.fold.Outer = v
		out.Folds = append(out.Folds, st.fold)
	}
	v, _, err := (&cvPredictions{p: out.Predictions, covered: covered}).score(meas, y, q)
	if err != nil {
		return nil, fmt.Errorf("the outer predictions: %w", err)
	}
	out.Value = v
	if loss := perObservationLoss(meas); loss != nil {
		eIn := make([][]float64, len(folds))
		eOut := make([][]float64, len(folds))
		for n, st := range folds {
			for _, i := range st.train {
				eIn[n] = append(eIn[n], loss(y.RawRowView(i), st.best.RawRowView(i)))
			}
			for _, i := range st.outer {
				eOut[n] = append(eOut[n], loss(y.RawRowView(i), out.Predictions.RawRowView(i)))
			}
		}
		// the bias factor from the mean training sizes: all rows, the outer parts, the inner sets
		var nOuter, nInner float64
		for _, st := range folds {
			nOuter += float64(len(st.train))
			in := 0.0
			for _, sz := range st.innerSizes {
				in += float64(len(st.train) - sz)
			}
			nInner += in / float64(len(st.innerSizes))
		}
		k := float64(len(folds))
		n := float64(m) // every labelled row (pair): the search's own training set
		b := NestedCVInterval(eIn, eOut, level, BiasRatio(n, nOuter/k, nInner/k))
		out.Method, out.SE, out.Interval, out.ErrNCV, out.Bias = IntervalNestedCV, b.SE, b.Interval, b.ErrNCV, b.Bias
		return out, nil
	}
	vals := make([]float64, len(folds))
	for n, st := range folds {
		vals[n] = st.fold.Outer
	}
	out.Method = IntervalFoldSE
	out.SE, out.Interval = FoldSEInterval(vals, v, level)
	return out, nil
}

// FoldSEInterval is the interval IntervalFoldSE: the standard error of the
// outer folds' values (those not NaN: folds on which the measure is
// undefined are left out), sd/√K with the K − 1 denominator, and
// center ± z_{1−α/2}·SE, α = 1 − level. It treats the folds' values as
// independent, which they are not (Bates et al. 2024, Sect. 3): for
// measures without per-observation losses it is what is left. SE is NaN
// (and so the interval) with fewer than two values. O(K).
func FoldSEInterval(values []float64, center, level float64) (se float64, interval [2]float64) {
	var vals []float64
	for _, v := range values {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	se = math.NaN()
	if len(vals) > 1 {
		_, sd := meanSD(vals)
		se = sd / math.Sqrt(float64(len(vals)))
	}
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	return se, [2]float64{center - z*se, center + z*se}
}

// perObservationLoss is the per-observation loss of a measure that is the mean of
// one (mse: the mean over outputs of the squared errors of a row; mae: of
// the absolute errors), nil for the others.
func perObservationLoss(meas measure.Measure) func(y, p []float64) float64 {
	switch meas.Name {
	case "mse":
		return func(y, p []float64) float64 {
			s := 0.0
			for c := range y {
				d := y[c] - p[c]
				s += d * d
			}
			return s / float64(len(y))
		}
	case "mae":
		return func(y, p []float64) float64 {
			s := 0.0
			for c := range y {
				s += math.Abs(y[c] - p[c])
			}
			return s / float64(len(y))
		}
	}
	return nil
}

// meanSD is the mean and the sample standard deviation (n − 1) of v.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, math.NaN()
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// NestedCVBounds is the nested-CV interval of NestedCVInterval and its parts.
type NestedCVBounds struct {
	// ErrCV is the mean outer loss (Err^(CV)), ErrNCV the mean inner loss
	// (Err^(NCV)), MSE the estimate of the mean squared error of the
	// inner CV estimate, SE the standard error of Err^(CV), Bias the
	// estimated bias of Err^(CV) (the interval's centre is ErrCV − Bias).
	ErrCV, ErrNCV, MSE, SE, Bias float64
	// Interval is [lo, hi] at the level asked.
	Interval [2]float64
}

// BiasRatio is the factor ρ that turns Err^(NCV) − Err^(CV) into the bias
// of Err^(CV) under the model of Bates et al. (2024) that the error of a
// fit on n' rows is Err_∞ + c/n': with n rows in all, outer training parts
// of mean size nOuter and inner training sets of mean size nInner,
// Err^(NCV) − Err^(CV) ≈ c(1/nInner − 1/nOuter) and the bias of Err^(CV)
// for a fit on n rows is c(1/nOuter − 1/n), so
//
//	ρ = (1/nOuter − 1/n) / (1/nInner − 1/nOuter),
//
// held in [0, 1] (no extrapolation beyond the inner CV's own step in
// size; 0 when the inner sets are not smaller). With their design — the
// inner folds of an outer part the K − 1 other outer folds — ρ = (K−2)/K,
// and Err^(CV) − ρ(Err^(NCV) − Err^(CV)) is their bias-corrected
// Err^(NCV) − (1 + (K−2)/K)(Err^(NCV) − Err^(CV)). O(1).
func BiasRatio(n, nOuter, nInner float64) float64 {
	d := 1/nInner - 1/nOuter
	if !(d > 0) {
		return 0
	}
	return math.Min(1, math.Max(0, (1/nOuter-1/n)/d))
}

// NestedCVInterval is the nested cross-validation interval for the
// prediction error of Bates, Hastie & Tibshirani ("Cross-validation: what
// does it estimate and how well does it do it?", JASA 119:1434–1445, 2024;
// arXiv 2104.00673, Algorithm 1 and the interval built on it), for
// K = len(eOut) outer folds and one repetition: eOut[k] are the
// per-observation losses of outer fold k by the model trained on the other
// folds, eIn[k] the inner CV losses on those other folds (each of their
// rows predicted by the model of its inner fold), rho the bias factor
// (BiasRatio; (K−2)/K in their design). With n the number of outer losses:
//
//	Err^(CV)  = mean of all outer losses,  Err^(NCV) = mean of all inner losses
//	a_k = (mean eIn[k] − mean eOut[k])²,  b_k = var(eOut[k]) / |eOut[k]|   (sample variance)
//	MSÊ = mean_k a_k − mean_k b_k          (Algorithm 1: the MSE of a CV estimate on (K−1)/K of the rows)
//	SÊ² = (K−1)/K · MSÊ, held within [SE_naive², K·SE_naive²],  SE_naive = sd(all outer losses)/√n
//	bias = ρ · (Err^(NCV) − Err^(CV))
//	interval = Err^(CV) − bias ± z_{1−α/2} · SÊ,   α = 1 − level
//
// The factor (K−1)/K carries the MSE of a CV on n(K−1)/K rows to one on
// n (a variance of order 1/n); the bounds on SÊ are the paper's guard
// against implausible estimates (at least the naive standard error, at
// most √K times it). Published implementations differ in that factor
// (none, (K−1)/K or K/(K−1)); this is the one the 1/n scaling gives. The
// paper's estimator is for a fixed fitting procedure; here the procedure
// is the whole search and eIn are the inner losses at the point the inner
// search chose, so a_k includes the selection's optimism, which widens the
// interval. O(n + Σ|eIn[k]|).
func NestedCVInterval(eIn, eOut [][]float64, level, rho float64) NestedCVBounds {
	var b NestedCVBounds
	k := float64(len(eOut))
	var all, allIn []float64
	var sumA, sumB float64
	for f := range eOut {
		mi, _ := meanSD(eIn[f])
		mo, so := meanSD(eOut[f])
		sumA += (mi - mo) * (mi - mo)
		if len(eOut[f]) > 1 {
			sumB += so * so / float64(len(eOut[f]))
		}
		all = append(all, eOut[f]...)
		allIn = append(allIn, eIn[f]...)
	}
	var sdAll float64
	b.ErrCV, sdAll = meanSD(all)
	b.ErrNCV, _ = meanSD(allIn)
	b.MSE = sumA/k - sumB/k
	naive := sdAll / math.Sqrt(float64(len(all)))
	se2 := (k - 1) / k * b.MSE
	se2 = math.Min(math.Max(se2, naive*naive), k*naive*naive)
	b.SE = math.Sqrt(se2)
	b.Bias = rho * (b.ErrNCV - b.ErrCV)
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	c := b.ErrCV - b.Bias
	b.Interval = [2]float64{c - z*b.SE, c + z*b.SE}
	return b
}
