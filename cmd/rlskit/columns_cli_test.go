package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/model"
)

// columnsCSV writes the rows of r as CSV with the given header, each column
// made by col from a row's features x and label y.
func columnsCSV(t *testing.T, path string, r formatRows, header []string, col func(name string, i int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for i := range r.x {
		var f []string
		for _, h := range header {
			f = append(f, col(h, i))
		}
		b.WriteString(strings.Join(f, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rowColumn returns the column functions of formatRows: a…d, y, an index
// (pandas' unnamed column, "" or "idx"), a noise column and a text column.
func rowColumn(r formatRows) func(string, int) string {
	return func(name string, i int) string {
		switch name {
		case "a", "px_1":
			return ftoaT(r.x[i][0])
		case "b", "px_2":
			return ftoaT(r.x[i][1])
		case "c", "px_3":
			return ftoaT(r.x[i][2])
		case "d", "noise":
			return ftoaT(r.x[i][3])
		case "y":
			return ftoaT(r.y[i])
		case "", "idx":
			return ftoaT(float64(i))
		case "city":
			return []string{"Oulu", "Turku"}[i%2]
		}
		panic(name)
	}
}

// fitCurve runs fit and returns its CV curve (the JSON of "cv", bit for bit)
// and the model file's text.
func fitCurve(t *testing.T, stdin string, args ...string) (string, string) {
	t.Helper()
	modelPath := filepath.Join(t.TempDir(), "m.json")
	out, _, err := run(t, stdin, append([]string{"fit", "--quiet", "--model", modelPath}, args...)...)
	if err != nil {
		t.Fatalf("fit %v: %v", args, err)
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if len(o["cv"]) == 0 {
		t.Fatalf("fit %v: no curve in %s", args, out)
	}
	return string(o["cv"]), readFileT(t, modelPath)
}

// TestFitIgnorePandasIndex: a CSV written by pandas' df.to_csv() (the index
// unnamed in column 1) is refused with the hint; with --ignore 1 its CV
// curve and model are those of the file without the index, bit for bit, from
// a file and from standard input (read as CSV by its content).
func TestFitIgnorePandasIndex(t *testing.T) {
	dir := t.TempDir()
	r := newFormatRows(30, 24, false)
	col := rowColumn(r)
	clean := columnsCSV(t, filepath.Join(dir, "clean.csv"), r, []string{"a", "b", "c", "d", "y"}, col)
	pandas := columnsCSV(t, filepath.Join(dir, "pandas.csv"), r, []string{"", "a", "b", "c", "d", "y"}, col)

	_, _, err := run(t, "", "fit", "--quiet", "--data", pandas, "--label", "y")
	const hint = `column 1 has no name: pandas writes its index there — write with index=False, or drop it with --ignore 1`
	if err == nil || !strings.Contains(err.Error(), pandas+":1: "+hint) {
		t.Fatalf("pandas CSV: %v, want %q", err, hint)
	}
	wantCurve, wantModel := fitCurve(t, "", "--data", clean, "--label", "y")
	for _, args := range [][]string{
		{"--data", pandas, "--label", "y", "--ignore", "1"},
		{"--data", pandas, "--label", "y", "--features", "a,b,c,d", "--ignore", "1"},
		{"--data", pandas, "--label", "y", "--features", "2-5"},
		{"--data", "-", "--label", "y", "--ignore", "1"},
	} {
		stdin := ""
		if args[1] == "-" {
			stdin = readFileT(t, pandas)
		}
		curve, m := fitCurve(t, stdin, args...)
		if curve != wantCurve {
			t.Errorf("%v: curve\n%s\nwant (the file without the index)\n%s", args, curve, wantCurve)
		}
		if m != wantModel {
			t.Errorf("%v: model\n%s\nwant\n%s", args, m, wantModel)
		}
	}
}

// TestFitFeaturesGlob: --features px_* keeps the pixel columns (a noise and
// a text column dropped) — the curve of the file holding only them — and
// the model records their names.
func TestFitFeaturesGlob(t *testing.T) {
	dir := t.TempDir()
	r := newFormatRows(25, 7, false)
	col := rowColumn(r)
	wide := columnsCSV(t, filepath.Join(dir, "wide.csv"), r, []string{"idx", "px_1", "city", "px_2", "noise", "px_3", "y"}, col)
	narrow := columnsCSV(t, filepath.Join(dir, "narrow.csv"), r, []string{"px_1", "px_2", "px_3", "y"}, col)
	wantCurve, wantModel := fitCurve(t, "", "--data", narrow, "--label", "y", "--kernel", "gaussian", "--gamma", "0.5")
	for _, args := range [][]string{
		{"--features", "px_*"},
		{"--features", "px_?"},
		{"--features", "px_1,px_2,px_3"},
		{"--features", "2,4,6"},
		{"--ignore", "idx,city,noise"},
		{"--ignore", "1,3,5"},
		{"--features", "px_*,idx", "--ignore", "idx"},
	} {
		curve, m := fitCurve(t, "", append([]string{"--data", wide, "--label", "y", "--kernel", "gaussian", "--gamma", "0.5"}, args...)...)
		if curve != wantCurve || m != wantModel {
			t.Errorf("%v: curve\n%s\nwant\n%s", args, curve, wantCurve)
		}
	}
	var mf struct {
		Features []string `json:"features"`
	}
	if err := json.Unmarshal([]byte(wantModel), &mf); err != nil || strings.Join(mf.Features, ",") != "px_1,px_2,px_3" {
		t.Errorf("model features %q (%v)", mf.Features, err)
	}
}

// TestPredictSelectedColumns: a model trained on chosen columns predicts
// from a file whose columns stand in another order among extra ones, by the
// names it records — without the flags, or with flags that choose the same
// columns; flags that choose others are refused.
func TestPredictSelectedColumns(t *testing.T) {
	dir := t.TempDir()
	r := newFormatRows(20, 11, false)
	col := rowColumn(r)
	train := columnsCSV(t, filepath.Join(dir, "train.csv"), r, []string{"", "px_1", "px_2", "city", "px_3", "noise", "y"}, col)
	narrow := columnsCSV(t, filepath.Join(dir, "narrow.csv"), r, []string{"px_1", "px_2", "px_3", "y"}, col)
	shuffled := columnsCSV(t, filepath.Join(dir, "shuffled.csv"), r, []string{"noise", "px_3", "city", "y", "px_1", "idx", "px_2"}, col)
	modelPath := fitModel(t, dir, train, "--label", "y", "--features", "px_*")

	want, _, err := run(t, "", "predict", "--model", modelPath, "--data", narrow)
	if err != nil || strings.Count(want, "\n") != 20 {
		t.Fatalf("predict on the chosen columns: %v\n%s", err, want)
	}
	for _, args := range [][]string{
		{"--data", shuffled},
		{"--data", shuffled, "--measure", "mse", "--out", filepath.Join(dir, "p.txt")},
		{"--data", shuffled, "--features", "px_*"},
		{"--data", shuffled, "--ignore", "noise,city,idx"},
		{"--data", train},
		{"--data", train, "--ignore", "1,city,noise"},
		{"--data", "-"},
	} {
		stdin := ""
		if args[1] == "-" {
			stdin = readFileT(t, shuffled)
		}
		out, _, err := run(t, stdin, append([]string{"predict", "--model", modelPath}, args...)...)
		if len(args) > 2 && args[2] == "--measure" {
			out = readFileT(t, args[5])
		}
		if err != nil || out != want {
			t.Errorf("%v: %v\n%s\nwant\n%s", args, err, out, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", shuffled, "--features", "px_1,px_2"},
			`--features/--ignore select "px_1", "px_2", the model was trained on "px_1", "px_2", "px_3"`},
		{[]string{"--data", shuffled, "--ignore", "px_3"}, `feature column "px_3" of the model (column 2) is dropped by --ignore`},
		{[]string{"--data", narrow, "--features", "px_9"}, `--features "px_9": no column named it in the header (did you mean "px_1" (column 1)?`},
		{[]string{"--data", columnsCSV(t, filepath.Join(dir, "missing.csv"), r, []string{"px_1", "px_3", "y"}, col)},
			`feature column "px_2" of the model not in the header (did you mean "px_1" (column 1)? columns: "px_1", "px_3", "y")`},
	} {
		_, _, err := run(t, "", append([]string{"predict", "--model", modelPath}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestColumnsNpz: an .npz array's columns go by number; the model records
// them (feature_columns) and predict takes them again from an .npz file;
// the curve is that of the CSV columns of the same numbers.
func TestColumnsNpz(t *testing.T) {
	dir := t.TempDir()
	r := newFormatRows(20, 5, false)
	npz := filepath.Join(dir, "d.npz")
	if err := os.WriteFile(npz, r.npz(t), 0o644); err != nil {
		t.Fatal(err)
	}
	csv := columnsCSV(t, filepath.Join(dir, "d.csv"), r, []string{"a", "b", "c", "d", "y"}, rowColumn(r))
	wantCurve, csvM := fitCurve(t, "", "--data", csv, "--label", "y", "--features", "b,c")
	curve, m := fitCurve(t, "", "--data", npz, "--features", "2-3")
	if curve != wantCurve {
		t.Errorf("npz --features 2-3: curve\n%s\nwant\n%s", curve, wantCurve)
	}
	p, err := model.Load(strings.NewReader(m))
	if err != nil || p.Width != 2 || len(p.FeatureColumns) != 2 || p.FeatureColumns[0] != 1 || p.FeatureColumns[1] != 2 || p.Features != nil {
		t.Fatalf("model: %v, feature columns %v, features %q", err, p.FeatureColumns, p.Features)
	}
	if !strings.Contains(m, `"version":3`) || !strings.Contains(m, `"feature_columns":[1,2]`) {
		t.Errorf("model file: %s", m)
	}
	modelPath := filepath.Join(dir, "m.json")
	os.WriteFile(modelPath, []byte(m), 0o644)
	csvModel := filepath.Join(dir, "csv.json")
	os.WriteFile(csvModel, []byte(csvM), 0o644)
	want, _, err := run(t, "", "predict", "--model", csvModel, "--data", csv)
	if err != nil {
		t.Fatal(err)
	}
	npy := filepath.Join(dir, "X.npy")
	os.WriteFile(npy, r.npy(t, false), 0o644)
	for _, args := range [][]string{{"--data", npz}, {"--data", npz, "--ignore", "1,4"}, {"--data", npy}, {"--data", "-", "--format", "npz"}} {
		stdin := ""
		if args[1] == "-" {
			stdin = string(r.npz(t))
		}
		got, _, err := run(t, stdin, append([]string{"predict", "--model", modelPath}, args...)...)
		if err != nil || got != want {
			t.Errorf("%v: %v\n%s\nwant\n%s", args, err, got, want)
		}
	}
	// The pure-Python loader reads the model (its rows are the d chosen
	// features) and predicts what rlskit does.
	py := python3(t)
	var svm strings.Builder
	for i, x := range r.x {
		svm.WriteString(ftoaT(r.y[i]) + " 1:" + ftoaT(x[1]) + " 2:" + ftoaT(x[2]) + "\n")
	}
	svmPath := filepath.Join(dir, "bc.svm")
	os.WriteFile(svmPath, []byte(svm.String()), 0o644)
	out, err := exec.Command(py, pyLoader, modelPath, svmPath).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 %s: %v\n%s", pyLoader, err, out)
	}
	goLines, pyLines := strings.Fields(want), strings.Fields(string(out))
	if len(goLines) != len(pyLines) || len(goLines) != len(r.x) {
		t.Fatalf("%d values from Python, %d from rlskit", len(pyLines), len(goLines))
	}
	for i := range goLines {
		a, _ := strconv.ParseFloat(goLines[i], 64)
		b, _ := strconv.ParseFloat(pyLines[i], 64)
		if !(math.Abs(a-b) <= 1e-12*math.Abs(a)) {
			t.Errorf("row %d: rlskit %v, Python %v", i+1, a, b)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--data", npz, "--features", "b,c"}, `--features "b": the columns of the array X have no names: select them by number or range (1-4)`},
		{[]string{"fit", "--data", npz, "--features", "2-5"}, "--features 2-5: out of range: the array X has 4 columns"},
		{[]string{"predict", "--model", modelPath, "--data", npz, "--ignore", "1"}, "--features/--ignore select columns 2-4, the model was trained on columns 2-3"},
		{[]string{"predict", "--model", modelPath, "--data", csv}, "the model was trained on chosen columns of an unnamed NumPy array (feature_columns [1 2], 0-based): give the prediction data as .npz or .npy"},
	} {
		_, _, err := run(t, "", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestColumnsRefused: each refusal of the CLI names the flag or column and
// lists the columns.
func TestColumnsRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	dup := write("dup.csv", "a,b,a,y\n1,2,3,4\n2,3,1,5\n3,1,2,6\n")
	unnamed := write("unnamed.csv", "a,,b,y\n1,2,3,4\n2,3,1,5\n3,1,2,6\n")
	data := write("d.csv", "alpha,beta,qid,label\n1,2,q1,4\n2,3,q1,5\n3,1,q2,6\n")
	svm := write("d.svm", "1 1:2\n2 1:3\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--data", dup, "--label", "y"}, dup + `:1: columns 1 and 3 are both named "a": rename one, or drop one with --ignore 3`},
		{[]string{"--data", unnamed, "--label", "y"}, unnamed + ":1: column 2 has no name: name it in the header, or drop it with --ignore 2"},
		{[]string{"--data", data, "--label", "lable"},
			`label column "lable" not in the header (did you mean "label" (column 4)? columns: "alpha", "beta", "qid", "label")`},
		{[]string{"--data", data, "--label", "label", "--qid", "query"}, `qid column "query" not in the header (columns: "alpha", "beta", "qid", "label")`},
		{[]string{"--data", data, "--label", "label", "--qid", "qid", "--features", "alfa"},
			`--features "alfa": no column named it in the header (did you mean "alpha" (column 1)?`},
		{[]string{"--data", data, "--label", "label", "--qid", "qid", "--ignore", "5"}, "--ignore 5: out of range: the header has 4 columns"},
		{[]string{"--data", data, "--label", "label", "--qid", "qid", "--features", "label,alpha"}, `--features label: column 4 ("label") is a --label column, never a feature`},
		{[]string{"--data", data, "--label", "label", "--qid", "qid", "--features", "a*["}, `--features "a*[": a malformed glob`},
		{[]string{"--data", svm, "--features", "1"}, svm + ": --features choose columns of CSV, Parquet and NumPy data; svmlight files have none to choose"},
	}
	for _, c := range cases {
		_, _, err := run(t, "", append([]string{"fit", "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v\nwant %q", c.args, err, c.want)
		}
	}
	// duplicates are read when all but one are ignored
	if _, _, err := run(t, "", "fit", "--quiet", "--data", dup, "--label", "y", "--ignore", "3", "--lambda", "1", "--cv", "none"); err != nil {
		t.Errorf("duplicates ignored: %v", err)
	}
}

// TestStdinCSV: CSV on standard input is read as CSV by its content (no
// --format): the curve of the same file read by name; forced to svmlight it
// fails with the hint to give --format csv.
func TestStdinCSV(t *testing.T) {
	dir := t.TempDir()
	r := newFormatRows(15, 3, false)
	path := filepath.Join(dir, "d.csv")
	os.WriteFile(path, r.csv(";"), 0o644)
	wantCurve, wantModel := fitCurve(t, "", "--data", path, "--label", "y")
	curve, m := fitCurve(t, string(r.csv(";")), "--data", "-", "--label", "y")
	if curve != wantCurve || m != wantModel {
		t.Errorf("stdin: curve\n%s\nwant\n%s", curve, wantCurve)
	}
	_, _, err := run(t, string(r.csv(";")), "fit", "--quiet", "--data", "-", "--label", "y", "--format", "svmlight")
	if err == nil || !strings.Contains(err.Error(), "--label and --qid apply to CSV") {
		t.Errorf("forced svmlight with --label: %v", err)
	}
	_, _, err = run(t, string(r.csv(";")), "fit", "--quiet", "--data", "-", "--format", "svmlight")
	if err == nil || !strings.Contains(err.Error(), "(the file looks like CSV: add --format csv)") {
		t.Errorf("forced svmlight: %v", err)
	}
	_, _, err = run(t, string(r.csv(",")), "fit", "--quiet", "--data", "-")
	if err == nil || !strings.Contains(err.Error(), "-: no labels (name the label column(s) of CSV, npz or Parquet data with --label") {
		t.Errorf("stdin CSV without --label: %v", err)
	}
	// svmlight on standard input is still svmlight
	svm := string(r.svmlight(false))
	svmPath := filepath.Join(dir, "d.svm")
	os.WriteFile(svmPath, []byte(svm), 0o644)
	wantCurve, _ = fitCurve(t, "", "--data", svmPath)
	if curve, _ := fitCurve(t, svm, "--data", "-"); curve != wantCurve {
		t.Errorf("svmlight on stdin: curve\n%s\nwant\n%s", curve, wantCurve)
	}
}

// TestStreamColumns: fit --stream takes the flags on CSV shards (the curve
// of the shards without the pandas index) and refuses them on svmlight.
func TestStreamColumns(t *testing.T) {
	dir := t.TempDir()
	r := newFormatRows(40, 13, false)
	col := rowColumn(r)
	clean := columnsCSV(t, filepath.Join(dir, "clean.csv"), r, []string{"a", "b", "c", "d", "y"}, col)
	pandas := columnsCSV(t, filepath.Join(dir, "pandas.csv"), r, []string{"", "a", "b", "c", "d", "y"}, col)
	wantCurve, wantModel := fitCurve(t, "", "--stream", "--data", clean, "--label", "y")
	curve, m := fitCurve(t, "", "--stream", "--data", pandas, "--label", "y", "--ignore", "1")
	if curve != wantCurve || m != wantModel {
		t.Errorf("stream --ignore 1: curve\n%s\nwant\n%s", curve, wantCurve)
	}
	_, _, err := run(t, "", "fit", "--quiet", "--stream", "--data", pandas, "--label", "y")
	if err == nil || !strings.Contains(err.Error(), "column 1 has no name: pandas writes its index there") {
		t.Errorf("stream pandas CSV: %v", err)
	}
	svm := filepath.Join(dir, "d.svm")
	os.WriteFile(svm, r.svmlight(false), 0o644)
	_, _, err = run(t, "", "fit", "--quiet", "--stream", "--data", svm, "--ignore", "1")
	if err == nil || !strings.Contains(err.Error(), "--features and --ignore choose CSV columns; svmlight files have no columns to choose") {
		t.Errorf("stream svmlight --ignore: %v", err)
	}
}
