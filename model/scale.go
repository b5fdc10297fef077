package model

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// Scaler standardizes features, x'_j = (x_j − Mean_j)/Scale_j. For sparse data
// Mean is nil (centering would fill in the zeros) and Scale is the root mean
// square of the column. A constant column gets Scale 1.
type Scaler struct {
	Mean  []float64 `json:"mean,omitempty"`
	Scale []float64 `json:"scale"`
}

// FitScaler computes the column means and standard deviations of X (dense), or
// the column root mean squares (CSR). O(m·d) dense, O(nnz + d) sparse.
func FitScaler(x mat.Matrix) *Scaler {
	m, d := x.Dims()
	s := &Scaler{Scale: make([]float64, d)}
	if m == 0 {
		for j := range s.Scale {
			s.Scale[j] = 1
		}
		return s
	}
	switch xx := x.(type) {
	case *matrix.CSR:
		for k, j := range xx.Indices {
			s.Scale[j] += xx.Values[k] * xx.Values[k]
		}
		for j := range s.Scale {
			s.Scale[j] = math.Sqrt(s.Scale[j] / float64(m))
		}
	default:
		s.Mean = make([]float64, d)
		for i := 0; i < m; i++ {
			for j := 0; j < d; j++ {
				s.Mean[j] += x.At(i, j)
			}
		}
		for j := range s.Mean {
			s.Mean[j] /= float64(m)
		}
		for i := 0; i < m; i++ {
			for j := 0; j < d; j++ {
				v := x.At(i, j) - s.Mean[j]
				s.Scale[j] += v * v
			}
		}
		for j := range s.Scale {
			s.Scale[j] = math.Sqrt(s.Scale[j] / float64(m))
		}
	}
	for j, v := range s.Scale {
		if v == 0 {
			s.Scale[j] = 1
		}
	}
	return s
}

// Transform returns the standardized copy of X, of the same kind (dense or CSR).
func (s *Scaler) Transform(x mat.Matrix) (mat.Matrix, error) {
	m, d := x.Dims()
	if d != len(s.Scale) {
		return nil, fmt.Errorf("%w: data has %d features, the scaler %d", ErrWidth, d, len(s.Scale))
	}
	switch xx := x.(type) {
	case *matrix.CSR:
		if s.Mean != nil {
			return nil, fmt.Errorf("model: a centering scaler cannot keep sparse data sparse")
		}
		vals := make([]float64, len(xx.Values))
		for k, j := range xx.Indices {
			vals[k] = xx.Values[k] / s.Scale[j]
		}
		return &matrix.CSR{R: xx.R, C: xx.C, Indptr: xx.Indptr, Indices: xx.Indices, Values: vals}, nil
	default:
		if m == 0 || d == 0 {
			return x, nil
		}
		out := mat.DenseCopyOf(x)
		for i := 0; i < m; i++ {
			row := out.RawRowView(i)
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

func (s *Scaler) check(width int) error {
	if len(s.Scale) != width || (s.Mean != nil && len(s.Mean) != width) {
		return fmt.Errorf("scaler has %d scales and %d means for %d features", len(s.Scale), len(s.Mean), width)
	}
	for j, v := range s.Scale {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("scale %d is %v", j, v)
		}
	}
	if !allFinite(s.Mean) {
		return fmt.Errorf("scaler mean is not finite")
	}
	return nil
}
