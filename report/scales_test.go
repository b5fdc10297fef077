package report

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// gridLike is a 13 × 21 grid of CV values shaped like the brief of issue 24
// (item 8): most cells within 10–30 % of the best b, a band within 0–10 %,
// and a few very poor cells (7b); mirrored when higher is better (the poor
// cells at b − 0.45|b|, an AUC of 0.9 falling to 0.5). NaN marks one
// missing cell.
func gridLike(b float64, higher bool) []float64 {
	var v []float64
	for g := range 13 {
		for l := range 21 {
			u := float64((g*7+l*13)%29) / 28 // 0 … 1, deterministic
			e := 0.1 + 0.2*u                 // 10–30 % worse
			if g == 6 && l >= 5 && l <= 15 {
				e = 0.01 * float64(l-5) // 0 … 10 %: the good band
			}
			if g == 12 && l > 15 {
				e = 6 // very poor
			}
			if higher {
				v = append(v, b-math.Abs(b)*min(e, 0.45)) // an AUC of 0.9 falls to 0.5
			} else {
				v = append(v, b+math.Abs(b)*e)
			}
		}
	}
	v[3] = math.NaN()
	return v
}

// nearRange is the smallest and largest finite value within 10 % of the
// best (the best included).
func nearRange(v []float64, higher bool) (lo, hi float64) {
	sp := newSpan(v, higher)
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if finite(x) && math.Abs(x-sp.Best) <= 0.1*math.Abs(sp.Best)*(1+1e-12) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	return lo, hi
}

// TestColourScale: on a realistic grid the heatmap's colours give the cells
// within 10 % of the best at least 40 % of the colour range (the linear
// scale gave them 0.1/6 ≈ 2 % there), keep the order of the values
// (monotone), work mirrored for higher-is-better measures, stop at the cut
// only when poor values would squeeze the good region, and stay linear when
// every value is near the best.
func TestColourScale(t *testing.T) {
	for _, tc := range []struct {
		name   string
		v      []float64
		higher bool
	}{
		{"mse-like", gridLike(4000, false), false},
		{"auc-like", gridLike(0.9, true), true},
		{"loss near 1", gridLike(1, false), false},
		{"negative best", gridLike(-2, true), true},
	} {
		s := newColourScale(tc.v, tc.higher)
		if s.Focus == nil {
			t.Fatalf("%s: linear colours on a grid whose good region is 2 %% of the range", tc.name)
		}
		lo, hi := nearRange(tc.v, tc.higher)
		share := (s.at(hi) - s.at(lo)) / (s.Hi - s.Lo)
		if share < colourNearShare {
			t.Errorf("%s: cells within 10 %% of the best span %.3f of the colour range, want ≥ %v", tc.name, share, colourNearShare)
		}
		t.Logf("%s: the cells within 10 %% of the best span %.3f of the colour range", tc.name, share)
		// monotone: the colour coordinate never decreases with the value and
		// strictly increases between distinct unclipped values
		var fin []float64
		for _, x := range tc.v {
			if finite(x) {
				fin = append(fin, x)
			}
		}
		slices.Sort(fin)
		for i := 1; i < len(fin); i++ {
			a, b := s.at(fin[i-1]), s.at(fin[i])
			if b < a || fin[i] > fin[i-1] && b == a && a > s.Lo && b < s.Hi {
				t.Fatalf("%s: colour of %v is %v, of %v is %v: not monotone", tc.name, fin[i-1], a, fin[i], b)
			}
		}
		// the best value has the colour of its end: dark (Lo) when lower is
		// better, light (Hi) when higher is
		if best := newSpan(tc.v, tc.higher).Best; tc.higher && s.at(best) != s.Hi || !tc.higher && s.at(best) != s.Lo {
			t.Errorf("%s: the best value %v is not at the colour range's end", tc.name, best)
		}
		if s.ClipLow || s.ClipHigh {
			t.Errorf("%s: clipped at worst/best = 7", tc.name)
		}
		if math.Abs(s.value(s.at(fin[len(fin)/2]))-fin[len(fin)/2]) > 1e-9*math.Abs(fin[len(fin)/2]) {
			t.Errorf("%s: value does not invert at", tc.name)
		}
	}

	// far poorer cells: the colours stop at the cut, on the poor side
	for _, higher := range []bool{false, true} {
		v := gridLike(1, higher)
		if higher {
			v[0], v[1] = -1e3, -1e6
		} else {
			v[0], v[1] = 1e3, 1e6
		}
		s := newColourScale(v, higher)
		if s.ClipHigh == higher || s.ClipLow != higher {
			t.Fatalf("higher %v: clip %v/%v", higher, s.ClipLow, s.ClipHigh)
		}
		lo, hi := nearRange(v, higher)
		if share := (s.at(hi) - s.at(lo)) / (s.Hi - s.Lo); share < colourNearShare-1e-9 {
			t.Errorf("higher %v: with cut colours the good cells span %.3f", higher, share)
		}
		end, label := s.Hi, "≥ "
		if higher {
			end, label = s.Lo, "≤ "
		}
		if s.at(v[1]) != end || s.at(v[0]) != end {
			t.Errorf("higher %v: poor cells not at the colour end", higher)
		}
		var got string
		for _, tk := range (barTicks{s}).Ticks(s.Lo, s.Hi) {
			if tk.Value == end {
				got = tk.Label
			}
		}
		if got != label+num(s.value(end)) {
			t.Errorf("higher %v: colour bar's clipped end labelled %q", higher, got)
		}
	}

	// all within 25 % of the best: linear, unclipped, from best to worst
	narrow := []float64{1, 1.1, 1.2, 1.25, math.NaN(), 1.05}
	if s := newColourScale(narrow, false); s.Focus != nil || s.ClipHigh || s.Lo != 1 || s.Hi != 1.25 {
		t.Errorf("narrow values: scale %+v, want linear [1, 1.25]", s)
	}
	if s := newColourScale([]float64{math.NaN()}, false); s.Lo != 0 || s.Hi != 1 {
		t.Errorf("no values: scale %+v", s)
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

// TestFocusTicks: a focus axis over the diabetes grid's range is labelled
// with the best value, round values near it and round powers far from it,
// at least minTickGap apart, in increasing order, inside the range; AUC-like
// values are labelled the same way mirrored.
func TestFocusTicks(t *testing.T) {
	for _, tc := range []struct {
		best, worst float64
		higher      bool
		want        string
	}{
		{3408.0149, 29074, false, "3408 3440 3500 3650 4000 5000 10000 20000"},
		{0.93, 0.5, true, "0.5 0.7 0.8 0.85 0.9 0.92 0.926 0.93"},
	} {
		f, _, ok := focusFor(span{Best: tc.best, Worst: tc.worst, Dist: math.Abs(tc.worst - tc.best), ok: true}, tc.higher, curveNearShare)
		if !ok {
			t.Fatalf("no focus for %v … %v", tc.best, tc.worst)
		}
		lo, hi := min(tc.best, tc.worst), max(tc.best, tc.worst)
		ticks := (focusTicks{f}).Ticks(lo, hi)
		var labels []string
		for i, tk := range ticks {
			labels = append(labels, tk.Label)
			if tk.Value < lo || tk.Value > hi {
				t.Errorf("tick %v outside [%v, %v]", tk.Value, lo, hi)
			}
			if i > 0 && f.Normalize(lo, hi, tk.Value)-f.Normalize(lo, hi, ticks[i-1].Value) < minTickGap {
				t.Errorf("ticks %v and %v closer than %v of the axis", ticks[i-1].Value, tk.Value, minTickGap)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("focus ticks over [%v, %v]: %q, want %q", lo, hi, got, tc.want)
		}
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
