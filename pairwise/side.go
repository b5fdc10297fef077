package pairwise

import (
	"errors"
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/model"
)

// Side is one set of objects — the rows (say drugs) or the columns (say
// targets) of the label matrix — with its kernel: the n×n kernel matrix K of
// the training objects and, computed once on first need and shared by every
// learner, λ and fold that uses the side, its eigendecomposition
// K = U diag(E) Uᵀ. A Side is safe for concurrent use.
type Side struct {
	x      mat.Matrix // the training objects, standardized when asked
	points mat.Matrix // expansion points: x, or the unit rows of a precomputed kernel
	kern   kernel.Kernel
	scaler *model.Scaler
	k      *mat.Dense // n×n kernel matrix

	once sync.Once
	u    *mat.Dense // n×n eigenvectors
	e    []float64  // n eigenvalues, ascending
	u2   *mat.Dense // U∘U
	err  error
}

// NewSide computes the kernel matrix of the objects X (n×d, *mat.Dense or
// *matrix.CSR; for the precomputed kernel the n×n kernel matrix itself),
// standardizing the features first when asked (the scaler is kept for
// prediction). Cost: one kernel block, O(n²·d); memory n² (the
// eigendecomposition, when needed, adds 2n²).
func NewSide(x mat.Matrix, k kernel.Kernel, standardize bool) (*Side, error) {
	if x == nil || k == nil {
		return nil, fmt.Errorf("pairwise: %w: a side needs objects and a kernel", learnErrShape)
	}
	n, d := x.Dims()
	if n < 1 {
		return nil, fmt.Errorf("pairwise: %w: no objects", learnErrShape)
	}
	_, precomputed := k.(kernel.Precomputed)
	if precomputed {
		if standardize {
			return nil, fmt.Errorf("pairwise: %w: standardizing a precomputed kernel matrix", learnErrShape)
		}
		if n != d {
			return nil, fmt.Errorf("pairwise: %w: a precomputed kernel matrix must be square, got %d×%d", learnErrShape, n, d)
		}
	}
	if err := factor.CheckMemory(n, factor.DualPeak); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	s := &Side{x: x, kern: k}
	if standardize {
		s.scaler = model.FitScaler(x)
		xs, err := s.scaler.Transform(x)
		if err != nil {
			return nil, fmt.Errorf("pairwise: %w", err)
		}
		s.x = xs
	}
	s.points = k.Points(s.x)
	km, err := k.Block(s.x, s.points)
	if err != nil {
		return nil, fmt.Errorf("pairwise: kernel matrix: %w", err)
	}
	s.k = km
	return s, nil
}

// Len returns n, the number of objects.
func (s *Side) Len() int { r, _ := s.k.Dims(); return r }

// Kernel returns the side's kernel.
func (s *Side) Kernel() kernel.Kernel { return s.kern }

// Scaler returns the standardization applied to the objects (nil without).
func (s *Side) Scaler() *model.Scaler { return s.scaler }

// Points returns the expansion points a predictor needs: the (standardized)
// objects, or the unit rows of a precomputed kernel.
func (s *Side) Points() mat.Matrix { return s.points }

// Width returns d, the number of features of an object (n for a precomputed kernel).
func (s *Side) Width() int { _, d := s.x.Dims(); return d }

// Matrix returns the n×n kernel matrix (shared; do not modify).
func (s *Side) Matrix() *mat.Dense { return s.k }

// Eigen returns the eigendecomposition K = U diag(E) Uᵀ (shared; do not
// modify), computed on the first call through linalg.EigSym: O(n³) once. A
// kernel matrix that is not symmetric is an error wrapping
// factor.ErrNotSymmetric.
func (s *Side) Eigen() (u *mat.Dense, e []float64, err error) {
	s.once.Do(func() {
		f, err := factor.NewDual(s.k)
		if err != nil {
			s.err = fmt.Errorf("pairwise: %w", err)
			return
		}
		s.u, s.e = f.U, f.E
		n := s.Len()
		s.u2 = mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			src, dst := s.u.RawRowView(i), s.u2.RawRowView(i)
			for k, v := range src {
				dst[k] = v * v
			}
		}
	})
	return s.u, s.e, s.err
}

// sub returns K[a, b].
func (s *Side) sub(a, b []int) *mat.Dense {
	out := mat.NewDense(len(a), len(b), nil)
	for i, r := range a {
		src, dst := s.k.RawRowView(r), out.RawRowView(i)
		for j, c := range b {
			dst[j] = src[c]
		}
	}
	return out
}

// Block returns the kernel between new objects X (raw features, standardized
// here with the side's scaler; for a precomputed kernel the rows of kernel
// values against the training objects) and the training objects: n'×n.
// O(n'·n·d).
func (s *Side) Block(x mat.Matrix) (*mat.Dense, error) {
	_, d := x.Dims()
	if d != s.Width() {
		return nil, fmt.Errorf("pairwise: %w: objects have %d features, the side %d", learnErrShape, d, s.Width())
	}
	if s.scaler != nil {
		var err error
		if x, err = s.scaler.Transform(x); err != nil {
			return nil, err
		}
	}
	return s.kern.Block(x, s.points)
}

// eigSub eigendecomposes K[idx, idx] through linalg: O(|idx|³).
func (s *Side) eigSub(idx []int) (*mat.Dense, []float64, error) {
	e, u, err := linalg.EigSym(s.sub(idx, idx))
	if err != nil {
		return nil, nil, fmt.Errorf("pairwise: eigendecomposition of a %d×%d kernel block: %w", len(idx), len(idx), err)
	}
	return u, e, nil
}

// errSide reports a missing side.
var errSide = errors.New("pairwise: a learner needs a row side and a column side")
