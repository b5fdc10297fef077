package model

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// TestScalerCentresDenseLookingSparse: a CSR matrix storing at least half of
// its entries is centred exactly as its dense copy is (bit for bit); a
// sparser one is scaled by root mean squares without centring; the model
// file says which.
func TestScalerCentresDenseLookingSparse(t *testing.T) {
	cases := []struct {
		name    string
		dense   []float64 // 3×4
		centred bool
	}{
		{"all stored", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5}, true},
		{"half stored", []float64{1, 0, 3, 0, 0, 6, 0, 8, 9, 0, 11, 0}, true},
		{"under half", []float64{1, 0, 0, 0, 0, 6, 0, 8, 9, 0, 11, 0}, false},
		{"one value", []float64{0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mat.NewDense(3, 4, c.dense)
			sp := csrOf(d)
			s := FitScaler(sp)
			if s.Centered() != c.centred || CentersSparse(len(sp.Values), 3, 4) != c.centred || CentersSparse(len(sp.Values), 3, 1<<62) {
				t.Fatalf("centred %v, want %v (%d stored)", s.Centered(), c.centred, len(sp.Values))
			}
			if c.centred {
				want := FitScaler(d)
				for j := range want.Mean {
					if math.Float64bits(s.Mean[j]) != math.Float64bits(want.Mean[j]) || math.Float64bits(s.Scale[j]) != math.Float64bits(want.Scale[j]) {
						t.Errorf("column %d: %v %v, dense %v %v", j, s.Mean[j], s.Scale[j], want.Mean[j], want.Scale[j])
					}
				}
				xs, err := s.Transform(sp)
				if err != nil {
					t.Fatal(err)
				}
				for j := 0; j < 4; j++ {
					if m := floats.Sum(mat.Col(nil, j, xs)) / 3; math.Abs(m) > 1e-15 {
						t.Errorf("column %d has mean %v after centring", j, m)
					}
				}
			} else if s.Mean != nil || s.Index == nil {
				t.Errorf("sparse scaler %+v", s)
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if want := `"centered":` + map[bool]string{true: "true", false: "false"}[c.centred]; !strings.Contains(string(b), want) {
				t.Errorf("%s does not say %s", b, want)
			}
			var back Scaler
			if err := json.NewDecoder(bytes.NewReader(b)).Decode(&back); err != nil || back.Centered() != c.centred {
				t.Errorf("round trip: %v, centred %v", err, back.Centered())
			}
		})
	}
}

// csrOf returns the non-zero entries of d as a CSR matrix.
func csrOf(d *mat.Dense) *matrix.CSR {
	r, c := d.Dims()
	out := &matrix.CSR{R: r, C: c, Indptr: []int{0}}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := d.At(i, j); v != 0 {
				out.Indices = append(out.Indices, j)
				out.Values = append(out.Values, v)
			}
		}
		out.Indptr = append(out.Indptr, len(out.Values))
	}
	return out
}

// A constant column standardizes to exact zeros, whatever its value: its
// computed mean differs from the value by rounding, and dividing that by the
// column's rounding-sized spread gave ±1 — a second bias feature that greedy
// selection then kept.
func TestScalerConstantColumnIsZero(t *testing.T) {
	for _, c := range []float64{3.7, 0.1, -1e-3, 1e300, 0} {
		x := mat.NewDense(7, 2, nil)
		for i := 0; i < 7; i++ {
			x.Set(i, 0, c)
			x.Set(i, 1, float64(i))
		}
		s := FitScaler(x)
		xs, err := s.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 7; i++ {
			if v := xs.At(i, 0); v != 0 {
				t.Errorf("constant %g: row %d standardizes to %g, want 0", c, i, v)
			}
		}
		if s.Scale[1] == 1 || xs.At(0, 1) == 0 {
			t.Errorf("constant %g: the varying column lost its scaling: %v", c, s.Scale)
		}
	}
}
