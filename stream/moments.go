package stream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
)

// blockRows is the number of rows summed in float64 (by one syrk and one
// gemm) before the block's sums are added, compensated, to the running
// double-double sums: the error of a block sum is at most blockRows·ε of its
// terms (Higham 2002, sect. 4.2), and nothing grows with the number of rows.
const blockRows = 32

// Moments are the additive statistics of a set of rows — a fold, a group, or
// all rows — in shifted coordinates z' = z − z₀ and y' = y − y₀, where z is a
// row's feature vector (p entries), y its labels (t entries) and z₀, y₀ a fixed
// shift near the data's mean (the pilot's mean):
//
//	N = n,  Z = Σ z',  ZZ = Σ z'z'ᵀ (p×p, upper triangle kept),  ZY = Σ z'y'ᵀ (p×t),  Y = Σ y',  YY = Σ y'∘y' (t).
//
// Every sum is a double-double. nz counts, per feature, the rows whose
// feature is not that of a data row of zeros (before the shift: 0, or
// −mean/scale standardized): a feature with no such row is a constant column
// of the set — zero in its rows for sparse data — whose scatter is exactly
// 0, and newPath solves it exactly (a weight of exactly 0 for the rankers)
// instead of its shifted sums' rounding noise amplified by 1/λ. Two Moments of disjoint rows merge by adding
// (Merge), and those of a subset are removed by subtracting (Minus), so one
// pass over the rows gives the statistics of every training set of a
// cross-validation. Memory O(p² + p·t); adding a row costs O(p² + p·t).
type Moments struct {
	P, T int
	N    float64
	z    acc       // p
	zz   acc       // p×p, row-major, upper triangle
	zy   acc       // p×t, row-major
	y    acc       // t
	yy   acc       // t
	nz   []float64 // p: rows whose (unshifted) feature is not a zero row's, an exact count
}

// NewMoments returns empty moments of p features and t outputs.
func NewMoments(p, t int) *Moments {
	return &Moments{P: p, T: t, z: newAcc(p), zz: newAcc(p * p), zy: newAcc(p * t), y: newAcc(t), yy: newAcc(t), nz: make([]float64, p)}
}

// grow widens the moments to p features (new features are zero in every row
// so far). O(p²).
func (m *Moments) grow(p int) {
	if p <= m.P {
		return
	}
	z, zz, zy := newAcc(p), newAcc(p*p), newAcc(p*m.T)
	copy(z.hi, m.z.hi)
	copy(z.lo, m.z.lo)
	for i := 0; i < m.P; i++ {
		copy(zz.hi[i*p:i*p+m.P], m.zz.hi[i*m.P:(i+1)*m.P])
		copy(zz.lo[i*p:i*p+m.P], m.zz.lo[i*m.P:(i+1)*m.P])
	}
	copy(zy.hi, m.zy.hi)
	copy(zy.lo, m.zy.lo)
	nz := make([]float64, p)
	copy(nz, m.nz)
	m.P, m.z, m.zz, m.zy, m.nz = p, z, zz, zy, nz
}

// addBlock adds the rows of a block: zb is b×p' (p' ≤ P) shifted features,
// yb b×t shifted labels. The block is summed in float64 by syrk and gemm
// (b ≤ blockRows rows) and added compensated. Every feature of the block
// counts as not zero in all its rows (addBlockNZ takes the counts).
// O(b·p² + b·p·t).
func (m *Moments) addBlock(zb, yb *mat.Dense) {
	b, p := zb.Dims()
	nz := make([]float64, p)
	for j := range nz {
		nz[j] = float64(b)
	}
	m.addBlockNZ(zb, yb, nz)
}

// addBlockNZ is addBlock with, per feature, the number of the block's rows
// whose unshifted feature is not zero.
func (m *Moments) addBlockNZ(zb, yb *mat.Dense, nz []float64) {
	b, p := zb.Dims()
	if b == 0 {
		return
	}
	m.grow(p)
	for j, v := range nz {
		m.nz[j] += v
	}
	P, t := m.P, m.T
	g := linalg.Syrk(true, zb) // p×p
	for i := 0; i < p; i++ {
		row := g.RawRowView(i)
		for j := i; j < p; j++ {
			m.zz.addF(i*P+j, row[j])
		}
	}
	c := linalg.Mul(true, false, zb, yb) // p×t
	for i := 0; i < p; i++ {
		for k, v := range c.RawRowView(i) {
			m.zy.addF(i*t+k, v)
		}
	}
	for r := 0; r < b; r++ {
		for j, v := range zb.RawRowView(r) {
			if v != 0 {
				m.z.addF(j, v)
			}
		}
		for k, v := range yb.RawRowView(r) {
			m.y.addF(k, v)
			p2, e := twoProd(v, v)
			m.yy.addDD(k, dd{p2, e})
		}
	}
	m.N += float64(b)
}

// zzAt returns entry (i, j) of ZZ; only the upper triangle is kept.
func (m *Moments) zzAt(i, j int) dd {
	if i > j {
		i, j = j, i
	}
	return m.zz.at(i*m.P + j)
}

// Merge adds the moments of other (disjoint rows) to m. O(p² + p·t).
func (m *Moments) Merge(other *Moments) error {
	if other.T != m.T {
		return fmt.Errorf("%w: merging moments of %d and %d outputs", ErrShape, m.T, other.T)
	}
	m.grow(other.P)
	P, Q := m.P, other.P
	m.z.merge(other.z)
	for i := 0; i < Q; i++ {
		for j := i; j < Q; j++ {
			m.zz.addDD(i*P+j, other.zz.at(i*Q+j))
		}
	}
	m.zy.merge(other.zy)
	m.y.merge(other.y)
	m.yy.merge(other.yy)
	for j, v := range other.nz {
		m.nz[j] += v
	}
	m.N += other.N
	return nil
}

// Clone returns a copy of m.
func (m *Moments) Clone() *Moments {
	return &Moments{P: m.P, T: m.T, N: m.N, z: m.z.clone(), zz: m.zz.clone(), zy: m.zy.clone(), y: m.y.clone(), yy: m.yy.clone(),
		nz: append(make([]float64, 0, m.P), m.nz...)}
}

// Minus returns the moments of m's rows without those of sub (a subset),
// subtracted in double-double. O(p² + p·t).
func (m *Moments) Minus(sub *Moments) *Moments {
	out := m.Clone()
	out.grow(sub.P)
	neg := sub.Clone()
	for _, a := range []acc{neg.z, neg.zz, neg.zy, neg.y, neg.yy} {
		for k := range a.hi {
			a.hi[k], a.lo[k] = -a.hi[k], -a.lo[k]
		}
	}
	for j := range neg.nz {
		neg.nz[j] = -neg.nz[j]
	}
	neg.N = -neg.N
	_ = out.Merge(neg)
	return out
}

// ErrShape is returned for statistics or rows that do not fit together.
var ErrShape = errors.New("stream: dimension mismatch")

// errCorrupt is returned for encoded statistics that do not decode.
var errCorrupt = errors.New("stream: corrupt encoded statistics")

// MarshalBinary encodes the moments (little-endian float64: P, T, N, the
// sums, then the counts of non-zero features).
func (m *Moments) MarshalBinary() ([]byte, error) {
	var out []byte
	out = binary.LittleEndian.AppendUint64(out, uint64(m.P))
	out = binary.LittleEndian.AppendUint64(out, uint64(m.T))
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(m.N))
	for _, a := range []acc{m.z, m.zz, m.zy, m.y, m.yy} {
		out = appendAcc(out, a)
	}
	for _, v := range m.nz {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (m *Moments) UnmarshalBinary(b []byte) error {
	if len(b) < 24 {
		return errCorrupt
	}
	p, t := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if p > 1<<20 || t > 1<<20 {
		return errCorrupt
	}
	P, T := int(p), int(t)
	need := 24 + 16*(P+P*P+P*T+2*T) + 8*P
	if len(b) != need {
		return errCorrupt
	}
	*m = *NewMoments(P, T)
	m.N = math.Float64frombits(binary.LittleEndian.Uint64(b[16:]))
	off := 24
	for _, a := range []acc{m.z, m.zz, m.zy, m.y, m.yy} {
		off = readAcc(b, off, a)
	}
	for j := range m.nz {
		m.nz[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[off:]))
		off += 8
	}
	return nil
}

func appendAcc(out []byte, a acc) []byte {
	for k := range a.hi {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(a.hi[k]))
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(a.lo[k]))
	}
	return out
}

func readAcc(b []byte, off int, a acc) int {
	for k := range a.hi {
		a.hi[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[off:]))
		a.lo[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[off+8:]))
		off += 16
	}
	return off
}

// centred is a training set's statistics about its own mean, rounded to
// float64 after the differences are formed in double-double:
//
//	μ = z₀ + Z/n,  ȳ = y₀ + Y/n,  C = ZZ − Z Zᵀ/n,  c = ZY − Z Yᵀ/n.
//
// O(p² + p·t).
type centred struct {
	// active marks the features not zero in some row; an inactive one is
	// zero in every row: its mean, scatter and cross-products are exactly 0
	// (nil: all active).
	active []bool
	n      float64
	mu     []float64  // p
	ybar   []float64  // t
	c      *mat.Dense // p×p
	cy     *mat.Dense // p×t
}

// A feature that equals ref's (the features of a data row of zeros; nil:
// 0) in every row — nz counts the rows where it does not — is a constant
// column of the set: its mean is ref's exactly and its scatter and
// cross-products are exactly 0, not the rounding noise the shifted sums
// leave (the column marked inactive).
func (m *Moments) centred(shift, yshift, ref []float64) centred {
	P, T := m.P, m.T
	n := ddOf(m.N)
	mean := make([]dd, P) // Z/n
	for j := range mean {
		mean[j] = m.z.at(j).div(n)
	}
	ymean := make([]dd, T)
	for k := range ymean {
		ymean[k] = m.y.at(k).div(n)
	}
	out := centred{n: m.N, mu: make([]float64, P), ybar: make([]float64, T), c: mat.NewDense(max(P, 1), max(P, 1), nil), cy: mat.NewDense(max(P, 1), max(T, 1), nil)}
	for j := range out.mu {
		s := 0.0
		if j < len(shift) {
			s = shift[j]
		}
		out.mu[j] = ddOf(s).add(mean[j]).float()
	}
	for k := range out.ybar {
		out.ybar[k] = ddOf(yshift[k]).add(ymean[k]).float()
	}
	for j, v := range m.nz {
		if v == 0 {
			if out.active == nil {
				out.active = make([]bool, P)
				for k := range out.active {
					out.active[k] = true
				}
			}
			out.active[j] = false
			out.mu[j] = 0
			if j < len(ref) {
				out.mu[j] = ref[j]
			}
		}
	}
	for i := 0; i < P; i++ {
		if !out.isActive(i) {
			continue
		}
		zi := m.z.at(i)
		for j := i; j < P; j++ {
			if !out.isActive(j) {
				continue
			}
			v := m.zz.at(i*P + j).sub(zi.mul(mean[j])).float()
			out.c.Set(i, j, v)
			out.c.Set(j, i, v)
		}
		for k := 0; k < T; k++ {
			out.cy.Set(i, k, m.zy.at(i*T+k).sub(zi.mul(ymean[k])).float())
		}
	}
	return out
}

func (c centred) isActive(j int) bool { return c.active == nil || c.active[j] }
