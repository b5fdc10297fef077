// Package model holds trained predictors — linear weights or a kernel expansion —
// and their versioned JSON form.
//
//	linear:  f(x) = Wᵀx + b,                      O(d·t) per row
//	kernel:  f(x) = Σ_j a_j k(x, z_j),  z_j ∈ Points, O(n·d·t) per row
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// Version is the model file format version this build writes and reads.
const Version = 1

var (
	// ErrWidth is returned when data to predict has another number of features than the model.
	ErrWidth = errors.New("model: data width does not match the model")
	// ErrCorrupt is returned for a model file that cannot be a model.
	ErrCorrupt = errors.New("model: corrupt model file")
)

// Predictor is a trained model.
type Predictor struct {
	// Learner names the learner that produced it ("rls", "globalrank", …).
	Learner string
	// Kernel is the kernel; for a linear predictor it records the linear kernel used.
	Kernel kernel.Spec
	// Lambda is the regularization parameter it was solved at.
	Lambda float64
	// Width is d, the number of features a data row must have.
	Width int
	// Outputs names the t outputs (label columns).
	Outputs []string
	// Features names the d features (CSV header), when known.
	Features []string
	// Scaler, when set, standardizes data rows before the model sees them.
	Scaler *Scaler
	// Classes, for a one-vs-all model, are the class labels of the outputs (in
	// order); ClassLabel names the label column they came from.
	Classes    []float64
	ClassLabel string

	// Linear predictors: W is d×t, B has length t.
	W *mat.Dense
	B []float64

	// Kernel expansions: Points (n rows: *mat.Dense, *matrix.CSR or *kernel.UnitRows)
	// and coefficients A (n×t).
	Points mat.Matrix
	A      *mat.Dense
}

// IsLinear reports whether the predictor is a weight vector.
func (p *Predictor) IsLinear() bool { return p.W != nil }

// Predict returns the m×t predictions for the rows of X (dense or CSR).
func (p *Predictor) Predict(x mat.Matrix) (*mat.Dense, error) {
	m, d := x.Dims()
	if d != p.Width {
		return nil, fmt.Errorf("%w: data has %d features, the model %d", ErrWidth, d, p.Width)
	}
	t := len(p.Outputs)
	if m == 0 {
		return &mat.Dense{}, nil
	}
	if p.Scaler != nil {
		var err error
		if x, err = p.Scaler.Transform(x); err != nil {
			return nil, err
		}
	}
	if p.IsLinear() {
		out := mat.NewDense(m, t, nil)
		switch xx := x.(type) {
		case *matrix.CSR:
			xx.MulDense(out, p.W)
		default:
			if d > 0 {
				out.Mul(x, p.W)
			}
		}
		for i := 0; i < m; i++ {
			row := out.RawRowView(i)
			for c := range row {
				row[c] += p.B[c]
			}
		}
		return out, nil
	}
	k, err := kernel.New(p.Kernel)
	if err != nil {
		return nil, err
	}
	kb, err := k.Block(x, p.Points)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(m, t, nil)
	out.Mul(kb, p.A)
	return out, nil
}

// file is the JSON form.
type file struct {
	Format     string      `json:"format"`
	Version    int         `json:"version"`
	Learner    string      `json:"learner"`
	Kernel     kernel.Spec `json:"kernel"`
	Lambda     float64     `json:"lambda"`
	Width      int         `json:"width"`
	Outputs    []string    `json:"outputs"`
	Features   []string    `json:"features,omitempty"`
	Scaler     *Scaler     `json:"scaler,omitempty"`
	Classes    []float64   `json:"classes,omitempty"`
	ClassLabel string      `json:"class_label,omitempty"`
	Type       string      `json:"type"` // "linear" | "kernel"

	W [][]float64 `json:"weights,omitempty"` // d rows of t
	B []float64   `json:"intercept,omitempty"`

	Points *points     `json:"points,omitempty"`
	A      [][]float64 `json:"coefficients,omitempty"` // n rows of t
}

type points struct {
	Kind    string      `json:"kind"` // "dense" | "csr" | "unit"
	Rows    int         `json:"rows"`
	Dense   [][]float64 `json:"dense,omitempty"`
	Indptr  []int       `json:"indptr,omitempty"`
	Indices []int       `json:"indices,omitempty"`
	Values  []float64   `json:"values,omitempty"`
	Unit    []int       `json:"unit,omitempty"`
}

const formatName = "rlskit-model"

// Save writes the predictor as JSON.
func (p *Predictor) Save(w io.Writer) error {
	f := file{Format: formatName, Version: Version, Learner: p.Learner, Kernel: p.Kernel,
		Lambda: p.Lambda, Width: p.Width, Outputs: p.Outputs, Features: p.Features, Scaler: p.Scaler,
		Classes: p.Classes, ClassLabel: p.ClassLabel}
	if p.IsLinear() {
		f.Type = "linear"
		f.W = rows(p.W)
		f.B = p.B
	} else {
		f.Type = "kernel"
		f.A = rows(p.A)
		pts := &points{}
		switch q := p.Points.(type) {
		case *matrix.CSR:
			pts.Kind, pts.Rows, pts.Indptr, pts.Indices, pts.Values = "csr", q.R, q.Indptr, q.Indices, q.Values
		case *kernel.UnitRows:
			pts.Kind, pts.Rows, pts.Unit = "unit", len(q.Index), q.Index
		default:
			r, _ := q.Dims()
			pts.Kind, pts.Rows, pts.Dense = "dense", r, rows(mat.DenseCopyOf(q))
		}
		f.Points = pts
	}
	enc := json.NewEncoder(w)
	return enc.Encode(&f)
}

func rows(m *mat.Dense) [][]float64 {
	r, _ := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = append([]float64(nil), m.RawRowView(i)...)
	}
	return out
}

// Load reads a predictor written by Save, checking every field; anything
// inconsistent is an error wrapping ErrCorrupt.
func Load(r io.Reader) (*Predictor, error) {
	var f file
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	bad := func(format string, args ...any) (*Predictor, error) {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if f.Format != formatName {
		return bad("format %q, want %q", f.Format, formatName)
	}
	if f.Version != Version {
		return bad("version %d, this build reads version %d", f.Version, Version)
	}
	t := len(f.Outputs)
	if t == 0 {
		return bad("no outputs")
	}
	if f.Width < 0 {
		return bad("width %d", f.Width)
	}
	if !(f.Lambda > 0) || math.IsInf(f.Lambda, 0) {
		return bad("lambda %v", f.Lambda)
	}
	if _, err := kernel.New(f.Kernel); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if f.Features != nil && len(f.Features) != f.Width {
		return bad("%d feature names for %d features", len(f.Features), f.Width)
	}
	if f.Scaler != nil {
		if err := f.Scaler.check(f.Width); err != nil {
			return bad("%v", err)
		}
	}
	if f.Classes != nil && (len(f.Classes) != t || !allFinite(f.Classes)) {
		return bad("%d classes for %d outputs", len(f.Classes), t)
	}
	p := &Predictor{Learner: f.Learner, Kernel: f.Kernel, Lambda: f.Lambda, Width: f.Width, Outputs: f.Outputs,
		Features: f.Features, Scaler: f.Scaler, Classes: f.Classes, ClassLabel: f.ClassLabel}
	switch f.Type {
	case "linear":
		w, err := fromRows(f.W, f.Width, t)
		if err != nil {
			return bad("weights: %v", err)
		}
		if len(f.B) != t || !allFinite(f.B) {
			return bad("intercept has %d finite values, want %d", len(f.B), t)
		}
		p.W, p.B = w, f.B
	case "kernel":
		if f.Points == nil {
			return bad("kernel model without points")
		}
		n := f.Points.Rows
		if n <= 0 || len(f.A) != n {
			return bad("%d coefficient rows for %d points", len(f.A), n)
		}
		a, err := fromRows(f.A, n, t)
		if err != nil {
			return bad("coefficients: %v", err)
		}
		p.A = a
		switch f.Points.Kind {
		case "dense":
			d, err := fromRows(f.Points.Dense, n, f.Width)
			if err != nil {
				return bad("points: %v", err)
			}
			p.Points = d
		case "csr":
			c, err := matrix.NewCSR(n, f.Width, f.Points.Indptr, f.Points.Indices, f.Points.Values)
			if err != nil || !allFinite(f.Points.Values) {
				return bad("points: %v", err)
			}
			p.Points = c
		case "unit":
			if f.Kernel.Name != "precomputed" || len(f.Points.Unit) != n {
				return bad("unit points for a %s kernel", f.Kernel.Name)
			}
			for _, j := range f.Points.Unit {
				if j < 0 || j >= f.Width {
					return bad("unit point %d outside [0,%d)", j, f.Width)
				}
			}
			p.Points = &kernel.UnitRows{Index: f.Points.Unit, N: f.Width}
		default:
			return bad("points kind %q", f.Points.Kind)
		}
		if (f.Kernel.Name == "precomputed") != (f.Points.Kind == "unit") {
			return bad("points kind %q for a %s kernel", f.Points.Kind, f.Kernel.Name)
		}
	default:
		return bad("type %q, want linear or kernel", f.Type)
	}
	return p, nil
}

func fromRows(r [][]float64, n, c int) (*mat.Dense, error) {
	if len(r) != n {
		return nil, fmt.Errorf("%d rows, want %d", len(r), n)
	}
	if c == 0 && n > 0 {
		return nil, fmt.Errorf("%d rows of no values", n)
	}
	if n == 0 {
		return &mat.Dense{}, nil
	}
	out := mat.NewDense(n, c, nil)
	for i, row := range r {
		if len(row) != c {
			return nil, fmt.Errorf("row %d has %d values, want %d", i, len(row), c)
		}
		if !allFinite(row) {
			return nil, fmt.Errorf("row %d has a non-finite value", i)
		}
		copy(out.RawRowView(i), row)
	}
	return out, nil
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
