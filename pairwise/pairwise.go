package pairwise

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/learn"
)

var (
	// ErrIncomplete is returned when a closed form or a shortcut that needs a
	// label for every (row, column) pair is asked of incomplete data.
	ErrIncomplete = errors.New("pairwise: labels do not cover every (row, column) pair")
	// ErrPair is returned for a pair outside the objects, a pair given twice,
	// or mirrored pairs of a homogeneous network whose labels disagree.
	ErrPair = errors.New("pairwise: invalid pair")
	// ErrSetting is returned for a cross-validation design that does not fit
	// the learner or the data.
	ErrSetting = errors.New("pairwise: invalid cross-validation design")
	// ErrNoConvergence is returned when conjugate gradients stop before the
	// tolerance is reached.
	ErrNoConvergence = errors.New("pairwise: conjugate gradients did not converge")
)

// learnErrShape is learn.ErrShape, under which shape errors are reported.
var learnErrShape = learn.ErrShape

// Pair is a (row object, column object) pair, 0-based indices into the two sides.
type Pair struct{ Row, Col int }

// Symmetry says whether rows and columns are two sets of objects or the same
// set (a homogeneous network), and then which Kronecker kernel is used.
type Symmetry int

const (
	// Heterogeneous: rows and columns are different sets (drugs × targets);
	// the pairwise kernel is the Kronecker product G ⊗ K.
	Heterogeneous Symmetry = iota
	// Symmetric: one set of objects, f(u, v) = f(v, u). The pairwise kernel is
	// the symmetric Kronecker kernel ½(k(a,c)k(b,d) + k(a,d)k(b,c)) (Stock et
	// al. 2018, sect. 6); a labelled pair (u, v) also labels (v, u).
	Symmetric
	// Antisymmetric: one set of objects, f(u, v) = −f(v, u): the kernel
	// ½(k(a,c)k(b,d) − k(a,d)k(b,c)); a labelled pair (u, v) labels (v, u)
	// with the negated label, and f(u, u) = 0.
	Antisymmetric
)

// String returns "none", "symmetric" or "antisymmetric" (ParseSymmetry's words).
func (s Symmetry) String() string {
	switch s {
	case Heterogeneous:
		return "none"
	case Symmetric:
		return "symmetric"
	case Antisymmetric:
		return "antisymmetric"
	}
	return fmt.Sprintf("Symmetry(%d)", int(s))
}

// ParseSymmetry parses "none", "symmetric" or "antisymmetric" ("" is none).
func ParseSymmetry(s string) (Symmetry, error) {
	switch s {
	case "", "none":
		return Heterogeneous, nil
	case "symmetric":
		return Symmetric, nil
	case "antisymmetric":
		return Antisymmetric, nil
	}
	return 0, fmt.Errorf("%w: symmetry %q: want none, symmetric or antisymmetric", ErrSetting, s)
}

// Setting names what a cross-validation leaves out (Stock et al. 2018, sect. 4;
// Pahikkala et al. 2015): settings A–D for two sets of objects, pairs and
// vertices for a homogeneous network.
type Setting string

const (
	// Pairs (setting A): each labelled pair alone; both objects are known.
	Pairs Setting = "pairs"
	// Rows (setting B): every pair of a row object (or of a fold of row
	// objects): predictions for new row objects against known columns.
	Rows Setting = "rows"
	// Cols (setting C): every pair of a column object (or fold of them).
	Cols Setting = "cols"
	// Both (setting D): a row object u, a column object v and every pair that
	// touches either are left out and (u, v) is predicted: both objects new.
	// With folds, each block (row fold × column fold) is predicted by the model
	// trained without those rows and columns.
	Both Setting = "both"
	// Vertices (homogeneous networks): a vertex (or fold of vertices) and every
	// pair touching it are left out; its pairs with every vertex are predicted.
	Vertices Setting = "vertices"
)

// Design is a cross-validation design: a setting and, for rows, columns,
// both and vertices, the folds of objects held out together (nil: each
// object alone). Folds need not cover every object; pairs no fold predicts
// get NaN and are left out of the pooled measure.
type Design struct {
	Setting  Setting
	RowFolds [][]int // rows (B), both (D), vertices
	ColFolds [][]int // cols (C), both (D)
}

// String names the design as the command line does: "pairs", "rows",
// "rows:folds(5)", "both:folds(5×5)".
func (d Design) String() string {
	switch {
	case d.Setting == Both && (d.RowFolds != nil || d.ColFolds != nil):
		return fmt.Sprintf("both:folds(%d×%d)", foldCount(d.RowFolds), foldCount(d.ColFolds))
	case (d.Setting == Rows || d.Setting == Vertices) && d.RowFolds != nil:
		return fmt.Sprintf("%s:folds(%d)", d.Setting, len(d.RowFolds))
	case d.Setting == Cols && d.ColFolds != nil:
		return fmt.Sprintf("cols:folds(%d)", len(d.ColFolds))
	}
	return string(d.Setting)
}

func foldCount(f [][]int) int {
	if f == nil {
		return 0
	}
	return len(f)
}

// check validates the design for m row and q column objects.
func (d Design) check(m, q int, sym Symmetry) error {
	homo := sym != Heterogeneous
	switch d.Setting {
	case Pairs:
		if d.RowFolds != nil || d.ColFolds != nil {
			return fmt.Errorf("%w: setting pairs leaves each pair out alone; it takes no folds", ErrSetting)
		}
		return nil
	case Rows, Cols, Both:
		if homo {
			return fmt.Errorf("%w: setting %s on a homogeneous network: use pairs or vertices", ErrSetting, d.Setting)
		}
	case Vertices:
		if !homo {
			return fmt.Errorf("%w: setting vertices is for homogeneous networks (rows and columns the same objects)", ErrSetting)
		}
	default:
		return fmt.Errorf("%w: unknown setting %q (want pairs, rows, cols, both or vertices)", ErrSetting, d.Setting)
	}
	if d.Setting == Rows && d.ColFolds != nil || d.Setting == Cols && d.RowFolds != nil || d.Setting == Vertices && d.ColFolds != nil {
		return fmt.Errorf("%w: setting %s with folds of the other side", ErrSetting, d.Setting)
	}
	needRows := d.Setting == Rows || d.Setting == Both || d.Setting == Vertices
	needCols := d.Setting == Cols || d.Setting == Both
	if needRows {
		if err := checkFolds(d.RowFolds, m, "row"); err != nil {
			return err
		}
	}
	if needCols {
		if err := checkFolds(d.ColFolds, q, "column"); err != nil {
			return err
		}
	}
	return nil
}

func checkFolds(f [][]int, n int, side string) error {
	if f == nil {
		if n < 2 {
			return fmt.Errorf("%w: leaving one %s object out of %d leaves none to train on", ErrSetting, side, n)
		}
		return nil
	}
	if err := cv.Check(f, n); err != nil {
		return fmt.Errorf("%w: %s folds: %w", ErrSetting, side, err)
	}
	return nil
}

// loo returns the leave-one-out folds {0}, {1}, … of n objects.
func loo(n int) [][]int {
	out := make([][]int, n)
	for i := range out {
		out[i] = []int{i}
	}
	return out
}

// labels is a learner's training data: the pairs as given (their order is
// the order of Labels and of pooled CV predictions) and the observations
// trained on — the same pairs, or for a homogeneous network the pairs in
// both orientations (and, antisymmetric, the diagonal with label 0).
type labels struct {
	m, q     int
	sym      Symmetry
	given    []Pair
	givenY   []float64
	obs      []Pair
	obsY     []float64
	full     *mat.Dense // m×q when every pair is observed, else nil
	complete bool
	// rowMajor: the pairs given are the complete grid in row-major order,
	// given[r·q + c] = (r, c), so the m×q grid's storage is their order.
	rowMajor bool
}

// newLabels checks the pairs and labels and builds the observations and,
// for complete data, the m×q label matrix (checkLabels, then fill). O(n +
// m·q) time; memory O(n) besides the m×q label matrix of complete data (the
// pairs are indexed by a table of m·q int32 when m·q is at most a small
// multiple of n, else by a map). On two sets of objects the observations are
// the pairs given (shared, not copied).
func newLabels(m, q int, pairs []Pair, y []float64, sym Symmetry) (*labels, error) {
	l, err := checkLabels(m, q, pairs, y, sym)
	if err != nil {
		return nil, err
	}
	l.fill()
	return l, nil
}

// checkLabels is newLabels without the label matrix: the checks, the
// observations and completeness. O(n + m·q).
func checkLabels(m, q int, pairs []Pair, y []float64, sym Symmetry) (*labels, error) {
	if len(pairs) == 0 {
		return nil, fmt.Errorf("pairwise: %w: no labelled pairs", learnErrShape)
	}
	if len(pairs) != len(y) {
		return nil, fmt.Errorf("pairwise: %w: %d pairs, %d labels", learnErrShape, len(pairs), len(y))
	}
	if sym != Heterogeneous && m != q {
		return nil, fmt.Errorf("pairwise: %w: a homogeneous network has one set of objects, got %d rows and %d columns", learnErrShape, m, q)
	}
	l := &labels{m: m, q: q, sym: sym, given: pairs, givenY: y}
	n := len(pairs)
	seen := newCellIndex(m, q, n, n)
	var at cellIndex // r·q+c → index in obs (homogeneous networks)
	if sym != Heterogeneous {
		at = newCellIndex(m, q, 2*n+m, 2*n+m)
	}
	add := func(p Pair, v float64, src int) error {
		key := p.Row*q + p.Col
		if j, ok := at.get(key); ok {
			if l.obsY[j] != v {
				return fmt.Errorf("%w: pair %d (%d, %d) repeats or contradicts an earlier pair", ErrPair, src, pairs[src].Row, pairs[src].Col)
			}
			return nil
		}
		at.set(key, len(l.obs))
		l.obs = append(l.obs, p)
		l.obsY = append(l.obsY, v)
		return nil
	}
	for i, p := range pairs {
		if p.Row < 0 || p.Row >= m || p.Col < 0 || p.Col >= q {
			return nil, fmt.Errorf("%w: pair %d (%d, %d) outside %d rows × %d columns", ErrPair, i, p.Row, p.Col, m, q)
		}
		if v := y[i]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("pairwise: %w: label %d of pair (%d, %d) is %v", learnErrShape, i, p.Row, p.Col, v)
		}
		key := p.Row*q + p.Col
		if j, ok := seen.get(key); ok {
			return nil, fmt.Errorf("%w: pair %d (%d, %d) repeats pair %d", ErrPair, i, p.Row, p.Col, j)
		}
		seen.set(key, i)
		switch sym {
		case Symmetric:
			if err := add(p, y[i], i); err != nil {
				return nil, err
			}
			if err := add(Pair{p.Col, p.Row}, y[i], i); err != nil {
				return nil, err
			}
		case Antisymmetric:
			if p.Row == p.Col {
				if y[i] != 0 {
					return nil, fmt.Errorf("%w: pair %d (%d, %d): an antisymmetric network has f(u, u) = 0, the label is %v", ErrPair, i, p.Row, p.Col, y[i])
				}
				continue
			}
			if err := add(p, y[i], i); err != nil {
				return nil, err
			}
			if err := add(Pair{p.Col, p.Row}, -y[i], i); err != nil {
				return nil, err
			}
		}
	}
	if sym == Heterogeneous {
		// every pair distinct and in range: the observations are the pairs
		l.obs, l.obsY = pairs, y
	}
	if sym == Antisymmetric {
		for u := 0; u < m; u++ {
			if _, ok := at.get(u*q + u); !ok {
				at.set(u*q+u, len(l.obs))
				l.obs = append(l.obs, Pair{u, u})
				l.obsY = append(l.obsY, 0)
			}
		}
	}
	l.complete = len(l.obs) == m*q
	return l, nil
}

// fill forms the m×q label matrix of complete data and whether the pairs
// given are the grid in row-major order. O(m·q).
func (l *labels) fill() {
	if !l.complete {
		return
	}
	m, q := l.m, l.q
	l.full = mat.NewDense(m, q, nil)
	raw := l.full.RawMatrix().Data
	for i, p := range l.obs {
		raw[p.Row*q+p.Col] = l.obsY[i]
	}
	l.rowMajor = len(l.given) == m*q
	for i, p := range l.given {
		if !l.rowMajor {
			break
		}
		l.rowMajor = p.Row*q+p.Col == i
	}
}

// cellIndex maps the cells r·q + c of an m×q grid to ints in [0, max): a
// dense table of m·q int32 when that is at most denseCellsPerPair cells per
// value held (plus denseCellsMin), else a map — so memory is O(n + m·q)
// for a grid nearly full and O(n) for a sparse one, however large m·q.
// get and set cost O(1) (expected, for the map).
type cellIndex struct {
	dense  []int32 // value + 1; 0 absent
	sparse map[int]int
}

// denseCellsPerPair and denseCellsMin bound the dense table: it is used
// when m·q ≤ denseCellsPerPair·n + denseCellsMin for n values. Variables
// only so that a test can force either form.
var denseCellsPerPair, denseCellsMin = 8, 1 << 20

// newCellIndex returns an index for at most n values, each below max, of
// the cells of an m×q grid.
func newCellIndex(m, q, n, max int) cellIndex {
	cells := int64(m) * int64(q)
	if max < math.MaxInt32 && cells <= int64(denseCellsPerPair)*int64(n)+int64(denseCellsMin) {
		return cellIndex{dense: make([]int32, cells)}
	}
	return cellIndex{sparse: make(map[int]int, n)}
}

func (c cellIndex) get(key int) (int, bool) {
	if c.dense != nil {
		v := c.dense[key]
		return int(v) - 1, v != 0
	}
	v, ok := c.sparse[key]
	return v, ok
}

func (c cellIndex) set(key, v int) {
	if c.dense != nil {
		c.dense[key] = int32(v + 1)
		return
	}
	c.sparse[key] = v
}

// CheckPairs validates labelled pairs of m row and q column objects as the
// learners do — indices in range, no pair twice, finite labels, mirrored
// pairs of a homogeneous network consistent — and reports whether they are
// complete (a label for every (row, column) pair, counting mirrors) and how
// many observations training would use. O(n + m·q) time; memory O(n), or
// m·q int32 when that is at most a small multiple of n (no label matrix).
func CheckPairs(m, q int, pairs []Pair, y []float64, sym Symmetry) (complete bool, observations int, err error) {
	l, err := checkLabels(m, q, pairs, y, sym)
	if err != nil {
		return false, 0, err
	}
	return l.complete, len(l.obs), nil
}

// Complete reports whether every (row, column) pair has a label.
func (l *labels) Complete() bool { return l.complete }

// vector returns the labels of the given pairs as an n×1 matrix.
func (l *labels) vector() *mat.Dense {
	return mat.NewDense(len(l.givenY), 1, append([]float64(nil), l.givenY...))
}

// pick returns P[r_p, c_p] for every given pair p, in their order.
func (l *labels) pick(p *mat.Dense) []float64 {
	out := make([]float64, len(l.given))
	for i, pr := range l.given {
		out[i] = p.At(pr.Row, pr.Col)
	}
	return out
}

// missing lists the (row, column) pairs without a label (at most max of them).
func (l *labels) missing(max int) string {
	have := make([]bool, l.m*l.q)
	for _, p := range l.obs {
		have[p.Row*l.q+p.Col] = true
	}
	var parts []string
	n := 0
	for k, ok := range have {
		if ok {
			continue
		}
		if n < max {
			parts = append(parts, fmt.Sprintf("(%d, %d)", k/l.q, k%l.q))
		}
		n++
	}
	s := strings.Join(parts, ", ")
	if n > max {
		s += ", …"
	}
	return fmt.Sprintf("%d of %d pairs have no label: %s", n, l.m*l.q, s)
}

// nanDense returns an r×c matrix of NaN.
func nanDense(r, c int) *mat.Dense {
	out := mat.NewDense(r, c, nil)
	raw := out.RawMatrix().Data
	for i := range raw {
		raw[i] = math.NaN()
	}
	return out
}

// checkLambdas validates a λ grid.
func checkLambdas(grid []float64) error {
	if len(grid) == 0 {
		return fmt.Errorf("pairwise: %w: no λ values", learn.ErrLambda)
	}
	for _, l := range grid {
		if err := learn.CheckLambda(l); err != nil {
			return fmt.Errorf("pairwise: %w", err)
		}
	}
	return nil
}
