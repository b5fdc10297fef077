package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlskit/rlskit/summary"
)

// TournamentROC is the ROC panel of fit --roc tlpo (summary.ROC,
// selection.Tournament): the curve of the rows' tournament scores, its AUC
// and the leave-pair-out AUC, with their intervals at Level.
type TournamentROC struct {
	FPR, TPR              []float64
	AUC, LPOAUC           float64
	Interval, LPOInterval [2]float64
	Level                 float64
	Pos, Neg, Pairs       int
	Transitive            bool
}

// TournamentFromSummary is the panel of the JSON roc (nil for nil).
func TournamentFromSummary(r *summary.ROC) *TournamentROC {
	if r == nil {
		return nil
	}
	t := &TournamentROC{AUC: r.AUC, LPOAUC: r.LPOAUC, Interval: r.AUCInterval, LPOInterval: r.LPOInterval,
		Level: r.Level, Pos: r.Positives, Neg: r.Negatives, Pairs: r.Pairs, Transitive: r.Transitive}
	for _, p := range r.Points {
		t.FPR, t.TPR = append(t.FPR, p[0]), append(t.TPR, p[1])
	}
	return t
}

// tlpoFigure draws the tournament ROC curve with the diagonal reference; the
// caption gives both AUCs and their intervals. A curve that does not run
// from (0, 0) to (1, 1) within [0, 1] is an error wrapping ErrData.
func tlpoFigure(d *Data) (figure, error) {
	t := d.TLPO
	n := len(t.FPR)
	if n < 2 || len(t.TPR) != n || t.FPR[0] != 0 || t.TPR[0] != 0 || t.FPR[n-1] != 1 || t.TPR[n-1] != 1 {
		return figure{}, fmt.Errorf("%w: the tournament ROC curve must run from (0, 0) to (1, 1): %d and %d points", ErrData, len(t.FPR), len(t.TPR))
	}
	for k := range t.FPR {
		if !(t.FPR[k] >= 0 && t.FPR[k] <= 1 && t.TPR[k] >= 0 && t.TPR[k] <= 1) {
			return figure{}, fmt.Errorf("%w: tournament ROC point %d (%v, %v) outside [0, 1]", ErrData, k, t.FPR[k], t.TPR[k])
		}
	}
	if math.IsNaN(t.AUC) || math.IsNaN(t.LPOAUC) {
		return figure{}, fmt.Errorf("%w: tournament AUC %v, LPO AUC %v", ErrData, t.AUC, t.LPOAUC)
	}
	fpr, tpr := thinCurve(t.FPR, t.TPR, 1e-3)
	pts := make(plotter.XYs, len(fpr))
	for i := range fpr {
		pts[i] = plotter.XY{X: fpr[i], Y: tpr[i]}
	}
	auc := formatAUC(t.AUC)
	p := newPlot("Tournament leave-pair-out ROC curve (AUC = "+auc+")", "false positive rate", "true positive rate")
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return figure{}, fmt.Errorf("report: TLPO diagonal: %w", err)
	}
	diag.LineStyle = draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return figure{}, fmt.Errorf("report: TLPO curve: %w", err)
	}
	line.LineStyle = draw.LineStyle{Color: palette[0], Width: 2}
	p.Add(diag, line)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Legend.Add("tournament scores", line)
	p.Legend.Add("chance", diag)
	agree := "the comparisons are not transitive, so the two AUCs may differ"
	if t.Transitive {
		agree = "the comparisons are transitive, so the two AUCs are equal"
	}
	caption := fmt.Sprintf("Every one of the %d pairs of the %d positive and %d negative rows held out, each row scored by its wins (ties ½; Montoya Perez et al. 2019). "+
		"AUC of the tournament scores = %s, %g%% DeLong interval [%s, %s]; leave-pair-out AUC over the positive–negative pairs = %s [%s, %s]; %s. Dashed diagonal: chance.",
		t.Pairs, t.Pos, t.Neg, auc, 100*t.Level, formatAUC(t.Interval[0]), formatAUC(t.Interval[1]),
		formatAUC(t.LPOAUC), formatAUC(t.LPOInterval[0]), formatAUC(t.LPOInterval[1]), agree)
	svg, err := renderSVG(p, "Tournament leave-pair-out ROC curve, AUC "+auc)
	if err != nil {
		return figure{}, err
	}
	return figure{ID: "roc-tlpo", Heading: "ROC curve — tournament leave-pair-out", SVG: svg, Caption: caption}, nil
}
