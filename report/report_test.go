package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fullData returns data with every section: three CV curves on one λ grid
// (one with a NaN gap, so a heatmap), a regression and a binary output, a
// three-class one-vs-all, per-fold values, a permutation null, an on-edge
// warning, provenance and a disagreement histogram.
func fullData() Data {
	rng := rand.New(rand.NewPCG(1, 2))
	d := Data{
		Title: "CV report <test> & co",
		Summary: [][2]string{
			{"data", "200 × 5"},
			{"learner", "<b>kernel RLS</b>"},
			{"chosen", "λ = 0.125, gamma = 0.5"},
		},
		Measure:    "mse",
		BestCurve:  1,
		BestLambda: 0.125,
	}
	for k, g := range []float64{0.1, 0.5, 2} {
		c := Curve{Label: fmt.Sprintf("gamma=%g", g)}
		for e := -10; e <= 2; e++ {
			x := float64(e) + 3
			c.Lambdas = append(c.Lambdas, math.Exp2(float64(e)))
			c.Values = append(c.Values, 0.2+0.01*x*x+0.1*float64(k))
		}
		d.Curves = append(d.Curves, c)
	}
	d.Curves[2].Values[4] = math.NaN()
	d.BestValue = d.Curves[1].Values[7]
	reg, bin := Output{Name: "y"}, Output{Name: "cls", Binary: true}
	for range 200 {
		y := rng.NormFloat64()
		reg.True = append(reg.True, y)
		reg.Predicted = append(reg.Predicted, 0.8*y+0.3*rng.NormFloat64())
		l := float64(rng.IntN(2))
		bin.True = append(bin.True, l)
		bin.Predicted = append(bin.Predicted, l+rng.NormFloat64())
	}
	d.Outputs = []Output{reg, bin}
	d.Classes = []string{"setosa", "versicolor", "virginica"}
	for i := range 150 {
		c := i % 3
		sc := []float64{rng.NormFloat64() * 0.6, rng.NormFloat64() * 0.6, rng.NormFloat64() * 0.6}
		sc[c]++
		d.ClassTrue, d.ClassScores = append(d.ClassTrue, c), append(d.ClassScores, sc)
	}
	for i := range 10 {
		d.FoldValues = append(d.FoldValues, 0.25+0.02*float64(i%4))
	}
	d.FoldNote = "pooled over all folds"
	for range 99 {
		d.Null = append(d.Null, 0.9+0.05*rng.NormFloat64())
	}
	d.Observed, d.PValue = 0.31, 0.01
	d.OnEdge = []string{"gamma at the lower end of its grid"}
	d.Provenance = [][2]string{{"command", "rlskit fit --data d.csv"}, {"data", "d.csv, 1234 bytes, SHA-256 abc"}}
	for i := range 60 {
		d.QueryDisagreement = append(d.QueryDisagreement, math.Mod(float64(i)*0.137, 0.9))
	}
	d.QueryDisagreement = append(d.QueryDisagreement, math.NaN())
	return d
}

// sectionIDs are the plot sections of fullData, in order.
var sectionIDs = []string{"cv-curve", "heatmap", "output-1-scatter", "output-1-residuals", "output-2-roc",
	"confusion", "roc-classes", "fold-spread", "permutation-null", "query-disagreement"}

func render(t *testing.T, d Data) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.String()
}

func TestWriteAllSections(t *testing.T) {
	out := render(t, fullData())
	for _, want := range []string{
		"<!DOCTYPE html>",
		"<title>CV report &lt;test&gt; &amp; co</title>",
		"<h1>CV report &lt;test&gt; &amp; co</h1>",
		"&lt;b&gt;kernel RLS&lt;/b&gt;",
		"200 × 5",
		"gamma=0.5", // legend
		"chosen",
		"60 queries", "Left out: 1 query without comparable pairs",
		"Predictions vs. true labels — y", "Residuals — y", "ROC curve — cls", // named panels
		"Warning: gamma at the lower end of its grid",
		"setosa", "virginica", "p = 0.01", "pooled over all folds",
		"SHA-256 abc", `id="provenance"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "<b>") || strings.Contains(out, "<test>") {
		t.Error("unescaped user text in output")
	}
	if n := strings.Count(out, "<svg"); n != len(sectionIDs) {
		t.Errorf("%d <svg elements, want %d", n, len(sectionIDs))
	}
	if n := strings.Count(out, "</svg>"); n != len(sectionIDs) {
		t.Errorf("%d </svg> closings, want %d", n, len(sectionIDs))
	}
	if strings.Contains(out, "<?xml") {
		t.Error("XML prolog left inside the HTML")
	}
	// Sections in the documented order.
	last := -1
	for _, id := range append(append([]string{"summary"}, sectionIDs...), "provenance") {
		i := strings.Index(out, `id="`+id+`"`)
		if i < 0 || i < last {
			t.Errorf("section %s missing or out of order", id)
		}
		last = i
	}
}

// TestWriteOptionalSections: each panel appears exactly when its data do.
func TestWriteOptionalSections(t *testing.T) {
	bare := fullData()
	bare.Outputs, bare.Classes, bare.ClassTrue, bare.ClassScores = nil, nil, nil, nil
	bare.FoldValues, bare.Null, bare.QueryDisagreement, bare.OnEdge, bare.Provenance = nil, nil, nil, nil, nil
	bare.Summary = nil
	bare.Curves = bare.Curves[:1]
	bare.Curves[0].Label = ""
	bare.BestCurve = 0
	out := render(t, bare)
	if n := strings.Count(out, "<svg"); n != 1 {
		t.Errorf("%d <svg elements, want 1", n)
	}
	for _, absent := range append(sectionIDs[1:], "summary", "provenance", "curve 0", "Warning") {
		if strings.Contains(out, `id="`+absent+`"`) || absent == "curve 0" && strings.Contains(out, absent) {
			t.Errorf("output has %q though it has no data", absent)
		}
	}
	full := fullData()
	for _, tc := range []struct {
		name string
		add  func(d *Data)
		ids  []string
	}{
		{"kernel grid", func(d *Data) { d.Curves, d.BestCurve = full.Curves, 1 }, []string{"heatmap"}},
		{"regression output", func(d *Data) { d.Outputs = full.Outputs[:1] }, []string{"output-1-scatter", "output-1-residuals"}},
		{"binary output", func(d *Data) { d.Outputs = full.Outputs[1:] }, []string{"output-1-roc"}},
		{"one-vs-all", func(d *Data) { d.Classes, d.ClassTrue, d.ClassScores = full.Classes, full.ClassTrue, full.ClassScores },
			[]string{"confusion", "roc-classes"}},
		{"folds", func(d *Data) { d.FoldValues = full.FoldValues }, []string{"fold-spread"}},
		{"permutations", func(d *Data) { d.Null, d.Observed, d.PValue = full.Null, full.Observed, full.PValue }, []string{"permutation-null"}},
		{"provenance", func(d *Data) { d.Provenance = full.Provenance }, []string{"provenance"}},
	} {
		d := bare
		d.Curves = []Curve{{Lambdas: slices.Clone(full.Curves[0].Lambdas), Values: slices.Clone(full.Curves[0].Values)}}
		tc.add(&d)
		out := render(t, d)
		for _, id := range tc.ids {
			if !strings.Contains(out, `id="`+id+`"`) {
				t.Errorf("%s: no section %s", tc.name, id)
			}
		}
		if n := strings.Count(out, "<section id="); n != 1+len(tc.ids) {
			t.Errorf("%s: %d sections, want %d", tc.name, n, 1+len(tc.ids))
		}
	}
}

// TestPowerOfTwoLabel: kernel parameters and λ print as 2^k when they are powers of two.
func TestPowerOfTwoLabel(t *testing.T) {
	for v, want := range map[float64]string{
		0.0078125: "2^-7", 0.25: "2^-2", 4: "2^2", 1024: "2^10", 0.5: "0.5", 1: "1", 2: "2",
		0.1: "0.1", 3: "3", 0: "0", -4: "-4", math.Exp2(-40): "2^-40",
	} {
		if got := Pow2(v); got != want {
			t.Errorf("Pow2(%v) = %q, want %q", v, got, want)
		}
	}
}

// axisNearShare is the share of the curve plot's y axis (in its drawn
// coordinate) taken by the values within 10 % of the best.
func axisNearShare(ax curveAxis, best float64) float64 {
	near := best + 0.1*math.Abs(best)
	if ax.Higher {
		near = best - 0.1*math.Abs(best)
	}
	if ax.Focus == nil {
		return math.Abs(near-best) / (ax.Max - ax.Min)
	}
	return math.Abs(ax.Focus.Normalize(ax.Min, ax.Max, near) - ax.Focus.Normalize(ax.Min, ax.Max, best))
}

// TestCurveAxis: the CV curve's y axis gives the values within 10 % of the
// best at least 25 % of its height (padding included) — linear when they
// already have it, else the focus transform, whose poor end is cut (values
// beyond held on the edge and counted) only when even it would not — for
// lower- and higher-is-better measures alike; and the caption says which.
func TestCurveAxis(t *testing.T) {
	const want = 0.25
	wide := gridLike(1, false)
	wide[0], wide[1], wide[2] = 1e3, 1e6, math.Inf(1)
	wideHigh := gridLike(1, true)
	wideHigh[0], wideHigh[1] = -1e3, -1e6
	for _, tc := range []struct {
		name          string
		v             []float64
		higher, focus bool
		clipped       int
	}{
		{"mse-like", gridLike(4000, false), false, true, 0},
		{"auc-like", gridLike(0.9, true), true, true, 0},
		{"poorer by 10⁶, lower better", wide, false, true, 3},
		{"poorer by 10⁶, higher better", wideHigh, true, true, 2},
		{"within 20 %", []float64{5, 5.5, 6, math.NaN(), 5.2}, false, false, 0},
		{"within 20 %, higher better", []float64{0.8, 0.7, 0.75}, true, false, 0},
		{"best 0", []float64{0, 0.1, 0.5, 2}, false, true, 0},
	} {
		ax := newCurveAxis(tc.v, tc.higher)
		sp := newSpan(tc.v, tc.higher)
		if (ax.Focus != nil) != tc.focus || ax.Clipped != tc.clipped {
			t.Errorf("%s: focus %v, %d clipped; want %v, %d", tc.name, ax.Focus != nil, ax.Clipped, tc.focus, tc.clipped)
		}
		if share := axisNearShare(ax, sp.Best); sp.Best != 0 && share < want {
			t.Errorf("%s: the values within 10 %% of the best take %.3f of the axis, want ≥ %v", tc.name, share, want)
		} else {
			t.Logf("%s: the values within 10 %% of the best take %.3f of the axis", tc.name, share)
		}
		for _, v := range tc.v {
			h := ax.hold(v)
			if math.IsNaN(v) != math.IsNaN(h) && !math.IsInf(v, 0) || finite(h) && (h < ax.Min || h > ax.Max) {
				t.Errorf("%s: %v drawn at %v, outside [%v, %v]", tc.name, v, h, ax.Min, ax.Max)
			}
			if finite(v) && h != v && h != ax.Edge {
				t.Errorf("%s: %v drawn at %v", tc.name, v, h)
			}
		}
	}
	if ax := newCurveAxis([]float64{math.NaN()}, false); ax.Min != 0 || ax.Max != 1 {
		t.Errorf("no values: axis [%v, %v]", ax.Min, ax.Max)
	}

	d := fullData() // 0.2 … 0.89: the good region is 3 % of a linear axis
	const note = "The y axis is logarithmic in the distance from the best mse: it follows log₁₀(mse − 0.2 &#43; 0.001), 0.001 being 0.5 % of the best"
	if out := render(t, d); !strings.Contains(out, note) || strings.Contains(out, "drawn on the dashed line") {
		t.Error("no focus axis, or a cut one, for values 0.2 … 0.89")
	}
	for i := range d.Curves[0].Values {
		d.Curves[0].Values[i] *= math.Exp2(float64(i))
	}
	if out := render(t, d); !strings.Contains(out, "values above ") || !strings.Contains(out, "are drawn on the dashed line at that value") {
		t.Error("values 4000 times the best not held at a marked edge")
	}
	for i := range d.Curves {
		for j := range d.Curves[i].Values {
			d.Curves[i].Values[j] = 1 + 0.001*float64(i+j)
		}
	}
	d.BestValue = 1
	if out := render(t, d); strings.Contains(out, "logarithmic") {
		t.Error("focus axis for values within 3 % of each other")
	}
}

// TestLegendOutside: a plot with a legend is widened by it, so that the
// legend is drawn beside the plotting area, not over it.
func TestLegendOutside(t *testing.T) {
	out := render(t, fullData())
	cv := out[strings.Index(out, `id="cv-curve"`):]
	cv = cv[:strings.Index(cv, "</svg>")]
	m := regexp.MustCompile(`width="([0-9.]+)pt" height="300pt"`).FindStringSubmatch(cv)
	if m == nil {
		t.Fatal("no width on the CV plot's <svg>")
	}
	if w, _ := strconv.ParseFloat(m[1], 64); w < 520 {
		t.Errorf("CV plot with a legend is %spt wide, want the 480pt plot plus the legend", m[1])
	}
	// the legend's texts lie right of the 480pt plot
	for _, label := range []string{"gamma=0.1", "chosen"} {
		i := strings.Index(cv, ">"+label+"<")
		if i < 0 {
			t.Fatalf("legend entry %q not found", label)
		}
		start := strings.LastIndex(cv[:i], "<text")
		xm := regexp.MustCompile(`<text x="([0-9.]+)"`).FindStringSubmatch(cv[start:i])
		if xm == nil {
			t.Fatalf("no position for legend entry %q: %s", label, cv[start:i])
		}
		if x, _ := strconv.ParseFloat(xm[1], 64); x < 480 {
			t.Errorf("legend entry %q at x = %v pt, inside the plot", label, x)
		}
	}
}

func TestSVGTextEscaped(t *testing.T) {
	d := fullData()
	d.Curves[0].Label = `<script>alert("x")</script>`
	d.Measure = "a<b"
	out := render(t, d)
	if strings.Contains(out, "<script") || strings.Contains(out, "a<b") {
		t.Error("curve label or measure not escaped inside the SVG")
	}
	if !strings.Contains(out, "&lt;script&gt;") {
		t.Error("escaped curve label missing from the legend")
	}
}

func TestROCAUCWithTies(t *testing.T) {
	// Positives score 0.9, 0.5, 0.3; negatives 0.5, 0.1, 0.3. Pairs won:
	// 0.9 beats all 3; 0.5 ties 0.5 (½) and beats 0.1 and 0.3 (2½);
	// 0.3 loses to 0.5, beats 0.1, ties 0.3 (1½). AUC = 7/9 = 0.7778.
	labels := []float64{1, 1, 0, 0, 1, 0}
	scores := []float64{0.9, 0.5, 0.5, 0.1, 0.3, 0.3}
	r := computeROC(labels, scores)
	if math.Abs(r.AUC-7.0/9) > 1e-15 {
		t.Errorf("AUC = %v, want 7/9", r.AUC)
	}
	if r.Pos != 3 || r.Neg != 3 {
		t.Errorf("pos, neg = %d, %d", r.Pos, r.Neg)
	}
	// Curve: (0,0) → 0.9 → tie group 0.5 → tie group 0.3 → 0.1.
	wantF := []float64{0, 0, 1.0 / 3, 2.0 / 3, 1}
	wantT := []float64{0, 1.0 / 3, 2.0 / 3, 1, 1}
	for i := range wantF {
		if i >= len(r.FPR) || r.FPR[i] != wantF[i] || r.TPR[i] != wantT[i] {
			t.Fatalf("ROC points %v %v, want %v %v", r.FPR, r.TPR, wantF, wantT)
		}
	}

	d := fullData()
	d.Outputs = []Output{{Name: "cls", True: labels, Predicted: scores, Binary: true}}
	out := render(t, d)
	if !strings.Contains(out, "ROC curve of cls (AUC = 0.7778)") {
		t.Error("ROC title with AUC = 0.7778 not found")
	}
	if !strings.Contains(out, "AUC of these pooled CV predictions = 0.7778, ties counted ½") {
		t.Error("caption with AUC = 0.7778 not found")
	}

	// Labels −1/+1, all scores tied: AUC ½.
	if r := computeROC([]float64{-1, 1, 1, -1}, []float64{3, 3, 3, 3}); r.AUC != 0.5 {
		t.Errorf("all tied: AUC = %v, want 0.5", r.AUC)
	}
}

func TestThinCurve(t *testing.T) {
	n := 100001
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i) / float64(n-1)
		y[i] = math.Sqrt(x[i])
	}
	tx, ty := thinCurve(x, y, 1e-3)
	if len(tx) > 3000 || tx[0] != 0 || tx[len(tx)-1] != 1 || ty[len(ty)-1] != 1 {
		t.Errorf("thinned to %d points, ends (%v,%v) (%v,%v)", len(tx), tx[0], ty[0], tx[len(tx)-1], ty[len(ty)-1])
	}
}

func TestLog2Ticks(t *testing.T) {
	ticks := log2Ticks{}.Ticks(-40, 10)
	labels := 0
	for _, tk := range ticks {
		if tk.Label != "" {
			labels++
			if tk.Value != math.Trunc(tk.Value) || math.Mod(tk.Value, 5) != 0 {
				t.Errorf("labelled tick %v not a multiple of 5", tk.Value)
			}
			if tk.Label == "-0" {
				t.Error("tick labelled -0")
			}
		}
	}
	if labels < 5 || labels > 11 {
		t.Errorf("%d labelled ticks over [-40, 10]", labels)
	}
	if got := (log2Ticks{}).Ticks(-3, 2); len(got) != 6 {
		t.Errorf("ticks over [-3, 2]: %v", got)
	}
	if got := (log2Ticks{}).Ticks(1.1, 1.2); len(got) == 0 {
		t.Error("no ticks on a narrow range")
	}
}

func TestErrData(t *testing.T) {
	cases := map[string]func(d *Data){
		"no curves":              func(d *Data) { d.Curves = nil },
		"empty curve":            func(d *Data) { d.Curves[0] = Curve{} },
		"curve lengths":          func(d *Data) { d.Curves[0].Values = d.Curves[0].Values[1:] },
		"lambda zero":            func(d *Data) { d.Curves[0].Lambdas[0] = 0 },
		"lambda negative":        func(d *Data) { d.Curves[1].Lambdas[0] = -1 },
		"lambda NaN":             func(d *Data) { d.Curves[1].Lambdas[3] = math.NaN() },
		"lambda Inf":             func(d *Data) { d.Curves[1].Lambdas[12] = math.Inf(1) },
		"lambda descending":      func(d *Data) { d.Curves[0].Lambdas[3] = d.Curves[0].Lambdas[2] },
		"value Inf":              func(d *Data) { d.Curves[0].Values[1] = math.Inf(-1) },
		"best curve negative":    func(d *Data) { d.BestCurve = -1 },
		"best curve too big":     func(d *Data) { d.BestCurve = 3 },
		"best lambda zero":       func(d *Data) { d.BestLambda = 0 },
		"best value NaN":         func(d *Data) { d.BestValue = math.NaN() },
		"scatter lengths":        func(d *Data) { d.Outputs[0].Predicted = d.Outputs[0].Predicted[1:] },
		"scatter one side nil":   func(d *Data) { d.Outputs[0].True = nil },
		"scatter NaN":            func(d *Data) { d.Outputs[0].Predicted[5] = math.NaN() },
		"output empty":           func(d *Data) { d.Outputs[0] = Output{Name: "y"} },
		"ROC lengths":            func(d *Data) { d.Outputs[1].Predicted = d.Outputs[1].Predicted[:3] },
		"ROC only positives":     func(d *Data) { d.Outputs[1].True, d.Outputs[1].Predicted = []float64{1, 2}, []float64{0.1, 0.2} },
		"ROC only negatives":     func(d *Data) { d.Outputs[1].True, d.Outputs[1].Predicted = []float64{0, -1}, []float64{0.1, 0.2} },
		"ROC NaN label":          func(d *Data) { d.Outputs[1].True[0] = math.NaN() },
		"ROC Inf score":          func(d *Data) { d.Outputs[1].Predicted[0] = math.Inf(1) },
		"one class":              func(d *Data) { d.Classes = d.Classes[:1] },
		"class out of range":     func(d *Data) { d.ClassTrue[3] = 3 },
		"class scores short":     func(d *Data) { d.ClassScores[2] = d.ClassScores[2][:2] },
		"class score NaN":        func(d *Data) { d.ClassScores[2][1] = math.NaN() },
		"class rows mismatch":    func(d *Data) { d.ClassTrue = d.ClassTrue[1:] },
		"class rows, no classes": func(d *Data) { d.Classes = nil },
		"fold value Inf":         func(d *Data) { d.FoldValues[0] = math.Inf(1) },
		"fold values all NaN":    func(d *Data) { d.FoldValues = []float64{math.NaN()} },
		"null NaN":               func(d *Data) { d.Null[0] = math.NaN() },
		"p-value zero":           func(d *Data) { d.PValue = 0 },
		"observed NaN":           func(d *Data) { d.Observed = math.NaN() },
		"disagreement > 1":       func(d *Data) { d.QueryDisagreement[0] = 1.5 },
		"disagreement < 0":       func(d *Data) { d.QueryDisagreement[0] = -0.1 },
		"disagreement all NaN":   func(d *Data) { d.QueryDisagreement = []float64{math.NaN(), math.NaN()} },
		"disagreement Inf":       func(d *Data) { d.QueryDisagreement[2] = math.Inf(1) },
		"lambda repeated at end": func(d *Data) { d.Curves[2].Lambdas[12] = d.Curves[2].Lambdas[11] },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			d := fullData()
			mutate(&d)
			var b bytes.Buffer
			err := Write(&b, d)
			if !errors.Is(err, ErrData) {
				t.Fatalf("err = %v, want ErrData", err)
			}
			if b.Len() != 0 {
				t.Errorf("%d bytes written despite the error", b.Len())
			}
		})
	}
}

// TestNoExternalURL checks the document fetches nothing: the only URLs are
// the SVG and XLink namespace names, which browsers never fetch.
func TestNoExternalURL(t *testing.T) {
	out := render(t, fullData())
	rest := strings.NewReplacer(
		`xmlns="http://www.w3.org/2000/svg"`, "",
		`xmlns:xlink="http://www.w3.org/1999/xlink"`, "",
	).Replace(out)
	for _, bad := range []string{"http://", "https://", "src=", "href=", "url(", "<script", "<link", "@import", "<img", "<iframe"} {
		if strings.Contains(strings.ToLower(rest), bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	if !strings.Contains(out, "Content-Security-Policy") {
		t.Error("no Content-Security-Policy meta element")
	}
}

// --- rendered-page check -------------------------------------------------

// band is a horizontal stripe of a screenshot that contains coloured
// (chromatic) pixels.
type band struct {
	Top, Bottom int // rows [Top, Bottom)
	Left, Right int // columns spanned by its coloured pixels [Left, Right)
	Pixels      int // coloured pixels in the band
}

// chromatic reports whether c is a clearly coloured pixel. The page itself
// (text, table, headings) is grey; only the plots' lines, points and bars
// are coloured, so coloured pixels locate the drawn plots.
func chromatic(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	hi, lo := max(r, g, b)>>8, min(r, g, b)>>8
	return hi-lo >= 60
}

// plotBands returns the stripes of img holding coloured pixels: rows with
// at least two coloured pixels, merged across gaps of at most 24 rows, kept
// when at least 120 rows tall, 150 columns wide and 400 pixels heavy — the
// size of a drawn 640×400 plot's data (a plot's lines span its data area
// because gonum fits the axes to the data). Anything smaller (a legend
// swatch, anti-aliasing fringes of text) is ignored.
func plotBands(img image.Image) []band {
	bd := img.Bounds()
	type row struct{ n, left, right int }
	rows := make([]row, bd.Dy())
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		r := row{left: math.MaxInt, right: -1}
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if chromatic(img.At(x, y)) {
				r.n++
				r.left, r.right = min(r.left, x), max(r.right, x+1)
			}
		}
		rows[y-bd.Min.Y] = r
	}
	var out []band
	var cur *band
	gap := 0
	for i, r := range rows {
		if r.n < 2 {
			gap++
			if cur != nil && gap > 24 {
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		gap = 0
		if cur == nil {
			cur = &band{Top: i, Left: r.left, Right: r.right}
		}
		cur.Bottom = i + 1
		cur.Left, cur.Right = min(cur.Left, r.left), max(cur.Right, r.right)
		cur.Pixels += r.n
	}
	if cur != nil {
		out = append(out, *cur)
	}
	kept := out[:0]
	for _, b := range out {
		if b.Bottom-b.Top >= 120 && b.Right-b.Left >= 150 && b.Pixels >= 400 {
			kept = append(kept, b)
		}
	}
	return kept
}

// checkPlots returns an error unless at least 0.5% of the pixels of img are
// not white (the page rendered at all) and img shows exactly want drawn
// plots (see plotBands).
func checkPlots(img image.Image, want int) error {
	bd := img.Bounds()
	ink := 0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if min(r, g, b)>>8 < 230 {
				ink++
			}
		}
	}
	if frac := float64(ink) / float64(bd.Dx()*bd.Dy()); frac < 0.005 {
		return fmt.Errorf("only %.2f%% of the pixels are not white", 100*frac)
	}
	if bands := plotBands(img); len(bands) != want {
		return fmt.Errorf("%d plot bands %+v, want %d", len(bands), bands, want)
	}
	return nil
}

func TestCheckPlotsSynthetic(t *testing.T) {
	newImg := func() *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 1000, 3000))
		fill(img, img.Bounds(), color.White)
		return img
	}
	if err := checkPlots(newImg(), 0); err == nil {
		t.Error("blank image passed the ink check")
	}
	if n := len(plotBands(newImg())); n != 0 {
		t.Errorf("blank image: %d bands", n)
	}

	// Grey "text" blocks: ink, but no plot.
	grey := newImg()
	for i := range 4 {
		fill(grey, image.Rect(100, 100+600*i, 900, 500+600*i), color.Gray{Y: 60})
	}
	if n := len(plotBands(grey)); n != 0 {
		t.Errorf("grey blocks: %d bands, want 0", n)
	}
	if err := checkPlots(grey, 4); err == nil {
		t.Error("grey blocks passed as 4 plots")
	}

	// Four coloured diagonal strokes, as plot lines, 400 rows each.
	plots := newImg()
	for i := range 4 {
		for k := range 400 {
			y := 100 + 600*i + k
			fill(plots, image.Rect(150+k, y, 153+k, y+1), palette[i])
		}
		// Grey text between plots must not join or split bands.
		fill(plots, image.Rect(100, 540+600*i, 700, 560+600*i), color.Gray{Y: 30})
	}
	if err := checkPlots(plots, 4); err != nil {
		t.Errorf("four plots: %v", err)
	}
	if err := checkPlots(plots, 5); err == nil {
		t.Error("four plots accepted as five")
	}
	// A small coloured swatch is not a plot.
	fill(plots, image.Rect(800, 2700, 830, 2710), palette[1])
	if err := checkPlots(plots, 4); err != nil {
		t.Errorf("swatch counted: %v", err)
	}
	// Erase one plot: must fail.
	fill(plots, image.Rect(0, 700, 1000, 1100), color.White)
	if err := checkPlots(plots, 4); err == nil {
		t.Error("three plots accepted as four")
	}
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.Set(x, y, c)
		}
	}
}

// chromiumBinary returns the headless browser to render with, skipping the
// test when there is none — unless CI is set, since CI installs it.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but neither chromium nor chromium-browser is on PATH")
	}
	t.Skip("no chromium or chromium-browser on PATH (set CI to make this a failure)")
	return ""
}

// screenshot renders the HTML file in headless Chromium (1000×height window,
// fresh profile, no background networking) and decodes the PNG.
func screenshot(t *testing.T, bin, htmlPath string, height int) image.Image {
	t.Helper()
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--screenshot="+pngPath, fmt.Sprintf("--window-size=1000,%d", height),
		"file://"+htmlPath)
	cmd.WaitDelay = 5 * time.Second // do not hang on pipes held by child processes
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v (context: %v)\n%s", bin, err, ctx.Err(), out.String())
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding screenshot: %v", err)
	}
	return img
}

var svgElement = regexp.MustCompile(`(?s)<svg.*?</svg>`)

// TestRenderChromium renders each plot section of a full report alone in
// headless Chromium and checks that it exists and shows one drawn plot (a
// band of coloured pixels the size of a plot's data); the page with its
// <svg> elements removed must show none.
func TestRenderChromium(t *testing.T) {
	bin := chromiumBinary(t)
	if testing.Short() {
		t.Skip("skipping browser rendering in -short mode")
	}
	dir := t.TempDir()
	full := render(t, fullData())
	for _, id := range sectionIDs {
		checkSectionAlone(t, bin, dir, full, id)
	}

	stripped := svgElement.ReplaceAllString(full, "")
	if strings.Contains(stripped, "<svg") {
		t.Fatal("SVG not stripped")
	}
	bare := filepath.Join(dir, "bare.html")
	if err := os.WriteFile(bare, []byte(stripped), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := len(plotBands(screenshot(t, bin, bare, 3000))); n != 0 {
		t.Errorf("report without SVGs shows %d plot bands, want 0", n)
	}
}

// checkSectionAlone writes the section id of the document full alone on a
// page (with the document's head) and checks in headless Chromium that it
// shows one drawn plot; a failing screenshot is kept in the temp directory.
func checkSectionAlone(t *testing.T, bin, dir, full, id string) {
	t.Helper()
	head := full[:strings.Index(full, "<main>")+len("<main>")]
	start := strings.Index(full, `<section id="`+id+`">`)
	if start < 0 {
		t.Errorf("section %s missing", id)
		return
	}
	end := start + strings.Index(full[start:], "</section>") + len("</section>")
	page := filepath.Join(dir, id+".html")
	if err := os.WriteFile(page, []byte(head+full[start:end]+"</main></body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	img := screenshot(t, bin, page, 800)
	if err := checkPlots(img, 1); err != nil {
		t.Errorf("section %s rendered: %v", id, err)
		keep := filepath.Join(os.TempDir(), "report_chromium_"+id+".png")
		if f, err := os.Create(keep); err == nil {
			_ = png.Encode(f, img)
			f.Close()
			t.Logf("screenshot kept at %s", keep)
		}
	}
}

// TestRenderChromiumOutputs: a three-output report has one scatter and one
// residual panel per output, with the output's name in the id's heading, and
// each renders as a drawn plot.
func TestRenderChromiumOutputs(t *testing.T) {
	bin := chromiumBinary(t)
	if testing.Short() {
		t.Skip("skipping browser rendering in -short mode")
	}
	d := fullData()
	d.Classes, d.ClassTrue, d.ClassScores, d.Null, d.FoldValues, d.QueryDisagreement = nil, nil, nil, nil, nil, nil
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"weight", "waist", "pulse"}
	d.Outputs = nil
	for k, name := range names {
		o := Output{Name: name}
		for range 200 { // dense enough for plotBands
			y := 100*float64(k+1) + 10*rng.NormFloat64()
			o.True, o.Predicted = append(o.True, y), append(o.Predicted, y+5*rng.NormFloat64())
		}
		d.Outputs = append(d.Outputs, o)
	}
	full := render(t, d)
	if strings.Contains(full, `id="output-4-`) {
		t.Error("a fourth output panel")
	}
	dir := t.TempDir()
	for i, name := range names {
		for _, kind := range []struct{ id, heading string }{
			{fmt.Sprintf("output-%d-scatter", i+1), "Predictions vs. true labels — " + name},
			{fmt.Sprintf("output-%d-residuals", i+1), "Residuals — " + name},
		} {
			if !strings.Contains(full, `<section id="`+kind.id+`">`+"\n<h2>"+kind.heading+"</h2>") {
				t.Errorf("no section %s headed %q", kind.id, kind.heading)
				continue
			}
			checkSectionAlone(t, bin, dir, full, kind.id)
		}
	}
}

func TestSVGElementWellFormed(t *testing.T) {
	out := render(t, fullData())
	if !strings.Contains(out, `<svg role="img" aria-label="ROC curve of cls, AUC `) {
		t.Error("ROC <svg> lacks its accessible label")
	}
	if n := len(regexp.MustCompile(`" width="[0-9.]+pt" height="300pt"`).FindAllString(out, -1)); n != len(sectionIDs) {
		t.Errorf("%d <svg> elements 300 pt high with separated attributes, want %d", n, len(sectionIDs))
	}
}
