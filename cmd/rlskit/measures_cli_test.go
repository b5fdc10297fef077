package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/summary"
)

// The measures scikit-learn users select by (issue 24 item 3) end to end:
// rmse, mae, r2, balanced-accuracy and f1 chosen with --measure, each
// curve checked against the CV predictions (--cv-predictions) or the mse
// curve by a formula written here, independently of package measure.

// mcFit runs fit with args plus --quiet and --cv-predictions, and returns
// the summary and the CV predictions (one row per data row, one column per
// output).
func mcFit(t *testing.T, args ...string) (summary.Fit, [][]float64) {
	t.Helper()
	cvp := filepath.Join(t.TempDir(), "cv.tsv")
	stdout, _, err := run(t, "", append(append([]string{"fit"}, args...), "--quiet", "--cv-predictions", cvp)...)
	if err != nil {
		t.Fatalf("fit %v: %v", args, err)
	}
	o := decodeFit(t, stdout)
	var p [][]float64
	for i, line := range strings.Split(strings.TrimSpace(readFileT(t, cvp)), "\n") {
		if i == 0 {
			continue // the header: the output names
		}
		var row []float64
		for _, f := range strings.Split(line, "\t") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("CV predictions line %d: %v", i+1, err)
			}
			row = append(row, v)
		}
		p = append(p, row)
	}
	return o, p
}

// mcColumns gathers the named label columns of a CSV into rows.
func mcColumns(t *testing.T, path string, names ...string) [][]float64 {
	t.Helper()
	return rowsOf(readTable(t, path), names...)
}

// mcBest is the point the rule of selection picks from a curve: the best
// value, and among equal values the largest λ.
func mcBest(curve []summary.CurvePoint, higher bool) summary.CurvePoint {
	best := curve[0]
	for _, pt := range curve[1:] {
		better := pt.Value < best.Value
		if higher {
			better = pt.Value > best.Value
		}
		if better || pt.Value == best.Value && pt.Lambda > best.Lambda {
			best = pt
		}
	}
	return best
}

// mcPerOutput averages f over the outputs (columns) of labels y and
// predictions p: the convention of every single-output measure.
func mcPerOutput(y, p [][]float64, f func(y, p []float64) float64) float64 {
	t := len(y[0])
	s := 0.0
	for j := range t {
		yc, pc := make([]float64, len(y)), make([]float64, len(y))
		for i := range y {
			yc[i], pc[i] = y[i][j], p[i][j]
		}
		s += f(yc, pc)
	}
	return s / float64(t)
}

// Independent formulas, one output each.

func mcMSE(y, p []float64) float64 {
	s := 0.0
	for i := range y {
		s += (y[i] - p[i]) * (y[i] - p[i])
	}
	return s / float64(len(y))
}

func mcVar(y []float64) float64 {
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	s := 0.0
	for _, v := range y {
		s += (v - mean) * (v - mean)
	}
	return s / float64(len(y))
}

func mcRMSE(y, p []float64) float64 { return math.Sqrt(mcMSE(y, p)) }
func mcR2(y, p []float64) float64   { return 1 - mcMSE(y, p)/mcVar(y) }

func mcMAE(y, p []float64) float64 {
	s := 0.0
	for i := range y {
		s += math.Abs(y[i] - p[i])
	}
	return s / float64(len(y))
}

// mcCounts is the confusion matrix with Accuracy's convention: > 0 positive.
func mcCounts(y, p []float64) (tp, fn, tn, fp float64) {
	for i := range y {
		switch {
		case y[i] > 0 && p[i] > 0:
			tp++
		case y[i] > 0:
			fn++
		case p[i] > 0:
			fp++
		default:
			tn++
		}
	}
	return
}

func mcAccuracy(y, p []float64) float64 {
	tp, fn, tn, fp := mcCounts(y, p)
	return (tp + tn) / (tp + fn + tn + fp)
}

func mcBalanced(y, p []float64) float64 {
	tp, fn, tn, fp := mcCounts(y, p)
	return (tp/(tp+fn) + tn/(tn+fp)) / 2
}

func mcF1(y, p []float64) float64 {
	tp, fn, _, fp := mcCounts(y, p)
	prec, rec := tp/(tp+fp), tp/(tp+fn)
	return 2 * prec * rec / (prec + rec)
}

// mcRel reports |a − b| ≤ tol·max(1, |b|).
func mcRel(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// mcCurveFromPredictions refits at each λ of curve alone (--lambda-grid λ,
// the same data, scheme and seed) and requires the curve's value there to
// be f of the CV predictions at that λ, within tol relative.
func mcCurveFromPredictions(t *testing.T, name string, curve []summary.CurvePoint, y [][]float64, f func(y, p []float64) float64, tol float64, args ...string) {
	t.Helper()
	for _, pt := range curve {
		o, p := mcFit(t, slices.Concat(args, []string{"--lambda-grid", strconv.FormatFloat(pt.Lambda, 'g', -1, 64)})...)
		if len(o.CV.Curve) != 1 || o.CV.Curve[0].Value != o.CV.Best.Value {
			t.Fatalf("%s at λ = %g alone: curve %+v", name, pt.Lambda, o.CV.Curve)
		}
		want := mcPerOutput(y, p, f)
		if !mcRel(pt.Value, want, tol) || !mcRel(o.CV.Best.Value, want, tol) {
			t.Errorf("%s at λ = %g: curve %.17g, alone %.17g, from the CV predictions %.17g", name, pt.Lambda, pt.Value, o.CV.Best.Value, want)
		}
	}
}

// mcChosen checks that fit chose the best point of its own curve.
func mcChosen(t *testing.T, name string, o summary.Fit, higher bool) {
	t.Helper()
	b := mcBest(o.CV.Curve, higher)
	if o.Lambda != b.Lambda || o.CV.Best.Lambda != b.Lambda || o.CV.Best.Value != b.Value {
		t.Errorf("%s: chose λ = %g (%g), best of its curve λ = %g (%g)", name, o.Lambda, o.CV.Best.Value, b.Lambda, b.Value)
	}
}

// TestMeasuresCLIRegression: LOO on the diabetes data with --measure mse,
// rmse, r2 and mae. On one output rmse is √mse and r2 is 1 − mse/var(y) at
// every λ (var the population variance of the labels), so the three choose
// the same λ; mae's curve is the mean |y − p| of the CV predictions at every
// λ; and the values at the chosen λ are those of the CV predictions written.
func TestMeasuresCLIRegression(t *testing.T) {
	const data = "../../docs/data/diabetes.csv"
	y := mcColumns(t, data, "progression")
	base := []string{"--data", data, "--label", "progression", "--cv", "loo"}
	grid := []string{"--lambda-grid", "2^-10..2^6"}
	fits := map[string]summary.Fit{}
	preds := map[string][][]float64{}
	for _, name := range []string{"mse", "rmse", "r2", "mae"} {
		o, p := mcFit(t, slices.Concat(base, grid, []string{"--measure", name})...)
		if o.CV.Measure != name || len(o.CV.Curve) != 17 || len(p) != len(y) {
			t.Fatalf("%s: measure %q, %d curve points, %d CV predictions", name, o.CV.Measure, len(o.CV.Curve), len(p))
		}
		mcChosen(t, name, o, name == "r2")
		fits[name], preds[name] = o, p
	}
	v := mcVar(mcPerOutputCol(y))
	for i, pt := range fits["mse"].CV.Curve {
		rmse, r2, mae := fits["rmse"].CV.Curve[i], fits["r2"].CV.Curve[i], fits["mae"].CV.Curve[i]
		if rmse.Lambda != pt.Lambda || r2.Lambda != pt.Lambda || mae.Lambda != pt.Lambda {
			t.Fatalf("λ %d: mse %g, rmse %g, r2 %g, mae %g", i, pt.Lambda, rmse.Lambda, r2.Lambda, mae.Lambda)
		}
		if !mcRel(rmse.Value, math.Sqrt(pt.Value), 1e-14) {
			t.Errorf("λ = %g: rmse %.17g, √mse %.17g", pt.Lambda, rmse.Value, math.Sqrt(pt.Value))
		}
		if !mcRel(r2.Value, 1-pt.Value/v, 1e-12) {
			t.Errorf("λ = %g: r2 %.17g, 1 − mse/var(y) %.17g", pt.Lambda, r2.Value, 1-pt.Value/v)
		}
	}
	if fits["rmse"].Lambda != fits["mse"].Lambda || fits["r2"].Lambda != fits["mse"].Lambda {
		t.Errorf("chosen λ: mse %g, rmse %g, r2 %g", fits["mse"].Lambda, fits["rmse"].Lambda, fits["r2"].Lambda)
	}
	for name, f := range map[string]func(y, p []float64) float64{"mse": mcMSE, "rmse": mcRMSE, "r2": mcR2, "mae": mcMAE} {
		if got, want := fits[name].CV.Best.Value, mcPerOutput(y, preds[name], f); !mcRel(got, want, 1e-12) {
			t.Errorf("%s at the chosen λ: reported %.17g, from the CV predictions %.17g", name, got, want)
		}
	}
	mcCurveFromPredictions(t, "mae", fits["mae"].CV.Curve, y, mcMAE, 1e-12, slices.Concat(base, []string{"--measure", "mae"})...)
	t.Logf("LOO: mse %.6g, rmse %.6g, r2 %.6g at λ = %g; mae %.6g at λ = %g",
		fits["mse"].CV.Best.Value, fits["rmse"].CV.Best.Value, fits["r2"].CV.Best.Value, fits["mse"].Lambda, fits["mae"].CV.Best.Value, fits["mae"].Lambda)
}

// TestMeasuresCLIStream: fit --stream scores the new measures from its
// prediction pass: its LOO curves for rmse, mae, r2, balanced-accuracy and
// f1 equal the in-memory ones (1e-9 relative, the tolerance of
// TestStreamCLIEqualsInMemory; the binary ones exactly) and choose the same λ.
func TestMeasuresCLIStream(t *testing.T) {
	for _, c := range []struct {
		data, label string
		names       []string
		extra       []string
	}{
		{"../../docs/data/diabetes.csv", "progression", []string{"rmse", "mae", "r2"}, nil},
		{"../../docs/data/wine-binary.csv", "class1", []string{"balanced-accuracy", "f1"}, []string{"--standardize"}},
	} {
		for _, name := range c.names {
			args := slices.Concat([]string{"fit", "--data", c.data, "--label", c.label, "--cv", "loo", "--measure", name, "--lambda-grid", "2^-6..2^8", "--quiet"}, c.extra)
			var fits [2]summary.Fit
			for k, extra := range [][]string{nil, {"--stream"}} {
				stdout, _, err := run(t, "", slices.Concat(args, extra)...)
				if err != nil {
					t.Fatalf("%s %v: %v", name, extra, err)
				}
				// the streamed summary adds a "stream" object: decode leniently
				if err := json.Unmarshal([]byte(stdout), &fits[k]); err != nil || fits[k].CV == nil {
					t.Fatalf("%s %v: %v\n%s", name, extra, err, stdout)
				}
			}
			mem, str := fits[0], fits[1]
			if len(mem.CV.Curve) != 15 || len(str.CV.Curve) != 15 || mem.Lambda != str.Lambda {
				t.Fatalf("%s: in memory λ = %g (%d points), streamed λ = %g (%d points)", name, mem.Lambda, len(mem.CV.Curve), str.Lambda, len(str.CV.Curve))
			}
			for i, pt := range mem.CV.Curve {
				if !mcRel(str.CV.Curve[i].Value, pt.Value, 1e-9) {
					t.Errorf("%s at λ = %g: in memory %.17g, streamed %.17g", name, pt.Lambda, pt.Value, str.CV.Curve[i].Value)
				}
			}
		}
	}
}

// mcPerOutputCol is the first column of rows.
func mcPerOutputCol(rows [][]float64) []float64 {
	c := make([]float64, len(rows))
	for i, r := range rows {
		c[i] = r[0]
	}
	return c
}

// TestMeasuresCLIMultiOutput: three outputs of very different scales
// (Linnerud: weight, waist, pulse). rmse is the mean of the outputs' root
// mean squared errors — scikit-learn's root_mean_squared_error — not the
// root of the mean MSE; r2 the mean of the outputs' R² (its
// "uniform_average"); mae the mean of their mean absolute errors; all at the
// chosen λ equal to the CV predictions' values.
func TestMeasuresCLIMultiOutput(t *testing.T) {
	const data = "../../docs/data/linnerud.csv"
	labels := []string{"weight", "waist", "pulse"}
	y := mcColumns(t, data, labels...)
	args := []string{"--data", data, "--label", strings.Join(labels, ","), "--cv", "loo", "--standardize", "--lambda-grid", "2^-4..2^8"}
	for name, f := range map[string]func(y, p []float64) float64{"rmse": mcRMSE, "r2": mcR2, "mae": mcMAE} {
		o, p := mcFit(t, slices.Concat(args, []string{"--measure", name})...)
		mcChosen(t, name, o, name == "r2")
		want := mcPerOutput(y, p, f)
		if !mcRel(o.CV.Best.Value, want, 1e-12) {
			t.Errorf("%s: reported %.17g, mean over the outputs of the CV predictions' %.17g", name, o.CV.Best.Value, want)
		}
		if name == "rmse" {
			pooled := math.Sqrt(mcPerOutput(y, p, mcMSE))
			if mcRel(o.CV.Best.Value, pooled, 1e-3) {
				t.Errorf("rmse %.17g is the root of the mean MSE %.17g: the outputs' scales should make them differ", o.CV.Best.Value, pooled)
			}
			t.Logf("rmse: mean of the outputs' %.6g, root of the mean MSE %.6g", o.CV.Best.Value, pooled)
		}
	}
}

// TestMeasuresCLIFoldMeanR2: with --folds and --fold-score mean, r2 is the
// mean over the folds of R² within each fold, ȳ the fold's own mean — what
// scikit-learn's GridSearchCV(scoring="r2") reports — while pooled it is
// 1 − mse/var(y) over all rows.
func TestMeasuresCLIFoldMeanR2(t *testing.T) {
	const data = "../../docs/data/diabetes.csv"
	y := mcColumns(t, data, "progression")
	folds := make([][]int, 5)
	for i := range y {
		folds[i%5] = append(folds[i%5], i)
	}
	var b strings.Builder
	for _, f := range folds {
		for k, i := range f {
			if k > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprint(&b, i)
		}
		b.WriteByte('\n')
	}
	foldsPath := filepath.Join(t.TempDir(), "folds.txt")
	if err := os.WriteFile(foldsPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--data", data, "--label", "progression", "--folds", foldsPath, "--measure", "r2"}
	grid := []string{"--lambda-grid", "2^-8..2^4"}
	perFold := func(y, p []float64) float64 {
		s := 0.0
		for _, f := range folds {
			yf, pf := make([]float64, len(f)), make([]float64, len(f))
			for k, i := range f {
				yf[k], pf[k] = y[i], p[i]
			}
			s += mcR2(yf, pf)
		}
		return s / float64(len(folds))
	}
	mean, p := mcFit(t, slices.Concat(base, grid, []string{"--fold-score", "mean"})...)
	mcChosen(t, "r2 fold-score mean", mean, true)
	if want := mcPerOutput(y, p, perFold); !mcRel(mean.CV.Best.Value, want, 1e-12) {
		t.Errorf("r2, fold-score mean: reported %.17g, mean of the folds' R² %.17g", mean.CV.Best.Value, want)
	}
	mcCurveFromPredictions(t, "r2 fold-score mean", mean.CV.Curve, y, perFold, 1e-12, slices.Concat(base, []string{"--fold-score", "mean"})...)
	pooled, pp := mcFit(t, slices.Concat(base, grid)...)
	if want := mcPerOutput(y, pp, mcR2); !mcRel(pooled.CV.Best.Value, want, 1e-12) {
		t.Errorf("r2, pooled: reported %.17g, from the CV predictions %.17g", pooled.CV.Best.Value, want)
	}
	t.Logf("r2 over 5 folds: mean of the folds' %.6g at λ = %g, pooled %.6g at λ = %g", mean.CV.Best.Value, mean.Lambda, pooled.CV.Best.Value, pooled.Lambda)
}

// TestMeasuresCLIBinary: 5-fold CV on the binary wine data (71 of 178 rows
// in class +1) with --measure accuracy, balanced-accuracy and f1. At every λ
// each curve's value is the measure of that λ's CV predictions, the classes
// read as accuracy reads them (label > 0, prediction > 0), and fit chooses
// the best point of each curve (the largest λ among equal values); with
// imbalanced classes balanced accuracy is not the accuracy.
func TestMeasuresCLIBinary(t *testing.T) {
	const data = "../../docs/data/wine-binary.csv"
	y := mcColumns(t, data, "class1")
	args := []string{"--data", data, "--label", "class1", "--standardize", "--cv", "kfold:5", "--seed", "7"}
	curves := map[string][]summary.CurvePoint{}
	for name, f := range map[string]func(y, p []float64) float64{"accuracy": mcAccuracy, "balanced-accuracy": mcBalanced, "f1": mcF1} {
		o, p := mcFit(t, slices.Concat(args, []string{"--measure", name, "--lambda-grid", "2^-4..2^12"})...)
		mcChosen(t, name, o, true)
		// the formulas here take other roundings (F1 as 2PR/(P + R)):
		// agreement to 1e-14, the curves being ratios of counts
		if want := mcPerOutput(y, p, f); !mcRel(o.CV.Best.Value, want, 1e-14) {
			t.Errorf("%s at the chosen λ = %g: reported %.17g, from the CV predictions %.17g", name, o.Lambda, o.CV.Best.Value, want)
		}
		mcCurveFromPredictions(t, name, o.CV.Curve, y, f, 1e-14, slices.Concat(args, []string{"--measure", name})...)
		curves[name] = o.CV.Curve
		t.Logf("%s: %.6g at λ = %g", name, o.CV.Best.Value, o.Lambda)
	}
	differ := false
	for i, pt := range curves["accuracy"] {
		if pt.Value != curves["balanced-accuracy"][i].Value {
			differ = true
		}
	}
	if !differ {
		t.Error("balanced accuracy equals the accuracy at every λ on imbalanced classes")
	}
}

// TestMeasuresCLIPredict: predict --measure scores a test set with the new
// measures: rmse = √mse, r2 = 1 − mse/var(y_test), mae from the printed
// predictions; balanced-accuracy and f1 of a binary model from its
// predictions.
func TestMeasuresCLIPredict(t *testing.T) {
	dir := t.TempDir()
	score := func(model, data, name string) (float64, []float64) {
		t.Helper()
		out, errOut, err := run(t, "", "predict", "--model", model, "--data", data, "--measure", name)
		if err != nil {
			t.Fatalf("predict --measure %s: %v", name, err)
		}
		var s struct {
			Measure string
			Value   float64
		}
		if err := json.Unmarshal([]byte(errOut), &s); err != nil || s.Measure != name {
			t.Fatalf("measure line %q: %v", errOut, err)
		}
		var p []float64
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			v, err := strconv.ParseFloat(l, 64)
			if err != nil {
				t.Fatal(err)
			}
			p = append(p, v)
		}
		return s.Value, p
	}

	reg := filepath.Join(dir, "reg.json")
	if _, _, err := run(t, "", "fit", "--data", "../../docs/data/diabetes-train.csv", "--label", "progression", "--lambda-grid", "2^-8..2^4", "--quiet", "--model", reg); err != nil {
		t.Fatal(err)
	}
	const test = "../../docs/data/diabetes-test.csv"
	y := mcPerOutputCol(mcColumns(t, test, "progression"))
	mse, p := score(reg, test, "mse")
	if want := mcMSE(y, p); !mcRel(mse, want, 1e-12) {
		t.Errorf("mse %.17g, from the predictions %.17g", mse, want)
	}
	for name, want := range map[string]float64{"rmse": math.Sqrt(mse), "r2": 1 - mse/mcVar(y), "mae": mcMAE(y, p)} {
		if got, _ := score(reg, test, name); !mcRel(got, want, 1e-12) {
			t.Errorf("predict --measure %s: %.17g, want %.17g", name, got, want)
		}
	}

	bin := filepath.Join(dir, "bin.json")
	const wine = "../../docs/data/wine-binary.csv"
	if _, _, err := run(t, "", "fit", "--data", wine, "--label", "class1", "--standardize", "--lambda-grid", "2^-4..2^8", "--measure", "f1", "--quiet", "--model", bin); err != nil {
		t.Fatal(err)
	}
	yb := mcPerOutputCol(mcColumns(t, wine, "class1"))
	for name, f := range map[string]func(y, p []float64) float64{"balanced-accuracy": mcBalanced, "f1": mcF1} {
		got, pb := score(bin, wine, name)
		if want := f(yb, pb); !mcRel(got, want, 1e-14) {
			t.Errorf("predict --measure %s: %.17g, from the predictions %.17g", name, got, want)
		}
	}
}

// TestMeasuresCLIHelp: fit --help and predict --help list every measure
// (cindex-row was once missing), and an unknown --measure names the flag,
// its value and every measure.
func TestMeasuresCLIHelp(t *testing.T) {
	for _, cmd := range []string{"fit", "predict"} {
		out, _, err := run(t, "", cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "--measure string") {
				line = l
			}
		}
		for _, name := range measure.Names() {
			if !strings.Contains(line, " "+name+",") && !strings.Contains(line, " "+name+" ") && !strings.HasSuffix(line, " "+name) {
				t.Errorf("%s --help: the --measure line does not list %s: %q", cmd, name, line)
			}
		}
	}
	_, _, err := run(t, "", "fit", "--data", "../../docs/data/diabetes.csv", "--label", "progression", "--measure", "rmsle", "--quiet")
	if err == nil {
		t.Fatal("fit --measure rmsle: no error")
	}
	for _, s := range append([]string{"--measure", "rmsle"}, measure.Names()...) {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("fit --measure rmsle: error %q does not name %s", err, s)
		}
	}
}

// TestMeasuresCLIUndefined: r2 of constant labels, and balanced-accuracy and
// f1 of labels of one class, fail with the reason, not a number.
func TestMeasuresCLIUndefined(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	constant := write("const.csv", "a,y\n1,2\n2,2\n3,2\n4,2\n")
	negative := write("neg.csv", "a,y\n1,-1\n2,-1\n3,-1\n4,-1\n")
	for _, c := range []struct {
		data, measure, want string
	}{
		{constant, "r2", "constant labels"},
		{negative, "balanced-accuracy", "needs both classes"},
		{negative, "f1", "no label > 0 and no prediction > 0"},
	} {
		_, _, err := run(t, "", "fit", "--data", c.data, "--label", "y", "--measure", c.measure, "--cv", "loo", "--quiet")
		if err == nil || !strings.Contains(err.Error(), c.measure) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fit --measure %s on %s: %v, want an error saying %q", c.measure, filepath.Base(c.data), err, c.want)
		}
	}

	// --fold-score mean leaves out a fold where the measure is undefined:
	// fold 0's labels are constant, so r2 is fold 1's R² alone.
	mixed := write("mixed.csv", "a,y\n1,2\n2,2\n3,2\n4,2\n1,1\n2,3\n3,2\n5,6\n")
	folds := write("folds.txt", "0 1 2 3\n4 5 6 7\n")
	o, p := mcFit(t, "--data", mixed, "--label", "y", "--folds", folds, "--fold-score", "mean", "--measure", "r2", "--lambda-grid", "1")
	y := []float64{1, 3, 2, 6}
	pf := []float64{p[4][0], p[5][0], p[6][0], p[7][0]}
	if want := mcR2(y, pf); !mcRel(o.CV.Best.Value, want, 1e-12) {
		t.Errorf("r2, fold-score mean, one fold of constant labels: %.17g, want fold 1's R² %.17g", o.CV.Best.Value, want)
	}
}
