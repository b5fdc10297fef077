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
// centring — centring would fill in the zeros. As model.FitScaler, the sums
// are of values scaled by a power of two per feature — 2^−e with e the
// exponent of the largest |x| (and |x₀|) seen, the sums rescaled exactly
// when it grows — so that features near 1e-200, whose squares underflow, and
// near 1e300, whose squares overflow, keep their scale; and a feature whose
// smallest and largest values are equal is constant (mean its value, scale
// 1), however its sums round. Double-double sums; O(d) memory.
type ScaleStats struct {
	Sparse bool
	N      float64
	Width  int
	Stored float64 // sparse: values stored
	shift  []float64
	s1, s2 acc       // per feature Σu, Σu², u = (x − x₀)·2^−exp
	exp    []int     // per feature: the scale's exponent (noExp: no value but 0 yet)
	lo, hi []float64 // per feature: the smallest and largest value (sparse: stored)
	cnt    []float64 // per feature: the values stored (sparse)
}

// noExp marks a feature without a value other than 0 (and x₀ = 0) yet.
const noExp = math.MinInt32

func newScaleStats(sparse bool, shift []float64) *ScaleStats {
	return &ScaleStats{Sparse: sparse, shift: shift, s1: newAcc(0), s2: newAcc(0)}
}

func (s *ScaleStats) grow(d int) {
	if d <= s.s2.len() {
		return
	}
	old := s.s2.len()
	n := max(d, 2*old)
	s1, s2 := newAcc(n), newAcc(n)
	copy(s1.hi, s.s1.hi)
	copy(s1.lo, s.s1.lo)
	copy(s2.hi, s.s2.hi)
	copy(s2.lo, s.s2.lo)
	s.s1, s.s2 = s1, s2
	s.exp = append(s.exp, make([]int, n-old)...)
	s.lo = append(s.lo, make([]float64, n-old)...)
	s.hi = append(s.hi, make([]float64, n-old)...)
	s.cnt = append(s.cnt, make([]float64, n-old)...)
	for j := old; j < n; j++ {
		s.exp[j], s.lo[j], s.hi[j] = noExp, math.Inf(1), math.Inf(-1)
		if j < len(s.shift) && s.shift[j] != 0 {
			_, s.exp[j] = math.Frexp(s.shift[j])
		}
	}
}

// raise makes feature j's exponent cover |a|, rescaling its sums exactly.
func (s *ScaleStats) raise(j int, a float64) {
	if a == 0 {
		return
	}
	if e := s.exp[j]; e != noExp && a < math.Ldexp(1, e) {
		return
	}
	_, ea := math.Frexp(a)
	if s.exp[j] != noExp {
		s.rescale(j, ea)
	}
	s.exp[j] = ea
}

// rescale moves feature j's sums from its exponent to e ≥ it.
func (s *ScaleStats) rescale(j, e int) {
	d := s.exp[j] - e
	if d == 0 {
		return
	}
	s.s1.hi[j], s.s1.lo[j] = math.Ldexp(s.s1.hi[j], d), math.Ldexp(s.s1.lo[j], d)
	s.s2.hi[j], s.s2.lo[j] = math.Ldexp(s.s2.hi[j], 2*d), math.Ldexp(s.s2.lo[j], 2*d)
	s.exp[j] = e
}

func (s *ScaleStats) addValue(j int, v, x0 float64) {
	s.lo[j], s.hi[j] = math.Min(s.lo[j], v), math.Max(s.hi[j], v)
	s.raise(j, math.Max(math.Abs(v), math.Abs(x0)))
	if s.exp[j] == noExp {
		return // v = x₀ = 0
	}
	u := math.Ldexp(v, -s.exp[j]) - math.Ldexp(x0, -s.exp[j])
	s.s1.addF(j, u)
	p, e := twoProd(u, u)
	s.s2.addDD(j, dd{p, e})
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
			s.cnt[j]++
			s.addValue(j, xx.Values[k], 0)
		}
	default:
		row := make([]float64, d)
		for i := 0; i < m; i++ {
			mat.Row(row, i, x)
			for j, v := range row {
				x0 := 0.0
				if j < len(s.shift) {
					x0 = s.shift[j]
				}
				s.addValue(j, v, x0)
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
	for j := 0; j < o.s2.len(); j++ {
		s.lo[j], s.hi[j] = math.Min(s.lo[j], o.lo[j]), math.Max(s.hi[j], o.hi[j])
		s.cnt[j] += o.cnt[j]
		e := o.exp[j]
		if e == noExp {
			continue // o's sums are 0
		}
		switch {
		case s.exp[j] == noExp:
			s.exp[j] = e
		case e > s.exp[j]:
			s.rescale(j, e)
		}
		d := e - s.exp[j] // ≤ 0: o's sums in s's scale
		s.s1.addDD(j, dd{math.Ldexp(o.s1.hi[j], d), math.Ldexp(o.s1.lo[j], d)})
		s.s2.addDD(j, dd{math.Ldexp(o.s2.hi[j], 2*d), math.Ldexp(o.s2.lo[j], 2*d)})
	}
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
	out = appendAcc(out, s.s2)
	for j := range s.exp {
		out = binary.LittleEndian.AppendUint64(out, uint64(int64(s.exp[j])))
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.lo[j]))
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.hi[j]))
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.cnt[j]))
	}
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *ScaleStats) UnmarshalBinary(b []byte) error {
	if len(b) < 40 {
		return errCorrupt
	}
	n := binary.LittleEndian.Uint64(b[24:])
	if n > 1<<28 || uint64(len(b)) != 40+64*n {
		return errCorrupt
	}
	s.Sparse = binary.LittleEndian.Uint64(b) == 1
	s.N = math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	s.Width = int(binary.LittleEndian.Uint64(b[16:]))
	s.Stored = math.Float64frombits(binary.LittleEndian.Uint64(b[32:]))
	s.s1, s.s2 = newAcc(int(n)), newAcc(int(n))
	off := readAcc(b, 40, s.s1)
	off = readAcc(b, off, s.s2)
	s.exp, s.lo, s.hi, s.cnt = make([]int, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range s.exp {
		e := int64(binary.LittleEndian.Uint64(b[off:]))
		if e != noExp && (e < -2000 || e > 2000) {
			return errCorrupt
		}
		s.exp[j] = int(e)
		s.lo[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[off+8:]))
		s.hi[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[off+16:]))
		s.cnt[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[off+24:]))
		off += 32
	}
	return nil
}

// usable is model.FitScaler's rule: a spread that is not a normal positive
// float64 scales by 1.
func usable(v float64) float64 {
	if !(v >= math.SmallestNonzeroFloat64*(1<<52)) || math.IsInf(v, 0) {
		return 1
	}
	return v
}

// moments returns feature j's mean about the shift, m₁ = Σu/n, and the
// standard deviation, both in the feature's scale 2^exp (0 without a value).
func (s *ScaleStats) moments(j int, n dd) (m1 dd, sd float64) {
	if j >= s.s1.len() || s.exp[j] == noExp {
		return dd{}, 0
	}
	m1 = s.s1.at(j).div(n)
	v := s.s2.at(j).div(n).sub(m1.mul(m1))
	e := s.exp[j]
	m1 = dd{math.Ldexp(m1.hi, e), math.Ldexp(m1.lo, e)}
	if v.hi <= 0 {
		return m1, 0
	}
	return m1, math.Ldexp(math.Sqrt(v.float()), e)
}

// Scaler returns the standardization of the rows seen — model.FitScaler's
// result for the same data to rounding: dense (and sparse data storing most
// entries), x' = (x − mean)/sd with the population standard deviation (a
// constant column — its smallest and largest values equal — has its value
// as mean and scales by 1); other sparse data, x' = x/rms over the features
// that hold values, listed in Index.
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
			sc.Scale[j] = 1
			if j >= s.s1.len() || s.cnt[j] == 0 {
				continue // zeros
			}
			switch {
			case s.cnt[j] == s.N && s.lo[j] == s.hi[j]:
				sc.Mean[j] = s.lo[j]
				continue
			case s.cnt[j] < s.N && s.lo[j] == 0 && s.hi[j] == 0:
				continue
			}
			m1, sd := s.moments(j, n)
			sc.Mean[j], sc.Scale[j] = m1.float(), usable(sd)
		}
		return sc
	}
	if s.Sparse {
		sc := &model.Scaler{Index: []int{}, Scale: []float64{}}
		for j := 0; j < s.s2.len(); j++ {
			if s.exp[j] == noExp {
				continue
			}
			q := s.s2.at(j).div(n)
			if v := usable(math.Ldexp(math.Sqrt(q.float()), s.exp[j])); v != 1 {
				sc.Index = append(sc.Index, j)
				sc.Scale = append(sc.Scale, v)
			}
		}
		return sc
	}
	d := s.Width
	sc := &model.Scaler{Mean: make([]float64, d), Scale: make([]float64, d)}
	for j := 0; j < d; j++ {
		if j < len(s.lo) && s.lo[j] == s.hi[j] {
			sc.Mean[j], sc.Scale[j] = s.lo[j], 1
			continue
		}
		x0 := 0.0
		if j < len(s.shift) {
			x0 = s.shift[j]
		}
		m1, sd := s.moments(j, n)
		sc.Mean[j] = ddOf(x0).add(m1).float()
		sc.Scale[j] = usable(sd)
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
