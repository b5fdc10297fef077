package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// weightedRow is a row of the weight-column tests: three features, a
// weight and a label.
type weightedRow struct {
	A float64 `parquet:"a"`
	B float64 `parquet:"b"`
	C float64 `parquet:"c"`
	W float64 `parquet:"wt"`
	Y float64 `parquet:"y"`
}

// TestWeightsColumn: --weights naming a column of a CSV or Parquet --data
// fits exactly as the same weights given as a file beside the data without
// that column (the same curve, bit for bit, and the same model): the
// column is read as weights and is not a feature. A column that is not
// there, a bad weight in it (named by row), a name that is a number, and
// standard input are refused.
func TestWeightsColumn(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 9))
	rows := make([]weightedRow, 36)
	var withW, without, wfile strings.Builder
	withW.WriteString("a,b,wt,c,y\n") // the weight column between features
	without.WriteString("a,b,c,y\n")
	for i := range rows {
		r := weightedRow{A: rng.NormFloat64(), B: rng.NormFloat64(), C: rng.NormFloat64(), W: 0.1 + 3*rng.Float64()}
		r.Y = r.A - 2*r.B + 0.5*r.C + 0.3*rng.NormFloat64()
		rows[i] = r
		fmt.Fprintf(&withW, "%v,%v,%v,%v,%v\n", r.A, r.B, r.W, r.C, r.Y)
		fmt.Fprintf(&without, "%v,%v,%v,%v\n", r.A, r.B, r.C, r.Y)
		fmt.Fprintf(&wfile, "%v\n", r.W)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var pq bytes.Buffer
	w := parquet.NewGenericWriter[weightedRow](&pq)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	csvW, csvNo := write("with.csv", []byte(withW.String())), write("without.csv", []byte(without.String()))
	pqW, wf := write("with.parquet", pq.Bytes()), write("w.txt", []byte(wfile.String()))

	fit := func(model string, args ...string) (curve string, m map[string]any) {
		t.Helper()
		args = append([]string{"fit", "--label", "y", "--kernel", "gaussian", "--gamma", "0.3", "--cv", "kfold:4", "--quiet", "--model", model}, args...)
		out, stderr, err := run(t, "", args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		c, _ := json.Marshal(s["cv"].(map[string]any)["curve"])
		b, err := os.ReadFile(model)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return string(c), m
	}
	refCurve, ref := fit(filepath.Join(dir, "ref.json"), "--data", csvNo, "--weights", wf)
	for _, data := range []string{csvW, pqW} {
		curve, m := fit(filepath.Join(dir, "col.json"), "--data", data, "--weights", "wt")
		if curve != refCurve {
			t.Errorf("%s --weights wt: the curve differs from the weights file's\n%s\n%s", data, curve, refCurve)
		}
		for _, k := range []string{"features", "coefficients", "points", "lambda"} {
			a, _ := json.Marshal(m[k])
			b, _ := json.Marshal(ref[k])
			if !bytes.Equal(a, b) {
				t.Errorf("%s --weights wt: model %s %s, the weights file's %s", data, k, a, b)
			}
		}
	}

	bad := write("bad.csv", []byte(strings.Replace(withW.String(), fmt.Sprintf(",%v,", rows[6].W), ",0,", 1)))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", csvW, "--weights", "weight"}, `--weights weight: no such file, nor a column of`},
		{[]string{"--data", bad, "--weights", "wt"}, `--weights wt: ` + bad + ` row 7: weight 0: want a finite number > 0`},
		{[]string{"--data", csvW, "--weights", "3"}, `--weights 3: no such file, and not a plain column name`},
		{[]string{"--data", "-", "--format", "csv", "--weights", "wt"}, `--weights wt: no such file (a column name takes CSV or Parquet --data read from a file)`},
	} {
		args := append([]string{"fit", "--label", "y", "--kernel", "linear", "--quiet"}, tc.args...)
		_, _, err := run(t, withW.String(), args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v; want %q", tc.args, err, tc.want)
		}
	}
}
