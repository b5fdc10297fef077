package summary

import "github.com/rlskit/rlskit/selection"

// ROC is the JSON "roc" of fit --roc tlpo: a tournament leave-pair-out ROC
// analysis at the chosen λ (selection.Tournament; Montoya Perez et al.
// 2019). AUC is the area under the curve of the rows' tournament scores
// (wins over all m(m−1)/2 held-out pairs, ties ½), LPOAUC the leave-pair-out
// AUC over the positive–negative pairs; they are equal when the comparisons
// are transitive (Transitive) and close, not equal, in general. Both
// intervals are DeLong et al. (1988) at Level.
type ROC struct {
	Method      string       `json:"method"`
	AUC         float64      `json:"auc"`
	AUCInterval [2]float64   `json:"auc_interval"`
	LPOAUC      float64      `json:"lpo_auc"`
	LPOInterval [2]float64   `json:"lpo_auc_interval"`
	Level       float64      `json:"level"`
	Interval    string       `json:"interval_method"`
	Transitive  bool         `json:"transitive"`
	Pairs       int          `json:"pairs"`
	Positives   int          `json:"positives"`
	Negatives   int          `json:"negatives"`
	Tolerance   float64      `json:"tie_tolerance"`
	Points      [][2]float64 `json:"points"`
	Wins        []float64    `json:"wins"`
}

// TLPO is the JSON of a tournament: the curve's vertices as [fpr, tpr].
// O(m).
func TLPO(t *selection.TLPO) *ROC {
	r := &ROC{Method: "tlpo", AUC: t.AUC, AUCInterval: t.Interval, LPOAUC: t.LPOAUC, LPOInterval: t.LPOInterval,
		Level: t.Level, Interval: "delong", Transitive: t.Transitive, Pairs: t.Pairs, Positives: t.Pos, Negatives: t.Neg,
		Tolerance: t.Tolerance, Points: make([][2]float64, len(t.FPR)), Wins: t.Wins}
	for k := range t.FPR {
		r.Points[k] = [2]float64{t.FPR[k], t.TPR[k]}
	}
	return r
}
