package stream

import (
	"encoding/binary"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/matrix"
)

// Row is one data row as the passes see it: its features (sparse: Index and
// Value; dense: Value alone, every feature), labels and group (query) id.
type Row struct {
	Index []int
	Value []float64
	Y     []float64
	Group string
}

// Rows returns the rows of a chunk read by package dataset (X dense or CSR).
// O(stored values).
func Rows(d *dataset.Data) []Row {
	m := d.Rows()
	out := make([]Row, m)
	_, t := d.Y.Dims()
	for i := range out {
		r := &out[i]
		r.Y = append([]float64(nil), d.Y.RawRowView(i)[:t]...)
		if d.Queries != nil {
			r.Group = d.QueryNames[d.Queries[i]]
		}
		switch x := d.X.(type) {
		case *matrix.CSR:
			idx, val := x.Row(i)
			r.Index, r.Value = append([]int{}, idx...), append([]float64{}, val...)
		case *mat.Dense:
			r.Value = append([]float64(nil), x.RawRowView(i)...)
		default:
			_, c := x.Dims()
			r.Value = mat.Row(nil, i, x)[:c]
		}
	}
	return out
}

// rowsMatrix builds the feature matrix of rows: CSR of the given width when
// sparse, dense otherwise.
func rowsMatrix(rows []Row, sparse bool, width int) mat.Matrix {
	if sparse {
		indptr := []int{0}
		var idx []int
		var val []float64
		for _, r := range rows {
			idx = append(idx, r.Index...)
			val = append(val, r.Value...)
			indptr = append(indptr, len(idx))
		}
		return &matrix.CSR{R: len(rows), C: width, Indptr: indptr, Indices: idx, Values: val}
	}
	x := mat.NewDense(len(rows), width, nil)
	for i, r := range rows {
		copy(x.RawRowView(i), r.Value)
	}
	return x
}

// Width returns the row's width: its largest index + 1 (sparse) or its length.
func (r Row) Width() int {
	if r.Index != nil {
		if len(r.Index) == 0 {
			return 0
		}
		return r.Index[len(r.Index)-1] + 1
	}
	return len(r.Value)
}

// The fold hash: the rounds of xxHash64 (Collet) over 64-bit words — the
// row's values' bits — and bytes, then the splitmix64 finalizer (Steele, Lea
// & Flood 2014) to spread it over the folds. Fixed constants: the same on
// every platform and engine.
const (
	prime1 = 11400714785074694791
	prime2 = 14029467366897019727
)

type hasher uint64

func (h *hasher) u64(v uint64) {
	*h = hasher(bits.RotateLeft64(uint64(*h)+v*prime2, 31) * prime1)
}

func (h *hasher) bytes(b []byte) {
	for len(b) >= 8 {
		h.u64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	var tail [8]byte
	copy(tail[:], b)
	h.u64(binary.LittleEndian.Uint64(tail[:]) ^ uint64(len(b))<<56)
}

func (h *hasher) f64(v float64) { h.u64(math.Float64bits(v + 0)) } // −0 as +0

func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// Fold returns the fold, 0…k−1, of a row under k-fold cross-validation with
// the seed: a hash of the row's content as read — its labels, its group id,
// and its non-zero features as (index, value) — so that every engine reading
// the same data assigns the same folds, whatever the files, their order or
// the formatting of the numbers ("1.0" and "1", a stored zero and an absent
// one). Identical rows share a fold. O(stored values).
func Fold(r Row, seed uint64, k int) int {
	h := hasher(0x27d4eb2f165667c5)
	h.u64(seed)
	h.u64(uint64(len(r.Y)))
	for _, v := range r.Y {
		h.f64(v)
	}
	h.u64(uint64(len(r.Group)))
	h.bytes([]byte(r.Group))
	for n, v := range r.Value {
		if v == 0 {
			continue
		}
		j := n
		if r.Index != nil {
			j = r.Index[n]
		}
		h.u64(uint64(j))
		h.f64(v)
	}
	return int(mix(uint64(h)) % uint64(k))
}

// GroupFold returns the fold, 0…k−1, of a whole group (query) under k-fold
// cross-validation over groups: a hash of its id and the seed.
func GroupFold(group string, seed uint64, k int) int {
	h := hasher(0x27d4eb2f165667c5)
	h.u64(seed)
	h.bytes([]byte(group))
	return int(mix(uint64(h)^0x9e3779b97f4a7c15) % uint64(k))
}

// encodeRow appends a compact binary form of r (for engines that move rows
// between workers, such as a group-by-key).
func encodeRow(out []byte, r Row) []byte {
	sparse := uint64(0)
	if r.Index != nil {
		sparse = 1
	}
	out = binary.AppendUvarint(out, sparse)
	out = binary.AppendUvarint(out, uint64(len(r.Value)))
	for n, v := range r.Value {
		if r.Index != nil {
			out = binary.AppendUvarint(out, uint64(r.Index[n]))
		}
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	out = binary.AppendUvarint(out, uint64(len(r.Y)))
	for _, v := range r.Y {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	out = binary.AppendUvarint(out, uint64(len(r.Group)))
	return append(out, r.Group...)
}

// EncodeRow returns the binary form of a row (see DecodeRow).
func EncodeRow(r Row) []byte { return encodeRow(nil, r) }

// DecodeRow decodes what EncodeRow wrote.
func DecodeRow(b []byte) (Row, error) {
	var r Row
	get := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	f64 := func() (float64, bool) {
		if len(b) < 8 {
			return 0, false
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(b))
		b = b[8:]
		return v, true
	}
	sparse, ok := get()
	if !ok {
		return r, errCorrupt
	}
	nv, ok := get()
	if !ok || nv > uint64(len(b)) {
		return r, errCorrupt
	}
	if sparse == 1 {
		r.Index = make([]int, 0, nv)
	}
	r.Value = make([]float64, 0, nv)
	for n := uint64(0); n < nv; n++ {
		if sparse == 1 {
			j, ok := get()
			if !ok || j > math.MaxInt32 {
				return r, errCorrupt
			}
			r.Index = append(r.Index, int(j))
		}
		v, ok := f64()
		if !ok {
			return r, errCorrupt
		}
		r.Value = append(r.Value, v)
	}
	ny, ok := get()
	if !ok || ny > uint64(len(b)) {
		return r, errCorrupt
	}
	for n := uint64(0); n < ny; n++ {
		v, ok := f64()
		if !ok {
			return r, errCorrupt
		}
		r.Y = append(r.Y, v)
	}
	ng, ok := get()
	if !ok || ng != uint64(len(b)) {
		return r, errCorrupt
	}
	r.Group = string(b)
	return r, nil
}

// EncodePrediction returns the binary form of a prediction (for engines that
// move predictions between machines); DecodePrediction reads it back.
func EncodePrediction(p Prediction) []byte {
	return encodeRow(nil, Row{Value: p.P, Y: p.Y, Group: p.Group})
}

// DecodePrediction decodes what EncodePrediction wrote.
func DecodePrediction(b []byte) (Prediction, error) {
	r, err := DecodeRow(b)
	if err != nil || r.Index != nil {
		return Prediction{}, errCorrupt
	}
	return Prediction{Y: r.Y, Group: r.Group, P: r.Value}, nil
}
