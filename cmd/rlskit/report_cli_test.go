package main

import (
	"crypto/sha256"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/summary"
)

// fitReport runs fit with --report and returns the HTML and the summary.
func fitReport(t *testing.T, args ...string) (string, summary.Fit) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.html")
	out, _, err := run(t, "", append([]string{"fit", "--quiet", "--report", path}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return readFileT(t, path), decodeFit(t, out)
}

// sectionText returns the text of the section with the given id (tags
// removed, entities decoded), or "" when there is none.
func sectionText(doc, id string) string {
	i := strings.Index(doc, `<section id="`+id+`">`)
	if i < 0 {
		return ""
	}
	sec := doc[i : i+strings.Index(doc[i:], "</section>")]
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(sec, " "))
}

// TestReportPerOutput: a multi-output fit has one named panel per output
// (scatter and residuals), each caption's mean squared error is that output's
// own over its CV predictions, and their mean is the summary's CV value.
func TestReportPerOutput(t *testing.T) {
	doc, o := fitReport(t, "--data", "../../docs/data/linnerud.csv", "--label", "weight,waist,pulse",
		"--kernel", "linear", "--standardize", "--lambda-grid", "2^-4..2^8", "--cv", "loo")
	mseRe := regexp.MustCompile(`over these 20 CV predictions: ([0-9.e+-]+)\.`)
	sum := 0.0
	for i, name := range []string{"weight", "waist", "pulse"} {
		scatter := sectionText(doc, fmt.Sprintf("output-%d-scatter", i+1))
		if !strings.Contains(scatter, "Predictions vs. true labels — "+name) {
			t.Errorf("output %d: no scatter panel named %s:\n%.200s", i+1, name, scatter)
		}
		if !strings.Contains(sectionText(doc, fmt.Sprintf("output-%d-residuals", i+1)), "Residuals — "+name) {
			t.Errorf("output %d: no residual panel named %s", i+1, name)
		}
		m := mseRe.FindStringSubmatch(scatter)
		if m == nil {
			t.Fatalf("output %s: no mse in the caption:\n%s", name, scatter)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		sum += v
	}
	// captions print 4 digits
	if mean := sum / 3; abs(mean-o.CV.Best.Value) > 2e-3*o.CV.Best.Value {
		t.Errorf("mean of the panels' mse %v, summary CV value %v", mean, o.CV.Best.Value)
	}
	if !strings.Contains(sectionText(doc, "summary"), "the mean over the 3 outputs") {
		t.Error("summary does not say the CV value averages the outputs")
	}
	if !strings.Contains(strings.Join(strings.Fields(sectionText(doc, "cv-curve")), " "),
		"The mse is the mean over the 3 outputs of each output's value over the 20 leave-one-out predictions.") {
		t.Error("the CV caption does not say the value averages the outputs' LOO mse")
	}
	if strings.Contains(doc, `id="output-4-`) {
		t.Error("a fourth output panel")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestReportPanels: each kind of fit gives its panels.
func TestReportPanels(t *testing.T) {
	wine := "../../docs/data/wine-train.csv"
	for _, tc := range []struct {
		name string
		args []string
		ids  []string
		want map[string][]string // section id → texts it must contain
	}{
		{"one-vs-all", []string{"--data", wine, "--label", "class", "--one-vs-all", "--standardize", "--lambda-grid", "2^-4..2^4", "--cv", "kfold:5"},
			[]string{"confusion", "roc-classes", "fold-spread"},
			map[string][]string{"roc-classes": {"class=0 (AUC", "class=1 (AUC", "class=2 (AUC"}, "confusion": {"class=0", "class=2", "accuracy"}}},
		{"gamma grid", []string{"--data", "../../docs/data/diabetes-train.csv", "--label", "progression", "--kernel", "gaussian",
			"--gamma-grid", "2^-12..2^-8", "--standardize", "--lambda-grid", "2^-10..2^0", "--cv", "loo"},
			[]string{"cv-curve", "heatmap", "output-1-scatter", "output-1-residuals"},
			map[string][]string{"heatmap": {"gamma=2^-12", "gamma=2^-8"}, "cv-curve": {"gamma=2^-10"}}},
		{"degree and coef0 grid", []string{"--data", "../../docs/data/diabetes-train.csv", "--label", "progression", "--kernel", "polynomial",
			"--degree-grid", "1,2", "--coef0-grid", "1,4", "--standardize", "--lambda-grid", "2^-2..2^6", "--cv", "kfold:3"},
			[]string{"cv-curve", "heatmap", "fold-spread"},
			map[string][]string{"heatmap": {"coef0=1 degree=1", "coef0=2^2 degree=2"}, "cv-curve": {"coef0=2^2 degree=1"}}},
		{"permutations", []string{"--data", wine, "--label", "class", "--lambda-grid", "2^0..2^4", "--cv", "kfold:3", "--permutations", "19"},
			[]string{"permutation-null", "fold-spread"},
			map[string][]string{"permutation-null": {"19 permutations", "p = "}}},
		{"binary on edge", []string{"--data", "../../docs/data/wine-binary.csv", "--label", "class1", "--standardize", "--lambda-grid", "2^10..2^12", "--cv", "kfold:4", "--measure", "auc"},
			[]string{"output-1-roc", "fold-spread"},
			map[string][]string{"output-1-roc": {"ROC curve — class1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, o := fitReport(t, tc.args...)
			for _, id := range tc.ids {
				if sectionText(doc, id) == "" {
					t.Errorf("no section %s", id)
				}
			}
			for id, texts := range tc.want {
				sec := sectionText(doc, id)
				for _, w := range texts {
					if !strings.Contains(sec, w) {
						t.Errorf("section %s lacks %q:\n%.300s", id, w, sec)
					}
				}
			}
			if len(o.CV.Best.OnEdge) > 0 != strings.Contains(doc, `class="warning"`) {
				t.Errorf("on_edge %v, warning shown %v", o.CV.Best.OnEdge, strings.Contains(doc, `class="warning"`))
			}
			if tc.name == "binary on edge" && len(o.CV.Best.OnEdge) == 0 {
				t.Error("λ = 2^10..2^12 on standardized wine is expected on the grid's edge")
			}
			if strings.Contains(doc, `id="fold-spread"`) {
				// the folds' values are scored per fold; the CV value is the pooled one
				if !strings.Contains(sectionText(doc, "fold-spread"), "of 5 folds") && tc.name == "one-vs-all" {
					t.Error("fold spread does not count 5 folds")
				}
			}
		})
	}
}

// TestReportProvenance: the report records the command line, the version, the
// data file's size and SHA-256, and the seed.
func TestReportProvenance(t *testing.T) {
	data := "../../docs/data/diabetes-train.csv"
	doc, _ := fitReport(t, "--data", data, "--label", "progression", "--seed", "7", "--cv", "kfold:5")
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	prov := sectionText(doc, "provenance")
	for _, want := range []string{
		fmt.Sprintf("SHA-256 %x", sha256.Sum256(b)),
		fmt.Sprintf("%d bytes", len(b)),
		"rlskit fit --cv kfold:5 --data " + data + " --label progression --quiet --report ",
		buildVersion(),
		"seed 7",
		"backend",
	} {
		if !strings.Contains(strings.Join(strings.Fields(prov), " "), want) {
			t.Errorf("provenance lacks %q:\n%s", want, prov)
		}
	}
}

// captionNumber finds re's first submatch in the text of section id and
// parses it, failing the test when there is none.
func captionNumber(t *testing.T, doc, id, re string) float64 {
	t.Helper()
	sec := strings.Join(strings.Fields(sectionText(doc, id)), " ")
	m := regexp.MustCompile(re).FindStringSubmatch(sec)
	if m == nil {
		t.Fatalf("section %s: no match for %q in:\n%s", id, re, sec)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("section %s: %q: %v", id, m[1], err)
	}
	return v
}

// near4 reports whether a printed with 4 significant digits equals b.
func near4(a, b float64) bool { return abs(a-b) <= 5e-4*abs(b)+1e-12 }

// TestReportNumbersAgree: every caption number that claims to be the CV value
// (the CV curve's chosen point, the heatmap's ringed cell, the fold panel's CV
// line, the permutation test's real labels, and the mse of the one output
// over all its CV predictions) equals the JSON summary's CV value; the
// permutation p-value and null mean are the JSON's; the fold panel counts the
// k folds of a k-fold scheme. The numbers themselves are those of retraining
// from scratch (bruteRLS, the oracle's tolerances): each fold's model — the
// Gaussian kernel at the chosen γ and λ on the features standardized once
// (population sd) — predicts the fold's rows as --cv-predictions says, their
// pooled MSE is the JSON's CV value, and the folds' own MSEs have the mean,
// standard deviation (population) and range the fold panel prints, to its 4
// significant digits. The folds are the CLI's draw (cv.KFold, seed 1).
func TestReportNumbersAgree(t *testing.T) {
	cvPath := filepath.Join(t.TempDir(), "cv.tsv")
	doc, o := fitReport(t, "--data", "../../docs/data/diabetes-train.csv", "--label", "progression", "--kernel", "gaussian",
		"--gamma-grid", "2^-12..2^-8", "--standardize", "--lambda-grid", "2^-10..2^0", "--cv", "kfold:5", "--permutations", "19",
		"--cv-predictions", cvPath)
	cvValue := o.CV.Best.Value
	num := `([0-9.e+-]+[0-9])`
	for _, c := range []struct{ id, re string }{
		{"cv-curve", `Chosen \(ringed\): [^,]+, gamma=[^,]+, mse = ` + num},
		{"heatmap", `The chosen cell is ringed \([^)]*mse = ` + num + `\)`},
		{"fold-spread", `The CV value mse = ` + num},
		{"permutation-null", `Real labels: mse = ` + num},
		{"output-1-scatter", `over these 342 CV predictions: ` + num},
	} {
		if v := captionNumber(t, doc, c.id, c.re); !near4(v, cvValue) {
			t.Errorf("section %s shows %v, the JSON CV value is %v", c.id, v, cvValue)
		}
	}
	if !strings.Contains(sectionText(doc, "cv-curve"), "computed over the 342 CV predictions of the 5 folds, pooled") {
		t.Error("the CV caption does not say what the value is computed over")
	}
	if p := captionNumber(t, doc, "permutation-null", `p = ([0-9.]+[0-9])`); o.Perm == nil || !near4(p, o.Perm.PValue) {
		t.Errorf("permutation p = %v, JSON %+v", p, o.Perm)
	}
	if m := captionNumber(t, doc, "permutation-null", `mean ([0-9.e+-]+[0-9]), sd`); !near4(m, o.Perm.NullMean) {
		t.Errorf("null mean %v, JSON %v", m, o.Perm.NullMean)
	}
	if !strings.Contains(sectionText(doc, "fold-spread"), "5 of 5 folds have a value") {
		t.Errorf("fold spread does not show the 5 folds:\n%s", sectionText(doc, "fold-spread"))
	}
	tab := readTable(t, "../../docs/data/diabetes-train.csv")
	names := []string{"age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"}
	x, y := rowsOf(tab, names...), tab["progression"]
	m := len(y)
	for j := range names {
		mean, ss := 0.0, 0.0
		for i := range x {
			mean += x[i][j] / float64(m)
		}
		for i := range x {
			ss += (x[i][j] - mean) * (x[i][j] - mean)
		}
		for i := range x {
			x[i][j] = (x[i][j] - mean) / math.Sqrt(ss/float64(m))
		}
	}
	if o.Kernel.Name != "gaussian" {
		t.Fatalf("kernel %+v", o.Kernel)
	}
	folds, err := cv.KFold(m, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The chosen γ is small, so K is nearly 11ᵀ: κ(K_TT + λI) ≈ |T|/λ is
	// about 3e5, and the forward errors are really of order κ·ε (measured:
	// about 1.2·κ·ε of the labels' scale). c = 10 keeps 8 times that and
	// fails a 1e-7 relative error (10·κ·ε ≤ 1e-8 is asserted).
	or := newOracle(y)
	or.c = 10
	p, k := bruteRLS{x: x, k: gaussianKernel(o.Kernel.Gamma)}.cached().holdOut(t, squaredLoss(y), folds, nil, "", o.Lambda)
	or.kappa(k)
	or.predictions("CV predictions", readCVColumn(t, cvPath, m), p)
	or.mse("the CV value", cvValue, pooledMSE(y, p))
	or.check(t)
	var vals []float64
	for _, f := range folds {
		fy, fp := make([]float64, len(f)), make([]float64, len(f))
		for h, i := range f {
			fy[h], fp[h] = y[i], p[i]
		}
		vals = append(vals, pooledMSE(fy, fp))
	}
	mean, sd := 0.0, 0.0
	for _, v := range vals {
		mean += v / float64(len(vals))
	}
	for _, v := range vals {
		sd += (v - mean) * (v - mean) / float64(len(vals))
	}
	sd = math.Sqrt(sd)
	for _, c := range []struct {
		what, re string
		want     float64
	}{
		{"mean", `mean ([0-9.e+-]+[0-9]),`, mean},
		{"standard deviation", `standard deviation ([0-9.e+-]+[0-9]),`, sd},
		{"smallest", `range ([0-9.e+-]+[0-9]) …`, slices.Min(vals)},
		{"largest", `… ([0-9.e+-]+[0-9])\. `, slices.Max(vals)},
	} {
		if v := captionNumber(t, doc, "fold-spread", c.re); !near4(v, c.want) {
			t.Errorf("fold panel: the folds' %s %v, by retraining %v (folds %v)", c.what, v, c.want, vals)
		}
	}
}

// TestReportLOONoFolds: leave-one-out has no per-fold panel and the CV caption
// says why.
func TestReportLOONoFolds(t *testing.T) {
	doc, _ := fitReport(t, "--data", "../../docs/data/diabetes-train.csv", "--label", "progression", "--cv", "loo",
		"--lambda-grid", "2^-4..2^4")
	if sectionText(doc, "fold-spread") != "" {
		t.Error("a fold-spread panel for leave-one-out")
	}
	cap := sectionText(doc, "cv-curve")
	for _, want := range []string{"No per-fold panel: leave-one-out", "residual plots", "computed over the 342 leave-one-out predictions"} {
		if !strings.Contains(cap, want) {
			t.Errorf("CV caption lacks %q:\n%s", want, cap)
		}
	}
}

// TestReportDataProvenance: standard input and non-regular files are named,
// not hashed; a file is hashed with its size.
func TestReportDataProvenance(t *testing.T) {
	if got := dataProvenance("-"); got != "standard input" {
		t.Errorf("stdin: %q", got)
	}
	dir := t.TempDir()
	if got := dataProvenance(dir); !strings.Contains(got, "not a regular file") {
		t.Errorf("directory: %q", got)
	}
	if got := dataProvenance(filepath.Join(dir, "missing.csv")); !strings.Contains(got, "not readable again") {
		t.Errorf("missing file: %q", got)
	}
	p := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(p, []byte("y,x\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s, 8 bytes, SHA-256 %x", p, sha256.Sum256([]byte("y,x\n1,2\n")))
	if got := dataProvenance(p); got != want {
		t.Errorf("file: %q, want %q", got, want)
	}
}
