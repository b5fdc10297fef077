package stream

import "math"

// Double-double arithmetic (Dekker 1971; Knuth, TAOCP vol. 2, sect. 4.2.2): a
// value is the unevaluated sum hi + lo of two float64 with |lo| ≤ ulp(hi)/2,
// about 106 bits. The statistics are accumulated in it, so that the sums of
// 10⁷ rows lose nothing to the order they are added in, and the
// differences the solver forms — total minus fold, S − s sᵀ/n — are exact to
// about 2⁻¹⁰⁶ of their terms before they are rounded to float64.

// twoSum returns s = fl(a+b) and the exact error e, a + b = s + e (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// fastTwoSum is twoSum for |a| ≥ |b| (Dekker).
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

// twoProd returns p = fl(a·b) and the exact error e, a·b = p + e, by a fused multiply–add.
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return p, e
}

// dd is a double-double number hi + lo.
type dd struct{ hi, lo float64 }

func ddOf(v float64) dd { return dd{v, 0} }

// float rounds to the nearest float64.
func (x dd) float() float64 { return x.hi + x.lo }

func (x dd) add(y dd) dd {
	s, e := twoSum(x.hi, y.hi)
	t, f := twoSum(x.lo, y.lo)
	e += t
	s, e = fastTwoSum(s, e)
	e += f
	s, e = fastTwoSum(s, e)
	return dd{s, e}
}

func (x dd) neg() dd { return dd{-x.hi, -x.lo} }

func (x dd) sub(y dd) dd { return x.add(y.neg()) }

func (x dd) mul(y dd) dd {
	p, e := twoProd(x.hi, y.hi)
	e += x.hi*y.lo + x.lo*y.hi
	p, e = fastTwoSum(p, e)
	return dd{p, e}
}

func (x dd) mulF(b float64) dd {
	p, e := twoProd(x.hi, b)
	e += x.lo * b
	p, e = fastTwoSum(p, e)
	return dd{p, e}
}

// div returns x/y to about 2⁻¹⁰⁴ relative (one Newton correction).
func (x dd) div(y dd) dd {
	q1 := x.hi / y.hi
	r := x.sub(y.mulF(q1))
	q2 := r.hi / y.hi
	r = r.sub(y.mulF(q2))
	q3 := r.hi / y.hi
	s, e := fastTwoSum(q1, q2)
	return dd{s, e}.add(ddOf(q3))
}

// acc is a vector of compensated sums: entry k is hi[k] + lo[k], kept as a
// double-double.
type acc struct{ hi, lo []float64 }

func newAcc(n int) acc { return acc{make([]float64, n), make([]float64, n)} }

func (a acc) len() int { return len(a.hi) }

func (a acc) at(k int) dd { return dd{a.hi[k], a.lo[k]} }

func (a acc) set(k int, v dd) { a.hi[k], a.lo[k] = v.hi, v.lo }

// addF adds the float64 v to entry k: the error of the addition is kept
// exactly and folded into lo (Neumaier's compensated summation with an
// exact TwoSum). O(1).
func (a acc) addF(k int, v float64) {
	s, e := twoSum(a.hi[k], v)
	lo := a.lo[k] + e
	a.hi[k], a.lo[k] = fastTwoSum(s, lo)
}

// addDD adds the double-double v to entry k.
func (a acc) addDD(k int, v dd) { a.set(k, a.at(k).add(v)) }

// merge adds b into a entry by entry (b may be shorter). O(len b).
func (a acc) merge(b acc) {
	for k := range b.hi {
		a.addDD(k, b.at(k))
	}
}

// subtract returns a − b entry by entry in double-double (b may be shorter).
func (a acc) subtract(b acc) acc {
	out := newAcc(a.len())
	copy(out.hi, a.hi)
	copy(out.lo, a.lo)
	for k := range b.hi {
		out.set(k, a.at(k).sub(b.at(k)))
	}
	return out
}

// floats rounds every entry to float64.
func (a acc) floats() []float64 {
	out := make([]float64, len(a.hi))
	for k := range out {
		out[k] = a.hi[k] + a.lo[k]
	}
	return out
}

func (a acc) clone() acc {
	out := newAcc(a.len())
	copy(out.hi, a.hi)
	copy(out.lo, a.lo)
	return out
}
