package mmc

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/learn"
)

// ErrWorkingSet is returned for an invalid working set or class of an
// Interactive step.
var ErrWorkingSet = errors.New("mmc: invalid interactive step")

// Interactive is the interactive (semi-supervised) RLS classifier of
// RLScore's InteractiveRlsClassifier: a labelling of the m rows into c
// classes that a user edits step by step, each step restricted to a
// working set of rows, under the objective J (1) of the package comment —
// the loss of the one-versus-all RLS model of the labelling. The steps:
//
//   - SetWorkingSet: the rows the next steps may relabel (initially all);
//   - ClaimN(n, b): the n rows of the working set outside class b whose
//     move into b leaves the two classes involved the lowest objective,
//     (m − y_aᵀRy_a') + (m − y_bᵀRy_b') = the classes' objective + ΔJ (2),
//     all scored before any of them moves, lowest first (ties to the lower
//     row), then moved into b;
//   - ClaimAll(b): every row of the working set into b;
//   - Descend(maxChange): cyclic descent — sweeps over the working set in
//     order, moving each row to the first class (in index order) whose
//     move lowers J (2), until a sweep moves nothing or some class's size
//     has changed by maxChange in this call.
//
// On the dual form R is stored: a gain costs O(1), a move O(m), scoring a
// claim O(|working set| + m·c). On the low-rank forms (a basis, the linear
// kernel) only W = UᵀY is kept, as RLScore's classifier does: a gain and a
// move cost O(r), scoring a claim O(|working set|·r), and no m×m matrix is
// built. Two departures from RLScore's
// code, both where its bookkeeping disagrees with its own rule: in its
// cyclic descent a row that moves keeps being compared from its old class
// with the classes after its new one (never with two classes, the
// interactive classifier's use; Descend compares from the row's current
// class), and after a sweep's first move it counts every later row of that
// sweep as moved, so its balance limit stops it early (Descend counts the
// rows that move). With a limit neither reaches, the two give the same
// labels step by step (TestInteractiveReproducesRLScore).
type Interactive struct {
	st *state
	ws []int
}

// NewInteractive starts an interactive classifier of the m rows with
// initial labels (nil: every row in class 0, as RLScore) into c ≥ 2
// classes, on the factor f at λ (R stored as Cluster decides). Cost: R's
// (O(m²·r)) plus O(m²·c) to set up.
func NewInteractive(f *factor.Factor, lambda float64, labels []int, c int) (*Interactive, error) {
	if f == nil || f.U == nil {
		return nil, errors.New("mmc: no factor")
	}
	m := f.Rows()
	if c < 2 {
		return nil, fmt.Errorf("%w: %d classes (want at least 2)", ErrClusters, c)
	}
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return nil, fmt.Errorf("mmc: lambda must be a finite number > 0, got %v", lambda)
	}
	if labels == nil {
		labels = make([]int, m)
	}
	if err := CheckLabels(labels, m, c); err != nil {
		return nil, err
	}
	g := Gains(f.E, lambda)
	if f.Form == factor.Dual {
		return newInteractive(nil, nil, FactorR(f, g), labels, c), nil
	}
	return newInteractive(f.U, g, nil, labels, c), nil
}

// newInteractive starts from R stored (rmat), or lazily from (u, g) — the
// low-rank factors: each gain O(r), each move O(r), no m×m matrix; labels
// are checked by the caller.
func newInteractive(u *mat.Dense, g []float64, rmat *mat.Dense, labels []int, c int) *Interactive {
	var st *state
	if rmat != nil {
		st = newState(nil, nil, rmat, labels, c)
	} else {
		st = newLazyState(u, g, labels, c)
	}
	in := &Interactive{st: st}
	in.ws = make([]int, in.st.m)
	for i := range in.ws {
		in.ws[i] = i
	}
	return in
}

// Apply runs one step (learn.Step: "ws", "claim", "all" or "descend") and
// returns the number of rows it moved.
func (in *Interactive) Apply(s learn.Step) (int, error) {
	switch s.Op {
	case "ws":
		return 0, in.SetWorkingSet(s.Rows)
	case "claim":
		moved, err := in.ClaimN(s.N, s.Class)
		return len(moved), err
	case "all":
		if err := in.checkClass(s.Class); err != nil {
			return 0, err
		}
		n := 0
		for _, i := range in.ws {
			if in.st.y[i] != s.Class {
				n++
			}
		}
		return n, in.ClaimAll(s.Class)
	case "descend":
		if s.Limit < 0 {
			return 0, fmt.Errorf("%w: descent limit %d (want ≥ 0)", ErrWorkingSet, s.Limit)
		}
		return in.Descend(s.Limit), nil
	}
	return 0, fmt.Errorf("%w: unknown step %q (want ws, claim, all or descend)", ErrWorkingSet, s.Op)
}

// Labels returns the current labels (shared; do not modify).
func (in *Interactive) Labels() []int { return in.st.y }

// Objective returns J (1) of the current labels. O(m·c).
func (in *Interactive) Objective() float64 { return in.st.objective() }

// SetWorkingSet restricts the next steps to rows (distinct, in [0, m);
// their order is the order of Descend's sweeps). O(|rows| + m).
func (in *Interactive) SetWorkingSet(rows []int) error {
	if len(rows) == 0 {
		return fmt.Errorf("%w: empty working set", ErrWorkingSet)
	}
	seen := make([]bool, in.st.m)
	for _, i := range rows {
		if i < 0 || i >= in.st.m {
			return fmt.Errorf("%w: row %d outside 0 … %d", ErrWorkingSet, i, in.st.m-1)
		}
		if seen[i] {
			return fmt.Errorf("%w: row %d twice in the working set", ErrWorkingSet, i)
		}
		seen[i] = true
	}
	in.ws = slices.Clone(rows)
	return nil
}

func (in *Interactive) checkClass(b int) error {
	if b < 0 || b >= in.st.c {
		return fmt.Errorf("%w: class %d outside 0 … %d", ErrWorkingSet, b, in.st.c-1)
	}
	return nil
}

// ClaimN moves into class b the n rows of the working set outside b with
// the lowest two-class objective after the move (see Interactive), scored
// once before any moves, ties to the lower row; fewer when fewer rows lie
// outside b. It returns the rows moved, in order, and fails when every row
// of the working set is already in b (as RLScore does).
func (in *Interactive) ClaimN(n, b int) ([]int, error) {
	if err := in.checkClass(b); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: claim %d rows", ErrWorkingSet, n)
	}
	st := in.st
	fit := st.classFitness()
	type cand struct {
		score float64
		row   int
	}
	var cands []cand
	for _, i := range in.ws {
		a := st.y[i]
		if a == b {
			continue
		}
		cands = append(cands, cand{fit[a] + fit[b] + 4*st.delta(i, b), i})
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("%w: the whole working set already belongs to class %d", ErrWorkingSet, b)
	}
	slices.SortFunc(cands, func(x, y cand) int {
		if x.score != y.score {
			if x.score < y.score {
				return -1
			}
			return 1
		}
		return x.row - y.row
	})
	var moved []int
	for _, cd := range cands[:min(n, len(cands))] {
		st.move(cd.row, b)
		moved = append(moved, cd.row)
	}
	return moved, nil
}

// ClaimAll moves every row of the working set into class b.
func (in *Interactive) ClaimAll(b int) error {
	if err := in.checkClass(b); err != nil {
		return err
	}
	for _, i := range in.ws {
		in.st.move(i, b)
	}
	return nil
}

// Descend runs the cyclic descent on the working set (see Interactive)
// and returns the number of rows moved; maxChange ≤ 0 means the size of
// the working set (no limit in effect).
func (in *Interactive) Descend(maxChange int) int {
	st := in.st
	if maxChange <= 0 {
		maxChange = len(in.ws)
	}
	delta := make([]int, st.c)
	moved := 0
	for changed := true; changed; {
		changed = false
		for _, i := range in.ws {
			from := st.y[i]
			for b := 0; b < st.c; b++ {
				if b == st.y[i] {
					continue
				}
				if st.delta(i, b) < 0 {
					st.move(i, b)
				}
			}
			if to := st.y[i]; to != from {
				changed = true
				moved++
				delta[from]--
				delta[to]++
				if abs(delta[from]) == maxChange || abs(delta[to]) == maxChange {
					return moved
				}
			}
		}
	}
	return moved
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// classFitness returns m − y_cᵀRy_c per class from RY, O(m·c), or for a
// lazy state from W, O(r·c).
func (st *state) classFitness() []float64 {
	fit := make([]float64, st.c)
	if st.lazy {
		r := len(st.g)
		for b := range fit {
			q := 0.0
			for k := 0; k < r; k++ {
				v := st.w[k*st.c+b]
				q += st.g[k] * v * v
			}
			fit[b] = float64(st.m) - q
		}
		return fit
	}
	for b := range fit {
		fit[b] = float64(st.m)
	}
	for i, a := range st.y {
		row := st.ry[i*st.c : (i+1)*st.c]
		for b, v := range row {
			if b == a {
				fit[b] -= v
			} else {
				fit[b] += v
			}
		}
	}
	return fit
}
