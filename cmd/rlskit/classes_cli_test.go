package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// irisLike writes an iris-like data set — four features, three classes of
// 25 rows around their own centres — with the class column as names
// (setosa < versicolor < virginica by bytes, as codes 0 < 1 < 2) and as
// integer codes, and returns the two paths.
func irisLike(t *testing.T, dir, prefix string, rows int, seed uint64) (names, codes string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	species := []string{"setosa", "versicolor", "virginica"}
	centre := [][]float64{{5.0, 3.4, 1.5, 0.2}, {5.9, 2.8, 4.3, 1.3}, {6.6, 3.0, 5.6, 2.0}}
	var sb, cb strings.Builder
	sb.WriteString("sepal_length,sepal_width,petal_length,petal_width,species\n")
	cb.WriteString("sepal_length,sepal_width,petal_length,petal_width,species\n")
	for i := 0; i < rows; i++ {
		k := i % 3
		var f []string
		for j, c := range centre[k] {
			f = append(f, strconv.FormatFloat(c+0.4*rng.NormFloat64()*float64(j+1)/2, 'g', 6, 64))
		}
		fmt.Fprintf(&sb, "%s,%s\n", strings.Join(f, ","), species[k])
		fmt.Fprintf(&cb, "%s,%d\n", strings.Join(f, ","), k)
	}
	names, codes = filepath.Join(dir, prefix+"_names.csv"), filepath.Join(dir, prefix+"_codes.csv")
	if err := os.WriteFile(names, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(codes, []byte(cb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return names, codes
}

// TestStringClasses: --one-vs-all on a column of class names fits exactly as
// on the same data with integer codes (the same curve and weights, bit for
// bit); the model records the names (class_names, version 4), round-trips
// through its file, and predict prints the names (the argmax class), the
// per-class outputs with --scores, and multiclass-accuracy with --measure
// — the same values as the integer model's. The Python loader reads it.
func TestStringClasses(t *testing.T) {
	dir := t.TempDir()
	trainN, trainC := irisLike(t, dir, "train", 75, 1)
	testN, testC := irisLike(t, dir, "test", 30, 2)
	mN, mC := filepath.Join(dir, "names.json"), filepath.Join(dir, "codes.json")
	fit := func(data, model string) map[string]any {
		t.Helper()
		out, stderr, err := run(t, "", "fit", "--data", data, "--label", "species", "--one-vs-all", "--kernel", "gaussian", "--gamma", "0.5",
			"--cv", "kfold:5", "--model", model, "--quiet", "--pretty=false")
		if err != nil {
			t.Fatalf("fit %s: %v\n%s", data, err, stderr)
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	oN, oC := fit(trainN, mN), fit(trainC, mC)
	if fmt.Sprint(oN["outputs"]) != "[setosa versicolor virginica]" || fmt.Sprint(oC["outputs"]) != "[0 1 2]" {
		t.Errorf("outputs %v and %v", oN["outputs"], oC["outputs"])
	}
	// the curves, bit for bit (JSON prints the shortest exact decimal)
	cvN, _ := json.Marshal(oN["cv"])
	cvC, _ := json.Marshal(oC["cv"])
	if string(cvN) != string(cvC) {
		t.Errorf("the curves differ:\n%s\n%s", cvN, cvC)
	}
	var fileN, fileC map[string]any
	for path, m := range map[string]*map[string]any{mN: &fileN, mC: &fileC} {
		if err := json.Unmarshal([]byte(readFileT(t, path)), m); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(fileN["class_names"]) != "[setosa versicolor virginica]" || fileN["classes"] != nil || fileN["version"] != 4.0 ||
		fileN["class_label"] != "species" || fmt.Sprint(fileC["classes"]) != "[0 1 2]" || fileC["version"] != 2.0 {
		t.Errorf("model files: names %v classes %v version %v; codes %v version %v", fileN["class_names"], fileN["classes"], fileN["version"], fileC["classes"], fileC["version"])
	}
	if a, b := fmt.Sprint(fileN["coefficients"]), fmt.Sprint(fileC["coefficients"]); a != b || a == "<nil>" {
		t.Errorf("the coefficients differ")
	}

	predict := func(args ...string) (string, string) {
		t.Helper()
		out, stderr, err := run(t, "", append([]string{"predict"}, args...)...)
		if err != nil {
			t.Fatalf("predict %v: %v\n%s", args, err, stderr)
		}
		return out, stderr
	}
	pN, _ := predict("--model", mN, "--data", testN)
	pC, _ := predict("--model", mC, "--data", testC)
	linesN, linesC := strings.Split(strings.TrimSpace(pN), "\n"), strings.Split(strings.TrimSpace(pC), "\n")
	if len(linesN) != 30 || len(linesN) != len(linesC) {
		t.Fatalf("%d and %d lines", len(linesN), len(linesC))
	}
	species := map[string]string{"0": "setosa", "1": "versicolor", "2": "virginica"}
	for i := range linesN {
		if species[linesC[i]] != linesN[i] {
			t.Errorf("row %d: %q, the integer model says %q", i+1, linesN[i], linesC[i])
		}
	}
	// --scores: the name, then the per-class outputs, the integer model's
	sN, _ := predict("--model", mN, "--data", testN, "--scores")
	sC, _ := predict("--model", mC, "--data", testC, "--scores")
	rowsN, rowsC := strings.Split(strings.TrimSpace(sN), "\n"), strings.Split(strings.TrimSpace(sC), "\n")
	for i := range rowsN {
		fN, fC := strings.Split(rowsN[i], "\t"), strings.Split(rowsC[i], "\t")
		if len(fN) != 4 || fN[0] != linesN[i] || strings.Join(fN[1:], "\t") != strings.Join(fC[1:], "\t") {
			t.Errorf("row %d: --scores %q, integer model %q", i+1, rowsN[i], rowsC[i])
		}
	}
	// the outputs are the Python loader's
	if py, err := exec.LookPath("python3"); err == nil {
		svm := filepath.Join(dir, "test.svm")
		var b strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(readFileT(t, testC)), "\n")[1:] {
			f := strings.Split(line, ",")
			fmt.Fprintf(&b, "%s 1:%s 2:%s 3:%s 4:%s\n", f[4], f[0], f[1], f[2], f[3])
		}
		os.WriteFile(svm, []byte(b.String()), 0o644)
		out, err := exec.Command(py, pyLoader, mN, svm).CombinedOutput()
		if err != nil {
			t.Fatalf("python3 %s: %v\n%s", pyLoader, err, out)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			p, g := strings.Fields(line), strings.Split(rowsN[i], "\t")[1:]
			for k := range g {
				a, _ := strconv.ParseFloat(g[k], 64)
				b, _ := strconv.ParseFloat(p[k], 64)
				if !(math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(a))) {
					t.Errorf("row %d output %d: rlskit %v, Python %v", i+1, k+1, a, b)
				}
			}
		}
	}
	// --measure on the class names: the integer model's value
	_, mNout := predict("--model", mN, "--data", testN, "--measure", "multiclass-accuracy")
	_, mCout := predict("--model", mC, "--data", testC, "--measure", "multiclass-accuracy")
	if mNout != mCout || !strings.Contains(mNout, `"measure":"multiclass-accuracy"`) {
		t.Errorf("--measure: %s, integer model %s", mNout, mCout)
	}
	// a class the model does not know names its row
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte(strings.Replace(readFileT(t, testN), "virginica", "vulgaris", 1)), 0o644)
	if _, _, err := run(t, "", "predict", "--model", mN, "--data", bad, "--measure", "multiclass-accuracy"); err == nil ||
		!strings.Contains(err.Error(), `"vulgaris"`) || !strings.Contains(err.Error(), "does not know") {
		t.Errorf("unknown class: %v", err)
	}
}

// TestPositiveClass: --positive maps a two-class label of names to ±1: the
// fit equals the fit on the ±1 column (the curve, bit for bit), the model
// records both classes and the positive one, and predict --measure auc reads
// the names again. Without --positive the names are refused naming it.
func TestPositiveClass(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	var nb, pb strings.Builder
	nb.WriteString("a,b,outcome\n")
	pb.WriteString("a,b,outcome\n")
	for i := 0; i < 60; i++ {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		yes := a+0.5*b+0.5*rng.NormFloat64() > 0
		name, pm := "no", -1
		if yes {
			name, pm = "yes", 1
		}
		fmt.Fprintf(&nb, "%g,%g,%s\n", a, b, name)
		fmt.Fprintf(&pb, "%g,%g,%d\n", a, b, pm)
	}
	names, pm := filepath.Join(dir, "names.csv"), filepath.Join(dir, "pm.csv")
	os.WriteFile(names, []byte(nb.String()), 0o644)
	os.WriteFile(pm, []byte(pb.String()), 0o644)
	model := filepath.Join(dir, "m.json")
	common := []string{"--label", "outcome", "--measure", "auc", "--cv", "kfold:5", "--quiet", "--pretty=false"}
	outN, stderr, err := run(t, "", append([]string{"fit", "--data", names, "--positive", "yes", "--model", model}, common...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	modelP := filepath.Join(dir, "p.json")
	outP, stderr, err := run(t, "", append([]string{"fit", "--data", pm, "--model", modelP}, common...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	cv := func(s string) string {
		var o map[string]any
		json.Unmarshal([]byte(s), &o)
		b, _ := json.Marshal(o["cv"])
		return string(b)
	}
	if cv(outN) != cv(outP) || cv(outN) == "null" {
		t.Errorf("the curves differ:\n%s\n%s", cv(outN), cv(outP))
	}
	m := readFileT(t, model)
	if !strings.Contains(m, `"class_names":["no","yes"]`) || !strings.Contains(m, `"positive_class":"yes"`) {
		t.Errorf("model %s", m)
	}
	// predict: the ±1 model's predictions and AUC
	predN, aucN, err := run(t, "", "predict", "--model", model, "--data", names, "--measure", "auc")
	if err != nil || !strings.Contains(aucN, `"measure":"auc"`) {
		t.Errorf("predict --measure auc: %v %s", err, aucN)
	}
	predP, aucP, err := run(t, "", "predict", "--model", modelP, "--data", pm, "--measure", "auc")
	if err != nil || predN != predP || aucN != aucP {
		t.Errorf("predict: %v; AUC %s, the ±1 model's %s", err, aucN, aucP)
	}
	// --positive no: the outputs change sign, so the curve is the same
	outNo, _, err := run(t, "", append([]string{"fit", "--data", names, "--positive", "no"}, common...)...)
	if err != nil || cv(outNo) != cv(outN) {
		t.Errorf("--positive no: %v\n%s\n%s", err, cv(outNo), cv(outN))
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--data", names}, []string{"--positive", "--one-vs-all", `label column "outcome"`}},
		{[]string{"--data", names, "--positive", "maybe"}, []string{"--positive maybe", `not a class of label "outcome"`, `["no" "yes"]`}},
		{[]string{"--data", names, "--positive", "yes", "--one-vs-all"}, []string{"--positive yes", "--one-vs-all"}},
		{[]string{"--data", names, "--positive", "yes", "--stream"}, []string{"--positive yes", "--stream"}},
	} {
		_, _, err := run(t, "", append(append([]string{"fit"}, c.args...), "--label", "outcome", "--quiet")...)
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q lacks %q", c.args, err, w)
			}
		}
	}
}

// TestOneVsAllRefusals: --one-vs-all refuses a continuous label (more than
// 50 distinct values, or non-integer numbers) with the regression hint, a
// string label without it names the flags, and --positive refuses a label
// of three classes.
func TestOneVsAllRefusals(t *testing.T) {
	dir := t.TempDir()
	var many, frac strings.Builder
	many.WriteString("x,y\n")
	frac.WriteString("x,y\n")
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&many, "%d,%d\n", i, i)
		fmt.Fprintf(&frac, "%d,%g\n", i, float64(i%4)/2)
	}
	pMany, pFrac := filepath.Join(dir, "many.csv"), filepath.Join(dir, "frac.csv")
	os.WriteFile(pMany, []byte(many.String()), 0o644)
	os.WriteFile(pFrac, []byte(frac.String()), 0o644)
	iris, _ := irisLike(t, dir, "iris", 30, 3)
	hint := "a continuous label: --one-vs-all makes one output per class; for regression drop --one-vs-all"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--data", pMany, "--label", "y", "--one-vs-all"}, []string{"more than 50 distinct values", hint, "many.csv:52"}},
		{[]string{"--data", pFrac, "--label", "y", "--one-vs-all"}, []string{"--one-vs-all", `label "y"`, "value 0.5 is not an integer", hint}},
		{[]string{"--data", iris, "--label", "species"}, []string{`token "setosa"`, "--one-vs-all", "--positive"}},
		{[]string{"--data", iris, "--label", "species", "--positive", "setosa"}, []string{`label "species" has 3 classes`, "--one-vs-all"}},
	} {
		_, _, err := run(t, "", append(append([]string{"fit"}, c.args...), "--quiet")...)
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q lacks %q", c.args, err, w)
			}
		}
	}
	// the same numbers in svmlight (no reader coding) are refused alike
	svm := filepath.Join(dir, "many.svm")
	var b strings.Builder
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&b, "%d 1:%d\n", i, i)
	}
	os.WriteFile(svm, []byte(b.String()), 0o644)
	if _, _, err := run(t, "", "fit", "--data", svm, "--one-vs-all", "--quiet"); err == nil || !strings.Contains(err.Error(), hint) {
		t.Errorf("svmlight with 80 classes: %v", err)
	}
}
