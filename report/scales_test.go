package report

import (
	"math"
	"strings"
	"testing"
)

// TestLogTicks: a log CV axis labels 1-2-5 × 10^k over a few decades (so a
// minimum near 260 sits between labels 200 and 500), every multiple over
// about a decade, only powers of ten over many, and prints them exactly.
func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{250, 10500, "500 1000 2000 5000 10000"},
		{0.03, 0.9, "0.05 0.1 0.2 0.5"},
		{3000, 8500, "3000 4000 5000 6000 7000 8000"},
		{1e-3, 1e5, "0.001 0.01 0.1 1 10 100 1000 10000 100000"},
		{1e-20, 1e20, "1e-20 1e-15 1e-10 1e-05 1 100000 1e+10 1e+15 1e+20"},
	} {
		if got := strings.Join(labels(tc.lo, tc.hi), " "); got != tc.want {
			t.Errorf("log ticks over [%g, %g]: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := (logTicks{}).Ticks(-1, 10); len(got) == 0 {
		t.Error("no fallback ticks for a non-positive range")
	}
}

// TestColourScale: the heatmap's colours are clipped on the poor side only
// when a few poor cells would take most of the range, go log with the CV
// axis, and the caption and colour bar say so.
func TestColourScale(t *testing.T) {
	flat := []float64{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9}
	outlier := []float64{1, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 5, 9, math.NaN()}
	for _, tc := range []struct {
		name              string
		v                 []float64
		log, higher       bool
		clipLow, clipHigh bool
		lo, hi            float64
	}{
		{"even spread", flat, false, false, false, false, 1, 1.9},
		{"poor outliers, lower better", outlier, false, false, false, true, 1, 1.07},
		{"poor outliers, higher better", outlier, false, true, false, false, 1, 9},
		{"good outliers, higher better", []float64{0.5, 0.5, 0.51, 0.52, 0.5, 0.53, 0.5, 0.5, 0.95, 0.99}, false, true, false, false, 0.5, 0.99},
		{"poor outliers, higher better (low)", []float64{0.1, 0.15, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97}, false, true, true, false, 0.9, 0.97},
		{"log", []float64{1, 10, 100, 1000, 10000, 100, 10, 1}, true, false, false, false, 0, 4},
		{"too few to clip", []float64{1, 1, 9}, false, false, false, false, 1, 9},
	} {
		s := newColourScale(tc.v, tc.log, tc.higher)
		if s.ClipLow != tc.clipLow || s.ClipHigh != tc.clipHigh || math.Abs(s.Lo-tc.lo) > 1e-12 || math.Abs(s.Hi-tc.hi) > 1e-12 {
			t.Errorf("%s: scale %+v, want clip %v/%v range [%v, %v]", tc.name, s, tc.clipLow, tc.clipHigh, tc.lo, tc.hi)
		}
		if s.Log != tc.log {
			t.Errorf("%s: log %v", tc.name, s.Log)
		}
	}
	s := newColourScale(outlier, false, false)
	if s.at(9) != s.Hi || s.at(1.02) != 1.02 || !math.IsNaN(s.at(math.NaN())) {
		t.Errorf("at: %v %v", s.at(9), s.at(1.02))
	}
	var top string
	for _, tk := range (barTicks{s}).Ticks(s.Lo, s.Hi) {
		if tk.Value == s.Hi {
			top = tk.Label
		}
	}
	if top != "≥ 1.07" {
		t.Errorf("colour bar's clipped end labelled %q", top)
	}

	d := fullData()
	for i := range d.Curves {
		d.Curves[i].Values[0] = 50 // a few very poor cells
	}
	out := render(t, d)
	if !strings.Contains(out, "Colours stop at") || !strings.Contains(out, "&gt;= ") && !strings.Contains(out, "≥ ") {
		t.Error("clipped heatmap not explained")
	}
	if out := render(t, fullData()); strings.Contains(out, "Colours stop at") {
		t.Error("heatmap clipped without poor outliers")
	}
}

// TestCaptionNotes: ValueNote and NoFoldNote are printed in the CV caption,
// the latter only when there is no fold panel.
func TestCaptionNotes(t *testing.T) {
	d := fullData()
	d.ValueNote = "the mean over the 2 outputs of each output's value over the 200 leave-one-out predictions"
	d.NoFoldNote = "No per-fold panel: leave-one-out."
	out := render(t, d)
	cv := out[strings.Index(out, `id="cv-curve"`):]
	cv = cv[:strings.Index(cv, "</section>")]
	if !strings.Contains(cv, "The mse is the mean over the 2 outputs of each output&#39;s value over the 200 leave-one-out predictions.") {
		t.Errorf("no value note in the CV caption:\n%s", cv[strings.Index(cv, "<figcaption>"):])
	}
	if strings.Contains(out, "No per-fold panel") {
		t.Error("no-fold note shown beside a fold panel")
	}
	d.FoldValues = nil
	if out := render(t, d); !strings.Contains(out, "No per-fold panel: leave-one-out.") || strings.Contains(out, `id="fold-spread"`) {
		t.Error("no-fold note missing without fold values")
	}
}

// TestNullOffScale: a real value within the null's reach is a line on the
// histogram's axis; one far outside is an arrow at the edge, said in the
// caption; the caption's p-value and mean are the data's.
func TestNullOffScale(t *testing.T) {
	d := fullData() // null 0.67 … 1.05
	d.Observed = 0.1
	out := render(t, d)
	if !strings.Contains(out, "← real labels: 0.1") || !strings.Contains(out, "far outside the null distribution") {
		t.Error("far observed value not drawn as an arrow")
	}
	d.Observed = 0.85
	out = render(t, d)
	if strings.Contains(out, "← real labels") || strings.Contains(out, "far outside") || !strings.Contains(out, ">real labels<") {
		t.Error("near observed value not drawn as a line")
	}
	if !strings.Contains(out, "Real labels: mse = 0.85, p = 0.01") {
		t.Error("caption lacks the observed value and p")
	}
	d.Observed = 2
	if out := render(t, d); !strings.Contains(out, "real labels: 2 →") {
		t.Error("arrow to a far larger value missing")
	}
}

// TestHeatmapNeedsOneGrid: the heatmap appears for several curves on one λ
// grid and not for a single curve or curves on different grids.
func TestHeatmapNeedsOneGrid(t *testing.T) {
	d := fullData()
	if !heatmapPossible(&d) {
		t.Error("no heatmap for three curves on one grid")
	}
	one := d
	one.Curves, one.BestCurve = d.Curves[:1], 0
	if heatmapPossible(&one) {
		t.Error("heatmap of a single curve")
	}
	other := d
	other.Curves = append([]Curve(nil), d.Curves...)
	other.Curves[2] = Curve{Label: "x", Lambdas: []float64{1, 2}, Values: []float64{1, 2}}
	if heatmapPossible(&other) || strings.Contains(render(t, other), `id="heatmap"`) {
		t.Error("heatmap of curves on different λ grids")
	}
	out := render(t, d)
	hm := out[strings.Index(out, `id="heatmap"`):]
	hm = hm[:strings.Index(hm, "</section>")]
	for _, want := range []string{">gamma=0.1<", ">gamma=0.5<", ">gamma=2<", "chosen cell is ringed (gamma=0.5, λ = 2^-3, mse = "} {
		if !strings.Contains(hm, want) {
			t.Errorf("heatmap lacks %q", want)
		}
	}
}

// TestFoldTicks: every fold is labelled up to 20 folds, about ten labels
// beyond, always the last.
func TestFoldTicks(t *testing.T) {
	for n, want := range map[int]string{4: "1 2 3 4", 10: "1 2 3 4 5 6 7 8 9 10", 45: "1 6 11 16 21 26 31 36 41 45"} {
		var got []string
		for _, tk := range (foldTicks{n}).Ticks(0.5, float64(n)+0.5) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%d folds: labels %q, want %q", n, got, want)
		}
	}
}
