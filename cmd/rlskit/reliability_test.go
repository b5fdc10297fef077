package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/model"
)

// Regression tests for the reliability issue, parts B (huge widths), C (output
// files) and D (readers and loader), through the predict and fit commands.

// fitModel trains a linear model on the CSV data and returns the model path.
func fitModel(t *testing.T, dir, data string, args ...string) string {
	t.Helper()
	path := filepath.Join(dir, "m.json")
	args = append([]string{"fit", "--data", data, "--lambda", "1", "--cv", "none", "--model", path, "--quiet"}, args...)
	if _, _, err := run(t, "", args...); err != nil {
		t.Fatal(err)
	}
	return path
}

// predict --out naming an input is refused before any work: the input is intact.
func TestPredictOutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 61)
	modelPath := fitModel(t, dir, data, "--label", "y")
	before := readFileT(t, data)
	link := filepath.Join(dir, "link.csv")
	os.Symlink(data, link)
	hard := filepath.Join(dir, "hard.csv")
	os.Link(data, hard)
	for _, c := range []struct{ out, data string }{
		{data, data}, {link, data}, {data, link}, {hard, data}, {modelPath, data},
	} {
		_, _, err := run(t, "", "predict", "--model", modelPath, "--data", c.data, "--out", c.out)
		if !errors.Is(err, dataset.ErrSameFile) || !strings.HasPrefix(err.Error(), "--out "+c.out+": ") {
			t.Errorf("--out %s --data %s: %v", c.out, c.data, err)
		}
	}
	if readFileT(t, data) != before {
		t.Fatal("the data file changed")
	}
	if _, err := model.Load(strings.NewReader(readFileT(t, modelPath))); err != nil {
		t.Fatalf("the model changed: %v", err)
	}
	// A missing directory is reported before the model is even read.
	_, _, err := run(t, "", "predict", "--model", filepath.Join(dir, "absent.json"), "--data", data, "--out", filepath.Join(dir, "no", "p.txt"))
	if !errors.Is(err, dataset.ErrOutputPath) {
		t.Errorf("missing --out directory: %v", err)
	}
}

// predict --measure whose value is not finite (squared errors overflowing)
// fails without writing --out, and leaves an old --out as it was.
func TestPredictMeasureNotFiniteWritesNothing(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 62)
	modelPath := fitModel(t, dir, data, "--label", "y")
	test := filepath.Join(dir, "huge-labels.csv")
	os.WriteFile(test, []byte("a,b,c,y,cls\n1,2,3,1e200,1\n0,0,0,-1e200,1\n"), 0o644)
	out := filepath.Join(dir, "pred.txt")
	_, _, err := run(t, "", "predict", "--model", modelPath, "--data", test, "--measure", "mse", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Fatalf("err = %v", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Fatal("--out was written")
	}
	os.WriteFile(out, []byte("old\n"), 0o644)
	run(t, "", "predict", "--model", modelPath, "--data", test, "--measure", "mse", "--out", out)
	if readFileT(t, out) != "old\n" {
		t.Error("the old --out was replaced")
	}
}

// Regression: fit refused a CSV with a byte order mark and a quoted header
// that streaming predict took; both read it now, and the same way.
func TestBOMQuotedHeader(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "bom.csv")
	os.WriteFile(data, []byte("\ufeff\"a\",\"b\",\"y\"\r\n1,2,3\r\n2,1,4\r\n3,3,1\r\n4,1,2\r\n"), 0o644)
	modelPath := fitModel(t, dir, data, "--label", "y")
	streamed, _, err := run(t, "", "predict", "--model", modelPath, "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := run(t, "", "predict", "--model", modelPath, "--data", data, "--measure", "mse", "--out", filepath.Join(dir, "p.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(streamed, "\n"); lines != 4 || readFileT(t, filepath.Join(dir, "p.txt")) != streamed || !strings.Contains(whole, `"mse"`) {
		t.Errorf("streamed %q, whole %q", streamed, whole)
	}
}

// Regression: predict peeked 4096 bytes for the CSV header and, in a wide file,
// missed the label column: "401 feature columns, the model was trained on 400".
func TestPredictWideCSVHeader(t *testing.T) {
	dir := t.TempDir()
	const n = 400
	var b strings.Builder
	for j := 0; j < n; j++ {
		fmt.Fprintf(&b, "a_rather_long_feature_name_%03d,", j)
	}
	b.WriteString("y\n")
	for i := 0; i < 12; i++ {
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "%d,", (i*7+j*3)%11)
		}
		fmt.Fprintf(&b, "%d\n", i%5)
	}
	data := filepath.Join(dir, "wide.csv")
	os.WriteFile(data, []byte(b.String()), 0o644)
	modelPath := fitModel(t, dir, data, "--label", "y")
	for _, args := range [][]string{nil, {"--measure", "mse"}} {
		out, _, err := run(t, "", append([]string{"predict", "--model", modelPath, "--data", data}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if strings.Count(out, "\n") != 12 {
			t.Errorf("%v: %d lines", args, strings.Count(out, "\n"))
		}
	}
	// The same through standard input.
	if out, _, err := run(t, b.String(), "predict", "--model", modelPath, "--data", "-", "--format", "csv"); err != nil || strings.Count(out, "\n") != 12 {
		t.Errorf("stdin: %v", err)
	}
}

// Regression: at exactly row 4096 (predict's chunk boundary) predict accepted
// ragged svmlight labels and a CSV line of spaces that fit refused.
func TestPredictChunkBoundaryRules(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.svm")
	os.WriteFile(train, []byte("1 1:1\n2 2:1\n3 1:2 2:1\n"), 0o644)
	svmModel := fitModel(t, dir, train)
	csvData := writeCSV(t, dir, 20, 63)
	csvDir := filepath.Join(dir, "csv")
	os.Mkdir(csvDir, 0o755)
	csvModel := fitModel(t, csvDir, csvData, "--label", "y")

	var svm, csv strings.Builder
	csv.WriteString("a,b,c,y,cls\n")
	for i := 0; i < 4096; i++ {
		fmt.Fprintf(&svm, "%d 1:%d\n", i%3, i%7)
		fmt.Fprintf(&csv, "%d,1,2,3,1\n", i%5)
	}
	ragged := filepath.Join(dir, "ragged.svm")
	os.WriteFile(ragged, []byte(svm.String()+"1,2 1:1\n"), 0o644)
	spaces := filepath.Join(dir, "spaces.csv")
	os.WriteFile(spaces, []byte(csv.String()+"    \n"), 0o644)
	for _, c := range []struct {
		model, data, want string
		sentinel          error
	}{
		{svmModel, ragged, "ragged.svm:4097: column 1", dataset.ErrRagged},
		{csvModel, spaces, "spaces.csv:4098:", dataset.ErrRagged},
	} {
		for _, args := range [][]string{nil, {"--measure", "mse"}} {
			_, _, err := run(t, "", append([]string{"predict", "--model", c.model, "--data", c.data}, args...)...)
			if !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("predict %s %v: %v, want %q", c.data, args, err, c.want)
			}
		}
		_, _, err := run(t, "", "fit", "--data", c.data, "--label", "y", "--quiet")
		if filepath.Ext(c.data) == ".svm" {
			_, _, err = run(t, "", "fit", "--data", c.data, "--quiet")
		}
		if !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fit %s: %v, want %q", c.data, err, c.want)
		}
	}
}

// Regression: "1_0" and "0x1p-3" were numbers; both commands refuse them with
// the position.
func TestStrictNumbersCLI(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 64)
	modelPath := fitModel(t, dir, data, "--label", "y")
	for _, tok := range []string{"1_0", "0x1p-3"} {
		bad := filepath.Join(dir, "bad.csv")
		os.WriteFile(bad, []byte("a,b,c,y,cls\n1,2,3,4,1\n1,"+tok+",3,4,1\n"), 0o644)
		for _, args := range [][]string{
			{"predict", "--model", modelPath, "--data", bad},
			{"predict", "--model", modelPath, "--data", bad, "--measure", "mse"},
			{"fit", "--data", bad, "--label", "y", "--quiet"},
		} {
			_, _, err := run(t, "", args...)
			want := fmt.Sprintf("bad.csv:3: column 2 (token %q): not a number", tok)
			if !errors.Is(err, dataset.ErrSyntax) || !strings.Contains(err.Error(), want) {
				t.Errorf("%v: %v, want %q", args, err, want)
			}
		}
	}
}

// Regression: a 292-byte model declaring a width of 10¹² over sparse points
// made predict run out of memory; now it predicts in a few MB.
func TestPredictHugeWidthModel(t *testing.T) {
	dir := t.TempDir()
	modelPath := filepath.Join(dir, "huge.json")
	os.WriteFile(modelPath, []byte(`{"format":"rlskit-model","version":1,"learner":"rls","kernel":{"name":"gaussian","gamma":1},`+
		`"lambda":1,"width":1000000000000,"outputs":["y"],"type":"kernel","points":{"kind":"csr","rows":2,`+
		`"indptr":[0,1,2],"indices":[0,999999999999],"values":[1,2]},"coefficients":[[1],[2]]}`), 0o644)
	data := filepath.Join(dir, "row.svm")
	os.WriteFile(data, []byte("2 1000000000000:2\n"), 0o644)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, _, err := run(t, "", "predict", "--model", modelPath, "--data", data)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("predict allocated %d bytes", got)
	}
	if !strings.HasPrefix(out, "2.00673") {
		t.Errorf("predicted %q, want 2 + e^-5", out)
	}
	// Trailing data after the model is refused.
	os.WriteFile(modelPath, append([]byte(readFileT(t, modelPath)), "\n{}"...), 0o644)
	if _, _, err := run(t, "", "predict", "--model", modelPath, "--data", data); !errors.Is(err, model.ErrCorrupt) {
		t.Errorf("two objects in the model file: %v", err)
	}
}

// Regression: an index of 5·10⁹ in a tiny training file made fit run out of
// memory (the sparse transpose was O(width)); a kernel model fits in a few MB.
func TestFitHugeIndex(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "bi.svm")
	os.WriteFile(data, []byte("1 1:1\n2 5000000000:1\n"), 0o644)
	modelPath := filepath.Join(dir, "m.json")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, _, err := run(t, "", "fit", "--data", data, "--kernel", "gaussian", "--lambda", "1", "--cv", "none", "--model", modelPath, "--quiet")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("fit allocated %d bytes", got)
	}
	if o := decodeFit(t, out); o.NFeatures != 5000000000 {
		t.Errorf("n_features %d", o.NFeatures)
	}
	if fi, err := os.Stat(modelPath); err != nil || fi.Size() > 1000 {
		t.Errorf("model file: %v %v", fi, err)
	}
	if _, _, err := run(t, "", "predict", "--model", modelPath, "--data", data); err != nil {
		t.Error(err)
	}
}

// Regression: --out to a device replaced it with a regular file (as root) or
// failed on a temporary file in /dev (as a user); a /dev/full copy exited 0.
// Devices are written in place, and their errors reported.
func TestPredictOutDevices(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 65)
	modelPath := fitModel(t, dir, data, "--label", "y")
	if _, _, err := run(t, "", "predict", "--model", modelPath, "--data", data, "--out", os.DevNull); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s was replaced", os.DevNull)
	}
	if fi, err := os.Stat("/dev/full"); err == nil {
		full := filepath.Join(dir, "full")
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || syscall.Mknod(full, syscall.S_IFCHR|0o666, int(st.Rdev)) != nil {
			t.Log("cannot copy /dev/full (needs root)")
		} else {
			for _, args := range [][]string{nil, {"--measure", "mse"}} {
				_, _, err := run(t, "", append([]string{"predict", "--model", modelPath, "--data", data, "--out", full}, args...)...)
				if !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(err.Error(), "--out "+full) {
					t.Errorf("--out a copy of /dev/full %v: %v", args, err)
				}
			}
		}
	}
	// A symbolic link keeps pointing at the replaced file.
	target := filepath.Join(dir, "target.txt")
	link := filepath.Join(dir, "pred.txt")
	os.Symlink("target.txt", link)
	if _, _, err := run(t, "", "predict", "--model", modelPath, "--data", data, "--out", link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 || strings.Count(readFileT(t, target), "\n") != 20 {
		t.Errorf("--out through a link: %v", err)
	}
}

// fit --solver cg: the --model output is checked against the inputs before the
// work, and a value that overflows is named.
func TestFitCGOutputsAndOverflow(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.svm")
	os.WriteFile(data, []byte("1 1:1\n2 2:1\n3 1:2\n"), 0o644)
	before := readFileT(t, data)
	_, _, err := run(t, "", "fit", "--data", data, "--solver", "cg", "--cv", "none", "--lambda", "1", "--model", data, "--quiet")
	if !errors.Is(err, dataset.ErrSameFile) || readFileT(t, data) != before {
		t.Errorf("--model over --data: %v", err)
	}
	big := filepath.Join(dir, "big.svm")
	os.WriteFile(big, []byte("1 1:1e155\n2 2:1\n"), 0o644)
	_, _, err = run(t, "", "fit", "--data", big, "--solver", "cg", "--cv", "none", "--lambda", "1", "--quiet")
	if err == nil || !strings.Contains(err.Error(), "data row 1, feature column 1") || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("1e155 with cg: %v", err)
	}
	// Conjugate gradients keep vectors of the full width: an index of 5·10⁹
	// in a tiny file is refused with the limit, not met with out of memory.
	wide := filepath.Join(dir, "wide.svm")
	os.WriteFile(wide, []byte("1 1:1\n2 5000000000:1\n"), 0o644)
	_, _, err = run(t, "", "fit", "--data", wide, "--solver", "cg", "--cv", "none", "--lambda", "1", "--quiet")
	if err == nil || !strings.Contains(err.Error(), "max(2^24, 16·values) = 16777216") {
		t.Errorf("cg on width 5e9: %v", err)
	}
}
