package stream

import (
	"encoding/binary"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
)

// RankMoments are the additive statistics of query ranking (QueryRankRLS,
// Pahikkala et al. 2009) over a set of whole queries: with L_q = n_q·I − 11ᵀ the
// Laplacian of query q's complete preference graph and w_q its weight (1, or
// 1/n_q when every query's pairs are normalized),
//
//	H = Σ_q w_q Z_qᵀ L_q Z_q = Σ_q w_q n_q C_q,   B = Σ_q w_q Z_qᵀ L_q Y_q,
//
// C_q the scatter of the query's rows about their own mean. Queries add
// (Merge) and leave (Minus) the sums independently of each other, which is
// what makes leave-query-out, and k-fold over whole queries, exact updates.
// N counts rows, Q queries; YY holds Σ_q w_q n_q Σ_{i∈q} (y_i − ȳ_q)², the
// labels' share of the terms summed into B (what bounds B's rounding, see
// rhsError). Memory O(p² + p·t).
type RankMoments struct {
	P, T int
	N, Q float64
	h    acc // p×p upper triangle
	b    acc // p×t
	yy   acc // t
}

// NewRankMoments returns empty rank moments of p features and t outputs.
func NewRankMoments(p, t int) *RankMoments {
	return &RankMoments{P: p, T: t, h: newAcc(p * p), b: newAcc(p * t), yy: newAcc(t)}
}

func (m *RankMoments) grow(p int) {
	if p <= m.P {
		return
	}
	h, b := newAcc(p*p), newAcc(p*m.T)
	for i := 0; i < m.P; i++ {
		copy(h.hi[i*p:i*p+m.P], m.h.hi[i*m.P:(i+1)*m.P])
		copy(h.lo[i*p:i*p+m.P], m.h.lo[i*m.P:(i+1)*m.P])
	}
	copy(b.hi, m.b.hi)
	copy(b.lo, m.b.lo)
	m.P, m.h, m.b = p, h, b
}

// queryRows bounds the rows of one query summed in float64 at once (by one
// syrk), beyond which the query is summed in blocks: the error of a block's
// sum is at most queryRows·ε of its terms, which are centred on the query's
// own mean.
const queryRows = 256

// queryTerms returns one query's terms Z_qᵀL_qZ_q and Z_qᵀL_qY_q, times the
// query's weight w_q/n_q (1, or 1/n_q normalized), in float64 blocks: rows
// centred about the query's mean, summed by syrk and gemm. O(n_q·p² + n_q·p·t).
func queryTerms(z, y *mat.Dense, normalized bool, add func(h, b *mat.Dense, w float64)) {
	nq, p := z.Dims()
	_, t := y.Dims()
	if nq < 2 {
		return // no pairs
	}
	w := float64(nq)
	if normalized {
		w = 1
	}
	zc, yc := centreRows(z), centreRows(y)
	for lo := 0; lo < nq; lo += queryRows {
		hi := min(lo+queryRows, nq)
		zb := zc.Slice(lo, hi, 0, p).(*mat.Dense)
		yb := yc.Slice(lo, hi, 0, t).(*mat.Dense)
		add(linalg.Syrk(true, zb), linalg.Mul(true, false, zb, yb), w)
	}
}

// addQuery adds one whole query: z holds its n_q rows of features (any
// shift), y its labels. O(n_q·p² + n_q·p·t).
func (m *RankMoments) addQuery(z, y *mat.Dense, normalized bool) {
	nq, p := z.Dims()
	m.grow(p)
	m.N += float64(nq)
	m.Q++
	P, t := m.P, m.T
	queryTerms(z, y, normalized, func(g, c *mat.Dense, w float64) {
		for i := 0; i < p; i++ {
			row := g.RawRowView(i)
			for j := i; j < p; j++ {
				a, e := twoProd(row[j], w)
				m.h.addDD(i*P+j, dd{a, e})
			}
			for k, v := range c.RawRowView(i) {
				a, e := twoProd(v, w)
				m.b.addDD(i*t+k, dd{a, e})
			}
		}
	})
	if nq < 2 {
		return
	}
	w := float64(nq)
	if normalized {
		w = 1
	}
	yc := centreRows(y)
	for i := 0; i < nq; i++ {
		for k, v := range yc.RawRowView(i) {
			a, e := twoProd(v*v, w)
			m.yy.addDD(k, dd{a, e})
		}
	}
}

// withoutQuery returns H and B of m without one query (rows z, labels y),
// the query's terms subtracted from the double-double sums entry by entry
// and rounded once: O(n_q·p² + p²), no copy of the sums.
func (m *RankMoments) withoutQuery(z, y *mat.Dense, normalized bool) (*mat.Dense, *mat.Dense) {
	P, T := m.P, m.T
	hq, bq := make([]dd, P*P), make([]dd, P*T)
	queryTerms(z, y, normalized, func(g, c *mat.Dense, w float64) {
		p, _ := g.Dims()
		for i := 0; i < p; i++ {
			row := g.RawRowView(i)
			for j := i; j < p; j++ {
				a, e := twoProd(row[j], w)
				hq[i*P+j] = hq[i*P+j].add(dd{a, e})
			}
			for k, v := range c.RawRowView(i) {
				a, e := twoProd(v, w)
				bq[i*T+k] = bq[i*T+k].add(dd{a, e})
			}
		}
	})
	h, b := mat.NewDense(max(P, 1), max(P, 1), nil), mat.NewDense(max(P, 1), max(T, 1), nil)
	for i := 0; i < P; i++ {
		for j := i; j < P; j++ {
			v := m.h.at(i*P + j).sub(hq[i*P+j]).float()
			h.Set(i, j, v)
			h.Set(j, i, v)
		}
		for k := 0; k < T; k++ {
			b.Set(i, k, m.b.at(i*T+k).sub(bq[i*T+k]).float())
		}
	}
	return h, b
}

// centreRows returns x minus its column means (the means summed compensated).
func centreRows(x *mat.Dense) *mat.Dense {
	r, c := x.Dims()
	sum := newAcc(c)
	for i := 0; i < r; i++ {
		for j, v := range x.RawRowView(i) {
			sum.addF(j, v)
		}
	}
	out := mat.DenseCopyOf(x)
	for j := 0; j < c; j++ {
		mean := sum.at(j).div(ddOf(float64(r))).float()
		for i := 0; i < r; i++ {
			out.Set(i, j, out.At(i, j)-mean)
		}
	}
	return out
}

// Merge adds other (other queries) to m.
func (m *RankMoments) Merge(other *RankMoments) error {
	if other.T != m.T {
		return fmt.Errorf("%w: merging rank moments of %d and %d outputs", ErrShape, m.T, other.T)
	}
	m.grow(other.P)
	P, Q := m.P, other.P
	for i := 0; i < Q; i++ {
		for j := i; j < Q; j++ {
			m.h.addDD(i*P+j, other.h.at(i*Q+j))
		}
	}
	m.b.merge(other.b)
	m.yy.merge(other.yy)
	m.N += other.N
	m.Q += other.Q
	return nil
}

// Clone returns a copy of m.
func (m *RankMoments) Clone() *RankMoments {
	return &RankMoments{P: m.P, T: m.T, N: m.N, Q: m.Q, h: m.h.clone(), b: m.b.clone(), yy: m.yy.clone()}
}

// Minus returns m without the queries of sub, in double-double.
func (m *RankMoments) Minus(sub *RankMoments) *RankMoments {
	out := m.Clone()
	neg := sub.Clone()
	for _, a := range []acc{neg.h, neg.b, neg.yy} {
		for k := range a.hi {
			a.hi[k], a.lo[k] = -a.hi[k], -a.lo[k]
		}
	}
	neg.N, neg.Q = -neg.N, -neg.Q
	_ = out.Merge(neg)
	return out
}

// MarshalBinary encodes the rank moments.
func (m *RankMoments) MarshalBinary() ([]byte, error) {
	var out []byte
	out = binary.LittleEndian.AppendUint64(out, uint64(m.P))
	out = binary.LittleEndian.AppendUint64(out, uint64(m.T))
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(m.N))
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(m.Q))
	out = appendAcc(out, m.h)
	out = appendAcc(out, m.b)
	return appendAcc(out, m.yy), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (m *RankMoments) UnmarshalBinary(b []byte) error {
	if len(b) < 32 {
		return errCorrupt
	}
	p, t := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if p > 1<<20 || t > 1<<20 {
		return errCorrupt
	}
	P, T := int(p), int(t)
	if len(b) != 32+16*(P*P+P*T+T) {
		return errCorrupt
	}
	*m = *NewRankMoments(P, T)
	m.N = math.Float64frombits(binary.LittleEndian.Uint64(b[16:]))
	m.Q = math.Float64frombits(binary.LittleEndian.Uint64(b[24:]))
	off := readAcc(b, 32, m.h)
	off = readAcc(b, off, m.b)
	readAcc(b, off, m.yy)
	return nil
}

// matrices returns H (symmetric) and B rounded to float64.
func (m *RankMoments) matrices() (*mat.Dense, *mat.Dense) {
	P, T := m.P, m.T
	h, b := mat.NewDense(max(P, 1), max(P, 1), nil), mat.NewDense(max(P, 1), max(T, 1), nil)
	for i := 0; i < P; i++ {
		for j := i; j < P; j++ {
			v := m.h.at(i*P + j).float()
			h.Set(i, j, v)
			h.Set(j, i, v)
		}
		for k := 0; k < T; k++ {
			b.Set(i, k, m.b.at(i*T+k).float())
		}
	}
	return h, b
}
