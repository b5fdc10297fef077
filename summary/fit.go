// Package summary is the summary of a fit as the front ends print it: the
// JSON of rlskit fit (the same for rlskit-beam and any other front end),
// its types with their JSON names and the builders that turn the library's
// results into them — a search (selection), a fit of pairs (pairwise), a
// streamed fit (stream) and a greedy selection (greedy). It presents
// results: it computes no model and reads no file. (The HTML report's data
// are package report's, built from the same results.)
//
// A front end reads its data, runs the library, and passes the results here:
//
//	res, err := selection.Search(problem, settings)
//	out := summary.Search(learner, d, res, settings.Scheme, settings.Measure, "")
//	out.Timing = summary.Timing{Load: …, Train: res.Train.Seconds(), CV: res.CV.Seconds(), Total: …}
//	json.NewEncoder(os.Stdout).Encode(out)
//
// Only the timing, which the front end measures, is left to it.
package summary

import (
	"fmt"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

// Fit is the JSON summary of a fit (rlskit fit's standard output): the
// learner, its chosen kernel setting and λ, the data's shape, the
// cross-validation curve and best point, and how long each part took.
type Fit struct {
	Learner   string       `json:"learner"`
	Kernel    kernel.Spec  `json:"kernel"`
	Form      string       `json:"form"`
	Lambda    float64      `json:"lambda"`
	NTrain    int          `json:"n_train"`
	NFeatures int          `json:"n_features"`
	Outputs   []string     `json:"outputs"`
	NBasis    int          `json:"n_basis,omitempty"`
	CG        *CG          `json:"cg,omitempty"`
	Perm      *Permutation `json:"permutation,omitempty"`
	Queries   *Queries     `json:"queries,omitempty"`
	CV        *CV          `json:"cv"`
	Timing    Timing       `json:"timing"`
	Backend   string       `json:"backend"`

	// Selection and Outer: a greedy selection (Greedy).
	Selection *Selection `json:"selection,omitempty"`
	Outer     *Outer     `json:"outer,omitempty"`
	// ROC is fit --roc tlpo: the tournament leave-pair-out ROC analysis.
	ROC *ROC `json:"roc,omitempty"`

	// GammaScale is scikit-learn's gamma="scale" of the training rows,
	// 1/(d·Var X), when --gamma scale asked for it: Kernel's gamma (and the
	// curve's) are multiples of it, resolved.
	GammaScale float64 `json:"gamma_scale,omitempty"`
	// KernelDegenerate is "identity" or "constant" when the chosen kernel's
	// matrix is numerically I or c·11ᵀ (kernel.Degenerate).
	KernelDegenerate kernel.Degeneracy `json:"kernel_degenerate,omitempty"`
}

// Queries reports the queries (groups) of the data; those with a single row
// have no pairs.
type Queries struct {
	Count        int `json:"count"`
	WithoutPairs int `json:"without_pairs"`
}

// Permutation reports a permutation test (selection.PermutationResult).
type Permutation struct {
	Permutations int     `json:"permutations"`
	PValue       float64 `json:"p_value"`
	Real         float64 `json:"real"`
	NullMean     float64 `json:"null_mean"`
	NullSD       float64 `json:"null_sd"`
}

// CG reports the conjugate-gradient solver, one entry per output.
type CG struct {
	Iterations []int     `json:"iterations"`
	Converged  []bool    `json:"converged"`
	Residual   []float64 `json:"residual"`
}

// CV is the cross-validation: the scheme's name, the measure, the curve
// (every kernel setting's points, in the order searched) and the best point.
type CV struct {
	Strategy string       `json:"strategy"`
	Measure  string       `json:"measure"`
	Curve    []CurvePoint `json:"curve"`
	Best     CurvePoint   `json:"best"`
	// Choose is the rule that chose the model's λ — "best" (the best
	// value) or "1se" (the one-standard-error rule, selection.OneSE) — and
	// Chosen the point it chose (Best with "best"); empty for a fit
	// without a choice rule (a streamed or greedy fit chooses the best).
	Choose string      `json:"choose,omitempty"`
	Chosen *CurvePoint `json:"chosen,omitempty"`
	// BestPerOutput (fit --lambda-per-output) is each output's λ chosen
	// by its own CV curve and its value there (selection.OutputChoice);
	// the model applies each output's λ.
	BestPerOutput []OutputBest `json:"best_per_output,omitempty"`
	// BasisHoldOut is the sparse models' basis policy in hold-outs.
	BasisHoldOut string `json:"basis_holdout,omitempty"`
}

// CurvePoint is one point of a CV curve: λ, the CV value and, when a kernel
// grid was searched, the kernel's parameters.
type CurvePoint struct {
	Lambda float64  `json:"lambda"`
	Value  float64  `json:"value"`
	Gamma  *float64 `json:"gamma,omitempty"`
	Degree *int     `json:"degree,omitempty"`
	Coef0  *float64 `json:"coef0,omitempty"`
	// Indistinguishable marks CV predictions within their rounding error of
	// each other: ordinal measures score them as ties.
	Indistinguishable bool `json:"indistinguishable,omitempty"`
	// SE is the standard error of the fold values' mean FoldMean across the
	// scheme's hold-outs (selection.Point: sd/√K of the K per-fold values;
	// leave-one-out with mse or mae, of the rows' losses); absent where
	// there is none (leave-pair-out, pairwise designs, leave-one-out with
	// another measure).
	SE       *float64 `json:"se,omitempty"`
	FoldMean *float64 `json:"fold_mean,omitempty"`
	// OnEdge (on the chosen point, and on the best point when it is the
	// chosen one) lists the parameters chosen at an end of their grid.
	OnEdge []selection.Edge `json:"on_edge,omitempty"`
}

// OutputBest is one output's own choice of λ: the output's name (its
// label column), λ and the measure on its CV predictions alone there.
type OutputBest struct {
	Output string  `json:"output"`
	Lambda float64 `json:"lambda"`
	Value  float64 `json:"value"`
}

// Timing is the wall time of each part of a fit, in seconds.
type Timing struct {
	Load  float64 `json:"load_s"`
	Train float64 `json:"train_s"`
	CV    float64 `json:"cv_s"`
	Total float64 `json:"total_s"`
}

// Point is a point of a CV curve with, when withKernel (a kernel grid was
// searched), the parameters of its kernel setting spec: gamma of a gaussian
// kernel, gamma, degree and coef0 of a polynomial one.
func Point(p selection.Point, spec kernel.Spec, withKernel bool) CurvePoint {
	c := CurvePoint{Lambda: p.Lambda, Value: p.Value, Indistinguishable: p.Indistinguishable}
	if p.NFolds >= 2 {
		c.SE, c.FoldMean = &p.SE, &p.FoldMean
	}
	if withKernel {
		switch spec.Name {
		case "gaussian":
			c.Gamma = &spec.Gamma
		case "polynomial":
			c.Gamma, c.Degree, c.Coef0 = &spec.Gamma, &spec.Degree, &spec.Coef0
		}
	}
	return c
}

// QueryStats counts the data's queries (nil without queries) and those of a
// single row.
func QueryStats(d *dataset.Data) *Queries {
	if d.Queries == nil {
		return nil
	}
	size := map[int]int{}
	for _, q := range d.Queries {
		size[q]++
	}
	info := &Queries{Count: len(size)}
	for _, n := range size {
		if n < 2 {
			info.WithoutPairs++
		}
	}
	return info
}

// Search is the summary of a search on the data d by the learner named
// learner: the chosen kernel setting and λ, the form of the learner's
// factorization and its basis, the queries, the permutation test and —
// unless the scheme is None — the cross-validation curve of every kernel
// setting (with the kernel's parameters when there are several) and the best
// point with its edges; basisHoldOut is the sparse models' basis policy in
// hold-outs ("" for none). The timing is left to the caller.
func Search(learner string, d *dataset.Data, res *selection.SearchResult, scheme selection.Scheme, meas measure.Measure, basisHoldOut string) *Fit {
	m, width := d.X.Dims()
	out := &Fit{Learner: learner, Kernel: res.Kernel, GammaScale: res.GammaScale, KernelDegenerate: res.Degenerate, Form: formOf(res.Learner), Lambda: res.Lambda,
		NTrain: m, NFeatures: width, Outputs: d.LabelNames, NBasis: len(basisOf(res.Learner)), Backend: linalg.Backend(),
		Queries: QueryStats(d)}
	if pr := res.Permutation; pr != nil {
		out.Perm = &Permutation{Permutations: pr.Permutations, PValue: pr.PValue, Real: pr.Real, NullMean: pr.NullMean, NullSD: pr.NullSD}
	}
	if scheme.Kind == selection.None {
		return out
	}
	multi := len(res.Curves) > 1
	out.CV = &CV{Strategy: scheme.Name, Measure: meas.Name, BasisHoldOut: basisHoldOut,
		Best: Point(res.Curves[res.Best].Best, res.Kernel, multi)}
	for _, c := range res.Curves {
		for _, pt := range c.Curve {
			out.CV.Curve = append(out.CV.Curve, Point(pt, c.Kernel, multi))
		}
	}
	out.CV.Best.OnEdge = res.OnEdge
	if res.Choose != "" {
		c := res.Curves[res.Best]
		chosen := Point(c.Curve[res.Chosen], res.Kernel, multi)
		chosen.OnEdge = res.OnEdge
		out.CV.Choose, out.CV.Chosen = res.Choose, &chosen
		if res.Chosen != c.BestIndex { // the edges are the chosen point's (the model's), not the best's
			out.CV.Best.OnEdge = nil
		}
	}
	for _, o := range res.PerOutput {
		name := fmt.Sprint(o.Output + 1)
		if o.Output < len(d.LabelNames) {
			name = d.LabelNames[o.Output]
		}
		out.CV.BestPerOutput = append(out.CV.BestPerOutput, OutputBest{Output: name, Lambda: o.Lambda, Value: o.Value})
	}
	return out
}

// formOf names the form the learner factored its kernel matrix in.
func formOf(l any) string {
	if f, ok := l.(interface{ Form() factor.Form }); ok {
		return f.Form().String()
	}
	return ""
}

// basisOf returns the basis rows of a sparse learner (nil otherwise).
func basisOf(l any) []int {
	if b, ok := l.(interface{ Basis() []int }); ok {
		return b.Basis()
	}
	return nil
}
