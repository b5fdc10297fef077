package pairwise

import (
	gfloats "gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// sampledKron is the generalized vec trick of Airola & Pahikkala (2018,
// IEEE TNNLS, "Fast Kronecker product kernel methods via generalized vec
// trick"): the product of a sampled Kronecker kernel with a vector,
//
//	out_h = Σ_p K[r'_h, r_p] · G[c'_h, c_p] · v_p,   h over the output pairs
//	                                                  (r'_h, c'_h), p over the
//	                                                  input pairs (r_p, c_p),
//
// that is out = (G ⊗ K)[S_out, S_in] v, for symmetric K (m×m) and G (q×q),
// without forming the |S_out|×|S_in| matrix. With B = Σ_p v_p e_{r_p} e_{c_p}ᵀ
// (m×q), out_h = (K B G)[r'_h, c'_h], computed in the cheaper of two orders:
//
//	rows first:    T = B G   (|S_in|·q),  out_h = K[r'_h, :]·T[:, c'_h]  (|S_out|·m)
//	columns first: U = K B   (|S_in|·m),  out_h = U[r'_h, :]·G[:, c'_h]  (|S_out|·q)
//
// plus O(m·q) to clear and transpose the intermediate: O(min(|S_in|·q +
// |S_out|·m, |S_in|·m + |S_out|·q) + m·q) time, O(m·q) memory (the paper's
// Theorem 1 cost). The work matrices are reused between calls.
type sampledKron struct {
	k, g *mat.Dense // K (m×m), G (q×q), symmetric
	m, q int
	t    []float64 // m×q (rows first: B G) or q×m (columns first: (K B)ᵀ)
	tt   []float64 // its transpose
	// inputs grouped by their row (rows first) or column (columns first)
	start, order []int
}

func newSampledKron(k, g *mat.Dense) *sampledKron {
	m, _ := k.Dims()
	q, _ := g.Dims()
	return &sampledKron{k: k, g: g, m: m, q: q, t: make([]float64, m*q), tt: make([]float64, m*q)}
}

// mul sets out[h] for the output pairs out (len(dst) = len(outPairs)) from
// the input pairs in with values v (see sampledKron).
func (s *sampledKron) mul(in []Pair, v []float64, outPairs []Pair, dst []float64) {
	m, q := s.m, s.q
	rowsFirst := len(in)*q+len(outPairs)*m <= len(in)*m+len(outPairs)*q
	// a: the side B is grouped by (m rows of B G, or q columns of K B), with
	// the other side's matrix h applied along it.
	na, nb := m, q
	a, h := s.k, s.g
	key := func(p Pair) (int, int) { return p.Row, p.Col }
	if !rowsFirst {
		na, nb = q, m
		a, h = s.g, s.k
		key = func(p Pair) (int, int) { return p.Col, p.Row }
	}
	// group the inputs by their key's first index: counting sort, O(|S_in| + na)
	if cap(s.start) < na+1 {
		s.start = make([]int, na+1)
	}
	start := s.start[:na+1]
	clear(start)
	for p, pr := range in {
		if v[p] != 0 {
			i, _ := key(pr)
			start[i+1]++
		}
	}
	for i := 0; i < na; i++ {
		start[i+1] += start[i]
	}
	if cap(s.order) < len(in) {
		s.order = make([]int, len(in))
	}
	order := s.order[:start[na]]
	fill := append([]int(nil), start[:na]...)
	for p, pr := range in {
		if v[p] != 0 {
			i, _ := key(pr)
			order[fill[i]] = p
			fill[i]++
		}
	}
	// T[i, :] = Σ_{p with first index i} v_p · h[second index of p, :]  (na×nb)
	t, tt := s.t[:na*nb], s.tt[:na*nb]
	parallel(na, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := t[i*nb : (i+1)*nb]
			clear(row)
			for _, p := range order[start[i]:start[i+1]] {
				_, j := key(in[p])
				gfloats.AddScaled(row, v[p], h.RawRowView(j))
			}
		}
	})
	// Tᵀ (nb×na), so that the last step reads contiguous rows
	parallel(nb, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			dst := tt[j*na : (j+1)*na]
			for i := range dst {
				dst[i] = t[i*nb+j]
			}
		}
	})
	// out_h = a[first index of h, :]·T[:, second index of h]
	parallel(len(outPairs), func(lo, hi int) {
		for o := lo; o < hi; o++ {
			i, j := key(outPairs[o])
			dst[o] = gfloats.Dot(a.RawRowView(i), tt[j*na:(j+1)*na])
		}
	})
}
