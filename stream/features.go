package stream

import (
	"encoding/binary"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
)

// ScaleStats accumulate what standardization needs, in one pass: per feature
// the sums of (x − x₀) and (x − x₀)² about the pilot's value x₀ for dense data
// (mean and standard deviation, as model.FitScaler computes them), or of x
// and x² over the stored values for sparse data, with the number of stored
// values: sparse data that store most of their entries are centred like dense
// data (model.CentersSparse), others scaled by the root mean square without
// centring — centring would fill in the zeros. Double-double sums; O(d)
// memory.
type ScaleStats struct {
	Sparse bool
	N      float64
	Width  int
	Stored float64 // sparse: values stored
	shift  []float64
	s1, s2 acc
}

func newScaleStats(sparse bool, shift []float64) *ScaleStats {
	return &ScaleStats{Sparse: sparse, shift: shift, s1: newAcc(0), s2: newAcc(0)}
}

func (s *ScaleStats) grow(d int) {
	if d <= s.s2.len() {
		return
	}
	n := max(d, 2*s.s2.len())
	s1, s2 := newAcc(n), newAcc(n)
	copy(s1.hi, s.s1.hi)
	copy(s1.lo, s.s1.lo)
	copy(s2.hi, s.s2.hi)
	copy(s2.lo, s.s2.lo)
	s.s1, s.s2 = s1, s2
}

// add adds the rows of a chunk. O(stored values).
func (s *ScaleStats) add(x mat.Matrix) {
	m, d := x.Dims()
	s.N += float64(m)
	s.Width = max(s.Width, d)
	s.grow(d)
	switch xx := x.(type) {
	case *matrix.CSR:
		s.Stored += float64(len(xx.Values))
		for k, j := range xx.Indices {
			v := xx.Values[k]
			s.s1.addF(j, v)
			p, e := twoProd(v, v)
			s.s2.addDD(j, dd{p, e})
		}
	default:
		row := make([]float64, d)
		for i := 0; i < m; i++ {
			mat.Row(row, i, x)
			for j, v := range row {
				if j < len(s.shift) {
					v -= s.shift[j]
				}
				s.s1.addF(j, v)
				p, e := twoProd(v, v)
				s.s2.addDD(j, dd{p, e})
			}
		}
	}
}

// Merge adds other's rows.
func (s *ScaleStats) Merge(o *ScaleStats) {
	s.N += o.N
	s.Stored += o.Stored
	s.Width = max(s.Width, o.Width)
	s.grow(o.s2.len())
	s.s1.merge(o.s1)
	s.s2.merge(o.s2)
}

// MarshalBinary encodes the statistics (the shift is the plan's and not kept).
func (s *ScaleStats) MarshalBinary() ([]byte, error) {
	var out []byte
	sp := uint64(0)
	if s.Sparse {
		sp = 1
	}
	out = binary.LittleEndian.AppendUint64(out, sp)
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.N))
	out = binary.LittleEndian.AppendUint64(out, uint64(s.Width))
	out = binary.LittleEndian.AppendUint64(out, uint64(s.s2.len()))
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.Stored))
	out = appendAcc(out, s.s1)
	return appendAcc(out, s.s2), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *ScaleStats) UnmarshalBinary(b []byte) error {
	if len(b) < 40 {
		return errCorrupt
	}
	n := binary.LittleEndian.Uint64(b[24:])
	if n > 1<<28 || uint64(len(b)) != 40+32*n {
		return errCorrupt
	}
	s.Sparse = binary.LittleEndian.Uint64(b) == 1
	s.N = math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	s.Width = int(binary.LittleEndian.Uint64(b[16:]))
	s.Stored = math.Float64frombits(binary.LittleEndian.Uint64(b[32:]))
	s.s1, s.s2 = newAcc(int(n)), newAcc(int(n))
	off := readAcc(b, 40, s.s1)
	readAcc(b, off, s.s2)
	return nil
}

// usable is model.FitScaler's rule: a spread that is not a normal positive
// float64 (a constant column) scales by 1.
func usable(v float64) float64 {
	if !(v >= math.SmallestNonzeroFloat64*(1<<52)) || math.IsInf(v, 0) {
		return 1
	}
	return v
}

// Scaler returns the standardization of the rows seen — model.FitScaler's
// result for the same data to rounding: dense (and sparse data storing most
// entries), x' = (x − mean)/sd with the population standard deviation (a
// column whose variance is below 10⁻²⁴ of its mean square, a constant one,
// scales by 1); other sparse data, x' = x/rms over the features that hold
// values, listed in Index.
func (s *ScaleStats) Scaler() *model.Scaler {
	if s.N == 0 {
		return nil
	}
	n := ddOf(s.N)
	if s.Sparse && s.Stored*2 >= s.N*float64(s.Width) && s.Width > 0 {
		// centred like dense data (model.CentersSparse): the sums over the
		// stored values are the sums over all, zeros adding nothing
		d := s.Width
		sc := &model.Scaler{Mean: make([]float64, d), Scale: make([]float64, d)}
		for j := 0; j < d; j++ {
			if j >= s.s1.len() {
				sc.Scale[j] = 1
				continue
			}
			m1 := s.s1.at(j).div(n)
			sc.Mean[j] = m1.float()
			v := s.s2.at(j).div(n).sub(m1.mul(m1))
			if v.hi <= 1e-24*sc.Mean[j]*sc.Mean[j] {
				sc.Scale[j] = 1
				continue
			}
			sc.Scale[j] = usable(math.Sqrt(v.float()))
		}
		return sc
	}
	if s.Sparse {
		sc := &model.Scaler{Index: []int{}, Scale: []float64{}}
		for j := 0; j < s.s2.len(); j++ {
			q := s.s2.at(j)
			if q.hi == 0 {
				continue
			}
			if v := usable(math.Sqrt(q.div(n).float())); v != 1 {
				sc.Index = append(sc.Index, j)
				sc.Scale = append(sc.Scale, v)
			}
		}
		return sc
	}
	d := s.Width
	sc := &model.Scaler{Mean: make([]float64, d), Scale: make([]float64, d)}
	for j := 0; j < d; j++ {
		m1 := s.s1.at(j).div(n)
		x0 := 0.0
		if j < len(s.shift) {
			x0 = s.shift[j]
		}
		sc.Mean[j] = ddOf(x0).add(m1).float()
		v := s.s2.at(j).div(n).sub(m1.mul(m1))
		ms := sc.Mean[j] * sc.Mean[j]
		if v.hi <= 1e-24*ms {
			sc.Scale[j] = 1
			continue
		}
		sc.Scale[j] = usable(math.Sqrt(v.float()))
	}
	return sc
}

// featureMap turns data rows into the feature vectors z the statistics are
// about: the (standardized) features themselves for the linear kernel, or
// the basis feature map z = K_BB^{-1/2} k(B, x) of a sparse model over a fixed
// basis B — the features in which the subset-of-regressors model is a linear
// ridge regression without bias (Rifkin & Lippert 2007; factor.NewSparse
// drops the same eigenvalues of K_BB, at or below n·ε·max μ).
type featureMap struct {
	scaler *model.Scaler
	// basis (nil: linear features)
	kern   kernel.Kernel
	points mat.Matrix // standardized basis rows
	wmap   *mat.Dense // n×k: Q_keep diag(μ_keep)^{-1/2}
}

// newBasisMap builds the basis feature map from the (standardized) basis
// points: K_BB = Q diag(μ) Qᵀ, W = Q_keep diag(μ_keep)^{-1/2}. O(n³).
func newBasisMap(k kernel.Kernel, points mat.Matrix) (*mat.Dense, error) {
	kbb, err := k.Block(points, points)
	if err != nil {
		return nil, err
	}
	linalg.Symmetrize(kbb)
	w, _, err := factor.BasisMap(kbb)
	if err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	return w, nil
}

// apply maps a chunk's rows to dense features (rows × p). O(rows·d) linear,
// O(rows·n·(d + k)) for a basis.
func (f *featureMap) apply(x mat.Matrix) (*mat.Dense, error) {
	if f.scaler != nil {
		var err error
		if x, err = f.scaler.Transform(x); err != nil {
			return nil, err
		}
	}
	if f.kern == nil {
		switch xx := x.(type) {
		case *matrix.CSR:
			return xx.ToDense(), nil
		case *mat.Dense:
			return xx, nil
		default:
			return mat.DenseCopyOf(x), nil
		}
	}
	x, pts := sameWidth(x, f.points)
	kb, err := f.kern.Block(x, pts)
	if err != nil {
		return nil, err
	}
	return linalg.Mul(false, false, kb, f.wmap), nil
}

// sameWidth gives two CSR operands the larger of their widths (a sparse row
// is zero beyond its last index); dense operands are returned as they are.
func sameWidth(a, b mat.Matrix) (mat.Matrix, mat.Matrix) {
	ac, aok := a.(*matrix.CSR)
	bc, bok := b.(*matrix.CSR)
	if !aok || !bok || ac.C == bc.C {
		return a, b
	}
	w := max(ac.C, bc.C)
	a2, b2 := *ac, *bc
	a2.C, b2.C = w, w
	return &a2, &b2
}
