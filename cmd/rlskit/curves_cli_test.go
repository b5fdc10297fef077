package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/summary"
)

// readCurves reads a --curves table: its header and one map column → cell per row.
func readCurves(t *testing.T, path string) ([]string, []map[string]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	header := strings.Split(lines[0], "\t")
	var rows []map[string]string
	for n, l := range lines[1:] {
		cells := strings.Split(l, "\t")
		if len(cells) != len(header) {
			t.Fatalf("%s line %d: %d cells, header has %d", path, n+2, len(cells), len(header))
		}
		row := map[string]string{}
		for j, c := range cells {
			row[header[j]] = c
		}
		rows = append(rows, row)
	}
	return header, rows
}

// cellIs reports whether the cell holds exactly v (the table's numbers round-trip).
func cellIs(t *testing.T, cell string, v float64) bool {
	t.Helper()
	got, err := strconv.ParseFloat(cell, 64)
	if err != nil {
		t.Errorf("cell %q: %v", cell, err)
		return false
	}
	return got == v
}

// flagOf is a table's 0/1 flag for b.
func flagOf(b bool) string { return map[bool]string{true: "1", false: "0"}[b] }

// A γ grid: one row per point of the JSON curve, in its order, with its γ,
// λ, value and flag; a single kernel still names its γ; the file is written
// when the summary goes to stdout or (with --curves -) stdout holds the table.
func TestCurvesKernelGrid(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 5)
	path := filepath.Join(dir, "curves.tsv")
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma-grid", "2^-4..2^0",
		"--lambda-grid", "2^-3..2^3", "--cv", "kfold:5", "--quiet", "--curves", path)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	out := decodeFit(t, stdout)
	header, rows := readCurves(t, path)
	if strings.Join(header, " ") != "gamma lambda value indistinguishable" {
		t.Fatalf("header %q", header)
	}
	if len(rows) != len(out.CV.Curve) || len(rows) != 5*7 {
		t.Fatalf("%d rows, JSON curve has %d points", len(rows), len(out.CV.Curve))
	}
	for i, pt := range out.CV.Curve {
		r := rows[i]
		if pt.Gamma == nil || !cellIs(t, r["gamma"], *pt.Gamma) || !cellIs(t, r["lambda"], pt.Lambda) ||
			!cellIs(t, r["value"], pt.Value) || r["indistinguishable"] != flagOf(pt.Indistinguishable) {
			t.Errorf("row %d %v, JSON point %+v", i, r, pt)
		}
	}

	// one γ: the JSON names it once (kernel), the table on every row; to stdout
	stdout, stderr, err = run(t, "", "fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma", "0.25",
		"--lambda-grid", "2^-3..2^3", "--quiet", "--curves", "-")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	out = decodeFit(t, lines[len(lines)-1]) // the summary moves to stderr, after the warnings
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rows = readCurves(t, path)
	if len(rows) != 7 || len(out.CV.Curve) != 7 {
		t.Fatalf("%d rows, %d points", len(rows), len(out.CV.Curve))
	}
	for i, pt := range out.CV.Curve {
		if !cellIs(t, rows[i]["gamma"], out.Kernel.Gamma) || !cellIs(t, rows[i]["lambda"], pt.Lambda) || !cellIs(t, rows[i]["value"], pt.Value) {
			t.Errorf("row %d %v, JSON point %+v", i, rows[i], pt)
		}
	}
}

// A pairwise grid over both kernels' γ (kronrls) and over both λ (twostep):
// the row and column kernels' γ and λ of every point as in the JSON.
func TestCurvesPairwise(t *testing.T) {
	dir := t.TempDir()
	for _, learner := range []string{"kronrls", "twostep"} {
		path := filepath.Join(dir, learner+".tsv")
		args := []string{"fit", "--learner", learner, "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"),
			"--pairs", dti("dti-pairs.txt"), "--kernel", "gaussian", "--standardize", "--quiet", "--cv", "pairs", "--measure", "cindex",
			"--lambda-grid", "0.25,1,4", "--curves", path}
		wantHeader := "gamma col_gamma lambda value indistinguishable"
		if learner == "kronrls" {
			args = append(args, "--gamma-grid", "2^-6,2^-4", "--col-gamma-grid", "2^-4,2^-2")
		} else {
			args = append(args, "--gamma", "0.015625", "--col-gamma", "0.05", "--col-lambda-grid", "0.5,2")
			wantHeader = "gamma col_gamma lambda col_lambda value indistinguishable"
		}
		stdout, stderr, err := run(t, "", args...)
		if err != nil {
			t.Fatalf("%s: %v %s", learner, err, stderr)
		}
		out := decodePairFit(t, stdout)
		header, rows := readCurves(t, path)
		if strings.Join(header, " ") != wantHeader {
			t.Fatalf("%s: header %q", learner, header)
		}
		if len(rows) != len(out.CV.Curve) || len(rows) != 12 && learner == "kronrls" || len(rows) != 6 && learner == "twostep" {
			t.Fatalf("%s: %d rows, JSON curve has %d points", learner, len(rows), len(out.CV.Curve))
		}
		for i, pt := range out.CV.Curve {
			k, col := out.Kernel, out.ColKernel
			if pt.Kernel != nil {
				k, col = *pt.Kernel, pt.ColKernel
			}
			r := rows[i]
			ok := cellIs(t, r["gamma"], k.Gamma) && cellIs(t, r["col_gamma"], col.Gamma) && cellIs(t, r["lambda"], pt.Lambda) &&
				cellIs(t, r["value"], pt.Value) && r["indistinguishable"] == flagOf(pt.Indistinguishable)
			if learner == "twostep" {
				ok = ok && cellIs(t, r["col_lambda"], pt.ColLambda)
			}
			if !ok {
				t.Errorf("%s row %d %v, JSON point %+v kernels %v %v", learner, i, r, pt, k, col)
			}
		}
	}
}

// Greedy: one row per step of every path, as the JSON's selection.curve.
func TestCurvesGreedy(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 9)
	path := filepath.Join(dir, "greedy.tsv")
	stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--learner", "greedy", "--select", "3",
		"--lambda-grid", "0.5,2", "--quiet", "--curves", path)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	out := decodeFit(t, stdout)
	header, rows := readCurves(t, path)
	if strings.Join(header, " ") != "lambda features feature name value indistinguishable" {
		t.Fatalf("header %q", header)
	}
	if out.Selection == nil || len(rows) != len(out.Selection.Curve) || len(rows) != 6 {
		t.Fatalf("%d rows, JSON %+v", len(rows), out.Selection)
	}
	for i, st := range out.Selection.Curve {
		r := rows[i]
		if st.Lambda == nil || st.Feature == nil || !cellIs(t, r["lambda"], *st.Lambda) || r["features"] != strconv.Itoa(st.Features) ||
			r["feature"] != strconv.Itoa(*st.Feature) || r["name"] != st.Name || !cellIs(t, r["value"], st.Value) ||
			r["indistinguishable"] != flagOf(st.Indistinguishable) {
			t.Errorf("row %d %v, JSON step %+v", i, r, st)
		}
	}
}

// --stream writes its curve too.
func TestCurvesStream(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 6)
	path := filepath.Join(dir, "stream.tsv")
	stdout, stderr, err := run(t, "", "fit", "--stream", "--data", data, "--label", "y", "--cv", "kfold:5",
		"--lambda-grid", "2^-2..2^2", "--quiet", "--curves", path)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	var out summary.Stream
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	header, rows := readCurves(t, path)
	if strings.Join(header, " ") != "lambda value indistinguishable" || len(rows) != 5 || out.CV == nil || len(out.CV.Curve) != 5 {
		t.Fatalf("header %q, %d rows, summary %+v", header, len(rows), out.CV)
	}
	for i, pt := range out.CV.Curve {
		if !cellIs(t, rows[i]["lambda"], pt.Lambda) || !cellIs(t, rows[i]["value"], pt.Value) {
			t.Errorf("row %d %v, JSON point %+v", i, rows[i], pt)
		}
	}
}

// Refusals name --curves: no CV curve (--cv none, --solver cg), an output
// that is an input; and a failed fit leaves an existing table as it was.
func TestCurvesRefused(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 7)
	path := filepath.Join(dir, "curves.tsv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"cv none":  {"--cv", "none", "--lambda", "1", "--curves", path},
		"cg":       {"--solver", "cg", "--cv", "none", "--lambda", "1", "--curves", path},
		"is input": {"--curves", data},
		"no label": {"--label", "nosuch", "--curves", path},
	} {
		full := append([]string{"fit", "--data", data, "--quiet"}, args...)
		if name != "no label" {
			full = append(full, "--label", "y")
		}
		_, stderr, err := run(t, "", full...)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if name != "no label" && !strings.Contains(err.Error()+stderr, "--curves") {
			t.Errorf("%s: error %q does not name --curves", name, err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("a refused or failed fit touched the table: %q", b)
	}
	if b, _ := os.ReadFile(data); strings.HasPrefix(string(b), "gamma") || strings.HasPrefix(string(b), "lambda") {
		t.Errorf("the input was overwritten")
	}
}
