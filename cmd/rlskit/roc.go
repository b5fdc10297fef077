package main

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// tournamentROC is fit --roc tlpo: selection.Tournament on the chosen
// solution at the chosen λ (every pair of rows held out), with the tie rule
// of leave-pair-out selection (the learner's learn.Perturber twin at the same
// λ). The plan has checked the learner and the flags (plan.planROC); the
// label — one column of exactly two values — is checked here.
func tournamentROC(method, data string, res *selection.SearchResult) (*summary.ROC, error) {
	flag := "--roc " + method
	y := res.Learner.Labels()
	if y == nil {
		return nil, fmt.Errorf("%s needs a label: --learner %s learns from something else", flag, res.Learner.Name())
	}
	labels, err := checkROC(method, data, y)
	if err != nil {
		return nil, err
	}
	var twin learn.Solution
	if p, ok := res.Learner.(learn.Perturber); ok {
		tw, err := p.Perturbed(selection.TwinScale)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		if twin, err = tw.At(res.Lambda); err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
	}
	tr, err := selection.Tournament(res.Solution, twin, labels, 0.95)
	if err != nil {
		return nil, fmt.Errorf("%s (λ = %g): %w", flag, res.Lambda, err)
	}
	return summary.TLPO(tr), nil
}

// checkROC checks, before the search, what --roc METHOD needs of the
// labels y: one column of exactly two values, one > 0 and one ≤ 0, and
// memory for the tournament (selection.TLPOCopies m×m matrices,
// factor.CheckMemory). It returns the labels as a slice. O(m).
func checkROC(method, data string, y *mat.Dense) ([]float64, error) {
	flag := "--roc " + method
	m, t := y.Dims()
	if t != 1 {
		return nil, fmt.Errorf("%s analyses one binary label: %s has %d label columns", flag, data, t)
	}
	labels := make([]float64, m)
	var values []float64
	for i := range labels {
		labels[i] = y.At(i, 0)
		if len(values) < 3 && (len(values) == 0 || labels[i] != values[0]) && (len(values) < 2 || labels[i] != values[1]) {
			values = append(values, labels[i])
		}
	}
	if len(values) != 2 || (values[0] > 0) == (values[1] > 0) {
		return nil, fmt.Errorf("%s needs a binary label — two values, one > 0 (positive) and one ≤ 0 — or --positive CLASS: the label of %s has %s",
			flag, data, describeValues(values))
	}
	if err := factor.CheckMemory(m, selection.TLPOCopies); err != nil {
		return nil, fmt.Errorf("%s holds out all %d pairs of the %d rows of %s: %w", flag, m*(m-1)/2, m, data, err)
	}
	return labels, nil
}

// describeValues names the distinct label values found (at most three
// collected: "3 or more values").
func describeValues(v []float64) string {
	switch len(v) {
	case 1:
		return fmt.Sprintf("one value (%g)", v[0])
	case 2:
		return fmt.Sprintf("the values %g and %g, on the same side of 0", v[0], v[1])
	}
	return fmt.Sprintf("3 or more values (%g, %g, %g, …)", v[0], v[1], v[2])
}
