package pairwise

import (
	"fmt"
	"sync"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// KronRankDescriptor describes Kronecker RankRLS for conditional ranking
// (KronRank; Pahikkala et al. 2010, 2013) to the learner registry: it
// learns from labelled (row object, column object) pairs of two sets of
// objects on complete data, minimizes the RankRLS loss over the pairs of
// columns inside each row (learn.RowPairs), cross-validates setting rows —
// new row objects ranked over the training columns — along its λ grid at
// once (learn.DesignValidator; the other settings are refused) and gives
// the perturbed twin of the tie rule (learn.Perturber). Its default measure
// is the mean per-row C-index (cindex-row). Its method standardizes each
// side itself when Input.Standardize is set.
func KronRankDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:        learn.KronRank,
		Summary:     "kronrank (Kronecker RankRLS: ranks the columns inside each row; --rows, --cols, --pairs, --cv rows)",
		Needs:       learn.NeedsPairs | learn.NeedsLabels,
		Caps:        []learn.Capability{learn.CanHoldOutObjects, learn.CanPerturb},
		Loss:        learn.RowPairs,
		Bias:        1,
		Measure:     func(string) string { return "cindex-row" },
		SelfScaling: true,
		New:         newRankMethod,
	}
}

func init() {
	learn.Register(KronRankDescriptor())
}

// newRankMethod checks the input — row objects X, column objects Cols (a
// homogeneous network is refused: conditional ranking has two sets of
// objects), one label per pair, complete data — and returns the method
// that builds the sides for each kernel setting (NewSide, standardized when
// asked), reusing the row side while the row kernel stays and every column
// side with its centered eigendecomposition, and fits KronRank. O(n + m·q)
// for the checks.
func newRankMethod(in *learn.Input) (learn.Method, error) {
	name := learn.KronRank
	if in != nil && in.X != nil && in.Cols == nil {
		return nil, fmt.Errorf("pairwise: %w: conditional ranking ranks column objects inside each row: give column objects (a homogeneous network is not taken)", learnErrShape)
	}
	if in != nil && in.Symmetry != "" && in.Symmetry != "none" {
		return nil, fmt.Errorf("pairwise: %w: symmetry %q: conditional ranking has two sets of objects", learnErrShape, in.Symmetry)
	}
	pi, err := checkPairInput(name, in)
	if err != nil {
		return nil, err
	}
	if pi.lab.q < 2 {
		return nil, fmt.Errorf("pairwise: %w: %d column object: conditional ranking ranks at least 2 inside each row", learnErrShape, pi.lab.q)
	}
	c := &rankCache{pi: pi, cols: map[kernel.Spec]*rankCol{}}
	return c.fit, nil
}

// rankCol is a column side with its centered kernel matrix (whose
// eigendecomposition or tridiagonal reduction is computed on first need).
type rankCol struct {
	side *Side
	c    *centered
}

// rankCache holds the sides a kronrank method has built: the row side of
// the last row kernel and every column side (with C G C's forms, computed
// on first need), so a kernel grid costs one O(m³) per row kernel and
// one O(q³) per column kernel.
type rankCache struct {
	pi *pairInput

	mu      sync.Mutex
	rowSpec kernel.Spec
	row     *Side
	cols    map[kernel.Spec]*rankCol
}

// fit is the learn.Method. Cost: the new sides' kernel matrices and
// eigendecompositions plus O(m·q·(m + q)).
func (c *rankCache) fit(s learn.Setting) (learn.Learner, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pi, in := c.pi, c.pi.in
	if s.Kernel == nil {
		return nil, fmt.Errorf("%s: no row kernel", pi.name)
	}
	if s.ColKernel == nil {
		return nil, fmt.Errorf("%s: no column kernel (Setting.ColKernel)", pi.name)
	}
	obs := in.Observe
	if c.row == nil || c.rowSpec != s.Kernel.Spec() {
		c.row = nil
		if obs != nil {
			m, d := in.X.Dims()
			obs.Report(factor.KernelPhase(m, m, d))
		}
		row, err := NewSide(in.X, s.Kernel, in.Standardize)
		if err != nil {
			return nil, fmt.Errorf("%s: row objects with %s: %w", pi.name, s.Kernel.Spec(), err)
		}
		if obs != nil {
			obs.Report(factor.EigPhase(row.Len()))
		}
		if _, _, err := row.Eigen(); err != nil {
			return nil, fmt.Errorf("%s: row objects with %s: %w", pi.name, s.Kernel.Spec(), err)
		}
		c.row, c.rowSpec = row, s.Kernel.Spec()
	}
	col := c.cols[s.ColKernel.Spec()]
	if col == nil {
		if obs != nil {
			q, d := in.Cols.Dims()
			obs.Report(factor.KernelPhase(q, q, d))
		}
		side, err := NewSide(in.Cols, s.ColKernel, in.Standardize)
		if err != nil {
			return nil, fmt.Errorf("%s: column objects with %s: %w", pi.name, s.ColKernel.Spec(), err)
		}
		cc, err := newCentered(side) // its O(q³) step comes with the first Solve or CrossValidate
		if err != nil {
			return nil, fmt.Errorf("%s: column objects with %s: %w", pi.name, s.ColKernel.Spec(), err)
		}
		col = &rankCol{side: side, c: cc}
		c.cols[s.ColKernel.Spec()] = col
	}
	k, err := fitKronRank(c.row, col.side, pi.lab, col.c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pi.name, err)
	}
	return k, nil
}
