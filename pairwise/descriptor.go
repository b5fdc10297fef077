package pairwise

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// KronRLSDescriptor describes Kronecker RLS on complete data (FitKron;
// Pahikkala et al. 2013, Stock et al. 2018) to the learner registry
// (learn.Register): it learns from labelled (row object, column object)
// pairs — or the pairs of one set of objects, a homogeneous network, with
// its symmetry — minimizes the squared loss on the pairs, cross-validates
// every design (settings A–D, vertices) along its λ grid at once
// (learn.DesignValidator) and gives the perturbed twin of the tie rule
// (learn.Perturber). Its method standardizes each side itself when
// Input.Standardize is set. Incomplete data is refused: Kronecker RLS on it
// trains by conjugate gradients (FitKronCG).
func KronRLSDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:        learn.KronRLS,
		Summary:     "kronrls (Kronecker RLS on pairs: --rows, --cols, --pairs)",
		Needs:       learn.NeedsPairs | learn.NeedsLabels,
		Caps:        []learn.Capability{learn.CanHoldOutObjects, learn.CanPerturb, learn.CanCG},
		Params:      []learn.Param{learn.ParamSymmetry},
		Loss:        learn.PairSquared,
		Bias:        1,
		Measure:     func(string) string { return "mse" },
		SelfScaling: true,
		New:         func(in *learn.Input) (learn.Method, error) { return newPairMethod(learn.KronRLS, in) },
	}
}

// TwoStepDescriptor describes two-step RLS on complete data (FitTwoStep;
// Stock et al. 2016, 2018; Pahikkala et al. 2014) to the learner registry:
// KronRLSDescriptor's needs and capabilities plus a second, column λ
// (learn.ColLambdaLearner, Settings.ColLambdas).
func TwoStepDescriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:        learn.TwoStep,
		Summary:     "twostep (two-step RLS on pairs; --col-lambda)",
		Needs:       learn.NeedsPairs | learn.NeedsLabels,
		Caps:        []learn.Capability{learn.CanHoldOutObjects, learn.CanPerturb, learn.CanColLambda},
		Params:      []learn.Param{learn.ParamSymmetry, learn.ParamColLambda},
		Loss:        learn.PairSquared,
		Bias:        1,
		Measure:     func(string) string { return "mse" },
		SelfScaling: true,
		New:         func(in *learn.Input) (learn.Method, error) { return newPairMethod(learn.TwoStep, in) },
	}
}

func init() {
	learn.Register(KronRLSDescriptor())
	learn.Register(TwoStepDescriptor())
}

// pairInput is a learn.Input checked for a learner of pairs.
type pairInput struct {
	name  learn.Name
	in    *learn.Input
	sym   Symmetry
	pairs []Pair
	y     []float64
	lab   *labels // the pairs checked, shared by every fit
}

// checkPairInput checks what a learner of pairs reads of an Input — the row
// objects X, the column objects Cols (nil for a homogeneous network), the
// pairs and their n×1 labels, the symmetry ("" or "none" for two sets of
// objects, "symmetric" — the default without Cols — or "antisymmetric" for
// one) — and refuses incomplete data. O(n + m·q).
func checkPairInput(name learn.Name, in *learn.Input) (*pairInput, error) {
	if in == nil || in.X == nil {
		return nil, fmt.Errorf("%s: %w: no row objects (X)", name, learnErrShape)
	}
	if in.Y == nil || in.Y.IsEmpty() {
		return nil, fmt.Errorf("%s: %w: no labels", name, learnErrShape)
	}
	n, t := in.Y.Dims()
	if t != 1 {
		return nil, fmt.Errorf("%s: %w: one label per pair, got %d label columns", name, learnErrShape, t)
	}
	if len(in.Pairs) != n {
		return nil, fmt.Errorf("%s: %w: %d pairs, %d labels", name, learnErrShape, len(in.Pairs), n)
	}
	sym, err := ParseSymmetry(in.Symmetry)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m, _ := in.X.Dims()
	q := m
	switch {
	case in.Cols == nil && sym == Heterogeneous:
		if in.Symmetry != "" {
			return nil, fmt.Errorf("%s: %w: symmetry %q without column objects: a homogeneous network is symmetric or antisymmetric", name, learnErrShape, in.Symmetry)
		}
		sym = Symmetric
	case in.Cols != nil && sym != Heterogeneous:
		return nil, fmt.Errorf("%s: %w: a %s network has one set of objects: give no column objects", name, learnErrShape, sym)
	case in.Cols != nil:
		q, _ = in.Cols.Dims()
	}
	pi := &pairInput{name: name, in: in, sym: sym, pairs: make([]Pair, n), y: make([]float64, n)}
	for i, p := range in.Pairs {
		pi.pairs[i] = Pair{Row: p.Row, Col: p.Col}
		pi.y[i] = in.Y.At(i, 0)
	}
	lab, err := newLabels(m, q, pi.pairs, pi.y, sym)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !lab.complete {
		return nil, fmt.Errorf("%s: %w: %s — %s takes complete data; Kronecker RLS on incomplete data trains by conjugate gradients (FitKronCG)",
			name, ErrIncomplete, lab.missing(5), name)
	}
	pi.lab = lab
	return pi, nil
}

// newPairMethod checks the input and returns the method that, for each
// learn.Setting, builds the two sides (NewSide, standardized when
// Input.Standardize is set; Setting.ColKernel on the columns, ignored for a
// homogeneous network) and fits the learner.
func newPairMethod(name learn.Name, in *learn.Input) (learn.Method, error) {
	pi, err := checkPairInput(name, in)
	if err != nil {
		return nil, err
	}
	c := &sideCache{pi: pi, cols: map[kernel.Spec]*Side{}}
	return c.fit, nil
}

// sideCache holds the sides a method has built: the row side of the last
// row kernel, reused while consecutive settings keep it, and the column side
// of every column kernel seen, reused by every setting — so a kernel grid
// costs one kernel matrix and one eigendecomposition per distinct kernel per
// side (O(m²·d + m³) and O(q²·d + q³)), the row kernels outer. Memory: one
// row side (m², 3m² once eigendecomposed) plus every column side.
type sideCache struct {
	pi *pairInput

	mu      sync.Mutex
	rowSpec kernel.Spec
	row     *Side
	cols    map[kernel.Spec]*Side
}

// sideJob is a side to build: its objects and kernel, then the side or
// the error.
type sideJob struct {
	what string // "row" or "column"
	x    mat.Matrix
	k    kernel.Kernel
	side *Side
	err  error
}

// build builds the fresh sides — the row side first, if any — and adds them
// to the cache: their kernel matrices (NewSide, standardized when the input
// asks), then their eigendecompositions (Side.Eigen, whose error the fit
// returns through the spectrum). Each phase is announced to the observer,
// from this goroutine, before it starts, in the order rows, columns. Two
// fresh kernel matrices are formed side by side, on two goroutines, and the
// first error in that order is returned, the sides after it left out of the
// cache — as one by one. The eigendecompositions run one after the other,
// each on the BLAS library's threads: two at once (each on its own threads,
// or each on one) were no faster here and far more variable (at 300 and
// 1000 objects, 117–145 ms against 117–121 ms). Cost: O(n²·d + n³) per side.
func (c *sideCache) build(fresh []*sideJob) error {
	obs := c.pi.in.Observe
	if obs != nil { // the events time a calibration: only when observed
		for _, j := range fresh {
			n, d := j.x.Dims()
			obs.Report(factor.KernelPhase(n, n, d))
		}
	}
	both(len(fresh), func(i int) {
		j := fresh[i]
		if j.side, j.err = NewSide(j.x, j.k, c.pi.in.Standardize); j.err != nil {
			j.err = fmt.Errorf("%s: %s objects with %s: %w", c.pi.name, j.what, j.k.Spec(), j.err)
		}
	})
	for _, j := range fresh {
		if j.err != nil {
			return j.err
		}
		if j.what == "row" {
			c.row, c.rowSpec = j.side, j.k.Spec()
		} else {
			c.cols[j.k.Spec()] = j.side
		}
	}
	if obs != nil {
		for _, j := range fresh {
			obs.Report(factor.EigPhase(j.side.Len()))
		}
	}
	for _, j := range fresh {
		_, _, _ = j.side.Eigen()
	}
	return nil
}

// both runs f(0), …, f(n−1) for n ≤ 2, f(0) on a second goroutine when
// n = 2, and returns when every call has.
func both(n int, f func(i int)) {
	if n < 2 {
		for i := range n {
			f(i)
		}
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(0)
	}()
	f(1)
	<-done
}

// fit is the learn.Method: sides from the cache (or built, see build),
// then FitKron or FitTwoStep on them with the pairs checked once
// (checkPairInput). Cost: the new sides' kernel matrices and
// eigendecompositions plus O(m·q·(m + q)).
func (c *sideCache) fit(s learn.Setting) (learn.Learner, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pi, in := c.pi, c.pi.in
	if s.Kernel == nil {
		return nil, fmt.Errorf("%s: no row kernel", pi.name)
	}
	homo := pi.sym != Heterogeneous
	if !homo && s.ColKernel == nil {
		return nil, fmt.Errorf("%s: no column kernel (Setting.ColKernel)", pi.name)
	}
	var fresh []*sideJob // sides this fit builds and eigendecomposes
	if c.row == nil || c.rowSpec != s.Kernel.Spec() {
		c.row = nil // the previous row setting's side is done with
		fresh = append(fresh, &sideJob{what: "row", x: in.X, k: s.Kernel})
	}
	if !homo && c.cols[s.ColKernel.Spec()] == nil {
		fresh = append(fresh, &sideJob{what: "column", x: in.Cols, k: s.ColKernel})
	}
	if err := c.build(fresh); err != nil {
		return nil, err
	}
	rows, cols := c.row, c.row
	if !homo {
		cols = c.cols[s.ColKernel.Spec()]
	}
	opt := Options{Symmetry: pi.sym}
	if homo {
		cols = nil
	}
	pr, err := problemWith(rows, cols, pi.lab, opt) // FitTwoStep, FitKron without checking the pairs again
	if err != nil {
		return nil, err
	}
	if pi.name == learn.TwoStep {
		t, err := fitTwoStep(pr)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	k, err := fitKron(pr)
	if err != nil {
		return nil, err
	}
	return k, nil
}
