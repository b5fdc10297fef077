package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// Scaler standardizes features, x'_j = (x_j − Mean_j)/Scale_j. Dense data,
// and sparse data that store most of their entries (CentersSparse), are
// centred: Mean is the column mean and Scale the (population) standard
// deviation. Other sparse data are not centred — centring would fill in the
// zeros —: Mean is nil and Scale is the root mean square of the column. A
// constant column gets Scale 1, and so does a column whose spread is below
// the smallest normal float64 (≈2.2e-308), where the division would overflow.
// Centered reports which was done; the model file records it.
//
// Index, when set (FitScaler on a *matrix.CSR), lists the features Scale
// holds, strictly increasing: Scale[k] belongs to feature Index[k], and every
// other feature has scale 1 — a scaler of sparse data costs memory in
// proportion to the features the data uses, not to its width. Mean is nil
// then.
type Scaler struct {
	Mean  []float64
	Scale []float64
	Index []int

	// centeredField records that a file gave "centered" (version 2 only).
	centeredField bool
}

// scalerJSON is the file form of a Scaler; Index is a pointer so that an empty
// index (sparse data without entries) is kept apart from none.
type scalerJSON struct {
	Centered *bool     `json:"centered,omitempty"`
	Mean     []float64 `json:"mean,omitempty"`
	Scale    []float64 `json:"scale"`
	Index    *[]int    `json:"index,omitempty"`
}

// Centered reports whether the scaler subtracts column means (Mean is set).
func (s *Scaler) Centered() bool { return s.Mean != nil }

// CentersSparse reports whether FitScaler centres a sparse m×d matrix that
// stores the given number of entries: when it stores at least half of them
// (svmlight rows that list most features), the dense matrix costs no more
// memory than the sparse one and is standardized like dense data.
func CentersSparse(stored, m, d int) bool {
	return m > 0 && d > 0 && int64(d) <= 2*int64(stored)/int64(m) // m·d ≤ 2·stored, without overflow
}

// MarshalJSON writes {"centered": …, "mean": …, "scale": …, "index": …},
// mean and index only when set.
func (s *Scaler) MarshalJSON() ([]byte, error) {
	c := s.Centered()
	j := scalerJSON{Centered: &c, Mean: s.Mean, Scale: s.Scale}
	if s.Index != nil {
		j.Index = &s.Index
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, refusing unknown fields and a
// "centered" that disagrees with the presence of "mean" (a file written
// before "centered" existed centres exactly when it has a mean).
func (s *Scaler) UnmarshalJSON(b []byte) error {
	var j scalerJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("scaler: %w", err)
	}
	if j.Centered != nil && *j.Centered != (j.Mean != nil) {
		return fmt.Errorf("scaler: centered is %v, but the scaler has %d means", *j.Centered, len(j.Mean))
	}
	s.Mean, s.Scale, s.Index, s.centeredField = j.Mean, j.Scale, nil, j.Centered != nil
	if j.Index != nil {
		s.Index = *j.Index
		if s.Index == nil {
			s.Index = []int{}
		}
	}
	return nil
}

// FitScaler computes the column means and standard deviations of X (dense,
// or a CSR X that stores at least half of its entries: CentersSparse), or
// else the column root mean squares of the features a CSR X uses (with
// Index). The
// sums are formed on values scaled by a power of two per column (exactly, so
// ordinary data gives the same bits as the plain formulas), so that neither
// values near 1e-160, whose squares underflow, nor values near 1e308, whose
// sums overflow, lose their scale. X must be finite. O(m·d) dense,
// O(nnz log nnz) sparse; never O(d) memory for CSR data it does not centre
// (one it centres costs m·d ≤ 2·nnz values, like its dense copy).
func FitScaler(x mat.Matrix) *Scaler {
	m, d := x.Dims()
	if xx, ok := x.(*matrix.CSR); ok {
		if !CentersSparse(len(xx.Values), m, d) {
			return fitSparse(xx)
		}
		x = xx.ToDense()
	}
	s := &Scaler{Scale: make([]float64, d), Mean: make([]float64, d)}
	if m == 0 {
		for j := range s.Scale {
			s.Scale[j] = 1
		}
		return s
	}
	row := func(i int, buf []float64) []float64 {
		if xd, ok := x.(*mat.Dense); ok {
			return xd.RawRowView(i)
		}
		return mat.Row(buf, i, x)
	}
	buf := make([]float64, d)
	exp := make([]int, d) // per column: max|x| = f·2^exp, f ∈ [0.5, 1)
	big := make([]float64, d)
	lo, hi := make([]float64, d), make([]float64, d)
	copy(lo, row(0, buf))
	copy(hi, lo)
	for i := 0; i < m; i++ {
		for j, v := range row(i, buf) {
			big[j] = max(big[j], math.Abs(v))
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	for j, a := range big {
		_, exp[j] = math.Frexp(a)
	}
	for i := 0; i < m; i++ {
		for j, v := range row(i, buf) {
			s.Mean[j] += math.Ldexp(v, -exp[j])
		}
	}
	for j := range s.Mean {
		s.Mean[j] /= float64(m) // scaled mean, in [-1, 1]
	}
	for i := 0; i < m; i++ {
		for j, v := range row(i, buf) {
			dv := math.Ldexp(v, -exp[j]) - s.Mean[j]
			s.Scale[j] += dv * dv
		}
	}
	for j := range s.Scale {
		s.Mean[j] = math.Ldexp(s.Mean[j], exp[j])
		s.Scale[j] = usable(math.Ldexp(math.Sqrt(s.Scale[j]/float64(m)), exp[j]))
		if lo[j] == hi[j] {
			// a constant column: its computed mean differs from the value by
			// rounding, and that difference over its rounding-sized spread
			// would be ±1 — a second bias; it is 0 exactly instead
			s.Mean[j], s.Scale[j] = lo[j], 1
		}
	}
	return s
}

// fitSparse returns the root mean squares of the non-empty columns of x.
func fitSparse(x *matrix.CSR) *Scaler {
	s := &Scaler{Index: []int{}, Scale: []float64{}}
	if x.R == 0 {
		return s
	}
	cols := x.Columns()
	for k, j := range cols.Cols {
		vals := cols.Values[cols.Indptr[k]:cols.Indptr[k+1]]
		big := 0.0
		for _, v := range vals {
			big = max(big, math.Abs(v))
		}
		_, e := math.Frexp(big)
		sum := 0.0
		for _, v := range vals {
			w := math.Ldexp(v, -e)
			sum += w * w
		}
		if sc := usable(math.Ldexp(math.Sqrt(sum/float64(x.R)), e)); sc != 1 {
			s.Index = append(s.Index, j)
			s.Scale = append(s.Scale, sc)
		}
	}
	return s
}

// usable returns v, or 1 when v is not a normal positive float64.
func usable(v float64) float64 {
	if !(v >= math.SmallestNonzeroFloat64*(1<<52)) || math.IsInf(v, 0) { // below 2^-1022, or NaN
		return 1
	}
	return v
}

// scaleOf returns the position in Index of feature j, or -1 (scale 1).
func (s *Scaler) scaleOf(j int) int {
	k, ok := slices.BinarySearch(s.Index, j)
	if !ok {
		return -1
	}
	return k
}

// Transform returns the standardized copy of X, of the same kind (dense or
// CSR), except that a centering scaler (Mean set, fitted on dense data) turns
// CSR data dense, since centering fills in the zeros.
func (s *Scaler) Transform(x mat.Matrix) (mat.Matrix, error) {
	if x == nil {
		return nil, fmt.Errorf("%w: no data", ErrWidth)
	}
	m, d := x.Dims()
	if s.Index == nil && d != len(s.Scale) {
		return nil, fmt.Errorf("%w: data has %d features, the scaler %d", ErrWidth, d, len(s.Scale))
	}
	if s.Index != nil && len(s.Index) > 0 && s.Index[len(s.Index)-1] >= d {
		return nil, fmt.Errorf("%w: data has %d features, the scaler scales feature %d", ErrWidth, d, s.Index[len(s.Index)-1]+1)
	}
	switch xx := x.(type) {
	case *matrix.CSR:
		if s.Mean != nil {
			// Centering fills in the zeros: the result is dense, m×d with d
			// the length of Mean (a dense scaler's width is real).
			return s.Transform(xx.ToDense())
		}
		vals := make([]float64, len(xx.Values))
		if s.Index == nil {
			for k, j := range xx.Indices {
				vals[k] = xx.Values[k] / s.Scale[j]
			}
		} else {
			for i := 0; i < xx.R; i++ {
				lo := 0
				for k := xx.Indptr[i]; k < xx.Indptr[i+1]; k++ {
					vals[k] = xx.Values[k]
					p, ok := slices.BinarySearch(s.Index[lo:], xx.Indices[k])
					lo += p
					if ok {
						vals[k] /= s.Scale[lo]
					}
				}
			}
		}
		return &matrix.CSR{R: xx.R, C: xx.C, Indptr: xx.Indptr, Indices: xx.Indices, Values: vals}, nil
	default:
		if m == 0 || d == 0 {
			return x, nil
		}
		out := mat.DenseCopyOf(x)
		for i := 0; i < m; i++ {
			row := out.RawRowView(i)
			if s.Index != nil {
				for k, j := range s.Index {
					row[j] /= s.Scale[k]
				}
				continue
			}
			for j := range row {
				if s.Mean != nil {
					row[j] -= s.Mean[j]
				}
				row[j] /= s.Scale[j]
			}
		}
		return out, nil
	}
}

// check validates a loaded scaler for data of the given width.
func (s *Scaler) check(width int) error {
	if s.Index != nil {
		if s.Mean != nil {
			return fmt.Errorf("scaler has means and an index (a sparse scaler does not center)")
		}
		if len(s.Scale) != len(s.Index) {
			return fmt.Errorf("scaler has %d scales for %d indexed features", len(s.Scale), len(s.Index))
		}
		for k, j := range s.Index {
			if j < 0 || j >= width || (k > 0 && j <= s.Index[k-1]) {
				return fmt.Errorf("scaler index entry %d (%d) is not increasing within [0,%d)", k, j, width)
			}
		}
	} else if len(s.Scale) != width || (s.Mean != nil && len(s.Mean) != width) {
		return fmt.Errorf("scaler has %d scales and %d means for %d features", len(s.Scale), len(s.Mean), width)
	}
	for j, v := range s.Scale {
		if usable(v) != v {
			return fmt.Errorf("scale %d is %v: want a finite number of at least 2^-1022 (the division would overflow)", j, v)
		}
	}
	if !allFinite(s.Mean) {
		return fmt.Errorf("scaler mean is not finite")
	}
	return nil
}
