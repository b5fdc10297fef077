"""ctypes binding of librlskit, the C ABI of the Go core (cmd/librlskit).

The shared library is built by ``pip install ./python`` (setup.py runs
``go build -buildmode=c-shared``) and installed next to this file; the
environment variable RLSKIT_LIBRARY names another build.

Data pass as pointers into NumPy arrays: float64, rows contiguous (a row
stride is passed, the column stride must be 1). X is read in place by the Go
core for the duration of a call; no array is copied on this side unless it
is not already float64 with contiguous rows (numpy.require).
"""

import ctypes
import json
import os
import threading

import numpy as np

_STATUS_OK = 0
_STATUS_VALUE = 1
_STATUS_TYPE = 2
_STATUS_MEMORY = 3
_STATUS_CANCELLED = 4
_STATUS_INTERNAL = 5


class RlskitError(RuntimeError):
    """An internal error of the Go core (a recovered panic): a bug."""


_EXCEPTIONS = {
    _STATUS_VALUE: ValueError,
    _STATUS_TYPE: TypeError,
    _STATUS_MEMORY: MemoryError,
    _STATUS_CANCELLED: KeyboardInterrupt,
    _STATUS_INTERNAL: RlskitError,
}

_c_double_p = ctypes.POINTER(ctypes.c_double)
_c_int64_p = ctypes.POINTER(ctypes.c_int64)
_lib = None
_lib_lock = threading.Lock()


def _load():
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = os.environ.get("RLSKIT_LIBRARY") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "librlskit.so")
        if not os.path.exists(path):
            raise ImportError(
                "rlskit: the shared library %s is missing; install the package with "
                "'pip install --no-build-isolation ./python' (it builds it with go build "
                "-buildmode=c-shared) or set RLSKIT_LIBRARY" % path)
        lib = ctypes.CDLL(path)  # ctypes.CDLL releases the GIL around every call
        u = ctypes.c_uint64
        i64 = ctypes.c_int64
        lib.rlskit_new.restype = u
        lib.rlskit_new.argtypes = []
        lib.rlskit_free.restype = None
        lib.rlskit_free.argtypes = [u]
        lib.rlskit_cancel.restype = None
        lib.rlskit_cancel.argtypes = [u]
        lib.rlskit_error.restype = ctypes.c_void_p
        lib.rlskit_error.argtypes = [u]
        lib.rlskit_string_free.restype = None
        lib.rlskit_string_free.argtypes = [ctypes.c_void_p]
        lib.rlskit_fit.restype = ctypes.c_int
        lib.rlskit_fit.argtypes = [u, ctypes.c_char_p, _c_double_p, i64, i64, i64,
                                   _c_double_p, i64, i64, _c_int64_p, _c_int64_p]
        lib.rlskit_fit_csr.restype = ctypes.c_int
        lib.rlskit_fit_csr.argtypes = [u, ctypes.c_char_p, i64, i64, _c_int64_p, _c_int64_p, i64, _c_double_p,
                                       _c_double_p, i64, i64, _c_int64_p, _c_int64_p]
        lib.rlskit_predict_csr.restype = ctypes.c_int
        lib.rlskit_predict_csr.argtypes = [u, i64, i64, _c_int64_p, _c_int64_p, i64, _c_double_p, _c_double_p, i64]
        lib.rlskit_predict_interval.restype = ctypes.c_int
        lib.rlskit_predict_interval.argtypes = [u, _c_double_p, i64, i64, i64, ctypes.c_double,
                                                _c_double_p, _c_double_p, _c_double_p, i64]
        lib.rlskit_predict_interval_csr.restype = ctypes.c_int
        lib.rlskit_predict_interval_csr.argtypes = [u, i64, i64, _c_int64_p, _c_int64_p, i64, _c_double_p, ctypes.c_double,
                                                    _c_double_p, _c_double_p, _c_double_p, i64]
        lib.rlskit_preferences.restype = ctypes.c_int
        lib.rlskit_preferences.argtypes = [u, _c_int64_p, _c_int64_p, _c_double_p, _c_double_p, i64]
        lib.rlskit_init_labels.restype = ctypes.c_int
        lib.rlskit_init_labels.argtypes = [u, _c_int64_p, i64]
        lib.rlskit_fixed_rows.restype = ctypes.c_int
        lib.rlskit_fixed_rows.argtypes = [u, _c_int64_p, i64]
        lib.rlskit_learners.restype = ctypes.c_void_p
        lib.rlskit_learners.argtypes = []
        lib.rlskit_result.restype = ctypes.c_void_p
        lib.rlskit_result.argtypes = [u]
        lib.rlskit_cv_predictions.restype = ctypes.c_int
        lib.rlskit_cv_predictions.argtypes = [u, _c_double_p, i64, i64]
        lib.rlskit_predict.restype = ctypes.c_int
        lib.rlskit_predict.argtypes = [u, _c_double_p, i64, i64, i64, _c_double_p, i64]
        lib.rlskit_model_shape.restype = ctypes.c_int
        lib.rlskit_model_shape.argtypes = [u, _c_int64_p, _c_int64_p]
        lib.rlskit_model_json.restype = ctypes.c_void_p
        lib.rlskit_model_json.argtypes = [u]
        lib.rlskit_load.restype = ctypes.c_int
        lib.rlskit_load.argtypes = [u, ctypes.c_char_p, i64]
        lib.rlskit_fit_pairs.restype = ctypes.c_int
        lib.rlskit_fit_pairs.argtypes = [u, ctypes.c_char_p, _c_double_p, i64, i64, i64, _c_double_p, i64, i64, i64,
                                         _c_int64_p, _c_int64_p, i64, _c_double_p, _c_int64_p, _c_int64_p]
        lib.rlskit_predict_pairs.restype = ctypes.c_int
        lib.rlskit_predict_pairs.argtypes = [u, _c_double_p, i64, i64, i64, _c_double_p, i64, i64, i64,
                                             _c_int64_p, _c_int64_p, i64, _c_double_p]
        lib.rlskit_predict_pairs_interval.restype = ctypes.c_int
        lib.rlskit_predict_pairs_interval.argtypes = [u, _c_double_p, i64, i64, i64, _c_double_p, i64, i64, i64,
                                                      _c_int64_p, _c_int64_p, i64, ctypes.c_double,
                                                      _c_double_p, _c_double_p, _c_double_p]
        lib.rlskit_score.restype = ctypes.c_int
        lib.rlskit_score.argtypes = [u, ctypes.c_char_p, _c_double_p, i64, i64, i64, _c_double_p, i64,
                                     _c_int64_p, _c_double_p]
        _lib = lib
        return lib


def learners():
    """The learners of the Go core's registry: a list of dicts with name,
    summary, available (this package fits it), reason (why not),
    needs_groups, needs_pairs (fit_pairs), needs_graph (fit with
    preferences), clustering (fit with Y None), params and kernels."""
    lib = _load()
    return json.loads(_take_string(lib, lib.rlskit_learners()))


def _take_string(lib, ptr):
    """Copy a C string the library returned, then free it."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib.rlskit_string_free(ptr)


def _matrix(a, name):
    """a as a float64 2-D array with contiguous rows (a copy only when needed)
    and its row stride in elements."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError("%s: want a 2-D array, got %d dimensions" % (name, a.ndim))
    if a.dtype != np.float64 or a.strides[1] != 8 or a.strides[0] % 8 or a.strides[0] < 8 * a.shape[1]:
        a = np.require(a, dtype=np.float64, requirements=["C", "A"])
    return a, a.strides[0] // 8


def _graph(preferences):
    """(i, j, magnitude or None, weight or None) as contiguous int64 and
    float64 arrays of one length, from a tuple of 2 to 4 arrays."""
    if not isinstance(preferences, (tuple, list)) or not 2 <= len(preferences) <= 4:
        raise ValueError("preferences: want (i, j[, magnitude[, weight]]) arrays")
    parts = list(preferences) + [None] * (4 - len(preferences))
    out = []
    for k, (a, name) in enumerate(zip(parts, ("i", "j", "magnitude", "weight"))):
        if a is None:
            if k < 2:
                raise ValueError("preferences: %s is missing" % name)
            out.append(None)
            continue
        a = np.asarray(a)
        if a.ndim != 1:
            raise ValueError("preferences: %s: want a 1-D array, got shape %s" % (name, a.shape))
        if k < 2:
            if a.size and not np.issubdtype(a.dtype, np.integer) and not np.all(a == np.round(a)):
                raise ValueError("preferences: %s: the row indices must be integers" % name)
            out.append(np.ascontiguousarray(a, dtype=np.int64))
        else:
            out.append(np.ascontiguousarray(a, dtype=np.float64))
    n = len(out[0])
    for a, name in zip(out, ("i", "j", "magnitude", "weight")):
        if a is not None and len(a) != n:
            raise ValueError("preferences: %s has %d entries, i has %d" % (name, len(a), n))
    return tuple(out)


def _is_sparse(a):
    return hasattr(a, "tocsr") and hasattr(a, "nnz")


def _csr(a):
    """a as CSR arrays the core reads in place: float64 values, int64 row
    pointers and column indices (SciPy's int32 indices are converted: a copy
    of O(nnz) integers), sorted indices without duplicates (else a copy)."""
    a = a.tocsr()
    if not a.has_canonical_format:
        a = a.copy()
        a.sum_duplicates()
    values = np.require(a.data, dtype=np.float64, requirements=["C"])
    indptr = np.require(a.indptr, dtype=np.int64, requirements=["C"])
    indices = np.require(a.indices, dtype=np.int64, requirements=["C"])
    if values.size == 0:  # the core reads no values; pointers must still be valid
        values = np.zeros(1)
        indices = np.zeros(1, dtype=np.int64)
    return a.shape, indptr, indices, a.nnz, values


class Model:
    """A handle on the Go core: one fitted or loaded model, its selection
    result and CV predictions. Pickles as the model file (the result and CV
    predictions are not kept by the pickle)."""

    def __init__(self):
        self._lib = _load()
        self._h = self._lib.rlskit_new()

    def __del__(self):
        h, self._h = getattr(self, "_h", 0), 0
        if h:
            self._lib.rlskit_free(h)

    def _check(self, status):
        if status == _STATUS_OK:
            return
        msg = _take_string(self._lib, self._lib.rlskit_error(self._h))
        exc = _EXCEPTIONS.get(status, RlskitError)
        raise exc(msg)

    def fit(self, settings, X, Y, groups=None, folds=None, preferences=None, init=None, fixed=None):
        """Fit by the Go core's search (selection.Search through the learner
        registry). settings maps rlskit fit's flag names to values. The call
        runs in a worker thread (the GIL is released); Ctrl-C in the calling
        thread cancels it (rlskit_cancel) and raises KeyboardInterrupt.

        preferences is the preference graph of a learner that learns from
        one (learners() says needs_graph): (i, j) or (i, j, magnitude) or
        (i, j, magnitude, weight), row i[e] preferred over row j[e]
        (rlskit_preferences); Y may then be None (no cross-validation).

        A learner that clusters unlabelled rows (learners() says
        clustering) takes Y None and, optionally, init: an initial cluster
        index 0 … K−1 per row (rlskit_init_labels), and with it fixed: the
        rows whose init cluster the search keeps (rlskit_fixed_rows; mmc's
        --fixed); the result's summary holds the labels and the objective."""
        if Y is None:
            Y, ys, t, yp = None, 0, 0, None
        else:
            Y, ys = _matrix(Y, "y")
            t, yp = Y.shape[1], Y.ctypes.data_as(_c_double_p)
        g = None if groups is None else np.ascontiguousarray(groups, dtype=np.int64)
        f = None if folds is None else np.ascontiguousarray(folds, dtype=np.int64)
        text = json.dumps(settings).encode("utf-8")
        graph = None if preferences is None else _graph(preferences)
        if init is not None:
            init = np.ascontiguousarray(np.ravel(init), dtype=np.int64)
        if fixed is not None:
            fixed = np.ascontiguousarray(np.ravel(fixed), dtype=np.int64)
        tail = (yp, t, ys,
                None if g is None else g.ctypes.data_as(_c_int64_p),
                None if f is None else f.ctypes.data_as(_c_int64_p))
        if _is_sparse(X):
            (m, d), indptr, indices, nnz, values = keep = _csr(X)
            fit = self._lib.rlskit_fit_csr
            args = (self._h, text, m, d, indptr.ctypes.data_as(_c_int64_p), indices.ctypes.data_as(_c_int64_p), nnz,
                    values.ctypes.data_as(_c_double_p)) + tail
        else:
            X, xs = keep = _matrix(X, "X")
            fit = self._lib.rlskit_fit
            args = (self._h, text, X.ctypes.data_as(_c_double_p), X.shape[0], X.shape[1], xs) + tail
        if init is not None:  # staged last: the fit below consumes it
            self._check(self._lib.rlskit_init_labels(self._h, init.ctypes.data_as(_c_int64_p), len(init)))
        if fixed is not None:
            self._check(self._lib.rlskit_fixed_rows(self._h, fixed.ctypes.data_as(_c_int64_p), len(fixed)))
        if graph is not None:  # staged last: the fit below consumes it
            i, j, mag, w = graph
            self._check(self._lib.rlskit_preferences(
                self._h, i.ctypes.data_as(_c_int64_p), j.ctypes.data_as(_c_int64_p),
                None if mag is None else mag.ctypes.data_as(_c_double_p),
                None if w is None else w.ctypes.data_as(_c_double_p), len(i)))
        return self._run(fit, args, (keep, Y, g, f, text))

    def _run(self, fit, args, keep):
        """Run fit(*args) in a worker thread (the GIL released); Ctrl-C in
        the calling thread cancels it. keep holds the arrays the call reads."""
        out = {}
        done = threading.Event()  # (an interrupted Thread.join can lose track of its thread)

        def run():
            try:
                out["status"] = fit(*args)
            finally:
                done.set()

        threading.Thread(target=run, name="rlskit-fit", daemon=True).start()
        try:
            while not done.wait(0.1):
                pass
        except KeyboardInterrupt:
            self._lib.rlskit_cancel(self._h)
            while not done.wait(0.1):  # the arrays in keep must outlive the call
                pass
            if out.get("status") == _STATUS_OK:
                raise
        del keep
        self._check(out["status"])
        return json.loads(_take_string(self._lib, self._lib.rlskit_result(self._h)))

    def fit_pairs(self, settings, rows, cols, pairs, y, row_folds=None, col_folds=None):
        """Fit a learner of pairs (pairfit.Fit through rlskit_fit_pairs):
        rows (m×d) and cols (q×e, or None for a homogeneous network) the
        objects, pairs an n×2 array of 0-based (row, column) indices, y the
        n labels; row_folds (m) and col_folds (q) fold numbers per object
        (-1: in no fold) or None. Cancellable like fit."""
        R, rs = _matrix(rows, "rows")
        C = cs = None
        if cols is not None:
            C, cs = _matrix(cols, "cols")
        P = np.asarray(pairs)
        if P.ndim != 2 or P.shape[1] != 2:
            raise ValueError("pairs: want an n×2 array of (row, column) indices, got shape %s" % (P.shape,))
        if P.size and not np.issubdtype(P.dtype, np.integer):
            if not np.all(P == np.round(P)):
                raise ValueError("pairs: the indices must be integers")
        pr = np.ascontiguousarray(P[:, 0], dtype=np.int64)
        pc = np.ascontiguousarray(P[:, 1], dtype=np.int64)
        Y = np.ascontiguousarray(np.ravel(y), dtype=np.float64)
        if Y.shape[0] != pr.shape[0]:
            raise ValueError("y: %d labels for %d pairs" % (Y.shape[0], pr.shape[0]))
        rf = None if row_folds is None else np.ascontiguousarray(row_folds, dtype=np.int64)
        cf = None if col_folds is None else np.ascontiguousarray(col_folds, dtype=np.int64)
        if rf is not None and rf.shape != (R.shape[0],):
            raise ValueError("row_folds: want one fold number per row object (%d), got shape %s" % (R.shape[0], rf.shape))
        if cf is not None and (C is None or cf.shape != (C.shape[0],)):
            raise ValueError("col_folds: want one fold number per column object")
        text = json.dumps(settings).encode("utf-8")
        args = (self._h, text, R.ctypes.data_as(_c_double_p), R.shape[0], R.shape[1], rs,
                None if C is None else C.ctypes.data_as(_c_double_p), 0 if C is None else C.shape[0],
                0 if C is None else C.shape[1], 0 if C is None else cs,
                pr.ctypes.data_as(_c_int64_p), pc.ctypes.data_as(_c_int64_p), len(pr), Y.ctypes.data_as(_c_double_p),
                None if rf is None else rf.ctypes.data_as(_c_int64_p), None if cf is None else cf.ctypes.data_as(_c_int64_p))
        return self._run(self._lib.rlskit_fit_pairs, args, (R, C, pr, pc, Y, rf, cf))

    def predict_pairs(self, pairs, rows=None, cols=None, coverage=None):
        """The predictions of a model of pairs for the n×2 (row, column)
        index pairs: indices into the new objects rows (cols), or into the
        training objects where rows (cols) is None. With coverage (a model
        fitted with the setting "interval": "cv+"), (prediction, lower,
        upper) of the CV+ interval at that level (rlskit_predict_pairs_interval)."""
        P = np.asarray(pairs)
        if P.ndim != 2 or P.shape[1] != 2:
            raise ValueError("pairs: want an n×2 array of (row, column) indices, got shape %s" % (P.shape,))
        pr = np.ascontiguousarray(P[:, 0], dtype=np.int64)
        pc = np.ascontiguousarray(P[:, 1], dtype=np.int64)
        side = []
        for a, name in ((rows, "rows"), (cols, "cols")):
            if a is None:
                side += [None, 0, 0, 0, None]
            else:
                A, st = _matrix(a, name)
                side += [A.ctypes.data_as(_c_double_p), A.shape[0], A.shape[1], st, A]
        out = np.empty(len(pr), dtype=np.float64)
        head = (self._h, *side[0:4], *side[5:9], pr.ctypes.data_as(_c_int64_p), pc.ctypes.data_as(_c_int64_p), len(pr))
        if coverage is None:
            self._check(self._lib.rlskit_predict_pairs(*head, out.ctypes.data_as(_c_double_p)))
            return out
        lo, hi = np.empty(len(pr), dtype=np.float64), np.empty(len(pr), dtype=np.float64)
        self._check(self._lib.rlskit_predict_pairs_interval(*head, float(coverage), out.ctypes.data_as(_c_double_p),
                                                            lo.ctypes.data_as(_c_double_p),
                                                            hi.ctypes.data_as(_c_double_p)))
        return out, lo, hi

    def score(self, measure, Y, P, groups=None):
        """The core's measure (package measure) of predictions P against
        labels Y, both m×t; groups for the measures within queries."""
        Y, ys = _matrix(Y, "y")
        P, ps = _matrix(P, "predictions")
        if Y.shape != P.shape:
            raise ValueError("y %s and predictions %s differ in shape" % (Y.shape, P.shape))
        g = None if groups is None else np.ascontiguousarray(groups, dtype=np.int64)
        v = ctypes.c_double()
        self._check(self._lib.rlskit_score(self._h, measure.encode("utf-8"), Y.ctypes.data_as(_c_double_p),
                                           Y.shape[0], Y.shape[1], ys, P.ctypes.data_as(_c_double_p), ps,
                                           None if g is None else g.ctypes.data_as(_c_int64_p), ctypes.byref(v)))
        return v.value

    def cancel(self):
        """Ask a running fit to stop (from another thread)."""
        self._lib.rlskit_cancel(self._h)

    def shape(self):
        """(d, t): the model's width and number of outputs."""
        d, t = ctypes.c_int64(), ctypes.c_int64()
        self._check(self._lib.rlskit_model_shape(self._h, ctypes.byref(d), ctypes.byref(t)))
        return d.value, t.value

    def predict(self, X):
        """The m×t predictions for the rows of X."""
        _, t = self.shape()
        if _is_sparse(X):
            (m, d), indptr, indices, nnz, values = _csr(X)
            out = np.empty((m, t), dtype=np.float64)
            self._check(self._lib.rlskit_predict_csr(self._h, m, d, indptr.ctypes.data_as(_c_int64_p),
                                                     indices.ctypes.data_as(_c_int64_p), nnz,
                                                     values.ctypes.data_as(_c_double_p),
                                                     out.ctypes.data_as(_c_double_p), t))
            return out
        X, xs = _matrix(X, "X")
        out = np.empty((X.shape[0], t), dtype=np.float64)
        self._check(self._lib.rlskit_predict(self._h, X.ctypes.data_as(_c_double_p), X.shape[0], X.shape[1], xs,
                                             out.ctypes.data_as(_c_double_p), t))
        return out

    def predict_interval(self, X, coverage):
        """(prediction, lower, upper), each m×t: the jackknife+ or CV+
        interval of the given coverage of a model fitted with "interval"."""
        _, t = self.shape()
        if _is_sparse(X):
            (m, d), indptr, indices, nnz, values = _csr(X)
            out = [np.empty((m, t), dtype=np.float64) for _ in range(3)]
            self._check(self._lib.rlskit_predict_interval_csr(
                self._h, m, d, indptr.ctypes.data_as(_c_int64_p), indices.ctypes.data_as(_c_int64_p), nnz,
                values.ctypes.data_as(_c_double_p), float(coverage), *[o.ctypes.data_as(_c_double_p) for o in out], t))
            return tuple(out)
        X, xs = _matrix(X, "X")
        out = [np.empty((X.shape[0], t), dtype=np.float64) for _ in range(3)]
        self._check(self._lib.rlskit_predict_interval(self._h, X.ctypes.data_as(_c_double_p), X.shape[0], X.shape[1],
                                                      xs, float(coverage),
                                                      *[o.ctypes.data_as(_c_double_p) for o in out], t))
        return tuple(out)

    def cv_predictions(self, m, t):
        """The m×t CV predictions at the chosen point."""
        out = np.empty((m, t), dtype=np.float64)
        self._check(self._lib.rlskit_cv_predictions(self._h, out.ctypes.data_as(_c_double_p), m, t))
        return out

    def to_json(self):
        """The model in rlskit's model file format (what rlskit predict reads)."""
        s = _take_string(self._lib, self._lib.rlskit_model_json(self._h))
        if s is None:
            self._check(_STATUS_VALUE)
        return s

    @classmethod
    def from_json(cls, text):
        """A handle holding the model of a model file's text."""
        m = cls()
        b = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        m._check(m._lib.rlskit_load(m._h, b, len(b)))
        return m

    def __reduce__(self):
        return (Model.from_json, (self.to_json(),))
