package pairkernel

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Kind names a pairwise kernel reviewed by Viljanen, Airola & Pahikkala
// (2022) built from object kernels k (rows) and g (columns); on a
// homogeneous network (one object set, the kinds that swap) g = k:
//
//	kronecker      k(d,d')·g(t,t')
//	cartesian      k(d,d')·δ(t,t') + δ(d,d')·g(t,t')
//	symmetric      ½[k(d,d')·k(t,t') + k(d,t')·k(t,d')]
//	antisymmetric  ½[k(d,d')·k(t,t') − k(d,t')·k(t,d')]
//	ranking        k(d,d') + k(t,t') − k(d,t') − k(t,d')
//	sum            Σ_i w_i·k_i(d,d')·g_i(t,t')
//
// The ½ makes the symmetric (antisymmetric) kernel the projection of k⊗k
// onto symmetric (antisymmetric) functions of the pair; the model of the
// kernel written without it at λ is this kind's at λ/2.
// δ(u,v) is 1 when u and v are the same object and 0 otherwise (a new
// object is the same as no training object). The sum is the multiple
// pairwise kernel of RLScore's PairwiseKernelOperator with weights.
type Kind string

// The kinds.
const (
	Kronecker     Kind = "kronecker"
	Cartesian     Kind = "cartesian"
	Symmetric     Kind = "symmetric"
	Antisymmetric Kind = "antisymmetric"
	Ranking       Kind = "ranking"
	Sum           Kind = "sum"
)

// Kinds lists the kinds in the order of the documentation.
func Kinds() []Kind {
	return []Kind{Kronecker, Cartesian, Symmetric, Antisymmetric, Ranking, Sum}
}

// ParseKind returns the kind named s, or an error listing the kinds.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, 0, 6)
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("pairkernel: unknown pairwise kernel %q (want one of %s)", s, strings.Join(names, ", "))
}

// Homogeneous reports whether the kind compares a pair's row object with
// the other pair's column object, so that rows and columns must be one
// object set with one kernel.
func (k Kind) Homogeneous() bool {
	return k == Symmetric || k == Antisymmetric || k == Ranking
}

// Terms returns the kind's terms over the kernel list Base builds: for
// kronecker [k, g]; cartesian [k, g, δ_rows, δ_cols]; symmetric and
// antisymmetric [k]; ranking [k, 1]; sum [k_1, g_1, k_2, g_2, …] with
// weights (one per pair of kernels; the other kinds take none).
func (k Kind) Terms(weights []float64) ([]Term, error) {
	if k != Sum && len(weights) > 0 {
		return nil, fmt.Errorf("pairkernel: the %s kernel takes no weights (%d given)", k, len(weights))
	}
	switch k {
	case Kronecker:
		return []Term{{Weight: 1, Row: 0, Col: 1}}, nil
	case Cartesian:
		return []Term{{Weight: 1, Row: 0, Col: 3}, {Weight: 1, Row: 2, Col: 1}}, nil
	case Symmetric:
		return []Term{{Weight: 0.5}, {Weight: 0.5, Swapped: true}}, nil
	case Antisymmetric:
		return []Term{{Weight: 0.5}, {Weight: -0.5, Swapped: true}}, nil
	case Ranking:
		return []Term{
			{Weight: 1, Row: 0, Col: 1},                 // k(d,d')·1
			{Weight: 1, Row: 1, Col: 0},                 // 1·k(t,t')
			{Weight: -1, Row: 0, Col: 1, Swapped: true}, // k(d,t')·1
			{Weight: -1, Row: 1, Col: 0, Swapped: true}, // 1·k(t,d')
		}, nil
	case Sum:
		if len(weights) == 0 {
			return nil, fmt.Errorf("pairkernel: the sum kernel needs one weight per pair of row and column kernels")
		}
		t := make([]Term, len(weights))
		for i, w := range weights {
			if w != w || w-w != 0 {
				return nil, fmt.Errorf("pairkernel: weight %d is %v, not a finite number", i+1, w)
			}
			t[i] = Term{Weight: w, Row: 2 * i, Col: 2*i + 1}
		}
		return t, nil
	}
	return nil, fmt.Errorf("pairkernel: unknown pairwise kernel %q", string(k))
}

// Base assembles the kernel list of Terms from the object kernels ks (row
// objects) and gs (column objects): one of each for kronecker and
// cartesian, one ks and no gs for the homogeneous kinds, and equally many
// of each for sum. Each matrix's rows index the output objects and its
// columns the input objects (the training objects). sameRow and sameCol,
// needed by cartesian only, give for each output row (column) object the
// index of the same input object, or −1 for a new object; nil means the
// output objects are the input objects (training). O(number of kernel
// entries) for the δ and 1 matrices, which are formed (they cost what k
// and g cost in the products).
func (k Kind) Base(ks, gs []*mat.Dense, sameRow, sameCol []int) ([]*mat.Dense, error) {
	want := func(nk, ng int) error {
		if len(ks) != nk || len(gs) != ng {
			return fmt.Errorf("%w: the %s kernel takes %d row and %d column kernels (%d and %d given)", ErrShape, k, nk, ng, len(ks), len(gs))
		}
		for _, m := range append(append([]*mat.Dense(nil), ks...), gs...) {
			if m == nil {
				return fmt.Errorf("%w: the %s kernel: a kernel matrix is missing", ErrShape, k)
			}
		}
		return nil
	}
	switch k {
	case Kronecker:
		if err := want(1, 1); err != nil {
			return nil, err
		}
		return []*mat.Dense{ks[0], gs[0]}, nil
	case Cartesian:
		if err := want(1, 1); err != nil {
			return nil, err
		}
		dr, err := delta(ks[0], sameRow, "row")
		if err != nil {
			return nil, err
		}
		dc, err := delta(gs[0], sameCol, "column")
		if err != nil {
			return nil, err
		}
		return []*mat.Dense{ks[0], gs[0], dr, dc}, nil
	case Symmetric, Antisymmetric:
		if err := want(1, 0); err != nil {
			return nil, err
		}
		return []*mat.Dense{ks[0]}, nil
	case Ranking:
		if err := want(1, 0); err != nil {
			return nil, err
		}
		r, c := ks[0].Dims()
		ones := mat.NewDense(r, c, nil)
		for i := range r {
			row := ones.RawRowView(i)
			for j := range row {
				row[j] = 1
			}
		}
		return []*mat.Dense{ks[0], ones}, nil
	case Sum:
		if len(ks) == 0 {
			return nil, fmt.Errorf("%w: the sum kernel needs at least one row and one column kernel", ErrShape)
		}
		if err := want(len(ks), len(ks)); err != nil {
			return nil, err
		}
		out := make([]*mat.Dense, 0, 2*len(ks))
		for i := range ks {
			out = append(out, ks[i], gs[i])
		}
		return out, nil
	}
	return nil, fmt.Errorf("pairkernel: unknown pairwise kernel %q", string(k))
}

// delta returns the identity relation shaped like like (output × input
// objects): 1 at (i, same[i]), the identity when same is nil.
func delta(like *mat.Dense, same []int, side string) (*mat.Dense, error) {
	r, c := like.Dims()
	d := mat.NewDense(r, c, nil)
	if same == nil {
		if r != c {
			return nil, fmt.Errorf("%w: the %s kernel is %d×%d: without a map of the same objects the output objects must be the input objects", ErrShape, side, r, c)
		}
		for i := range r {
			d.Set(i, i, 1)
		}
		return d, nil
	}
	if len(same) != r {
		return nil, fmt.Errorf("%w: %d %s objects mapped for a kernel of %d rows", ErrShape, len(same), side, r)
	}
	for i, j := range same {
		if j < -1 || j >= c {
			return nil, fmt.Errorf("%w: %s object %d is mapped to input object %d of %d", ErrShape, side, i, j, c)
		}
		if j >= 0 {
			d.Set(i, j, 1)
		}
	}
	return d, nil
}
