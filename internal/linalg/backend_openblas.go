//go:build openblas

package linalg

/*
#cgo LDFLAGS: -lopenblas -llapacke
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
*/
import "C"

import (
	"fmt"
	"io"

	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
	blasnetlib "gonum.org/v1/netlib/blas/netlib"
	"gonum.org/v1/netlib/lapack/lapacke"
	lapacknetlib "gonum.org/v1/netlib/lapack/netlib"
)

// Backend names the numerical backend: "openblas", linked at build time (-tags openblas).
func Backend() string { return "openblas" }

// Fast reports whether an optimized library is in use: always, in this build.
func Fast() bool { return true }

// BackendInfo describes the numerical backend in use.
type BackendInfo struct {
	Name, Path, Version string
	Threads             int
	Tried               []string
}

// String is a one-line description.
func (b BackendInfo) String() string {
	return fmt.Sprintf("%s (linked with -tags openblas, %d threads)", b.Name, b.Threads)
}

// Info describes the backend: OpenBLAS linked at build time.
func Info() BackendInfo { return BackendInfo{Name: "openblas", Threads: blasThreads()} }

// SetThreads sets OpenBLAS's thread count.
func SetThreads(n int) {
	if n > 0 {
		C.openblas_set_num_threads(C.int(n))
	}
}

// SetNotice is a no-op: this build always runs OpenBLAS.
func SetNotice(io.Writer) {}

// NoticeSize is the order of an O(n³) step from which the pure-Go build warns.
const NoticeSize = 1000

func init() {
	// Every gonum mat operation in the program now runs on OpenBLAS.
	blas64.Use(blasnetlib.Implementation{})
	lapack64.Use(lapacknetlib.Implementation{})
}

// eigSym: LAPACKE dsyevd, divide and conquer.
func eigSym(a blas64.General, w []float64) error {
	n := a.Rows
	if n == 0 {
		return nil
	}
	work := []float64{0}
	iwork := []int32{0}
	if !lapacke.Dsyevd('V', 'U', n, a.Data, a.Stride, w, work, -1, iwork, -1) {
		return ErrNoConvergence
	}
	work = make([]float64, int(work[0]))
	iwork = make([]int32, int(iwork[0]))
	if !lapacke.Dsyevd('V', 'U', n, a.Data, a.Stride, w, work, len(work), iwork, len(iwork)) {
		return ErrNoConvergence
	}
	return nil
}

// svdTall: never taken — LAPACKE's row-major dgesdd already transposes to
// the column-major tall layout.
func svdTall(*mat.Dense) (u *mat.Dense, s []float64, v *mat.Dense, ok bool, err error) {
	return nil, nil, nil, false, nil
}

// svdTallColMajor: never taken — SVDColMajor transposes A into row-major
// for LAPACKE, which transposes it back.
func svdTallColMajor([]float64, int, int) (u *mat.Dense, s []float64, v *mat.Dense, ok bool, err error) {
	return nil, nil, nil, false, nil
}

// svdThin: LAPACKE dgesdd with jobz 'S'.
func svdThin(a blas64.General, s []float64, u, vt blas64.General) error {
	m, n := a.Rows, a.Cols
	if m == 0 || n == 0 {
		return nil
	}
	iwork := make([]int32, 8*min(m, n))
	work := []float64{0}
	if !lapacke.Dgesdd('S', m, n, a.Data, a.Stride, s, u.Data, u.Stride, vt.Data, vt.Stride, work, -1, iwork) {
		return ErrNoConvergence
	}
	work = make([]float64, int(work[0]))
	if !lapacke.Dgesdd('S', m, n, a.Data, a.Stride, s, u.Data, u.Stride, vt.Data, vt.Stride, work, len(work), iwork) {
		return ErrNoConvergence
	}
	return nil
}

// potrfLower: LAPACKE dpotrf on the lower triangle.
func potrfLower(a blas64.General) bool {
	return lapacke.Dpotrf('L', a.Rows, a.Data, a.Stride)
}

// potriLower: LAPACKE dpotri on the lower triangle.
func potriLower(a blas64.General) bool {
	if a.Rows == 0 {
		return true
	}
	return lapacke.Dpotri('L', a.Rows, a.Data, a.Stride)
}

var serialMu sync.Mutex

// useBackend: nothing to do — init registered OpenBLAS.
func useBackend() {}

// SerialBLAS runs f with OpenBLAS limited to one thread, for callers that run
// many small BLAS calls in goroutines of their own (one thread per core already):
// OpenBLAS's own threads would then only contend for the same cores. Other BLAS
// calls made meanwhile also run single-threaded — slower, never wrong.
func SerialBLAS(f func()) {
	serialMu.Lock()
	defer serialMu.Unlock()
	n := C.openblas_get_num_threads()
	C.openblas_set_num_threads(1)
	defer C.openblas_set_num_threads(n)
	f()
}

// serialN counts the open serial sections (SerialSection), serialSaved
// is the thread count the first one found; both guarded by serialMu.
var (
	serialN     int
	serialSaved C.int
)

// SerialSection limits OpenBLAS to one thread until end is called (once;
// later calls do nothing): SerialBLAS for a caller that cannot run inside
// one function call — streams of products that hand each result to a
// callback, which may itself wait on a section (the tie rule's twin runs
// the same path in lockstep). Sections overlap and nest: the first saves
// the thread count, the last to end restores it; a SerialBLAS call made
// meanwhile runs within the section, and a section begun during a
// SerialBLAS call waits for that call to return. Other BLAS calls made
// meanwhile also run single-threaded — slower, never wrong.
func SerialSection() (end func()) {
	serialMu.Lock()
	if serialN == 0 {
		serialSaved = C.openblas_get_num_threads()
		C.openblas_set_num_threads(1)
	}
	serialN++
	serialMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			serialMu.Lock()
			defer serialMu.Unlock()
			if serialN--; serialN == 0 {
				C.openblas_set_num_threads(serialSaved)
			}
		})
	}
}

// blasThreads is OpenBLAS's current thread count.
func blasThreads() int { return int(C.openblas_get_num_threads()) }

// tridiag: LAPACKE dsytrd on the upper triangle (row-major).
func tridiag(t *Tridiagonal) error {
	a, n := t.refl, t.n
	work := []float64{0}
	if !lapacke.Dsytrd('U', n, a.Data, a.Stride, t.D, t.E, t.tau, work, -1) {
		return ErrNoConvergence
	}
	work = make([]float64, max(int(work[0]), 1))
	if !lapacke.Dsytrd('U', n, a.Data, a.Stride, t.D, t.E, t.tau, work, len(work)) {
		return ErrNoConvergence
	}
	return nil
}

// mulQ: LAPACKE dormtr from the right (row-major m·Q, or m·Qᵀ).
func mulQ(t *Tridiagonal, m blas64.General, trans bool) error {
	op := byte('N')
	if trans {
		op = 'T'
	}
	a, n := t.refl, t.n
	work := []float64{0}
	if !lapacke.Dormtr('R', 'U', op, m.Rows, n, a.Data, a.Stride, t.tau, m.Data, m.Stride, work, -1) {
		return ErrNoConvergence
	}
	work = make([]float64, max(int(work[0]), 1))
	if !lapacke.Dormtr('R', 'U', op, m.Rows, n, a.Data, a.Stride, t.tau, m.Data, m.Stride, work, len(work)) {
		return ErrNoConvergence
	}
	return nil
}
