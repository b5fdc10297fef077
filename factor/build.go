package factor

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/internal/sysmem"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/progress"
)

var (
	// ErrBasis is returned for an invalid basis.
	ErrBasis = errors.New("factor: invalid basis")
	// ErrMemory is returned when an m×m computation cannot fit in the memory available.
	ErrMemory = errors.New("factor: not enough memory")
)

// DualPeak is the peak of the dual form in m×m matrices of float64: the
// kernel matrix, eigendecomposed in place, plus the divide-and-conquer
// eigensolver's 2m² workspace (LAPACK dsyevd; the pure-Go solver needs O(m)).
const DualPeak = 3

// CheckMemory refuses, with an error wrapping ErrMemory that states the
// estimate, a computation that needs copies m×m matrices of float64 when the
// machine has less memory available (sysmem.Available; no check where that is
// unknown). The way out is a sparse basis or the linear kernel.
func CheckMemory(m int, copies float64) error {
	need := copies * 8 * float64(m) * float64(m)
	avail, ok := sysmem.Available()
	if !ok || need <= float64(avail) {
		return nil
	}
	const gib = 1 << 30
	return fmt.Errorf("%w: %d rows need about %.1f GiB (%g m×m matrices of float64), %.1f GiB are available: "+
		"use a sparse model over a basis of a few hundred to a few thousand rows, or the linear kernel", ErrMemory,
		m, need/gib, copies, float64(avail)/gib)
}

// Data is a factor built from training rows with a kernel, together with what a
// predictor needs: the expansion points and, for the linear form, the bias.
type Data struct {
	*Factor
	Kernel kernel.Kernel
	// X holds the training rows.
	X mat.Matrix
	// Points are the expansion points: every training point (Dual) or the basis
	// points (Sparse); nil for Linear.
	Points mat.Matrix
	// Basis lists the basis rows (Sparse).
	Basis []int
	// Bias is the linear kernel's bias; the Linear form's extra feature is √Bias.
	Bias float64
	// Width is the number of features of a data row.
	Width int
}

// Request says which form to build; Auto picks Sparse when a basis is given,
// Linear for the linear kernel (bias ≥ 0) with fewer features than rows, and Dual otherwise.
type Request struct {
	Form  Form
	Auto  bool
	Basis []int
	// Observe, when set, is told of each long step of Build before it starts
	// (for progress reports).
	Observe progress.Observer
}

// KernelPhase is the phase of an m×n kernel block over d features: a
// product of O(m·n·d) plus O(m·n) elementwise work.
func KernelPhase(m, n, d int) progress.Event {
	return progress.Event{Stage: "kernel matrix", Size: fmt.Sprintf("%d×%d", m, n), Estimate: linalg.EstimateGemm(m, n, max(d, 1))}
}

// EigPhase is the phase of a symmetric m×m eigendecomposition: O(m³).
func EigPhase(m int) progress.Event {
	return progress.Event{Stage: "eigendecomposition", Size: fmt.Sprintf("m = %d", m), Estimate: linalg.EstimateEigSym(m)}
}

// Build computes the kernel blocks of X and factors them in the requested form.
// Cost: one kernel block (m×m dual, m×n sparse) plus O(m³) dual, O(m·d²) linear, O(m·n²) sparse.
func Build(x mat.Matrix, k kernel.Kernel, req Request) (*Data, error) {
	if err := matrix.Check(x); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrShape, err)
	}
	if k == nil {
		return nil, fmt.Errorf("%w: no kernel", ErrShape)
	}
	m, width := x.Dims()
	lin, isLinear := k.(kernel.Linear)
	form := req.Form
	if req.Auto {
		form = AutoForm(x, k, req.Basis)
	}
	if width == 0 && isLinear && lin.Bias == 0 {
		return nil, fmt.Errorf("%w: the data have no features and the linear kernel no bias: the kernel matrix is zero (give a bias, or features)", ErrShape)
	}
	d := &Data{Kernel: k, X: x, Width: width}
	var err error
	switch form {
	case Dual:
		if err := CheckMemory(m, DualPeak); err != nil {
			return nil, err
		}
		points := k.Points(x)
		req.Observe.Report(KernelPhase(m, m, width))
		var km *mat.Dense
		if km, err = k.Block(x, points); err != nil {
			return nil, err
		}
		d.Points = points
		req.Observe.Report(EigPhase(m))
		d.Factor, err = newDual(km, true)
	case Linear:
		if !isLinear {
			return nil, fmt.Errorf("factor: the linear form needs the linear kernel, not %s", k.Spec())
		}
		if lin.Bias < 0 {
			return nil, fmt.Errorf("factor: the linear form needs bias ≥ 0, got %g (use the dual form)", lin.Bias)
		}
		d.Bias = lin.Bias
		if req.Observe != nil {
			// thin SVD of the m×(d+1) data: O(m·d²)
			req.Observe.Report(progress.Event{Stage: "thin SVD", Size: fmt.Sprintf("%d×%d", m, width+1),
				Estimate: 4 * linalg.EstimateGemm(m, width+1, width+1)})
		}
		d.Factor, err = newLinearFrom(x, lin.Bias)
	case Sparse:
		if err := CheckBasis(req.Basis, m); err != nil {
			return nil, err
		}
		d.Basis = append([]int(nil), req.Basis...)
		points := kernel.Rows(k.Points(x), d.Basis)
		n := len(d.Basis)
		req.Observe.Report(KernelPhase(m, n, width))
		var kmb *mat.Dense
		if kmb, err = k.Block(x, points); err != nil {
			return nil, err
		}
		d.Points = points
		if req.Observe != nil {
			// K_BB's eigendecomposition, then the m×n SVD: O(n³ + m·n²)
			req.Observe.Report(progress.Event{Stage: "basis factorization", Size: fmt.Sprintf("m = %d, n = %d", m, n),
				Estimate: linalg.EstimateEigSym(n) + 4*linalg.EstimateGemm(m, n, n)})
		}
		d.Factor, err = NewSparse(kmb, kernel.Rows(kmb, d.Basis).(*mat.Dense))
	default:
		return nil, fmt.Errorf("factor: unknown form %d", form)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// CheckBasis checks that b is a non-empty set of distinct rows of 0..m-1, at most m of them.
func CheckBasis(b []int, m int) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: empty basis", ErrBasis)
	}
	if len(b) > m {
		return fmt.Errorf("%w: %d basis vectors for %d rows", ErrBasis, len(b), m)
	}
	seen := make(map[int]bool, len(b))
	for _, i := range b {
		if i < 0 || i >= m {
			return fmt.Errorf("%w: basis row %d outside [0,%d)", ErrBasis, i, m)
		}
		if seen[i] {
			return fmt.Errorf("%w: basis row %d given twice", ErrBasis, i)
		}
		seen[i] = true
	}
	return nil
}

// WithBias returns [X, √bias·1] densely (without the column when bias is 0).
func WithBias(x mat.Matrix, bias float64) *mat.Dense {
	m, d := x.Dims()
	cols := d
	if bias != 0 {
		cols++
	}
	out := mat.NewDense(m, cols, nil)
	switch xx := x.(type) {
	case *matrix.CSR:
		for i := 0; i < m; i++ {
			idx, val := xx.Row(i)
			row := out.RawRowView(i)
			for k, j := range idx {
				row[j] = val[k]
			}
		}
	default:
		out.Slice(0, m, 0, d).(*mat.Dense).Copy(x)
	}
	if bias != 0 {
		sb := math.Sqrt(bias)
		for i := 0; i < m; i++ {
			out.Set(i, d, sb)
		}
	}
	return out
}

// newLinearFrom is NewLinear(WithBias(x, bias)) without the row-major copy:
// the data with the bias column are laid out column by column
// (colMajorWithBias), the layout the SVD's library route works in, and
// factored in place by linalg.SVDColMajor. The same factor, bit for bit;
// one m×(d+1) copy fewer at the peak. O(m·d²).
func newLinearFrom(x mat.Matrix, bias float64) (*Factor, error) {
	a, m, cols := colMajorWithBias(x, bias)
	u, s, v, err := linalg.SVDColMajor(a, m, cols)
	if err != nil {
		return nil, fmt.Errorf("factor: SVD of the data: %w", err)
	}
	return lowRank(Linear, u, s, v), nil
}

// colMajorWithBias returns WithBias(x, bias) column by column, entry (i, j)
// at j·m + i, with its dimensions. O(m·d), in blocks of rows so that the
// rows read stay in cache while their columns are written.
func colMajorWithBias(x mat.Matrix, bias float64) (a []float64, m, cols int) {
	m, d := x.Dims()
	cols = d
	if bias != 0 {
		cols++
	}
	a = make([]float64, m*cols)
	switch xx := x.(type) {
	case *mat.Dense:
		raw := xx.RawMatrix()
		const block = 64
		for i0 := 0; i0 < m; i0 += block {
			i1 := min(i0+block, m)
			for j := 0; j < d; j++ {
				col := a[j*m : j*m+m]
				for i := i0; i < i1; i++ {
					col[i] = raw.Data[i*raw.Stride+j]
				}
			}
		}
	case *matrix.CSR:
		for i := 0; i < m; i++ {
			idx, val := xx.Row(i)
			for k, j := range idx {
				a[j*m+i] = val[k]
			}
		}
	default:
		for i := 0; i < m; i++ {
			for j := 0; j < d; j++ {
				a[j*m+i] = x.At(i, j)
			}
		}
	}
	if bias != 0 {
		sb := math.Sqrt(bias)
		for i := range a[d*m:] {
			a[d*m+i] = sb
		}
	}
	return a, m, cols
}

// KernelOnly computes the m×m kernel matrix K of X for a learner that factors
// something else than K itself (the query ranker factors L^{1/2}KL^{1/2}). The
// returned Data is of the Dual form, with the expansion points set and no
// eigendecomposition (Factor.U and Factor.E are nil).
func KernelOnly(x mat.Matrix, k kernel.Kernel) (*Data, *mat.Dense, error) {
	_, width := x.Dims()
	points := k.Points(x)
	km, err := k.Block(x, points)
	if err != nil {
		return nil, nil, err
	}
	if err := checkSymmetric(km); err != nil {
		return nil, nil, err
	}
	return &Data{Factor: &Factor{Form: Dual}, Kernel: k, X: x, Points: points, Width: width}, km, nil
}

// AutoForm is the form Build's Auto rule picks for X, the kernel and a basis.
func AutoForm(x mat.Matrix, k kernel.Kernel, basis []int) Form {
	m, width := x.Dims()
	lin, isLinear := k.(kernel.Linear)
	switch {
	case basis != nil:
		return Sparse
	case isLinear && lin.Bias >= 0 && width+1 < m:
		return Linear
	}
	return Dual
}
