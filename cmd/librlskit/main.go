// Command librlskit is rlskit's C ABI: built with
//
//	go build -buildmode=c-shared -o librlskit.so ./cmd/librlskit
//
// it exports a handful of C functions over the library — fit (a search
// through the learner registry: plan.New → selection.Search, or
// greedy.Select for a learner that selects features, or conjugate gradients
// with the setting "solver": "cg", as rlskit fit does; a learner of a
// preference graph with the graph staged by rlskit_preferences; clustering
// of unlabelled rows), the fit of a learner
// of pairs (rlskit_fit_pairs: pairfit.Fit, the function rlskit fit runs for
// them) and its predictions (rlskit_predict_pairs, and with CV+ intervals
// rlskit_predict_pairs_interval), predict (and prediction
// intervals), the selection result as a small JSON
// document, CV predictions, the core's measures, the model as JSON (save
// and load), the registry's learners, cancellation and the error of the
// last call — for in-process front ends: the Python package in python/
// calls it through ctypes. librlskit.h, written by the build next to the
// library, declares them.
//
// # Handles
//
// Every call takes a handle made by rlskit_new (a runtime/cgo.Handle: an
// integer naming a Go object, never a pointer into Go memory) and released
// by rlskit_free. A handle holds one fitted (or loaded) model, the last
// selection result and the last error message; calls on one handle are
// serialized by a mutex except rlskit_cancel, which may be called from any
// thread while rlskit_fit runs.
//
// # Data
//
// Matrices pass as a pointer to float64 values, a shape and a row stride
// (in elements; a column stride of 1): a C-contiguous NumPy array, or a
// row-strided view of one, is read in place — no copy of X is made for the
// learner, which reads it through a gonum mat.Dense over the caller's memory
// for the duration of rlskit_fit. A sparse X passes as CSR arrays (int64
// row pointers and column indices, float64 values: rlskit_fit_csr), read in
// place as a matrix.CSR. What the handle keeps past the call is Go memory:
// the labels Y are copied (O(m·t)), groups and folds are converted to Go
// ints (O(m)), and a kernel-expansion model whose support rows would share
// the caller's arrays (no standardization, or a sparse scaler that keeps
// X's indices) gets its own copy of them (O(m·d) dense, O(nnz) sparse, made
// once after the search).
//
// # Settings
//
// The settings are a JSON object whose keys are the flag names of rlskit fit
// (package plan: "learner", "kernel", "gamma", "lambda-grid", "cv",
// "measure", "standardize", …) and whose values are their texts (strings,
// numbers or booleans): the flag set plan.Define builds parses them exactly
// as on the command line, and plan.New checks them through the learner
// registry, so a registered learner reaches this ABI with no new C code.
// Flags that name files (plan.FileFlags) do not apply — the data, groups and
// folds pass as arrays — and flags of work this ABI does not run yet are
// refused by name (acceptedFlags).
//
// # Errors
//
// A call that fails returns a nonzero status (statusValue,
// statusType, statusMemory, statusCancelled, statusInternal) and leaves the
// error's message, the library's own wrapped text, in rlskit_error(h).
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/cgo"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/internal/pairfit"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairkernel"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// The status codes of the exported calls: 0 is success; the front end maps
// the others onto its exceptions (Python: ValueError, TypeError,
// MemoryError, KeyboardInterrupt, RuntimeError).
const (
	statusOK        = 0
	statusValue     = 1 // bad settings, data or state: the library's error
	statusType      = 2 // a setting this ABI does not know or take
	statusMemory    = 3 // an allocation the runtime refused (a recovered runtime error)
	statusCancelled = 4 // rlskit_cancel stopped the fit
	statusInternal  = 5 // any other recovered panic: a bug
)

// errCancelled is the error of a fit stopped by rlskit_cancel.
var errCancelled = errors.New("rlskit: fit cancelled")

// errSetting marks an unknown or refused setting (statusType).
var errSetting = errors.New("setting")

// session is the Go object behind a handle.
type session struct {
	mu   sync.Mutex // serializes every call but cancel
	err  string     // the last error message
	pred *model.Predictor
	// pairPred is the model of pairs of rlskit_fit_pairs (nil otherwise).
	pairPred *model.PairPredictor
	// pairKernel is the model of pairs of rlskit_fit_pairs with the
	// setting "pair-kernel" (nil otherwise; pairPred is then nil).
	pairKernel *pairkernel.Predictor
	// result is the selection result as JSON (nil for a loaded model).
	result []byte
	// cvPred are the CV predictions at the chosen point (m×t), nil without.
	cvPred *mat.Dense
	// graph is the preference graph rlskit_preferences staged for the next
	// fit (staged says one was, possibly empty); that fit consumes it.
	graph  []learn.Edge
	staged bool
	// init is the initial labelling rlskit_init_labels staged for the next
	// fit of a clustering learner (nil: none), fixed the rows
	// rlskit_fixed_rows staged to keep in it; that fit consumes them.
	init, fixed []int
	// cancelled is set by rlskit_cancel; fitG is the goroutine running the
	// fit (its id), the one the cancellation unwinds.
	cancelled atomic.Bool
	fitG      atomic.Int64
}

func main() {} // required by -buildmode=c-shared; never run

// get returns the session of handle h, or nil for 0.
func get(h C.uintptr_t) *session {
	if h == 0 {
		return nil
	}
	s, _ := cgo.Handle(h).Value().(*session)
	return s
}

// rlskit_new makes a handle with no model. Free it with rlskit_free.
//
//export rlskit_new
func rlskit_new() C.uintptr_t {
	return C.uintptr_t(cgo.NewHandle(&session{}))
}

// rlskit_free releases the handle and everything it holds. O(1); the
// memory is the Go collector's to reclaim.
//
//export rlskit_free
func rlskit_free(h C.uintptr_t) {
	if h != 0 {
		cgo.Handle(h).Delete()
	}
}

// rlskit_cancel asks the fit running on h to stop: it stops at the next
// progress event the search reports on its own goroutine — between kernel
// settings, factorization phases and λ points of the path — and rlskit_fit
// returns statusCancelled. A factorization or a parallel block already
// running finishes first (the library has no finer cancellation point).
// Safe from any thread; called while no fit runs, it cancels the next fit
// on h (a front end calls it only while its fit call is under way).
//
//export rlskit_cancel
func rlskit_cancel(h C.uintptr_t) {
	if s := get(h); s != nil {
		s.cancelled.Store(true)
	}
}

// rlskit_error returns the message of the last failed call on h (empty
// after a success) as a new C string the caller frees with
// rlskit_string_free.
//
//export rlskit_error
func rlskit_error(h C.uintptr_t) *C.char {
	s := get(h)
	if s == nil {
		return C.CString("rlskit: invalid handle")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return C.CString(s.err)
}

// rlskit_string_free frees a string returned by this library.
//
//export rlskit_string_free
func rlskit_string_free(p *C.char) {
	C.free(unsafe.Pointer(p))
}

// call runs f under the session's lock, turning its error or a recovered
// panic into a status code and the session's error message.
func call(h C.uintptr_t, f func(s *session) error) (status C.int) {
	s := get(h)
	if s == nil {
		return statusValue
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = ""
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case cancelPanic:
				s.err, status = errCancelled.Error(), statusCancelled
			case runtime.Error:
				s.err, status = "rlskit: "+e.Error(), statusInternal
				if strings.Contains(e.Error(), "makeslice") || strings.Contains(e.Error(), "out of memory") {
					status = statusMemory // an allocation too large for the runtime
				}
			default:
				s.err, status = fmt.Sprint("rlskit: internal error: ", r), statusInternal
			}
		}
	}()
	if err := f(s); err != nil {
		s.err = err.Error()
		switch {
		case errors.Is(err, errCancelled):
			return statusCancelled
		case errors.Is(err, errSetting):
			return statusType
		}
		return statusValue
	}
	return statusOK
}

// cancelPanic unwinds a cancelled fit's goroutine to call's recover.
type cancelPanic struct{}

// goid returns the id of the calling goroutine, from the header line of
// its stack trace ("goroutine 17 [running]:"). O(1): one small stack dump;
// called only once a cancellation is pending.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	var id int64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}

// observer is the progress observer of a fit: once rlskit_cancel is called,
// the next event reported on the fit's own goroutine unwinds it (events of
// the library's worker goroutines are let through: unwinding one of them
// would take the process down).
func (s *session) observer() progress.Observer {
	return func(progress.Event) {
		if s.cancelled.Load() && goid() == s.fitG.Load() {
			panic(cancelPanic{})
		}
	}
}

// dense wraps m×n float64 values at p with row stride stride (elements)
// as a gonum matrix over the caller's memory, without copying.
func dense(p *C.double, m, n, stride C.int64_t, name string) (*mat.Dense, error) {
	switch {
	case p == nil:
		return nil, fmt.Errorf("%s: no data", name)
	case m < 1 || n < 1:
		return nil, fmt.Errorf("%s: shape %d×%d: want at least one row and one column", name, m, n)
	case stride < n:
		return nil, fmt.Errorf("%s: row stride %d is less than its %d columns", name, stride, n)
	}
	data := unsafe.Slice((*float64)(unsafe.Pointer(p)), int((m-1)*stride+n))
	var d mat.Dense
	d.SetRawMatrix(blas64.General{Rows: int(m), Cols: int(n), Stride: int(stride), Data: data})
	return &d, nil
}

// acceptedFlags are the flags of rlskit fit this ABI takes as settings; the
// others name files (the data come as arrays) or choose work not offered
// here yet (--stream, the outer loop of greedy selection, basis choice,
// classes from label names); learners of pairs take acceptedPairFlags.
var acceptedFlags = map[string]bool{
	"learner": true, "kernel": true, "gamma": true, "bias": true, "coef0": true, "degree": true,
	"gamma-grid": true, "degree-grid": true, "coef0-grid": true, "lambda": true, "lambda-grid": true,
	"cv": true, "measure": true, "seed": true, "standardize": true, "intercept": true,
	"query-normalize": true, "fold-score": true, "permutations": true, "label": true,
	"interval": true, "select": true, "choose": true, "lambda-per-output": true,
	"solver": true, "tol": true, "max-iter": true, "cost": true, "clusters": true, "restarts": true,
}

// parseSettings parses the JSON settings of rlskit_fit into plan flags
// through the flag set of plan.Define; it returns the flags and the set of
// those given.
func parseSettings(text string) (*plan.Flags, map[string]bool, error) {
	return parseSettingsFor(text, acceptedFlags, "the C ABI")
}

// parseSettingsFor is parseSettings for an entry point (named in messages)
// that takes the flags accepted.
func parseSettingsFor(text string, accepted map[string]bool, entry string) (*plan.Flags, map[string]bool, error) {
	var raw map[string]any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, fmt.Errorf("settings: %w", err)
	}
	f := &plan.Flags{}
	fs := newFlagSet()
	plan.Define(fs, f)
	given := map[string]bool{}
	for k, v := range raw {
		if fs.Lookup(k) == nil {
			return nil, nil, fmt.Errorf("%w %q: not a setting of rlskit fit", errSetting, k)
		}
		if !accepted[k] {
			return nil, nil, fmt.Errorf("%w %q: not taken by %s yet (it takes %s)", errSetting, k, entry, strings.Join(sortedKeys(accepted), ", "))
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case json.Number:
			s = v.String()
		case bool:
			s = fmt.Sprint(v)
		default:
			return nil, nil, fmt.Errorf("%w %q: want a string, number or boolean, got %v", errSetting, k, v)
		}
		if err := fs.Set(k, s); err != nil {
			return nil, nil, fmt.Errorf("--%s %q: %w", k, s, err)
		}
		given[k] = true
	}
	return f, given, nil
}

// rlskit_fit fits the learner the settings name on X (m×d, row stride
// xstride) and Y (m×t, row stride ystride) by selection.Search, as rlskit
// fit does: plan.New checks the settings through the registry, the scheme
// is built for the data, every kernel setting is trained once and λ chosen
// on its exact CV path. groups (m int64 ids, or NULL) are the query or
// group ids; folds (m int64 fold numbers ≥ 0, -1 for a row in no fold, or
// NULL) are explicit CV folds (the setting "cv" is then "folds" or absent).
// A learner that learns from a preference graph (learn.NeedsGraph) takes
// the graph staged by rlskit_preferences; its y may then be NULL (with the
// setting "cv": "none": labels only score its cross-validation). A learner
// that clusters unlabelled rows (learn.ParamClusters) takes y, groups and
// folds NULL and the initial labelling staged by rlskit_init_labels, and
// runs at one kernel and λ (fitCluster).
// The handle keeps the model, the result and the CV predictions. Cost:
// the search's — one factorization per kernel setting, then the path.
//
//export rlskit_fit
func rlskit_fit(h C.uintptr_t, settings *C.char, x *C.double, m, d, xstride C.int64_t,
	y *C.double, t, ystride C.int64_t, groups, folds *C.int64_t) C.int {
	return call(h, func(s *session) error {
		defer s.cancelled.Store(false) // a cancellation ends with its fit
		s.fitG.Store(goid())
		if s.cancelled.Load() { // cancelled before it started
			return errCancelled
		}
		xm, err := dense(x, m, d, xstride, "X")
		if err != nil {
			return err
		}
		return s.fit(C.GoString(settings), xm, []region{regionOf(unsafe.Pointer(x), int(m*xstride)*8)}, y, t, ystride, groups, folds)
	})
}

// rlskit_fit_csr is rlskit_fit for a sparse X in compressed sparse rows
// (SciPy's CSR): m+1 row pointers indptr, nnz column indices (strictly
// increasing within a row) and values, all read in place (int64 indices:
// Go's int on a 64-bit platform). The checks are matrix.NewCSR's, O(nnz).
//
//export rlskit_fit_csr
func rlskit_fit_csr(h C.uintptr_t, settings *C.char, m, d C.int64_t, indptr, indices *C.int64_t, nnz C.int64_t, values *C.double,
	y *C.double, t, ystride C.int64_t, groups, folds *C.int64_t) C.int {
	return call(h, func(s *session) error {
		defer s.cancelled.Store(false)
		s.fitG.Store(goid())
		if s.cancelled.Load() {
			return errCancelled
		}
		xm, regions, err := csr(m, d, indptr, indices, nnz, values)
		if err != nil {
			return err
		}
		return s.fit(C.GoString(settings), xm, regions, y, t, ystride, groups, folds)
	})
}

// rlskit_preferences stages a preference graph for the next rlskit_fit or
// rlskit_fit_csr on h, for a learner that learns from one (its descriptor
// declares learn.NeedsGraph: RankRLS on a preference graph, Pahikkala et
// al. 2009): n edges, row i[e] preferred over row j[e] (0-based rows of
// that fit's X), with magnitude[e] (≥ 0; NULL: every magnitude 1) and
// weight[e] (> 0; NULL: every weight 1) — the lines "i j magnitude weight"
// of rlskit fit --preferences. The arrays are copied (O(n)); the learner
// checks the edges against X when it trains (rows in range, no self-loop,
// finite magnitudes and weights). The next fit consumes the graph whether
// it succeeds or not; a fit of a learner that takes no graph refuses a
// staged one.
//
//export rlskit_preferences
func rlskit_preferences(h C.uintptr_t, i, j *C.int64_t, magnitude, weight *C.double, n C.int64_t) C.int {
	return call(h, func(s *session) error {
		s.graph, s.staged = nil, false
		if n < 0 || n > 0 && (i == nil || j == nil) {
			return fmt.Errorf("preferences: %d edges: want n ≥ 0 and the arrays i and j", n)
		}
		if n == 0 {
			s.graph, s.staged = []learn.Edge{}, true
			return nil
		}
		is := unsafe.Slice((*int64)(unsafe.Pointer(i)), int(n))
		js := unsafe.Slice((*int64)(unsafe.Pointer(j)), int(n))
		var ms, ws []float64
		if magnitude != nil {
			ms = unsafe.Slice((*float64)(unsafe.Pointer(magnitude)), int(n))
		}
		if weight != nil {
			ws = unsafe.Slice((*float64)(unsafe.Pointer(weight)), int(n))
		}
		g := make([]learn.Edge, n)
		for e := range g {
			if is[e] < 0 || js[e] < 0 {
				return fmt.Errorf("preferences: edge %d (%d, %d): a row index is negative", e, is[e], js[e])
			}
			g[e] = learn.Edge{I: int(is[e]), J: int(js[e]), Magnitude: 1, Weight: 1}
			if ms != nil {
				g[e].Magnitude = ms[e]
			}
			if ws != nil {
				g[e].Weight = ws[e]
			}
		}
		s.graph, s.staged = g, true
		return nil
	})
}

// region is a span of the caller's memory: [lo, hi).
type region struct{ lo, hi uintptr }

// regionOf is the region of n bytes at p.
func regionOf(p unsafe.Pointer, n int) region {
	return region{uintptr(p), uintptr(p) + uintptr(n)}
}

// inCaller reports whether p lies in one of the caller's regions.
func inCaller(p unsafe.Pointer, regions []region) bool {
	for _, r := range regions {
		if uintptr(p) >= r.lo && uintptr(p) < r.hi {
			return true
		}
	}
	return false
}

// csr wraps m×d CSR arrays as a *matrix.CSR over the caller's memory
// (checked by matrix.NewCSR), with the regions it reads.
func csr(m, d C.int64_t, indptr, indices *C.int64_t, nnz C.int64_t, values *C.double) (*matrix.CSR, []region, error) {
	if strconv.IntSize != 64 {
		return nil, nil, errors.New("X: sparse input needs a 64-bit platform (Go int = int64)")
	}
	if indptr == nil || m < 1 || d < 1 || nnz < 0 || (nnz > 0 && (indices == nil || values == nil)) {
		return nil, nil, fmt.Errorf("X: sparse %d×%d with %d stored values: want at least one row and one column and the three arrays", m, d, nnz)
	}
	ip := unsafe.Slice((*int)(unsafe.Pointer(indptr)), int(m)+1)
	var ix []int
	var vs []float64
	if nnz > 0 {
		ix = unsafe.Slice((*int)(unsafe.Pointer(indices)), int(nnz))
		vs = unsafe.Slice((*float64)(unsafe.Pointer(values)), int(nnz))
	}
	x, err := matrix.NewCSR(int(m), int(d), ip, ix, vs)
	if err != nil {
		return nil, nil, fmt.Errorf("X: %w", err)
	}
	return x, []region{regionOf(unsafe.Pointer(indptr), int(m+1)*8), regionOf(unsafe.Pointer(indices), int(nnz)*8),
		regionOf(unsafe.Pointer(values), int(nnz)*8)}, nil
}

// fit is rlskit_fit under the lock, on X read in place from the caller's
// regions.
func (s *session) fit(settings string, x mat.Matrix, caller []region,
	yp *C.double, t, ystride C.int64_t, gp, fp *C.int64_t) error {
	start := time.Now()
	s.pred, s.pairPred, s.pairKernel, s.result, s.cvPred = nil, nil, nil, nil, nil
	graph, staged, init, fixed := s.graph, s.staged, s.init, s.fixed
	s.graph, s.staged, s.init, s.fixed = nil, false, nil, nil // staged inputs serve one fit, whatever its outcome
	m64, d64 := x.Dims()
	m, d := C.int64_t(m64), C.int64_t(d64)
	f, given, err := parseSettings(settings)
	if err != nil {
		return err
	}
	le, lerr := plan.LookupLearner(f.Learner)
	if lerr == nil { // before plan.New, whose refusals name the CLI's files
		if err := refuseOutside(le); err != nil {
			return err
		}
		if err := checkGraph(le, staged, yp == nil, f.CV); err != nil {
			return err
		}
		if le.Takes(learn.ParamClusters) { // clustering: no labels, no search
			if yp != nil || gp != nil || fp != nil {
				return fmt.Errorf("--learner %s clusters unlabelled rows (no cross-validation): pass y, groups and folds NULL", le.Name)
			}
			return s.fitCluster(f, given, x, caller, init, fixed, start)
		}
		if init != nil || fixed != nil {
			return fmt.Errorf("init: an initial labelling (and fixed rows) is for a learner that clusters rows, not --learner %s", le.Name)
		}
	}
	var y *mat.Dense
	if yp != nil || lerr != nil || !le.Needs.Has(learn.NeedsGraph) {
		yv, err := dense(yp, m, t, ystride, "y")
		if err != nil {
			return err
		}
		y = mat.DenseCopyOf(yv) // the handle outlives the caller's labels
	}
	rows := int(m)
	var groups []int
	if gp != nil {
		groups = make([]int, rows)
		for i, g := range unsafe.Slice((*int64)(unsafe.Pointer(gp)), rows) {
			groups[i] = int(g)
		}
	}
	var foldSets [][]int
	if fp != nil {
		if foldSets, err = foldsOf(unsafe.Slice((*int64)(unsafe.Pointer(fp)), rows)); err != nil {
			return err
		}
		f.Folds = "(folds array)" // plan.New takes --cv folds with a source of folds
	}
	f.Data = "(X array)" // the data come as arrays; plan.New asks for a source
	if staged {
		f.Preferences = "(preferences arrays)" // plan.New asks a graph learner for a source of its graph
	}
	p, err := plan.New(f, func(name string) bool { return given[name] || name == "folds" && fp != nil })
	if err != nil {
		return err
	}
	le = p.Learner
	var outputs []string
	if y != nil {
		outputs = outputNames(f.Label, int(t))
		if le.Needs.Has(learn.NeedsGraph) && t != 1 {
			return fmt.Errorf("--learner %s has one output; y has %d columns", le.Name, t)
		}
	}
	if le.Needs.Has(learn.NeedsGroups) && groups == nil {
		return fmt.Errorf("--learner %s needs query ids: pass groups", le.Name)
	}
	if p.Measure.NeedsQueries && groups == nil {
		return fmt.Errorf("--measure %s needs query ids: pass groups", p.Measure.Name)
	}
	if p.Kernels[0].Name == "precomputed" && m != d {
		return fmt.Errorf("X: a precomputed kernel matrix must be square, got %d rows and %d columns", m, d)
	}
	in := &learn.Input{X: x, Y: y, Outputs: outputs, Groups: groups, Graph: graph}
	if le.Takes(learn.ParamCost) {
		in.Cost = f.Cost
	}
	if le.Takes(learn.ParamQueryNormalize) {
		in.QueryNormalize = f.QueryNormalize
	}
	if le.Takes(learn.ParamIntercept) {
		in.Intercept = f.Intercept
	}
	obs := s.observer()
	in.Observe = obs
	o := selection.SchemeOptions{Rows: rows, Seed: f.Seed, Groups: groups, Labels: y, Policy: p.Policy,
		PairsWithinGroups: le.Needs.Has(learn.NeedsGroups), FoldMean: f.FoldScore == "mean"}
	if p.CVKind == "folds" {
		o.Folds, o.FoldsName = foldSets, f.Folds
	}
	scheme, err := selection.NewScheme(p.CVSpec, o)
	if err != nil {
		return fmt.Errorf("--cv %s: %w", p.CVSpec, err)
	}
	if le.Takes(learn.ParamSelect) { // forward feature selection: its own search, as in rlskit fit
		return s.fitGreedy(f, p, x, y, outputs, groups, scheme, obs, start)
	}
	if f.Solver == "cg" { // conjugate gradients: one λ, no CV (plan.New checked the learner and settings)
		return s.fitCG(f, p, in, int(d), start)
	}
	res, err := selection.Search(selection.Problem{Learner: le, Input: in, Standardize: f.Standardize},
		selection.Settings{Kernels: p.Kernels, GammaScale: p.GammaScale, Lambdas: p.Lambdas, Scheme: scheme, Measure: p.Measure,
			Choose: f.Choose, LambdaPerOutput: f.LambdaPerOutput,
			Options: selection.Options{Queries: groups}, Permutations: f.Permutations, Seed: f.Seed, Progress: obs})
	if err != nil {
		return err
	}
	pred := res.Predictor
	if f.Interval != "" { // before ownPoints: the hold-out models share the model's points
		if err := interval.FromSearch(f.Interval, pred, res, scheme); err != nil {
			return err
		}
	}
	ownPoints(pred, caller)
	out := summary.Search(string(le.Name), &dataset.Data{X: x, Y: y, LabelNames: outputs, Queries: groups}, res, scheme, p.Measure, f.BasisHoldOut)
	out.Timing = summary.Timing{Train: res.Train.Seconds(), CV: res.CV.Seconds(), Total: time.Since(start).Seconds()}
	doc := result{Summary: out, NOutputs: int(t), Width: int(d), Measure: p.Measure.Name, HigherIsBetter: p.Measure.HigherIsBetter}
	if res.Curves != nil && scheme.Kind != selection.None {
		best := res.Curves[res.Best].Result
		doc.BestIndex = best.BestIndex
		for _, c := range res.Curves[:res.Best] {
			doc.BestIndex += len(c.Curve)
		}
		doc.Indistinguishable = best.Best.Indistinguishable
		if best.Predictions != nil {
			s.cvPred = best.Predictions
			if res.ChosenPredictions != nil { // --choose 1se, --lambda-per-output: the model's own
				s.cvPred = res.ChosenPredictions
			}
			doc.HasCVPredictions = true
		}
	}
	if s.result, err = json.Marshal(doc); err != nil {
		return err
	}
	s.pred = pred
	return nil
}

// fitCG is fit with the setting "solver": "cg", as rlskit fit --solver cg
// does: the registered learner's method for learn.Iterative (package cg:
// the linear kernel with the bias as a feature, nothing factored) through
// the one search at the one λ, without cross-validation. Cost:
// O(t·iterations·(nnz(X) + m + d)), O(m + d) memory besides the data.
func (s *session) fitCG(f *plan.Flags, p *plan.Plan, in *learn.Input, width int, start time.Time) error {
	in.Form, in.Tol, in.MaxIter = learn.Iterative, f.Tol, f.MaxIter
	spec := kernel.Spec{Name: "linear", Bias: f.Bias}
	res, err := selection.Search(selection.Problem{Learner: p.Learner, Input: in, Standardize: f.Standardize},
		selection.Settings{Kernels: []kernel.Spec{spec}, Lambdas: p.Lambdas[:1], Measure: p.Measure,
			Scheme: selection.Scheme{Kind: selection.None, Name: "none"}, Progress: in.Observe})
	if err != nil {
		return fmt.Errorf("--solver cg: %w", err)
	}
	sol, ok := res.Solution.(*cg.Result)
	if !ok {
		return fmt.Errorf("--solver cg: --learner %s did not train by conjugate gradients", p.Learner.Name)
	}
	m, _ := in.X.Dims()
	out := &summary.Fit{Learner: f.Learner, Kernel: spec, Form: "cg", Lambda: res.Lambda, NTrain: m, NFeatures: width,
		Outputs: in.Outputs, Backend: linalg.Backend(),
		CG:     &summary.CG{Iterations: sol.Iterations, Converged: sol.Converged, Residual: sol.Residual},
		Timing: summary.Timing{Train: res.Train.Seconds(), Total: time.Since(start).Seconds()}}
	if in.Groups != nil {
		out.Queries = summary.QueryStats(&dataset.Data{X: in.X, Y: in.Y, LabelNames: in.Outputs, Queries: in.Groups})
	}
	doc := result{Summary: out, NOutputs: len(in.Outputs), Width: width, Measure: p.Measure.Name, HigherIsBetter: p.Measure.HigherIsBetter}
	if s.result, err = json.Marshal(doc); err != nil {
		return err
	}
	s.pred = res.Predictor // a weight vector: nothing of the caller's X
	return nil
}

// fitGreedy is fit for a learner that selects features (learn.ParamSelect:
// greedy RLS, Pahikkala et al. 2010): greedy.Select adds --select features
// forward by the exact LOO or hold-out criterion of the scheme and keeps
// the best k ≤ K at the best λ, as rlskit fit --learner greedy does. Cost:
// greedy.Select's, O(K·d·m·|grid|) cached.
func (s *session) fitGreedy(f *plan.Flags, p *plan.Plan, x mat.Matrix, y *mat.Dense, outputs []string, groups []int,
	scheme selection.Scheme, obs progress.Observer, start time.Time) error {
	m, width := x.Dims()
	if f.Select > width {
		return fmt.Errorf("--select %d: %w: X has n_features = %d", f.Select, greedy.ErrSelect, width)
	}
	opt := greedy.Options{Lambdas: p.Lambdas, Bias: f.Bias, K: f.Select, Measure: p.Measure, Folds: scheme.Folds,
		Queries: groups, Outputs: outputs, Standardize: f.Standardize, Progress: obs}
	res, err := greedy.Select(x, y, opt)
	if err != nil {
		return fmt.Errorf("--learner %s: %w", p.Learner.Name, err)
	}
	out := summary.Greedy(string(p.Learner.Name), &dataset.Data{X: x, Y: y, LabelNames: outputs, Queries: groups}, res, opt, scheme.Name, nil)
	out.Timing = summary.Timing{Train: res.Train.Seconds(), Total: time.Since(start).Seconds()}
	_, t := y.Dims()
	doc := result{Summary: out, NOutputs: t, Width: width, Measure: p.Measure.Name, HigherIsBetter: p.Measure.HigherIsBetter}
	if out.CV != nil {
		for i, pt := range out.CV.Curve {
			if pt.Lambda == res.Lambda {
				doc.BestIndex = i
			}
		}
	}
	if res.Predictions != nil {
		if r, _ := res.Predictions.Dims(); r == m {
			s.cvPred, doc.HasCVPredictions = res.Predictions, true
		}
	}
	if s.result, err = json.Marshal(doc); err != nil {
		return err
	}
	s.pred = res.Predictor // a weight vector: nothing of the caller's X
	return nil
}

// result is the JSON document of rlskit_result: the summary rlskit fit
// prints (package summary) and what a front end needs to read it.
type result struct {
	// Summary is rlskit fit's JSON output for the same search.
	Summary *summary.Fit `json:"summary"`
	// BestIndex indexes summary.cv.curve at the chosen point.
	BestIndex int `json:"best_index"`
	// NOutputs is t, Width d.
	NOutputs int `json:"n_outputs"`
	Width    int `json:"width"`
	// Measure names the measure of the search (the learner's default when
	// none was set; also when there is no CV), HigherIsBetter which way it
	// improves.
	Measure        string `json:"measure"`
	HigherIsBetter bool   `json:"higher_is_better"`
	// HasCVPredictions says rlskit_cv_predictions has the m×t CV
	// predictions at the chosen point (LOO and fold schemes).
	HasCVPredictions bool `json:"has_cv_predictions"`
	// Indistinguishable: the CV predictions at the chosen point differ by
	// rounding noise only (the measure counted them as ties).
	Indistinguishable bool `json:"indistinguishable,omitempty"`
}

// refuseOutside refuses a learner whose fit this entry point does not run —
// by its declared needs and parameters, not its name: learners of pairs
// (rlskit_fit_pairs) and interactive labelling by steps.
func refuseOutside(le *learn.Descriptor) error {
	switch {
	case le.Needs.Has(learn.NeedsPairs):
		return fmt.Errorf("--learner %s learns on pairs of objects: fit it with rlskit_fit_pairs (objects, pairs, labels)", le.Name)
	case le.Takes(learn.ParamSteps):
		return fmt.Errorf("--learner %s runs the steps of an interactive labelling (--steps FILE): not through the C ABI yet", le.Name)
	}
	return nil
}

// checkGraph checks a fit's preference graph against the learner's needs
// (learn.NeedsGraph, not its name): a learner that learns from a graph
// needs one staged by rlskit_preferences, and labels (which only score its
// cross-validation) unless cv is "none"; any other learner takes none.
func checkGraph(le *learn.Descriptor, staged, noLabels bool, cv string) error {
	graph := le.Needs.Has(learn.NeedsGraph)
	switch {
	case graph && !staged:
		return fmt.Errorf("--learner %s learns from a preference graph: pass it with rlskit_preferences before the fit", le.Name)
	case !graph && staged:
		return fmt.Errorf("preferences: a graph for a learner that learns from one, not --learner %s", le.Name)
	case graph && noLabels && cv != "none":
		what := "--cv " + cv
		if cv == "" {
			what = "its default cross-validation"
		}
		return fmt.Errorf("--learner %s, %s: cross-validation scores held-out rows by their labels: pass y, or the setting cv \"none\"", le.Name, what)
	}
	return nil
}

// outputNames names the t outputs: the comma-separated --label names when
// given, else "y" for one output and y0, y1, … for several.
func outputNames(label string, t int) []string {
	if label != "" {
		return strings.Split(label, ",")
	}
	if t == 1 {
		return []string{"y"}
	}
	out := make([]string, t)
	for i := range out {
		out[i] = fmt.Sprintf("y%d", i)
	}
	return out
}

// foldsOf turns a fold number per row (-1: in no fold) into the folds' row
// lists, in fold-number order; fold numbers run 0..K-1 with none empty.
func foldsOf(ids []int64) ([][]int, error) {
	k := int64(0)
	for i, v := range ids {
		if v < -1 || v >= int64(len(ids)) {
			return nil, fmt.Errorf("folds: row %d has fold %d: want -1 (no fold) or 0..%d", i, v, len(ids)-1)
		}
		k = max(k, v+1)
	}
	folds := make([][]int, k)
	for i, v := range ids {
		if v >= 0 {
			folds[v] = append(folds[v], i)
		}
	}
	for j, fo := range folds {
		if len(fo) == 0 {
			return nil, fmt.Errorf("folds: fold %d is empty (fold numbers must run 0..%d without gaps)", j, k-1)
		}
	}
	return folds, nil
}

// ownPoints gives a kernel expansion whose support rows are (or share
// arrays with) the caller's X — no standardization copied them, or a CSR
// scaler kept X's indices — its own copy of them: the handle outlives the
// caller's arrays. O(m·d) dense, O(nnz) sparse when it copies, O(1)
// otherwise.
func ownPoints(p *model.Predictor, caller []region) {
	switch x := p.Points.(type) {
	case *mat.Dense:
		if raw := x.RawMatrix(); len(raw.Data) > 0 && inCaller(unsafe.Pointer(&raw.Data[0]), caller) {
			p.Points = mat.DenseCopyOf(x)
		}
	case *matrix.CSR:
		shared := inCaller(unsafe.Pointer(&x.Indptr[0]), caller)
		if len(x.Values) > 0 {
			shared = shared || inCaller(unsafe.Pointer(&x.Indices[0]), caller) || inCaller(unsafe.Pointer(&x.Values[0]), caller)
		}
		if shared {
			p.Points = &matrix.CSR{R: x.R, C: x.C, Indptr: slices.Clone(x.Indptr), Indices: slices.Clone(x.Indices), Values: slices.Clone(x.Values)}
		}
	}
}

// rlskit_result returns the selection result of the last fit on h as JSON
// (a new C string; free with rlskit_string_free), or NULL with the error
// set when h holds no fit.
//
//export rlskit_result
func rlskit_result(h C.uintptr_t) *C.char {
	var out *C.char
	call(h, func(s *session) error {
		if s.result == nil {
			return errors.New("rlskit: no fit on this handle")
		}
		out = C.CString(string(s.result))
		return nil
	})
	return out
}

// rlskit_cv_predictions copies the m×t CV predictions at the chosen point
// (NaN for a row in no fold) into out (C-contiguous). O(m·t).
//
//export rlskit_cv_predictions
func rlskit_cv_predictions(h C.uintptr_t, out *C.double, m, t C.int64_t) C.int {
	return call(h, func(s *session) error {
		if s.cvPred == nil {
			return errors.New("rlskit: no CV predictions on this handle (none for leave-pair-out or --cv none)")
		}
		return copyOut(s.cvPred, out, m, t, "cv_predictions")
	})
}

// copyOut copies src into the C-contiguous m×t buffer at out.
func copyOut(src *mat.Dense, out *C.double, m, t C.int64_t, name string) error {
	r, c := src.Dims()
	if out == nil || int(m) != r || int(t) != c {
		return fmt.Errorf("%s: buffer %d×%d for %d×%d values", name, m, t, r, c)
	}
	dst := unsafe.Slice((*float64)(unsafe.Pointer(out)), r*c)
	for i := 0; i < r; i++ {
		copy(dst[i*c:(i+1)*c], src.RawRowView(i))
	}
	return nil
}

// rlskit_predict writes the m×t predictions of h's model for X (m×d, row
// stride xstride, read in place) into out (m×t, C-contiguous). Cost: the
// model's, O(m·d·t) linear, O(m·n·d) for a kernel expansion of n rows.
//
//export rlskit_predict
func rlskit_predict(h C.uintptr_t, x *C.double, m, d, xstride C.int64_t, out *C.double, t C.int64_t) C.int {
	return call(h, func(s *session) error {
		if s.pred == nil {
			return errors.New("rlskit: no model on this handle: fit or load one first")
		}
		xm, err := dense(x, m, d, xstride, "X")
		if err != nil {
			return err
		}
		p, err := s.pred.Predict(xm)
		if err != nil {
			return err
		}
		return copyOut(p, out, m, t, "predictions")
	})
}

// rlskit_predict_csr is rlskit_predict for a sparse X in CSR arrays
// (rlskit_fit_csr), read in place. Cost: O(nnz·t) linear, O(m·n·…) for a
// kernel expansion of n rows.
//
//export rlskit_predict_csr
func rlskit_predict_csr(h C.uintptr_t, m, d C.int64_t, indptr, indices *C.int64_t, nnz C.int64_t, values *C.double, out *C.double, t C.int64_t) C.int {
	return call(h, func(s *session) error {
		if s.pred == nil {
			return errors.New("rlskit: no model on this handle: fit or load one first")
		}
		xm, _, err := csr(m, d, indptr, indices, nnz, values)
		if err != nil {
			return err
		}
		p, err := s.pred.Predict(xm)
		if err != nil {
			return err
		}
		return copyOut(p, out, m, t, "predictions")
	})
}

// rlskit_predict_interval writes, for the rows of X (dense, as
// rlskit_predict) and a model fitted with the setting "interval", the
// prediction and the lower and upper ends of the jackknife+ or CV+
// interval of the given coverage (Barber et al. 2021) into pred, lo and hi
// (each m×t, C-contiguous), as rlskit predict --coverage does
// (model.PredictInterval). Cost: the K hold-out models' predictions,
// O(m·K·d·t) linear, plus a selection per row and output.
//
//export rlskit_predict_interval
func rlskit_predict_interval(h C.uintptr_t, x *C.double, m, d, xstride C.int64_t, coverage C.double,
	pred, lo, hi *C.double, t C.int64_t) C.int {
	return call(h, func(s *session) error {
		if s.pred == nil {
			return errors.New("rlskit: no model on this handle: fit or load one first")
		}
		xm, err := dense(x, m, d, xstride, "X")
		if err != nil {
			return err
		}
		return s.interval(xm, coverage, pred, lo, hi, m, t)
	})
}

// rlskit_predict_interval_csr is rlskit_predict_interval for a sparse X in
// CSR arrays (rlskit_fit_csr), read in place.
//
//export rlskit_predict_interval_csr
func rlskit_predict_interval_csr(h C.uintptr_t, m, d C.int64_t, indptr, indices *C.int64_t, nnz C.int64_t, values *C.double,
	coverage C.double, pred, lo, hi *C.double, t C.int64_t) C.int {
	return call(h, func(s *session) error {
		if s.pred == nil {
			return errors.New("rlskit: no model on this handle: fit or load one first")
		}
		xm, _, err := csr(m, d, indptr, indices, nnz, values)
		if err != nil {
			return err
		}
		return s.interval(xm, coverage, pred, lo, hi, m, t)
	})
}

// interval writes the prediction and the interval ends of the model for x
// at the coverage into the m×t buffers pred, lo and hi.
func (s *session) interval(xm mat.Matrix, coverage C.double, pred, lo, hi *C.double, m, t C.int64_t) error {
	p, l, u, err := s.pred.PredictInterval(xm, float64(coverage))
	if err != nil {
		return fmt.Errorf("--coverage %g: %w", float64(coverage), err)
	}
	for _, o := range []struct {
		src *mat.Dense
		dst *C.double
	}{{p, pred}, {l, lo}, {u, hi}} {
		if err := copyOut(o.src, o.dst, m, t, "interval"); err != nil {
			return err
		}
	}
	return nil
}

// rlskit_model_shape writes the model's width d and outputs t.
//
//export rlskit_model_shape
func rlskit_model_shape(h C.uintptr_t, d, t *C.int64_t) C.int {
	return call(h, func(s *session) error {
		if s.pred == nil {
			return errors.New("rlskit: no model on this handle: fit or load one first")
		}
		*d, *t = C.int64_t(s.pred.Width), C.int64_t(len(s.pred.Outputs))
		return nil
	})
}

// rlskit_model_json returns h's model in rlskit's model file format (the
// JSON rlskit fit --model writes and rlskit predict reads) as a new C
// string (free with rlskit_string_free), or NULL with the error set.
//
//export rlskit_model_json
func rlskit_model_json(h C.uintptr_t) *C.char {
	var out *C.char
	call(h, func(s *session) error {
		var b bytes.Buffer
		switch {
		case s.pairPred != nil:
			if err := s.pairPred.Save(&b); err != nil {
				return err
			}
		case s.pairKernel != nil:
			if err := s.pairKernel.Save(&b); err != nil {
				return err
			}
		case s.pred == nil:
			return errors.New("rlskit: no model on this handle: fit or load one first")
		default:
			if err := s.pred.Save(&b); err != nil {
				return err
			}
		}
		out = C.CString(b.String())
		return nil
	})
	return out
}

// rlskit_load replaces h's model by the one in text (a model file's n
// bytes, checked by model.Load); the handle then has no selection result.
//
//export rlskit_load
func rlskit_load(h C.uintptr_t, text *C.char, n C.int64_t) C.int {
	return call(h, func(s *session) error {
		b := C.GoBytes(unsafe.Pointer(text), C.int(n))
		if head := b[:min(len(b), 256)]; model.IsPairwise(head) || bytes.Contains(head, []byte(`"format":"`+pairkernel.Format+`"`)) {
			p, err := pairfit.LoadModel(bytes.NewReader(b)) // by the format tag
			if err != nil {
				return err
			}
			s.pred, s.pairPred, s.pairKernel, s.result, s.cvPred = nil, p.Pair, p.Kernel, nil, nil
			return nil
		}
		p, err := model.Load(bytes.NewReader(b))
		if err != nil {
			return err
		}
		s.pred, s.pairPred, s.pairKernel, s.result, s.cvPred = p, nil, nil, nil, nil
		return nil
	})
}

// newFlagSet is the flag set the settings are parsed with: the standard
// library's, silent (its errors are returned, not printed).
func newFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("rlskit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// sortedKeys returns the keys of a set, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rlskit_score writes to out the measure name (package measure: mse, cindex,
// disagreement, …) of the predictions P (m×t, row stride pstride) against
// the labels Y (m×t, row stride ystride), with groups (m query ids, or NULL)
// for the measures within queries: the core's own scoring, as rlskit
// predict --measure gives. Cost: the measure's (O(m log m) for the rank
// measures, O(m) for the others, per output).
//
//export rlskit_score
func rlskit_score(h C.uintptr_t, name *C.char, y *C.double, m, t, ystride C.int64_t, p *C.double, pstride C.int64_t,
	groups *C.int64_t, out *C.double) C.int {
	return call(h, func(s *session) error {
		meas, err := measure.ByName(C.GoString(name))
		if err != nil {
			return err
		}
		ym, err := dense(y, m, t, ystride, "y")
		if err != nil {
			return err
		}
		pm, err := dense(p, m, t, pstride, "predictions")
		if err != nil {
			return err
		}
		var q []int
		if groups != nil {
			q = make([]int, int(m))
			for i, g := range unsafe.Slice((*int64)(unsafe.Pointer(groups)), int(m)) {
				q[i] = int(g)
			}
		}
		v, err := meas.Score(ym, pm, q)
		if err != nil {
			return fmt.Errorf("--measure %s: %w", meas.Name, err)
		}
		*out = C.double(v)
		return nil
	})
}

// learnerInfo describes a registered learner to a front end.
type learnerInfo struct {
	// Name is the learner's registry name (the setting "learner"),
	// Summary its one-line description.
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// Available says this ABI fits it (learners on rows through
	// selection.Search with rlskit_fit, learners of pairs through
	// pairfit.Fit with rlskit_fit_pairs); Reason says why not otherwise.
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// NeedsGroups: fit needs a group (query) id per row.
	NeedsGroups bool `json:"needs_groups"`
	// NeedsPairs: a learner of pairs, fitted by rlskit_fit_pairs (row
	// objects, column objects, labelled pairs), not rlskit_fit.
	NeedsPairs bool `json:"needs_pairs"`
	// NeedsGraph: it learns from a preference graph over the rows, staged
	// by rlskit_preferences before rlskit_fit (labels optional).
	NeedsGraph bool `json:"needs_graph"`
	// Clustering: it labels unlabelled rows (learn.ParamClusters; rlskit_fit
	// with y NULL, an initial labelling staged by rlskit_init_labels).
	Clustering bool `json:"clustering"`
	// Params are the learner parameters it takes (their setting names:
	// "select", "intercept", …), Kernels the kernels it takes (empty:
	// every kernel).
	Params  []string `json:"params"`
	Kernels []string `json:"kernels"`
	// Loss names the loss it minimizes (learn.Loss: "squared", …,
	// "pair-squared-hinge"); BinaryLabels says its labels are −1 and +1
	// only (learn.Loss.Binary: the support vector machine).
	Loss         string `json:"loss"`
	BinaryLabels bool   `json:"binary_labels"`
}

// rlskit_learners returns the learners of the registry (learn.Descriptors)
// as a JSON array of learnerInfo, a new C string (free with
// rlskit_string_free): what a front end can offer without naming any.
//
//export rlskit_learners
func rlskit_learners() *C.char {
	var out []learnerInfo
	for _, d := range learn.Descriptors() {
		li := learnerInfo{Name: string(d.Name), Summary: d.Summary, Available: true, NeedsGroups: d.Needs.Has(learn.NeedsGroups),
			NeedsPairs: d.Needs.Has(learn.NeedsPairs), NeedsGraph: d.Needs.Has(learn.NeedsGraph), Clustering: d.Takes(learn.ParamClusters), Params: []string{}, Kernels: append([]string{}, d.Kernels...),
			Loss: d.Loss.String(), BinaryLabels: d.Loss.Binary()}
		for _, p := range d.Params {
			li.Params = append(li.Params, string(p))
		}
		if err := refuseOutside(d); err != nil && !li.NeedsPairs {
			li.Available, li.Reason = false, err.Error()
		}
		out = append(out, li)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return C.CString(string(b))
}
