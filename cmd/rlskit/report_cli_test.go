package main

import (
	"crypto/sha256"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fitReport runs fit with --report and returns the HTML and the summary.
func fitReport(t *testing.T, args ...string) (string, fitOutput) {
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
