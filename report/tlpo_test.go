package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestTLPOPanel: fit --roc tlpo's panel is drawn with both AUCs and their
// intervals in the caption; a curve that does not run from (0, 0) to
// (1, 1) or leaves [0, 1] is refused with ErrData and nothing written.
func TestTLPOPanel(t *testing.T) {
	good := TournamentROC{FPR: []float64{0, 0, 0.5, 1}, TPR: []float64{0, 0.5, 1, 1}, AUC: 0.875, LPOAUC: 0.75,
		Interval: [2]float64{0.5285, 1}, LPOInterval: [2]float64{0.4, 1}, Level: 0.95, Pos: 2, Neg: 2, Pairs: 6}
	d := fullData()
	d.TLPO = &good
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{`id="roc-tlpo"`, "AUC of the tournament scores = 0.8750, 95% DeLong interval [0.5285, 1.0000]",
		"leave-pair-out AUC over the positive–negative pairs = 0.7500 [0.4000, 1.0000]", "may differ"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, bad := range []TournamentROC{
		{FPR: []float64{0, 1}, TPR: []float64{0, 0.5}, Level: 0.95},
		{FPR: []float64{0, 1.5, 1}, TPR: []float64{0, 1, 1}, Level: 0.95},
		{FPR: []float64{0}, TPR: []float64{0}, Level: 0.95},
	} {
		d.TLPO = &bad
		buf.Reset()
		if err := Write(&buf, d); !errors.Is(err, ErrData) || buf.Len() != 0 {
			t.Errorf("%v: err %v, %d bytes written", bad, err, buf.Len())
		}
	}
}
