//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

var serialMu sync.Mutex

// useBackend loads the run-time library, if not yet done, before a Level 3
// call through gonum's blas64 (which the load registers it as): without it
// a program whose first numerical step is a product would run that and
// every later product in pure Go until something else loaded it.
func useBackend() { load() }

func eigSym(a blas64.General, w []float64) error {
	if l := load(); l != nil {
		return eigSymDyn(l, a, w)
	}
	notice(a.Rows)
	return eigSymGonum(a, w)
}

// tridiag reduces t.refl by the loaded library's dsytrd, or gonum's
// (which forms Q).
func tridiag(t *Tridiagonal) error {
	if l := load(); l != nil {
		return tridiagDyn(l, t)
	}
	notice(t.n)
	return tridiagGonum(t)
}

// mulQ applies the library's reflectors (tridiagDyn's; gonum's Q is formed
// and MulQ multiplies by it itself).
func mulQ(t *Tridiagonal, m blas64.General, trans bool) error {
	return mulQDyn(load(), t, m, trans)
}

func svdThin(a blas64.General, s []float64, u, vt blas64.General) error {
	if l := load(); l != nil {
		return svdThinDyn(l, a, s, u, vt)
	}
	notice(min(a.Rows, a.Cols))
	return svdThinGonum(a, s, u, vt)
}

// svdTall is the thin SVD of a tall A through the loaded library's tall
// route (svdTallDyn); ok is false when there is no library or A is not tall.
func svdTall(a *mat.Dense) (u *mat.Dense, s []float64, v *mat.Dense, ok bool, err error) {
	m, n := a.Dims()
	l := load()
	if l == nil || m <= n {
		return nil, nil, nil, false, nil
	}
	u, s, v, err = svdTallDyn(l, a)
	return u, s, v, true, err
}

// svdTallColMajor is the thin SVD of a tall column-major A (destroyed)
// through the loaded library (svdColMajorDyn); ok is false when there is no
// library or A is not tall.
func svdTallColMajor(a []float64, m, n int) (u *mat.Dense, s []float64, v *mat.Dense, ok bool, err error) {
	l := load()
	if l == nil || m <= n {
		return nil, nil, nil, false, nil
	}
	u, s, v, err = svdColMajorDyn(l, a, m, n)
	return u, s, v, true, err
}

func potrfLower(a blas64.General) bool {
	if l := load(); l != nil {
		return potrfLowerDyn(l, a)
	}
	notice(a.Rows)
	return potrfLowerGonum(a)
}

// potriLower: the loaded library's dpotri, or gonum's.
func potriLower(a blas64.General) bool {
	if l := load(); l != nil {
		return potriLowerDyn(l, a)
	}
	return native.Dpotri(blas.Lower, a.Rows, a.Data, a.Stride)
}

// SerialBLAS runs f with the loaded library limited to one thread, for callers
// that run many small BLAS calls in goroutines of their own (one per core
// already): the library's own threads would only contend for the same cores.
// Other BLAS calls made meanwhile also run single-threaded — slower, never
// wrong. Pure Go has no thread pool to restrict.
func SerialBLAS(f func()) {
	l := load()
	if l == nil || l.setThreads == nil {
		f()
		return
	}
	serialMu.Lock()
	defer serialMu.Unlock()
	n := l.getThreads()
	l.setThreads(1)
	defer l.setThreads(n)
	f()
}

// serialN counts the open serial sections (SerialSection), serialSaved
// is the thread count the first one found; both guarded by serialMu.
var serialN, serialSaved int

// SerialSection limits the loaded library to one thread until end is
// called (once; later calls do nothing): SerialBLAS for a caller that cannot
// run inside one function call — streams of products that hand each result
// to a callback, which may itself wait on a section (the tie rule's twin
// runs the same path in lockstep). Sections overlap and nest: the first
// saves the thread count, the last to end restores it; a SerialBLAS call
// made meanwhile runs within the section, and a section begun during a
// SerialBLAS call waits for that call to return. Other BLAS calls made
// meanwhile also run single-threaded — slower, never wrong. Pure Go, or a
// library without thread control, has nothing to restrict.
func SerialSection() (end func()) {
	l := load()
	if l == nil || l.setThreads == nil {
		return func() {}
	}
	serialMu.Lock()
	if serialN == 0 {
		serialSaved = int(l.getThreads())
		l.setThreads(1)
	}
	serialN++
	serialMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			serialMu.Lock()
			defer serialMu.Unlock()
			if serialN--; serialN == 0 {
				l.setThreads(int32(serialSaved))
			}
		})
	}
}

// blasThreads is the loaded library's thread count (1 for pure Go).
func blasThreads() int {
	if n := threads(load()); n > 0 {
		return n
	}
	return 1
}
