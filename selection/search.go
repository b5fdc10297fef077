package selection

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
)

// Method trains a learner on the rows X with one kernel: typically a closure
// over the labels (and queries, graph, basis) around rls.Fit or a rank.Fit*.
// X is already standardized when the Problem asks for it. Problem.Learner
// with Problem.Input is the registry's way to the same.
type Method func(x mat.Matrix, k kernel.Kernel) (learn.Learner, error)

// Problem is what Search trains on: a registered learner and its input, or
// rows X with a Method.
type Problem struct {
	// Learner and Input: the learner's descriptor (learn.Lookup) and what it
	// learns from. Search checks the input's needs, standardizes Input.X
	// (and tells a self-scaling learner to scale its own inputs) and trains
	// through Learner.New.
	Learner *learn.Descriptor
	Input   *learn.Input
	// X holds the m training rows (*mat.Dense or *matrix.CSR) and Method
	// trains the learner for one kernel setting: the form without a
	// descriptor (ignored when Learner is set).
	X      mat.Matrix
	Method Method
	// Standardize scales the features once (model.FitScaler) before training;
	// the returned predictor carries the scaler.
	Standardize bool
	// Retrain, when set, cross-validates by training a new model per fold
	// (Scheme of kind Folds) instead of the learner's shortcuts — for designs
	// whose training depends on the fold, e.g. RandomBasisPerFold.
	Retrain func(x mat.Matrix, k kernel.Kernel) Retrainer
}

// Settings say what Search searches and how it scores.
type Settings struct {
	// Kernels are the kernel settings searched (at least one); for a
	// learner of pairs, the row objects' kernel.
	Kernels []kernel.Spec
	// GammaScale says the Gamma of every kernel setting that has one
	// (gaussian, polynomial) is a multiple of scikit-learn's gamma="scale",
	// kernel.ScaleGamma of the training rows after standardization: Search
	// multiplies them by it before training (SearchResult.GammaScale), so
	// Gamma 1 is γ = 1/(d·Var X). Not for a learner of pairs.
	GammaScale bool
	// ColKernels are the column objects' kernel settings of a learner of
	// pairs with two sets of objects, searched with every row setting
	// (nil: the learner has one kernel).
	ColKernels []kernel.Spec
	// Lambdas is the λ grid (at least one value; one with Scheme kind None).
	Lambdas []float64
	// ColLambdas is the grid of the second λ of a learner that has one
	// (learn.CanColLambda), searched jointly with Lambdas.
	ColLambdas []float64
	Scheme     Scheme
	Measure    measure.Measure
	// Options pass query ids and, for learners without labels, the labels to
	// score against; Options.Progress is ignored (see Progress). With a
	// Problem.Learner, Search fills them from the input when they are unset.
	Options Options
	// Permutations > 0 runs a permutation test with that many label
	// permutations, seeded by Seed: every permutation is searched over the
	// same kernel settings and λ grid as the real labels, on each setting's
	// factorization (learn.Relabeler).
	Permutations int
	Seed         uint64
	// Choose is the rule that picks λ on the best kernel setting's curve:
	// ChooseBest ("" too), its best value, or Choose1SE, the
	// one-standard-error rule (OneSE) on that curve's fold means — the
	// kernel setting is still the one of the best value. Choose1SE needs a
	// scheme with standard errors (HasSE).
	Choose string
	// LambdaPerOutput chooses each output's λ by its own CV curve on the
	// best kernel setting (the measure on that output's CV predictions
	// alone at every λ, Result.PerOutput, all from the setting's one
	// factorization; BestPerOutput), as scikit-learn's
	// RidgeCV(alpha_per_target=True): SearchResult.PerOutput, and the
	// predictor's output c is the model at its λ_c. The kernel setting is
	// the one of the best value over all outputs. Leave-one-out or folds,
	// a measure of one output at a time, a learner on rows.
	LambdaPerOutput bool
	// Progress, when set, is told of each factorization phase (through the
	// learner) and of each point of the search: done of all kernel settings
	// × λ points, then of the permutation test's.
	Progress progress.Observer
	// SolutionOnly leaves SearchResult.Predictor nil, for a caller that uses
	// the Solution alone (a learner of pairs' PairModel, say): the predictor
	// is not formed — for a kernel expansion its coefficients, O(m·q·(m + q))
	// for Kronecker RLS on m × q pairs.
	SolutionOnly bool
}

// Curve is the CV curve of one kernel setting.
type Curve struct {
	Kernel kernel.Spec
	// ColKernel is the column kernel of a learner of pairs with two sets of
	// objects (nil otherwise).
	ColKernel *kernel.Spec
	*Result
}

// SearchResult is the outcome of Search.
type SearchResult struct {
	// Curves holds one CV curve per kernel setting, in the order searched.
	Curves []Curve
	// Best indexes Curves; Kernel, ColKernel, Lambda and ColLambda are the
	// chosen point, Value its CV value: the best point of Curves[Best]
	// (Curves[Best].Best), or with Settings.Choose 1se the point Chosen.
	Best      int
	Kernel    kernel.Spec
	ColKernel *kernel.Spec
	Lambda    float64
	ColLambda float64
	Value     float64
	// Choose is the rule that chose λ (ChooseBest or Choose1SE) and Chosen
	// indexes Curves[Best].Curve at the chosen λ (BestIndex with ChooseBest).
	Choose string
	Chosen int
	// PerOutput (Settings.LambdaPerOutput) is each output's λ and value on
	// Curves[Best]. Lambda and Value then stay the best point of all
	// outputs together, and Solution the model there; Predictor holds each
	// output's coefficients at its own λ.
	PerOutput []OutputChoice
	// ChosenPredictions, when the model is not the best point's of
	// Curves[Best] (Choose1SE choosing another λ, LambdaPerOutput), are the
	// CV predictions of the model chosen — each output's at its λ — and
	// ChosenTolerance their tie tolerances (nil: compared exactly); nil
	// otherwise: Curves[Best].Predictions are the model's.
	ChosenPredictions *mat.Dense
	ChosenTolerance   []float64
	// Learner is the learner trained with the best kernel setting, Solution
	// its model at the chosen λ.
	Learner  learn.Learner
	Solution learn.Solution
	// Predictor is the model at the best point, carrying the scaler (nil
	// with Settings.SolutionOnly).
	Predictor *model.Predictor
	// Scaler is the standardization applied to X (nil without).
	Scaler *model.Scaler
	// GammaScale is the γ = 1/(d·Var X) the kernel settings' Gamma were
	// multiplied by (Settings.GammaScale; 0 without): Kernel and Curves
	// hold the resolved γ.
	GammaScale float64
	// Degenerate says whether the chosen kernel's matrix on the training
	// rows is numerically the identity or a constant (kernel.Degenerate,
	// on a sample of rows): the kernel then cannot tell the rows apart and
	// its parameters, not λ, need changing.
	Degenerate kernel.Degeneracy
	// OnEdge lists the searched parameters whose chosen value is the smallest
	// or largest of its grid: the optimum may lie beyond it, and the grid
	// should be widened that way.
	OnEdge []Edge
	// Permutation is the permutation test (nil unless asked).
	Permutation *PermutationResult
	// Train and CV are the time spent training and cross-validating.
	Train, CV time.Duration
}

// Edge says that a parameter's chosen value lies on the edge of its grid.
type Edge struct {
	// Parameter is "lambda", "gamma", "degree" or "coef0".
	Parameter string `json:"parameter"`
	// Side is "low" (the smallest value of the grid) or "high" (the largest).
	Side string `json:"side"`
}

// GridEdge reports whether v is the smallest ("low") or largest ("high")
// value of a grid of at least two distinct values, in any order: the
// optimum may lie beyond it. The one edge rule of every learner family.
func GridEdge(parameter string, grid []float64, v float64) (Edge, bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range grid {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	switch {
	case lo == hi:
	case v == lo:
		return Edge{parameter, "low"}, true
	case v == hi:
		return Edge{parameter, "high"}, true
	}
	return Edge{}, false
}

// onEdge returns the edges the chosen point lies on, for every parameter
// searched over at least two values.
func onEdge(s Settings, res *SearchResult) []Edge {
	var out []Edge
	check := func(name string, values []float64, v float64) {
		if e, ok := GridEdge(name, values, v); ok {
			out = append(out, e)
		}
	}
	check("lambda", s.Lambdas, res.Lambda)
	if len(s.ColLambdas) > 0 {
		check("col_lambda", s.ColLambdas, res.ColLambda)
	}
	kernelEdges := func(prefix string, specs []kernel.Spec, best kernel.Spec) {
		var gammas, degrees, coef0s []float64
		for _, s := range specs {
			gammas, degrees, coef0s = append(gammas, s.Gamma), append(degrees, float64(s.Degree)), append(coef0s, s.Coef0)
		}
		check(prefix+"gamma", gammas, best.Gamma)
		check(prefix+"degree", degrees, float64(best.Degree))
		check(prefix+"coef0", coef0s, best.Coef0)
	}
	kernelEdges("", s.Kernels, res.Kernel)
	if res.ColKernel != nil {
		kernelEdges("col_", s.ColKernels, *res.ColKernel)
	}
	return out
}

// setting is one kernel setting of a search.
type setting struct {
	row kernel.Spec
	col *kernel.Spec
}

// String names the setting in errors and progress.
func (st setting) String() string {
	if st.col == nil {
		return st.row.String()
	}
	return st.row.String() + " × " + st.col.String()
}

// Search checks the problem, trains the learner once per kernel setting (one
// factorization each; for a learner of pairs every row setting with every
// column setting, each side factored once per distinct kernel) and selects
// λ (and a second λ) on each by Select, or SelectRetrain when the problem
// retrains per fold; the best setting is the one whose best CV value is
// better than every earlier one's (ties: the first). With Permutations,
// every setting's factorization is relabelled with the permuted labels and
// each labelling keeps its best value over all settings and λ, so the null
// distribution includes the whole selection. Then Search solves the best
// learner at the best point and builds its predictor (with the scaler;
// not with SolutionOnly).
// Cost: one training per kernel setting plus Select's per λ (and, with P
// permutations, O(P) times the CV per λ).
func Search(p Problem, s Settings) (*SearchResult, error) {
	if len(s.Kernels) == 0 {
		return nil, fmt.Errorf("%w: no kernel settings", ErrGrid)
	}
	if n := len(s.Kernels) * max(1, len(s.ColKernels)); s.Scheme.Kind == None && n > 1 {
		return nil, fmt.Errorf("%w: no cross-validation to choose among %d kernel settings", ErrScheme, n)
	}
	if err := CheckChoose(s.Choose, s.Scheme, s.Measure); err != nil {
		return nil, err
	}
	if s.LambdaPerOutput {
		if err := checkPerOutput(p, s); err != nil {
			return nil, err
		}
	}
	if s.Scheme.Kind != None && p.Input != nil { // labels the measure cannot score: refused before training
		if err := s.Measure.CheckLabels(p.Input.Y, p.Input.Outputs); err != nil {
			return nil, err
		}
	}
	out := &SearchResult{Best: -1}
	method, err := p.method(&s, out)
	if err != nil {
		return nil, err
	}
	settings := []setting{} // after method: γ = scale is resolved on the rows it trains on
	for _, r := range s.Kernels {
		if len(s.ColKernels) == 0 {
			settings = append(settings, setting{row: r})
		}
		for _, c := range s.ColKernels {
			settings = append(settings, setting{row: r, col: &c})
		}
	}
	opt := s.Options
	opt.PerOutput = s.LambdaPerOutput
	colGrid := s.ColLambdas
	points := len(s.Lambdas) * max(1, len(colGrid))
	steps := len(settings) * points
	var null []float64 // each labelling's best over every setting (permutation test)
	for n, st := range settings {
		t0 := time.Now()
		s.Progress.Step("training "+st.String(), n*points, steps)
		l, err := method(st)
		if err != nil {
			return nil, fmt.Errorf("training with %s: %w", st, err)
		}
		t1 := time.Now()
		out.Train += t1.Sub(t0)
		var res *Result
		if p.Retrain != nil {
			y, err := labels(l, opt)
			if err != nil {
				return nil, err
			}
			k, _ := kernel.New(st.row)
			opt.Progress = s.Progress
			res, err = SelectRetrain(p.Retrain(p.X, k), y, s.Lambdas, s.Scheme.Folds, s.Scheme.Name, s.Measure, opt)
			if err != nil {
				return nil, fmt.Errorf("cross-validation with %s: %w", st, err)
			}
		} else {
			opt.Progress = s.Progress.Offset(int64(n*points), int64(steps))
			if res, err = selectGrid(l, s.Lambdas, colGrid, s.Scheme, s.Measure, opt); err != nil {
				return nil, fmt.Errorf("cross-validation with %s: %w", st, err)
			}
		}
		out.CV += time.Since(t1)
		out.Curves = append(out.Curves, Curve{Kernel: st.row, ColKernel: st.col, Result: res})
		if out.Best < 0 || s.Measure.Better(res.Best.Value, out.Value) {
			out.Best, out.Kernel, out.ColKernel, out.Value, out.Learner = n, st.row, st.col, res.Best.Value, l
			out.Lambda, out.ColLambda = res.Best.Lambda, res.Best.ColLambda
		}
		if s.Permutations > 0 {
			popt := opt
			popt.Progress = s.Progress.Prefixed(st.String() + ": ")
			best, err := permutationBest(l, s.Lambdas, s.Scheme, s.Measure, s.Permutations, s.Seed, popt)
			if err != nil {
				return nil, fmt.Errorf("permutation test with %s: %w", st, err)
			}
			if null == nil {
				null = make([]float64, len(best))
				for k := range null {
					null[k] = math.NaN()
				}
			}
			keepBest(null, best, s.Measure)
		}
	}
	if null != nil {
		out.Permutation = newPermutationResult(null, s.Measure)
	}
	out.Choose, out.Chosen = ChooseBest, out.Curves[out.Best].BestIndex
	if s.Choose == Choose1SE {
		c := out.Curves[out.Best]
		if out.Chosen, err = OneSE(c.Curve, s.Measure); err != nil {
			return nil, fmt.Errorf("the one-standard-error rule on %s: %w", settings[out.Best], err)
		}
		pt := c.Curve[out.Chosen]
		out.Choose, out.Lambda, out.ColLambda, out.Value = Choose1SE, pt.Lambda, pt.ColLambda, pt.Value
	}
	if s.Scheme.Kind != None {
		out.OnEdge = onEdge(s, out)
	}
	if p.X != nil && out.ColKernel == nil && !(p.Learner != nil && p.Learner.SelfScaling) {
		k, _ := kernel.New(out.Kernel)
		if out.Degenerate, err = kernel.Degenerate(k, p.X); err != nil {
			return nil, fmt.Errorf("checking the kernel matrix of %s: %w", out.Kernel, err)
		}
	}
	var sol learn.Solution
	if c, ok := out.Learner.(learn.ColLambdaLearner); ok && len(colGrid) > 0 {
		sol, err = c.AtBoth(out.Lambda, out.ColLambda)
	} else {
		sol, err = out.Learner.At(out.Lambda)
	}
	if err != nil {
		return nil, err
	}
	out.Solution = sol
	if s.SolutionOnly {
		return out, nil
	}
	out.Predictor = sol.Predictor()
	if out.Choose == Choose1SE && out.Chosen != out.Curves[out.Best].BestIndex {
		var r *Result
		if p.Retrain != nil { // the folds retrained, as the curve was
			y, err := labels(out.Learner, opt)
			if err != nil {
				return nil, err
			}
			k, _ := kernel.New(out.Kernel)
			r, err = SelectRetrain(p.Retrain(p.X, k), y, []float64{out.Lambda}, s.Scheme.Folds, s.Scheme.Name, s.Measure, opt)
		} else {
			r, err = Select(out.Learner, []float64{out.Lambda}, s.Scheme, s.Measure, opt)
		}
		if err != nil {
			return nil, fmt.Errorf("the CV predictions at the chosen λ = %g: %w", out.Lambda, err)
		}
		out.ChosenPredictions, out.ChosenTolerance = r.Predictions, r.Tolerance
	}
	if s.LambdaPerOutput {
		c := out.Curves[out.Best]
		if out.PerOutput, err = BestPerOutput(c.Curve, c.PerOutput, s.Measure); err != nil {
			return nil, err
		}
		lambdas := make([]float64, len(out.PerOutput))
		for k, o := range out.PerOutput {
			lambdas[k] = o.Lambda
		}
		if out.Predictor, err = perOutputPredictor(out.Learner, lambdas); err != nil {
			return nil, fmt.Errorf("a λ per output: %w", err)
		}
		out.Predictor.Lambda = out.Lambda
		if out.ChosenPredictions, out.ChosenTolerance, err = perOutputPredictions(out.Learner, lambdas, s.Scheme, s.Measure, opt); err != nil {
			return nil, fmt.Errorf("a λ per output: %w", err)
		}
	}
	if out.Scaler != nil {
		out.Predictor.Scaler = out.Scaler
	}
	return out, nil
}

// method checks the problem against the settings and returns the training
// function of one setting; it standardizes the rows (out.Scaler) and fills
// the options from a registered learner's input.
func (p *Problem) method(s *Settings, out *SearchResult) (func(setting) (learn.Learner, error), error) {
	x := p.X
	var in *learn.Input
	if p.Learner != nil {
		if p.Input == nil || p.Input.X == nil {
			return nil, fmt.Errorf("%w: Search needs the learner's input", ErrScheme)
		}
		cp := *p.Input
		in, x = &cp, cp.X
		if err := CheckInput(p.Learner, in); err != nil {
			return nil, err
		}
		if err := CheckSettings(p.Learner, s); err != nil {
			return nil, err
		}
		if s.Options.Queries == nil {
			s.Options.Queries = queriesOf(in)
		}
		if in.Observe == nil {
			in.Observe = s.Progress // the factorization phases
		}
		if s.Options.Labels == nil && in.Y != nil && p.Learner.Needs.Has(learn.NeedsGraph) && s.Scheme.Kind != None {
			s.Options.Labels = in.Y // the graph is what the learner learns; the labels score it
		}
	} else if p.Method == nil || p.X == nil {
		return nil, fmt.Errorf("%w: Search needs data and a method", ErrScheme)
	}
	selfScaling := p.Learner != nil && p.Learner.SelfScaling
	if p.Standardize && selfScaling {
		in.Standardize = true
	} else if p.Standardize {
		out.Scaler = model.FitScaler(x)
		var err error
		if x, err = out.Scaler.Transform(x); err != nil {
			return nil, err
		}
		if in != nil {
			in.X = x
		}
	}
	if s.GammaScale {
		if selfScaling || len(s.ColKernels) > 0 {
			return nil, fmt.Errorf("%w: gamma = scale is for a learner on rows, not a learner of pairs", ErrScheme)
		}
		out.GammaScale = kernel.ScaleGamma(x)
		specs := make([]kernel.Spec, len(s.Kernels))
		for i, spec := range s.Kernels {
			if spec.Name == "gaussian" || spec.Name == "polynomial" {
				spec.Gamma *= out.GammaScale
			}
			specs[i] = spec
		}
		s.Kernels = specs
	}
	// a value whose square overflows is named here, not met later as NaN
	for _, spec := range s.Kernels {
		if _, err := kernel.New(spec); err != nil {
			return nil, err
		}
		if !selfScaling {
			if err := kernel.CheckFinite(spec, x); err != nil {
				return nil, fmt.Errorf("training data with %s: %w", spec, err)
			}
		}
	}
	if p.Learner == nil {
		p.X = x
		return func(st setting) (learn.Learner, error) {
			k, _ := kernel.New(st.row)
			return p.Method(x, k)
		}, nil
	}
	p.X = x
	m, err := p.Learner.New(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Learner.Name, err)
	}
	return func(st setting) (learn.Learner, error) {
		var ls learn.Setting
		ls.Kernel, _ = kernel.New(st.row)
		if st.col != nil {
			ls.ColKernel, _ = kernel.New(*st.col)
		}
		return m(ls)
	}, nil
}

// queriesOf returns the query ids measures read: the groups of a learner on
// rows, each pair's row object for a learner of pairs.
func queriesOf(in *learn.Input) []int {
	if in.Pairs == nil {
		return in.Groups
	}
	q := make([]int, len(in.Pairs))
	for i, pr := range in.Pairs {
		q[i] = pr.Row
	}
	return q
}
