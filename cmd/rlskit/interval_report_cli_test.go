package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// section returns the HTML of the report's section id ("" when absent).
func section(doc, id string) string {
	i := strings.Index(doc, `<section id="`+id+`">`)
	if i < 0 {
		return ""
	}
	return doc[i : i+strings.Index(doc[i:], "</section>")]
}

var (
	quantile90 = regexp.MustCompile(`90 %: ([-0-9.e+]+)`)
	outerRowRe = regexp.MustCompile(`<th scope="row">nested cross-validation</th><td>([^<]*)</td>`)
)

// fit --interval cv+ --outer-folds K --report FILE writes the interval
// panel and the nested-CV panel with its summary row, and a plain fit
// writes neither. The panel's 90 % residual quantile is the ⌈0.9(n+1)⌉-th
// smallest |y_i − CV prediction_i| of the fit's own --cv-predictions (the
// CV+ residuals are the hold-out residuals at the chosen point), and the
// summary row states the JSON "outer" value and interval at its level.
func TestFitReportIntervalOuter(t *testing.T) {
	dir := t.TempDir()
	const n = 60
	data := writeCSV(t, dir, n, 61)
	common := []string{"fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma-grid", "0.1,1",
		"--lambda-grid", "2^-6..2^2", "--cv", "kfold:5", "--quiet"}
	plain := filepath.Join(dir, "plain.html")
	if _, stderr, err := run(t, "", append(common, "--report", plain)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if doc := readFileT(t, plain); section(doc, "interval-1") != "" || section(doc, "nested-outer") != "" || outerRowRe.MatchString(doc) {
		t.Error("a fit without --interval and --outer-folds has an interval or outer panel")
	}
	path, cvp := filepath.Join(dir, "r.html"), filepath.Join(dir, "cvp.txt")
	stdout, stderr, err := run(t, "", append(common, "--interval", "cv+", "--outer-folds", "4", "--report", path, "--cv-predictions", cvp)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	o := decodeFit(t, stdout)
	doc := readFileT(t, path)
	iv := section(doc, "interval-1")
	if iv == "" || !strings.Contains(iv, "<svg") || !strings.Contains(iv, "K = 5 fold models") || !strings.Contains(iv, "n = 60") {
		t.Fatalf("no interval panel of 5 fold models and 60 rows:\n%.400s", iv)
	}
	y := testLabels(t, data)
	lines := strings.Fields(readFileT(t, cvp))[1:]
	if len(lines) != n {
		t.Fatalf("%d CV predictions", len(lines))
	}
	res := make([]float64, n)
	for i, s := range lines {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = max(y[i]-v, v-y[i])
	}
	slices.Sort(res)
	h := (9*(n+1) + 9) / 10
	m := quantile90.FindStringSubmatch(iv)
	if m == nil {
		t.Fatalf("no 90 %% residual quantile in the caption:\n%s", iv)
	}
	if want := strconv.FormatFloat(res[h-1], 'g', 4, 64); m[1] != want {
		t.Errorf("90 %% residual quantile %s, want the %d-th smallest |y − cv| %s", m[1], h, want)
	}
	if o.Outer == nil || o.Outer.Interval == nil {
		t.Fatalf("no outer estimate with an interval in the JSON: %+v", o.Outer)
	}
	if sec := section(doc, "nested-outer"); sec == "" || !strings.Contains(sec, "<svg") {
		t.Error("no nested-outer panel")
	}
	row := outerRowRe.FindStringSubmatch(doc)
	want := fmt.Sprintf("mse = %.6g over 4 outer folds (pooled outer predictions); %g %% interval [%.6g, %.6g] (%s",
		o.Outer.Value, 100*o.Outer.Level, o.Outer.Interval[0], o.Outer.Interval[1], o.Outer.Method)
	if row == nil || !strings.HasPrefix(row[1], want) {
		t.Errorf("summary row %q, want it to start %q", row, want)
	}
}
