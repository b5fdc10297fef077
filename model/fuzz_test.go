package model

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// domainInputs returns rows of p's width whose standardized features lie in
// [−2, 2] — within DomainRadius even after rounding — as a dense matrix (for
// widths up to 256) and as CSR rows over a few columns: the inputs Load
// promises finite predictions for. Rows whose raw values would not be finite
// are left out.
func domainInputs(p *Predictor) []mat.Matrix {
	us := []float64{1, -2, 2, 0.5, 0}
	raw := func(j int, u float64) float64 {
		s := p.Scaler
		switch {
		case s == nil:
			return u
		case s.Index != nil:
			if k := s.scaleOf(j); k >= 0 {
				return u * s.Scale[k]
			}
			return u
		default:
			m := 0.0
			if s.Mean != nil {
				m = s.Mean[j]
			}
			return m + u*s.Scale[j]
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	var out []mat.Matrix
	d := p.Width
	if d > 0 && d <= 256 {
		x := mat.NewDense(len(us), d, nil)
		ok := true
		for i, u := range us {
			for j := 0; j < d; j++ {
				v := raw(j, u)
				ok = ok && finite(v)
				x.Set(i, j, v)
			}
		}
		if ok {
			out = append(out, x)
		}
	}
	cols := []int{}
	if d > 0 {
		cols = append(cols, 0, d-1)
	}
	cols = append(cols, p.WIndex...)
	if csr, ok := p.Points.(*matrix.CSR); ok {
		cols = append(cols, csr.Indices...)
	}
	if u, ok := p.Points.(*kernel.UnitRows); ok {
		cols = append(cols, u.Index...)
	}
	if p.Scaler != nil {
		cols = append(cols, p.Scaler.Index...)
	}
	slices.Sort(cols)
	cols = slices.Compact(cols)
	if len(cols) > 8 {
		cols = cols[:8]
	}
	indptr := []int{0}
	var idx []int
	var val []float64
	for _, u := range us {
		for _, j := range cols {
			v := raw(j, u)
			if !finite(v) {
				return out
			}
			idx = append(idx, j)
			val = append(val, v)
		}
		indptr = append(indptr, len(idx))
	}
	x, err := matrix.NewCSR(len(us), d, indptr, idx, val)
	if err != nil {
		panic(err)
	}
	return append(out, x)
}

// FuzzLoad: any input is a model or ErrCorrupt; a model loaded saves to a
// file that loads to the same bytes, and predicts finite values for every row
// within DomainRadius — and, with an interval, finite intervals lo ≤ hi at
// coverage 0.5 — or the loader refused it.
//
//	go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 10s ./model
func FuzzLoad(f *testing.F) {
	for _, p := range testPredictors(&testing.T{}) {
		var buf bytes.Buffer
		p.Save(&buf)
		f.Add(buf.Bytes())
	}
	var iv bytes.Buffer
	handInterval().Save(&iv)
	f.Add(iv.Bytes())
	f.Add([]byte(hugeModel))
	f.Add([]byte(`{"format":"rlskit-model","version":1,"learner":"rls","kernel":{"name":"linear"},"lambda":1,"width":3,` +
		`"outputs":["y"],"scaler":{"scale":[2],"index":[1]},"type":"linear","weight_index":[0,2],"weights":[[1],[-1]],"intercept":[0]}`))
	f.Add([]byte(`{"format":"rlskit-model","version":1,"learner":"rls","kernel":{"name":"linear","bias":1},"lambda":1,"width":2,` +
		`"outputs":["y"],"scaler":{"mean":[1e300,0],"scale":[1e-300,1]},"type":"linear","weights":[[1e300],[1]],"intercept":[0.5]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Load(bytes.NewReader(b))
		if err != nil {
			if p != nil || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Load = %v, %v", p, err)
			}
			return
		}
		var saved bytes.Buffer
		if err := p.Save(&saved); err != nil {
			t.Fatal(err)
		}
		q, err := Load(bytes.NewReader(saved.Bytes()))
		if err != nil {
			t.Fatalf("a loaded model saves to a file Load refuses: %v\n%s", err, saved.Bytes())
		}
		var again bytes.Buffer
		q.Save(&again)
		if !bytes.Equal(saved.Bytes(), again.Bytes()) {
			t.Fatalf("save, load, save differs:\n%s\n%s", saved.Bytes(), again.Bytes())
		}
		for _, x := range domainInputs(p) {
			y, err := p.Predict(x)
			if err != nil {
				t.Fatalf("Predict on %v: %v", mat.Formatted(x), err)
			}
			for _, v := range y.RawMatrix().Data {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("prediction %v on %v", v, mat.Formatted(x))
				}
			}
		}
		if p.Interval != nil { // finite intervals at a level whose ranks lie within 1..n, lo ≤ hi
			for _, x := range domainInputs(p) {
				_, lo, hi, err := p.PredictInterval(x, 0.5)
				if err != nil {
					t.Fatalf("PredictInterval on %v: %v", mat.Formatted(x), err)
				}
				for i, l := range lo.RawMatrix().Data {
					h := hi.RawMatrix().Data[i]
					if math.IsNaN(l) || math.IsInf(l, 0) || math.IsNaN(h) || math.IsInf(h, 0) || l > h {
						t.Fatalf("interval [%v, %v] on %v", l, h, mat.Formatted(x))
					}
				}
			}
		}
	})
}
