// Package model holds trained predictors — linear weights or a kernel expansion —
// and their versioned JSON form.
//
//	linear:  f(x) = Wᵀx + b,                          O(d·t) per row
//	kernel:  f(x) = Σ_j a_j k(x, z_j) (+ b),  z_j ∈ Points, O(n·d·t) per row
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// Version is the newest model file format version this build writes. It
// reads every version from 1 to Version (docs/model-format.md: version 2
// added "zero_based" and the scaler's "centered", version 3 the "intercept"
// of kernel models and "feature_columns", version 4 "class_names" and
// "positive_class", version 5 the "interval" of hold-out models); a file of
// a newer version is refused, never guessed at. Save writes the lowest
// version that holds the predictor (2 unless a kernel model has an intercept
// or the model records feature columns — 3 — class names — 4 — or an
// interval — 5), so that older readers read what they can.
const Version = 5

var (
	// ErrWidth is returned when data to predict has another number of features than the model.
	ErrWidth = errors.New("model: data width does not match the model")
	// ErrCorrupt is returned for a model file that cannot be a model.
	ErrCorrupt = errors.New("model: corrupt model file")
	// ErrOverflow is returned by Predict when a prediction is not finite: the
	// data lies so far outside the training range that the model overflows
	// float64 (for kernel models the data's overflow is named by a
	// kernel.ErrOverflow error instead).
	ErrOverflow = errors.New("model: prediction overflows float64")
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
	// FeatureColumns, when set, are the columns (0-based, increasing) of an
	// unnamed array (NumPy) that the d features were chosen from
	// (dataset.Columns); prediction data select them again. Nil: every
	// column, in order, or the named columns of Features.
	FeatureColumns []int
	// Scaler, when set, standardizes data rows before the model sees them.
	Scaler *Scaler
	// ZeroBased records that the training data were svmlight with 0-based
	// feature indices (as scikit-learn writes them): prediction data in
	// svmlight are read the same way, so feature 0 is column 0.
	ZeroBased bool
	// Classes, for a one-vs-all model, are the class labels of the outputs (in
	// order); ClassLabel names the label column they came from.
	Classes    []float64
	ClassLabel string
	// ClassNames (file version 4), for a one-vs-all model of string
	// classes, are the class names of the outputs, sorted by bytes (Classes
	// is then nil); for a binary model (one output) learned with a positive
	// class, the two classes of the label column, and Positive the one
	// that is +1 (the other is -1).
	ClassNames []string
	Positive   string

	// Linear predictors: W is d×t, B has length t. When WIndex is set, W
	// holds only the rows of the features WIndex lists (strictly increasing,
	// in [0,Width)), row k being the weights of feature WIndex[k], and every
	// other feature has weight 0: a model over sparse data of any width costs
	// memory in proportion to the features its training data used (see
	// matrix.Columns.MulTDense, which forms exactly this W).
	W      *mat.Dense
	WIndex []int
	B      []float64

	// Kernel expansions: Points (n rows: *mat.Dense, *matrix.CSR or *kernel.UnitRows)
	// and coefficients A (n×t). B is nil, or the t unpenalized intercepts
	// added to every prediction (file version 3).
	Points mat.Matrix
	A      *mat.Dense

	// Interval, when set (file version 5), holds the hold-out models that
	// PredictInterval's jackknife+ or CV+ intervals read (interval.go).
	Interval *Interval
}

// AddIntercept adds b (one value per output, an unpenalized intercept) to
// the predictor's constant: to B for a linear predictor, as B (a copy) for a
// kernel expansion, whose predictions become Σ_j a_j k(x, z_j) + b. O(t).
func (p *Predictor) AddIntercept(b []float64) {
	if p.B == nil {
		p.B = make([]float64, len(b))
	}
	for c, v := range b {
		p.B[c] += v
	}
}

// IsLinear reports whether the predictor is a weight vector.
func (p *Predictor) IsLinear() bool { return p.W != nil }

// Predict returns the m×t predictions for the rows of X (dense or CSR). Data
// whose values would overflow the kernel is refused with a *kernel.ValueError
// naming the row and column (see kernel.CheckFinite), and predictions that are
// not finite with an *OverflowError naming the row.
func (p *Predictor) Predict(x mat.Matrix) (*mat.Dense, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: no model", ErrCorrupt)
	}
	if x == nil {
		return nil, fmt.Errorf("%w: no data", ErrWidth)
	}
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
	var out *mat.Dense
	if p.IsLinear() {
		out = mat.NewDense(m, t, nil)
		switch xx := x.(type) {
		case *matrix.CSR:
			if p.WIndex != nil {
				mulSparseRows(out, xx, p.WIndex, p.W)
			} else {
				xx.MulDense(out, p.W)
			}
		default:
			if p.WIndex != nil {
				for k, j := range p.WIndex {
					w := p.W.RawRowView(k)
					for i := 0; i < m; i++ {
						v := x.At(i, j)
						if v == 0 {
							continue
						}
						o := out.RawRowView(i)
						for c := range o {
							o[c] += v * w[c]
						}
					}
				}
			} else if d > 0 {
				out.Mul(x, p.W)
			}
		}
		for i := 0; i < m; i++ {
			row := out.RawRowView(i)
			for c := range row {
				row[c] += p.B[c]
			}
		}
	} else {
		if err := kernel.CheckFinite(p.Kernel, x); err != nil {
			return nil, err
		}
		k, err := kernel.New(p.Kernel)
		if err != nil {
			return nil, err
		}
		kb, err := k.Block(x, p.Points)
		if err != nil {
			return nil, err
		}
		out = mat.NewDense(m, t, nil)
		out.Mul(kb, p.A)
		if p.B != nil {
			for i := 0; i < m; i++ {
				row := out.RawRowView(i)
				for c := range row {
					row[c] += p.B[c]
				}
			}
		}
	}
	for i := 0; i < m; i++ {
		for c, v := range out.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &OverflowError{Row: i, Output: p.Outputs[c], Value: v}
			}
		}
	}
	return out, nil
}

// mulSparseRows adds X·W to dst for CSR X and the rows W of the features idx.
func mulSparseRows(dst *mat.Dense, x *matrix.CSR, idx []int, w *mat.Dense) {
	for i := 0; i < x.R; i++ {
		o := dst.RawRowView(i)
		cols, vals := x.Row(i)
		lo := 0
		for n, j := range cols {
			k, ok := slices.BinarySearch(idx[lo:], j)
			lo += k
			if !ok {
				continue
			}
			v := vals[n]
			for c, wv := range w.RawRowView(lo) {
				o[c] += v * wv
			}
		}
	}
}

// OverflowError is Predict's error for a prediction that is not finite. It
// wraps ErrOverflow.
type OverflowError struct {
	Row    int     // 0-based row of the data given to Predict
	Output string  // the output's name
	Value  float64 // the prediction: NaN or ±Inf
}

// Error names the row counting from 1.
func (e *OverflowError) Error() string {
	return fmt.Sprintf("data row %d (counting from 1), output %q: prediction %v: the data lies far outside the training range: %v",
		e.Row+1, e.Output, e.Value, ErrOverflow)
}

// Unwrap returns ErrOverflow.
func (e *OverflowError) Unwrap() error { return ErrOverflow }

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
	FeatCols   []int       `json:"feature_columns,omitempty"` // version 3
	Scaler     *Scaler     `json:"scaler,omitempty"`
	ZeroBased  *bool       `json:"zero_based,omitempty"` // version 2; Save always writes it
	Classes    []float64   `json:"classes,omitempty"`
	ClassLabel string      `json:"class_label,omitempty"`
	ClassNames []string    `json:"class_names,omitempty"`    // version 4
	Positive   string      `json:"positive_class,omitempty"` // version 4
	Type       string      `json:"type"`                     // "linear" | "kernel"

	W      [][]float64 `json:"weights,omitempty"`      // d rows of t, or one per WIndex entry
	WIndex *[]int      `json:"weight_index,omitempty"` // the features of the rows of W, when not all
	B      []float64   `json:"intercept,omitempty"`    // linear; kernel from version 3

	Points *points     `json:"points,omitempty"`
	A      [][]float64 `json:"coefficients,omitempty"` // n rows of t

	Interval *intervalFile `json:"interval,omitempty"` // version 5
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

// Save writes the predictor as JSON: one object, and a newline, of the
// lowest version that holds it (see Version).
func (p *Predictor) Save(w io.Writer) error {
	version := 2
	if !p.IsLinear() && p.B != nil || p.FeatureColumns != nil {
		version = 3 // a kernel model's intercept, feature columns
	}
	if p.ClassNames != nil {
		version = 4
	}
	if p.Interval != nil {
		version = 5
	}
	f := file{Format: formatName, Version: version, Learner: p.Learner, Kernel: p.Kernel,
		Lambda: p.Lambda, Width: p.Width, Outputs: p.Outputs, Features: p.Features, FeatCols: p.FeatureColumns, Scaler: p.Scaler,
		ZeroBased: &p.ZeroBased, Classes: p.Classes, ClassLabel: p.ClassLabel,
		ClassNames: p.ClassNames, Positive: p.Positive}
	if p.IsLinear() {
		f.Type = "linear"
		f.W = rows(p.W)
		if p.WIndex != nil {
			f.WIndex = &p.WIndex
		}
		f.B = p.B
	} else {
		f.Type = "kernel"
		f.A = rows(p.A)
		f.B = p.B
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
	if p.Interval != nil {
		f.Interval = p.Interval.file()
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

// DomainRadius is the radius of the inputs on which Load guarantees finite
// predictions: every row whose standardized features x' = (x − Mean)/Scale
// (the raw features, without a scaler) lie in [−DomainRadius, DomainRadius] —
// some standard deviations around the training data — is predicted finite.
const DomainRadius = 4

// predictionBound is the bound on |f(x)| over the domain below which a model
// is accepted: far enough below math.MaxFloat64 that rounding cannot overflow.
const predictionBound = math.MaxFloat64 / 16

// Load reads one predictor written by Save, checking every field; anything
// inconsistent is an error wrapping ErrCorrupt that gives the reason. Load
// refuses:
//   - anything but one JSON object (and white space) in r: trailing bytes and
//     two concatenated models are corrupt;
//   - unknown fields, a wrong format name, a version outside 1..Version (a
//     newer build's file), no outputs, a negative
//     width, λ not positive and finite, an invalid kernel;
//   - a linear model whose kernel is not linear, a kernel model with weights,
//     a linear model with points, classes that are not finite and increasing,
//     class names that are not distinct (increasing for one-vs-all) or a
//     positive class that is not one of them (checkClassNames);
//   - a scaler with a scale that is not a normal positive number (1e-320: the
//     division would overflow) or a mean that is not finite;
//   - points that overflow the kernel (kernel.CheckFinite), and parameters
//     that could predict a non-finite value for a row within DomainRadius
//     (weights or coefficients whose sum overflows, NaN from Inf − Inf).
//
// Memory is bounded by the file's content: every array is checked against
// the sizes the file declares before it is copied, and a sparse model's width
// is only a number (a width of 10¹² with a few points costs nothing).
func Load(r io.Reader) (*Predictor, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: no reader", ErrCorrupt)
	}
	var f file
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	bad := func(format string, args ...any) (*Predictor, error) {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return bad("data after the model: %v", err)
		}
		return bad("data after the model (%v): one model per file", tok)
	}
	if f.Format != formatName {
		return bad("format %q, want %q", f.Format, formatName)
	}
	if f.Version < 1 || f.Version > Version {
		return bad("version %d: this build reads versions 1 to %d (a newer rlskit wrote it? upgrade)", f.Version, Version)
	}
	if f.Version == 1 && (f.ZeroBased != nil || (f.Scaler != nil && f.Scaler.centeredField)) {
		return bad("version 1 has no zero_based and no scaler centered: those came with version 2")
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
	if f.FeatCols != nil {
		switch {
		case f.Version < 3:
			return bad("feature_columns in a version %d model: they came with version 3", f.Version)
		case f.Features != nil:
			return bad("both features (names) and feature_columns (numbers)")
		case len(f.FeatCols) != f.Width:
			return bad("%d feature columns for %d features", len(f.FeatCols), f.Width)
		}
		for k, j := range f.FeatCols {
			if j < 0 || (k > 0 && j <= f.FeatCols[k-1]) {
				return bad("feature_columns: entry %d (%d) is not increasing from 0", k, j)
			}
		}
	}
	if f.Scaler != nil {
		if err := f.Scaler.check(f.Width); err != nil {
			return bad("%v", err)
		}
	}
	if f.Classes != nil {
		if len(f.Classes) != t || !allFinite(f.Classes) {
			return bad("%d classes for %d outputs", len(f.Classes), t)
		}
		for c := 1; c < t; c++ {
			if !(f.Classes[c] > f.Classes[c-1]) {
				return bad("classes %v are not increasing", f.Classes)
			}
		}
	}
	if err := checkClassNames(&f, t); err != nil {
		return nil, err
	}
	p := &Predictor{Learner: f.Learner, Kernel: f.Kernel, Lambda: f.Lambda, Width: f.Width, Outputs: f.Outputs,
		Features: f.Features, FeatureColumns: f.FeatCols, Scaler: f.Scaler, ZeroBased: f.ZeroBased != nil && *f.ZeroBased, Classes: f.Classes, ClassLabel: f.ClassLabel,
		ClassNames: f.ClassNames, Positive: f.Positive}
	switch f.Type {
	case "linear":
		if f.Kernel.Name != "linear" {
			return bad("a linear model with a %s kernel", f.Kernel.Name)
		}
		if f.Points != nil || f.A != nil {
			return bad("points or coefficients in a linear model")
		}
		n := f.Width
		if f.WIndex != nil {
			idx := *f.WIndex
			for k, j := range idx {
				if j < 0 || j >= f.Width || (k > 0 && j <= idx[k-1]) {
					return bad("weight_index: entry %d (%d) is not increasing within [0,%d)", k, j, f.Width)
				}
			}
			n = len(idx)
			p.WIndex = idx
		}
		w, err := fromRows(f.W, n, t)
		if err != nil {
			return bad("weights: %v", err)
		}
		if len(f.B) != t || !allFinite(f.B) {
			return bad("intercept has %d finite values, want %d", len(f.B), t)
		}
		p.W, p.B = w, f.B
		if err := p.checkLinearBound(); err != nil {
			return bad("%v", err)
		}
	case "kernel":
		if f.W != nil || f.WIndex != nil {
			return bad("weights in a kernel model")
		}
		if f.B != nil {
			if f.Version < 3 {
				return bad("intercept in a version %d kernel model: kernel models have one from version 3", f.Version)
			}
			if len(f.B) != t || !allFinite(f.B) {
				return bad("intercept has %d finite values, want %d", len(f.B), t)
			}
			p.B = f.B
		}
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
			if f.Width == 0 {
				return bad("points: dense points of no features")
			}
			d, err := fromRows(f.Points.Dense, n, f.Width)
			if err != nil {
				return bad("points: %v", err)
			}
			p.Points = d
		case "csr":
			c, err := matrix.NewCSR(n, f.Width, f.Points.Indptr, f.Points.Indices, f.Points.Values)
			if err != nil {
				return bad("points: %v", err)
			}
			if !allFinite(f.Points.Values) {
				return bad("points: a value is not finite")
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
		if err := kernel.CheckFinite(f.Kernel, p.Points); err != nil {
			return bad("points: %v", err)
		}
		if err := p.checkKernelBound(); err != nil {
			return bad("%v", err)
		}
	default:
		return bad("type %q, want linear or kernel", f.Type)
	}
	if f.Interval != nil {
		if f.Version < 5 {
			return bad("interval in a version %d model: intervals came with version 5", f.Version)
		}
		iv, err := loadInterval(f.Interval, p)
		if err != nil {
			return bad("%v", err)
		}
		p.Interval = iv
	}
	return p, nil
}

// checkLinearBound checks |f(x)| ≤ R·Σ_j|W_jc| + |B_c| < predictionBound for
// every output c, R = DomainRadius.
func (p *Predictor) checkLinearBound() error {
	r, _ := p.W.Dims()
	for c, b := range p.B {
		s := 0.0
		for j := 0; j < r; j++ {
			s += math.Abs(p.W.At(j, c))
		}
		if bound := DomainRadius*s + math.Abs(b); !(bound < predictionBound) {
			return fmt.Errorf("output %q: the weights (Σ|w| = %g) and intercept %g can predict beyond float64 for data within ±%d", p.Outputs[c], s, b, DomainRadius)
		}
	}
	return nil
}

// checkKernelBound checks Σ_i |A_ic|·K_i + |B_c| < predictionBound for every
// output c, with K_i a bound on |k(x, z_i)| for rows x within DomainRadius.
func (p *Predictor) checkKernelBound() error {
	n, t := p.A.Dims()
	kmax := make([]float64, n)
	s := p.Kernel
	for i := range kmax {
		kmax[i] = 1 // gaussian
		var l1 float64
		switch q := p.Points.(type) {
		case *matrix.CSR:
			_, vals := q.Row(i)
			for _, v := range vals {
				l1 += math.Abs(v)
			}
		case *mat.Dense:
			for _, v := range q.RawRowView(i) {
				l1 += math.Abs(v)
			}
		}
		switch s.Name {
		case "linear":
			kmax[i] = DomainRadius*l1 + math.Abs(s.Bias)
		case "polynomial":
			kmax[i] = math.Pow(s.Gamma*DomainRadius*l1+math.Abs(s.Coef0), float64(s.Degree))
		case "precomputed":
			kmax[i] = DomainRadius
		}
	}
	for c := 0; c < t; c++ {
		sum := 0.0
		if p.B != nil {
			sum = math.Abs(p.B[c])
		}
		for i := 0; i < n; i++ {
			sum += math.Abs(p.A.At(i, c)) * kmax[i]
		}
		if !(sum < predictionBound) {
			return fmt.Errorf("output %q: the coefficients and points can predict beyond float64 for data within ±%d", p.Outputs[c], DomainRadius)
		}
	}
	return nil
}

// fromRows copies n rows of c finite values into a matrix, after checking
// every row's length, so the allocation is bounded by what r holds.
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
	for i, row := range r {
		if len(row) != c {
			return nil, fmt.Errorf("row %d has %d values, want %d", i, len(row), c)
		}
		if !allFinite(row) {
			return nil, fmt.Errorf("row %d has a non-finite value", i)
		}
	}
	out := mat.NewDense(n, c, nil)
	for i, row := range r {
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

// checkClassNames checks a file's class_names and positive_class (version
// 4): a one-vs-all model's t distinct names in increasing byte order, or a
// binary model's two distinct names with the positive one among them; either
// way not beside numeric classes. O(t).
func checkClassNames(f *file, t int) error {
	switch {
	case f.ClassNames == nil && f.Positive == "":
		return nil
	case f.ClassNames == nil:
		return corrupt("positive_class %q without class_names", f.Positive)
	case f.Version < 4:
		return corrupt("class_names in a version %d model: they came with version 4", f.Version)
	case f.Classes != nil:
		return corrupt("both classes and class_names")
	}
	for _, n := range f.ClassNames {
		if n == "" {
			return corrupt("class_names: an empty name")
		}
	}
	if f.Positive != "" {
		if t != 1 || len(f.ClassNames) != 2 || f.ClassNames[0] == f.ClassNames[1] {
			return corrupt("a binary model has one output and two distinct class_names, got %d outputs and %q", t, f.ClassNames)
		}
		if f.Positive != f.ClassNames[0] && f.Positive != f.ClassNames[1] {
			return corrupt("positive_class %q is not one of the class_names %q", f.Positive, f.ClassNames)
		}
		return nil
	}
	if len(f.ClassNames) != t {
		return corrupt("%d class_names for %d outputs", len(f.ClassNames), t)
	}
	for c := 1; c < t; c++ {
		if !(f.ClassNames[c] > f.ClassNames[c-1]) {
			return corrupt("class_names %q are not increasing", f.ClassNames)
		}
	}
	return nil
}

// corrupt is a load error wrapping ErrCorrupt.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
