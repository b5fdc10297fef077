package pairwise

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// The learner contract (package learn) on the two closed-form learners:
// both are learners whose solutions predict pairs (PairModel), cross-validate
// every design along their λ grid(s) at once (learn.DesignValidator) and give
// the perturbed twin of the tie rule (learn.Perturber); two-step RLS also
// solves at a second, column λ (learn.ColLambdaLearner).
var (
	_ learn.Learner          = (*KronRLS)(nil)
	_ learn.DesignValidator  = (*KronRLS)(nil)
	_ learn.Perturber        = (*KronRLS)(nil)
	_ learn.Learner          = (*TwoStep)(nil)
	_ learn.DesignValidator  = (*TwoStep)(nil)
	_ learn.Perturber        = (*TwoStep)(nil)
	_ learn.ColLambdaLearner = (*TwoStep)(nil)
	_ learn.Learner          = (*TwoStepAt)(nil)
	_ learn.Perturber        = (*TwoStepAt)(nil)

	_ interface{ PairModel() *model.PairPredictor } = (*KronSolution)(nil)
	_ interface{ PairModel() *model.PairPredictor } = (*TwoStepSolution)(nil)
)

// design converts a learn.Design, whose settings are this package's words
// ("pairs", "rows", "cols", "both", "vertices"), to a Design.
func design(d learn.Design) Design {
	return Design{Setting: Setting(d.Setting), RowFolds: d.RowFolds, ColFolds: d.ColFolds}
}

// Learn returns the design as a learn.Design (the same words and folds).
func (d Design) Learn() learn.Design {
	return learn.Design{Setting: string(d.Setting), RowFolds: d.RowFolds, ColFolds: d.ColFolds}
}

// picker turns the m×q CV predictions of a design into the n×1 predictions
// of the labelled pairs in their given order (labels.pick), into one buffer
// reused from call to call: O(n) per call. When the pairs given are the
// grid in row-major order it returns an n×1 view of P's storage instead,
// O(1) (valid as long as P is).
type picker struct {
	lab *labels
	out *mat.Dense
}

func newPicker(lab *labels) *picker {
	return &picker{lab: lab}
}

func (pk *picker) pick(p *mat.Dense) *mat.Dense {
	if raw := p.RawMatrix(); pk.lab.rowMajor && raw.Stride == raw.Cols && raw.Rows == pk.lab.m && raw.Cols == pk.lab.q {
		return mat.NewDense(raw.Rows*raw.Cols, 1, raw.Data[:raw.Rows*raw.Cols])
	}
	if pk.out == nil {
		pk.out = mat.NewDense(len(pk.lab.given), 1, nil)
	}
	raw := pk.out.RawMatrix().Data
	for i, pr := range pk.lab.given {
		raw[i] = p.At(pr.Row, pr.Col)
	}
	return pk.out
}

// CrossValidateDesign is CrossValidate as learn.DesignValidator: for each
// λ = lambdas[i] it hands visit(i, 0, P) the n×1 CV predictions of the n
// labelled pairs in their given order (NaN for a pair no fold predicts;
// valid during the call only). The setting is one of "pairs" (A), "rows"
// (B), "cols" (C), "both" (D) or "vertices" (homogeneous networks); nil
// folds leave each object out alone. Kronecker RLS has one λ: colLambdas
// must be nil (an error wrapping ErrSetting otherwise). Cost: CrossValidate's
// (per λ O(m·q·(m + q)) for A–C, see LeaveBothOut for D and vertices) plus
// O(n) per λ to pick the pairs.
func (k *KronRLS) CrossValidateDesign(d learn.Design, lambdas, colLambdas []float64, visit func(i, j int, p *mat.Dense) error) error {
	if colLambdas != nil {
		return fmt.Errorf("%w: Kronecker RLS has one λ; got %d column λ values (two-step RLS takes them)", ErrSetting, len(colLambdas))
	}
	pk := newPicker(k.lab)
	return k.CrossValidate(design(d), lambdas, func(i int, p *mat.Dense) error {
		return visit(i, 0, pk.pick(p))
	})
}

// CrossValidateDesign is CrossValidate as learn.DesignValidator: for every
// (λ_r, λ_c) = (lambdas[i], colLambdas[j]) it hands visit(i, j, P) the n×1
// CV predictions of the n labelled pairs in their given order (NaN for a
// pair no fold predicts; valid during the call only). colLambdas is
// required. The two grids are traversed jointly as in CrossValidate: the
// stage of the outer side's λ (the side with more objects) is computed once
// and shared by every λ of the other side, O(m·q·max(m, q)) per outer λ and
// O(m·q·min(m, q)) per (λ_r, λ_c), plus O(n) per point to pick the pairs.
func (t *TwoStep) CrossValidateDesign(d learn.Design, lambdas, colLambdas []float64, visit func(i, j int, p *mat.Dense) error) error {
	if colLambdas == nil {
		return fmt.Errorf("%w: two-step RLS needs a column λ grid", ErrSetting)
	}
	pk := newPicker(t.lab)
	return t.CrossValidate(design(d), lambdas, colLambdas, func(i, j int, p *mat.Dense) error {
		return visit(i, j, pk.pick(p))
	})
}

// Name is learn.TwoStep.
func (t *TwoStep) Name() learn.Name { return learn.TwoStep }

// At solves at (λ, λ) — the same λ for both steps — as the learn.Learner
// contract, so that a search over one λ has a model. Searches over two-step
// RLS use AtBoth (learn.ColLambdaLearner) at the (λ, λ_c) they choose, and
// WithColLambda fixes λ_c for a search over λ alone. O(m + q).
func (t *TwoStep) At(lambda float64) (learn.Solution, error) { return t.AtBoth(lambda, lambda) }

// AtBoth is Solve(λ, λ_c) as learn.ColLambdaLearner: the model at the row
// λ and the column λ_c without refactoring. O(m + q).
func (t *TwoStep) AtBoth(lambda, colLambda float64) (learn.Solution, error) {
	s, err := t.Solve(lambda, colLambda)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// TwoStepAt is two-step RLS with the column λ fixed, as a learn.Learner:
// At(λ) solves at (λ, col λ).
type TwoStepAt struct {
	*TwoStep
	ColLambda float64
}

// WithColLambda returns the learner whose At(λ) is Solve(λ, colLambda).
func (t *TwoStep) WithColLambda(colLambda float64) *TwoStepAt {
	return &TwoStepAt{TwoStep: t, ColLambda: colLambda}
}

// Name is learn.TwoStep.
func (t *TwoStepAt) Name() learn.Name { return learn.TwoStep }

// At solves at (λ, ColLambda): the learn.Learner contract.
func (t *TwoStepAt) At(lambda float64) (learn.Solution, error) { return t.AtBoth(lambda, t.ColLambda) }

// Perturbed is TwoStep.Perturbed with the same fixed column λ (the twin's
// At(λ) solves at (λ, ColLambda) too).
func (t *TwoStepAt) Perturbed(s float64) (learn.Learner, error) {
	tw, err := t.TwoStep.perturbed(s)
	if err != nil {
		return nil, err
	}
	return tw.WithColLambda(t.ColLambda), nil
}

// Perturbed is the twin of learn.Perturber: Kronecker RLS on the labels
// times s whose two eigendecompositions K = U diag(e) Uᵀ and
// G = V diag(σ) Vᵀ have every eigenvalue moved up by about its rounding
// error — e_k + δ_K·u_k with δ_K = m·ε·max|e| on the rows and
// σ_l + δ_G·u_l with δ_G = q·ε·max|σ| on the columns, u ∈ (0, 1] the fixed
// sequence of factor.PerturbUp, and likewise the per-fold eigendecompositions
// of settings D and vertices — sharing the eigenvectors, the sides and the
// pairs (not Progress). In exact arithmetic, and without the perturbation,
// its cross-validation predictions are s times the learner's; package
// selection compares the two to measure their forward error (the tie rule),
// running both side by side: they share only what neither modifies. Cost
// O(m·q) for the labels and UᵀYV, O(m + q) for the spectra.
func (k *KronRLS) Perturbed(s float64) (learn.Learner, error) {
	if err := checkScale(s); err != nil {
		return nil, err
	}
	// no Progress: the twin runs alongside the learner (selection's lockstep)
	tw := &KronRLS{problem: k.problem.scaled(s), spectrum: k.spectrum.perturbed(s), perturbed: true}
	return tw, nil
}

// Perturbed is the twin of learn.Perturber: two-step RLS on the labels
// times s whose two eigendecompositions have every eigenvalue moved up by
// about its rounding error (per side, as KronRLS.Perturbed), sharing the
// eigenvectors, the sides and the pairs; its At, AtBoth and
// CrossValidateDesign are two-step RLS's. Cost O(m·q) plus O(m + q).
func (t *TwoStep) Perturbed(s float64) (learn.Learner, error) {
	tw, err := t.perturbed(s)
	if err != nil {
		return nil, err
	}
	return tw, nil
}

func (t *TwoStep) perturbed(s float64) (*TwoStep, error) {
	if err := checkScale(s); err != nil {
		return nil, err
	}
	return &TwoStep{problem: t.problem.scaled(s), spectrum: t.spectrum.perturbed(s)}, nil
}

// checkScale refuses a twin scale that is 0, NaN or ±Inf.
func checkScale(s float64) error {
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("pairwise: %w: twin scale %v: want a finite non-zero number", learnErrShape, s)
	}
	return nil
}

// scaled returns the problem with its labels times s (the sides shared). O(m·q).
func (p problem) scaled(s float64) problem {
	p.lab = p.lab.scaled(s)
	return p
}

// scaled returns the labels times s, sharing the pairs. O(n + m·q).
func (l *labels) scaled(s float64) *labels {
	out := *l
	out.givenY = scaleSlice(l.givenY, s)
	out.obsY = scaleSlice(l.obsY, s)
	if l.full != nil {
		out.full = mat.NewDense(l.m, l.q, nil)
		out.full.Scale(s, l.full)
	}
	return &out
}

func scaleSlice(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = s * x
	}
	return out
}

// perturbed returns the spectrum of the labels times s with both sides'
// eigenvalues moved up by factor.PerturbUp, sharing the eigenvectors (and
// U∘U, V∘V): Uᵀ(sY)V = s·UᵀYV. O(m·q + m + q).
func (sp spectrum) perturbed(s float64) spectrum {
	out := sp
	out.er, out.ec = factor.PerturbUp(sp.er), factor.PerturbUp(sp.ec)
	yt := mat.NewDense(len(sp.er), len(sp.ec), nil)
	yt.Scale(s, sp.yt)
	out.yt = yt
	return out
}
