package main

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// svgLabel is a text label of a report's SVG: its position (pt; y grows
// upward, as vgsvg writes it flipped) and its text.
type svgLabel struct {
	x, y float64
	text string
}

var svgText = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)" transform="scale\(1, -1\)"[^>]*>([^<]*)</text>`)

// numericLabels returns the labels of the section's SVG whose text is a
// number and whose x passes keep, by increasing value.
func numericLabels(t *testing.T, doc, id string, keep func(x float64) bool) (values, ys []float64) {
	t.Helper()
	i := strings.Index(doc, `<section id="`+id+`">`)
	if i < 0 {
		t.Fatalf("no section %s", id)
	}
	sec := doc[i : i+strings.Index(doc[i:], "</section>")]
	var ls []svgLabel
	for _, m := range svgText.FindAllStringSubmatch(sec, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		if _, err := strconv.ParseFloat(m[3], 64); err == nil && keep(x) {
			ls = append(ls, svgLabel{x, -y, m[3]})
		}
	}
	slices.SortFunc(ls, func(a, b svgLabel) int {
		va, _ := strconv.ParseFloat(a.text, 64)
		vb, _ := strconv.ParseFloat(b.text, 64)
		return int(math.Copysign(1, va-vb))
	})
	for _, l := range ls {
		v, _ := strconv.ParseFloat(l.text, 64)
		values, ys = append(values, v), append(ys, l.y)
	}
	return values, ys
}

// TestReportAxesDiabetes (issue 24, item 8): on the diabetes data, a 13 γ ×
// 21 λ Gaussian grid without --standardize has LOO mse from 3408 to 29074,
// where a linear axis and linear colours gave the values within 10 % of the
// best under 2 % of the range and one colour. The report's curve axis and
// heatmap colours are instead logarithmic in the distance from the best, as
// both captions say (naming the summary's best value and c = 0.5 % of it),
// which gives them at least 40 % of the range from the best to the worst;
// the curve's y-axis labels and the colour bar's each put at least three
// values in [best, 1.1·best] (the linear axis had none), and the labels'
// positions in the SVG are affine in the captions' log₁₀(mse − best + c), in
// increasing order: the drawn axis is the one described. No value is far
// enough to be held at an edge.
func TestReportAxesDiabetes(t *testing.T) {
	doc, o := fitReport(t, "--data", "../../docs/data/diabetes.csv", "--label", "progression",
		"--kernel", "gaussian", "--gamma-grid", "2^-12..2^0", "--lambda-grid", "2^-10..2^10")
	if n := len(o.CV.Curve); n != 13*21 {
		t.Fatalf("%d curve points, want 273", n)
	}
	best := o.CV.Best.Value
	for _, p := range o.CV.Curve {
		best = min(best, p.Value)
	}
	if best != o.CV.Best.Value {
		t.Fatalf("chosen mse %v is not the grid's least %v", o.CV.Best.Value, best)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	c := 0.005 * best
	formula := "log₁₀(mse − " + num(best) + " + " + num(c) + "), " + num(c) + " being 0.5 % of the best"
	curve := strings.Join(strings.Fields(sectionText(doc, "cv-curve")), " ")
	heat := strings.Join(strings.Fields(sectionText(doc, "heatmap")), " ")
	if !strings.Contains(curve, "The y axis is logarithmic in the distance from the best mse: it follows "+formula) {
		t.Errorf("the CV curve's caption does not describe the focus axis %q:\n%s", formula, curve)
	}
	if !strings.Contains(heat, "The colour scale is logarithmic in the distance from the best mse: it follows "+formula) {
		t.Errorf("the heatmap's caption does not describe the focus colours %q:\n%s", formula, heat)
	}
	if strings.Contains(curve, "drawn on the dashed line") || strings.Contains(heat, "Colours stop at") {
		t.Error("values held at an edge on a grid whose worst mse is 8.5 times the best")
	}

	tf := func(v float64) float64 { return math.Log10(v - best + c) }
	// on both the axis (before its padding) and the colour bar, the values
	// within 10 % of the best take this share of the range from the best to
	// the worst value; a linear scale gave them under 2 %
	worst := best
	for _, p := range o.CV.Curve {
		worst = max(worst, p.Value)
	}
	share, linear := (tf(1.1*best)-tf(best))/(tf(worst)-tf(best)), 0.1*best/(worst-best)
	t.Logf("the values within 10 %% of the best take %.3f of the range (linear: %.4f)", share, linear)
	if share < 0.4 || linear > 0.02 {
		t.Errorf("within 10 %% of the best: %.3f of the focus range, %.4f of a linear one; want ≥ 0.4 and ≤ 0.02", share, linear)
	}
	for _, panel := range []struct {
		id, what string
		keep     func(x float64) bool
	}{
		{"cv-curve", "y axis", func(x float64) bool { return x < 40 }},     // left of the plotting area
		{"heatmap", "colour bar", func(x float64) bool { return x > 480 }}, // right of the 480 pt plot
	} {
		values, ys := numericLabels(t, doc, panel.id, panel.keep)
		near := 0
		for _, v := range values {
			if v >= best-0.5 && v <= 1.1*best { // "3408" is the best to 4 digits
				near++
			}
		}
		t.Logf("%s labels %v: %d in [best, 1.1·best]", panel.what, values, near)
		if near < 3 {
			t.Errorf("%s labels %v: %d within 10 %% of the best %v, want ≥ 3", panel.what, values, near, best)
		}
		if len(values) < 5 {
			t.Fatalf("%s: %d numeric labels", panel.what, len(values))
		}
		// positions affine in the transform, increasing with the value
		a, b := len(values)-1, 0
		scale := (ys[a] - ys[b]) / (tf(values[a]) - tf(max(values[b], best)))
		for i, v := range values {
			want := ys[b] + scale*(tf(max(v, best))-tf(max(values[b], best)))
			if math.Abs(ys[i]-want) > 0.6 || i > 0 && !(ys[i] > ys[i-1]) {
				t.Errorf("%s label %s at y = %v pt, want %.3f (affine in log₁₀(mse − best + c), increasing)", panel.what, strconv.FormatFloat(v, 'g', -1, 64), ys[i], want)
			}
		}
	}
}
