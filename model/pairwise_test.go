package model

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

func testPairPredictors(t *testing.T) map[string]*PairPredictor {
	rng := rand.New(rand.NewPCG(1, 2))
	rowsX, colsX := randDense(rng, 4, 3), randDense(rng, 5, 2)
	a := randDense(rng, 4, 5)
	sc := FitScaler(rowsX)
	rs, _ := sc.Transform(rowsX)
	rows := &PairSide{Kernel: kernel.Spec{Name: "gaussian", Gamma: 0.5}, Width: 3, Scaler: sc, Points: rs, Features: []string{"a", "b", "c"}}
	cols := &PairSide{Kernel: kernel.Spec{Name: "linear", Bias: 1}, Width: 2, Points: colsX}
	pre := &PairSide{Kernel: kernel.Spec{Name: "precomputed"}, Width: 5, Points: kernel.Precomputed{}.Points(mat.NewDense(5, 5, nil))}
	sq := randDense(rng, 4, 4)
	return map[string]*PairPredictor{
		"kronrls dense":   {Learner: "kronrls", Lambda: 0.5, Output: "y", Rows: rows, Cols: cols, A: a},
		"twostep":         {Learner: "twostep", Lambda: 0.5, ColLambda: 2, Output: "y", Rows: rows, Cols: pre, A: a},
		"entries":         {Learner: "kronrls", Lambda: 1, Output: "y", Rows: rows, Cols: cols, Entries: []PairEntry{{0, 1, 2.5}, {3, 4, -1}}},
		"homogeneous sym": {Learner: "kronrls", Lambda: 1, Output: "y", Symmetry: "symmetric", Rows: rows, Cols: rows, A: sq},
	}
}

func TestPairSaveLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for name, p := range testPairPredictors(t) {
		var buf bytes.Buffer
		if err := p.Save(&buf); err != nil {
			t.Fatal(err)
		}
		if !IsPairwise(buf.Bytes()[:min(200, buf.Len())]) {
			t.Errorf("%s: not recognized as pairwise", name)
		}
		q, err := LoadPairwise(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// predictions of new objects agree bit for bit
		newR := randDense(rng, 3, p.Rows.Width)
		newC := randDense(rng, 2, p.Cols.Width)
		rows, cols := []int{0, 2, 1, 0}, []int{1, 1, 0, 0}
		a, err := p.Predict(newR, newC, rows, cols)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := q.Predict(newR, newC, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: pair %d: %v before saving, %v after", name, i, a[i], b[i])
			}
		}
		// against the definition k(u)ᵀ A g(v)
		kr, _ := p.Rows.Block(newR)
		kc, _ := p.Cols.Block(newC)
		am := p.A
		if am == nil {
			am = mat.NewDense(p.Rows.Len(), p.Cols.Len(), nil)
			for _, e := range p.Entries {
				am.Set(e.Row, e.Col, e.Value)
			}
		}
		var f, ka mat.Dense
		ka.Mul(kr, am)
		f.Mul(&ka, kc.T())
		for i := range a {
			if w := f.At(rows[i], cols[i]); math.Abs(a[i]-w) > 1e-12*(1+math.Abs(w)) {
				t.Errorf("%s: pair %d: %v, want %v", name, i, a[i], w)
			}
		}
	}
}

func TestPairPredictTraining(t *testing.T) {
	p := testPairPredictors(t)["kronrls dense"]
	got, err := p.Predict(nil, nil, []int{1, 3}, []int{4, 0})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := kernel.New(p.Rows.Kernel)
	g, _ := kernel.New(p.Cols.Kernel)
	kr, _ := k.Block(p.Rows.Points, p.Rows.Points)
	gc, _ := g.Block(p.Cols.Points, p.Cols.Points)
	var f, ka mat.Dense
	ka.Mul(kr, p.A)
	f.Mul(&ka, gc)
	for i, rc := range [][2]int{{1, 4}, {3, 0}} {
		if w := f.At(rc[0], rc[1]); math.Abs(got[i]-w) > 1e-12*(1+math.Abs(w)) {
			t.Errorf("training pair %v: %v, want %v", rc, got[i], w)
		}
	}
	if _, err := p.Predict(nil, nil, []int{4}, []int{0}); !errors.Is(err, ErrWidth) {
		t.Errorf("row 4 of 4: %v", err)
	}
	if _, err := testPairPredictors(t)["twostep"].Predict(nil, nil, []int{0}, []int{0}); err == nil || !strings.Contains(err.Error(), "precomputed") {
		t.Errorf("precomputed training columns: %v", err)
	}
}

func TestLoadPairwiseCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := testPairPredictors(t)["kronrls dense"].Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for name, edit := range map[string]func(string) string{
		"trailing":      func(s string) string { return s + "{}" },
		"format":        func(s string) string { return strings.Replace(s, "rlskit-pairwise-model", "x", 1) },
		"row model":     func(s string) string { return strings.Replace(s, "rlskit-pairwise-model", "rlskit-model", 1) },
		"version":       func(s string) string { return strings.Replace(s, `"version":1`, `"version":9`, 1) },
		"lambda":        func(s string) string { return strings.Replace(s, `"lambda":0.5`, `"lambda":-1`, 1) },
		"learner":       func(s string) string { return strings.Replace(s, `"kronrls"`, `"rls"`, 1) },
		"col lambda":    func(s string) string { return strings.Replace(s, `"lambda":0.5`, `"lambda":0.5,"col_lambda":3`, 1) },
		"unknown field": func(s string) string { return strings.Replace(s, `"lambda":0.5`, `"lambda":0.5,"x":1`, 1) },
		"no cols": func(s string) string {
			return s[:strings.Index(s, `,"cols"`)] + s[strings.Index(s, `,"coefficients"`):]
		},
		"short coef rows": func(s string) string { return strings.Replace(s, `"coefficients":[[`, `"coefficients":[[1],[`, 1) },
	} {
		if _, err := LoadPairwise(strings.NewReader(edit(good))); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
