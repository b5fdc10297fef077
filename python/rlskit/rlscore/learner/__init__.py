"""RLScore's learners (``rlscore.learner``) over the Go core.

Each class takes RLScore's arguments (names, order, defaults) and exposes
its attributes (``predictor``, ``regparam``, ``A``, ``cv_performances``,
``cv_predictions``, ``selected``, …) with RLScore's shapes; the training,
the hold-out predictions and the models are the Go core's (learners
"rls", "globalrank", "queryrank", "prefrank", "greedy" of its registry), computed
exactly as retraining would give. The learners of pairs (KronRLS,
TwoStepRLS, CGKronRLS) are in pairwise.py, the conjugate-gradient ones
(CGRLS, CGRankRLS) in cg.py, maximum margin clustering
(SteepestDescentMMC, learner "mmc") in steepest_descent_mmc.py.

Conventions followed are RLScore's, not rlskit's defaults:

- A grid search scores every λ with the Python measure passed in (any
  function of (Y, P), RLScore's or one's own) on the core's hold-out
  predictions at that λ, and keeps the FIRST best λ of the grid in its
  order (rlskit's own search prefers the larger λ on a tie).
- K-fold and leave-query-out values are the mean of the folds' (queries')
  values, a fold whose value is undefined (UndefinedPerformance) left out;
  leave-one-out is the measure of the pooled LOO predictions.
- Leave-pair-out scores, per output, every pair of rows with different
  labels, the pair held out together; a tied pair of predictions counts ½.
- The linear kernel's bias defaults to 1 for every learner (rlskit's rankers
  default to 0); query ranking uses the unnormalized within-query loss.

Cost: each λ of a grid is one core fit (a factorization and the hold-out
shortcut), so a G-point grid costs G factorizations where rlskit's own
search (rlskit.RLS) needs one — except LeaveOneOutRLS with sqerror, whose
curve is one core search; leave-pair-out over arbitrary pairs costs one
fit per round of disjoint pairs (about m rounds).
"""

import json

import numpy as np
import scipy.sparse as sp

from ..._lib import Model
from ..measure import UndefinedPerformance, cindex, sqerror
from ..predictor import KernelPredictor, LinearPredictor
from .. import kernel as _kernels

__all__ = ["RLS", "LeaveOneOutRLS", "KfoldRLS", "LeavePairOutRLS", "GlobalRankRLS", "KfoldRankRLS",
           "LeavePairOutRankRLS", "QueryRankRLS", "LeaveQueryOutRankRLS", "PPRankRLS", "GreedyRLS", "SteepestDescentMMC",
           "KronRLS", "TwoStepRLS", "CGKronRLS", "CGRLS", "CGRankRLS"]

_DEFAULT_GRID = [2.0 ** k for k in range(-15, 16)]
_RANK_GRID = [2.0 ** k for k in range(-15, 15)]  # RLScore's KfoldRankRLS and LeaveQueryOutRankRLS stop at 2^14

# RLScore kernel name → (core kernel, its parameters with RLScore's defaults)
_KERNELS = {
    "LinearKernel": ("linear", {"bias": 1.0}),
    "GaussianKernel": ("gaussian", {"gamma": 1.0}),
    "PolynomialKernel": ("polynomial", {"gamma": 1.0, "coef0": 0.0, "degree": 2}),
    "PrecomputedKernel": ("precomputed", {}),
}


def _rows(X):
    if sp.issparse(X):
        return sp.csr_matrix(X, dtype=np.float64)
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("X: want a 2-D array (rows are examples), got shape %s" % (X.shape,))
    return X


def _labels(Y):
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        return Y.reshape(-1, 1), True
    if Y.ndim != 2:
        raise ValueError("Y: want shape (n,) or (n, t), got %s" % (Y.shape,))
    return np.ascontiguousarray(Y), False


def _kernel_settings(kernel, kwargs, cls):
    if not isinstance(kernel, str) or kernel not in _KERNELS:
        raise ValueError("%s: kernel=%r: want one of %s" % (cls, kernel, ", ".join(sorted(_KERNELS))))
    name, defaults = _KERNELS[kernel]
    s = {"kernel": name}
    for k, v in defaults.items():
        v = kwargs.get(k, v)
        s[k] = int(v) if k == "degree" else repr(float(v))
    unknown = set(kwargs) - set(defaults) - {"X", "Y", "kernel"}
    if unknown:
        raise TypeError("%s: unexpected arguments %s (the %s takes %s)" % (
            cls, ", ".join(sorted(unknown)), kernel, ", ".join(sorted(defaults)) or "none"))
    return s


def _squeeze(P, one):
    return P[:, 0] if one else P


class _Core:
    """What the learners share: the data, the kernel settings and one core
    fit per (λ, hold-out design)."""

    _learner = None
    _extra = {}  # further core settings every fit of the learner passes

    def _setup(self, X, Y, kernel, basis_vectors, kwargs, groups=None):
        if basis_vectors is not None:
            raise ValueError("%s: basis_vectors (an explicit reduced set) is not supported by rlskit.rlscore; "
                             "rlskit fit --basis N draws a random reduced set" % type(self).__name__)
        self._X = _rows(X)
        self.Y, self._one = _labels(Y)
        if self.Y.shape[0] != self._X.shape[0]:
            raise ValueError("%s: X has %d rows, Y %d" % (type(self).__name__, self._X.shape[0], self.Y.shape[0]))
        self.size = self.Y.shape[0]
        self._kernel_name = kernel
        self._kernel_args = dict(kwargs)
        self._ks = _kernel_settings(kernel, kwargs, type(self).__name__)
        self._groups = groups

    def _fit(self, regparam, cv="none", folds=None, extra=None):
        s = {"learner": self._learner, "lambda": repr(float(regparam)), "cv": cv, "seed": 1}
        s.update(self._ks)
        s.update(self._extra)
        if extra:
            s.update(extra)
        s = {k: v for k, v in s.items() if v is not None}
        model = Model()
        res = model.fit(s, self._X, self.Y, groups=self._groups, folds=folds,
                        preferences=getattr(self, "_preferences", None))
        return model, res

    def solve(self, regparam=1.0):
        """Re-train at regparam (one core fit); sets predictor, regparam, A."""
        model, _ = self._fit(regparam)
        self.regparam = regparam
        self._model = model
        self.predictor = self._predictor(model)

    def _predictor(self, model):
        doc = json.loads(model.to_json())
        t = 1 if self.Y is None else self.Y.shape[1]  # (a preference learner has no Y: one output)
        if doc["type"] == "linear":
            W = np.array(doc["weights"], dtype=np.float64).reshape(-1, t)
            b = np.array(doc["intercept"], dtype=np.float64)
            if self._one:
                return LinearPredictor(W[:, 0], float(b[0]), _model=model)
            return LinearPredictor(W, b, _model=model)
        A = np.array(doc["coefficients"], dtype=np.float64).reshape(-1, t)
        name, defaults = _KERNELS[self._kernel_name]
        args = {k: self._kernel_args.get(k, v) for k, v in defaults.items()}
        kern = getattr(_kernels, self._kernel_name)(self._X, **args)
        self._A = A
        return KernelPredictor(A[:, 0] if self._one else A, kern, _model=model)

    @property
    def A(self):
        """The dual coefficients, shape (m, t): f(x) = Σ_i A_i k(x, x_i)."""
        if getattr(self, "_A", None) is not None and not isinstance(self.predictor, LinearPredictor):
            return self._A
        return self._linear_dual()

    def _linear_dual(self):
        raise AttributeError("%s: A of a linear-kernel model is not kept; use predictor.W and predictor.b"
                             % type(self).__name__)

    def predict(self, X):
        """Predictions for the rows of X: shape (n,) for a 1-D Y, (n, t) otherwise."""
        return self.predictor.predict(X)

    def _holdout_all(self, fold_ids):
        """The core's hold-out predictions (m×t) for disjoint folds given as
        a fold number per row (-1: in no fold), at the current regparam."""
        # (the core scores its CV predictions; mse is defined on any hold-out, and the
        # shim scores with the caller's measure)
        model, _ = self._fit(self.regparam, cv="folds", folds=fold_ids, extra={"measure": "mse"})
        return model.cv_predictions(self.size, self.Y.shape[1])

    def holdout(self, indices):
        """Predictions for the rows indices by the model trained without
        them (exactly as retraining would give)."""
        idx = np.asarray(indices, dtype=np.int64).ravel()
        if idx.size == 0 or idx.min() < 0 or idx.max() >= self.size or np.unique(idx).size != idx.size:
            raise IndexError("holdout: indices must be distinct rows in 0..%d" % (self.size - 1))
        fold = np.full(self.size, -1, dtype=np.int64)
        fold[idx] = 0
        return _squeeze(self._holdout_all(fold)[idx], self._one)

    def leave_pair_out(self, pairs_start_inds, pairs_end_inds):
        """For each pair (i, j), the predictions for i and for j by the
        model trained without both: returns (P_start, P_end), each of
        shape (n_pairs,) or (n_pairs, t). The pairs are grouped into rounds
        of disjoint pairs, each round one exact core fit with the round's
        pairs as folds (about max-degree + 1 rounds)."""
        a = np.asarray(pairs_start_inds, dtype=np.int64).ravel()
        b = np.asarray(pairs_end_inds, dtype=np.int64).ravel()
        if a.shape != b.shape:
            raise ValueError("leave_pair_out: %d start and %d end indices" % (a.size, b.size))
        if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= self.size or np.any(a == b)):
            raise IndexError("leave_pair_out: pairs must join two different rows in 0..%d" % (self.size - 1))
        t = self.Y.shape[1]
        Ps, Pe = np.empty((a.size, t)), np.empty((a.size, t))
        left = np.arange(a.size)
        while left.size:
            used = np.zeros(self.size, dtype=bool)
            fold = np.full(self.size, -1, dtype=np.int64)
            take, rest = [], []
            for p in left:
                i, j = a[p], b[p]
                if used[i] or used[j]:
                    rest.append(p)
                    continue
                used[i] = used[j] = True
                fold[i] = fold[j] = len(take)
                take.append(p)
            P = self._holdout_all(fold)
            take = np.array(take)
            Ps[take], Pe[take] = P[a[take]], P[b[take]]
            left = np.array(rest, dtype=np.int64)
        return _squeeze(Ps, self._one), _squeeze(Pe, self._one)

    def leave_one_out(self):
        """Leave-one-out predictions at the current regparam, shape of Y."""
        model, _ = self._fit(self.regparam, cv="loo", extra={"measure": "mse"})
        return _squeeze(model.cv_predictions(self.size, self.Y.shape[1]), self._one)


def _first_best(perfs, measure):
    """RLScore's choice: the first grid point with the best value."""
    perfs = np.asarray(perfs, dtype=np.float64)
    return int(np.argmin(perfs) if measure.iserror else np.argmax(perfs))


def _folds_ids(folds, m):
    """A fold number per row when the folds are disjoint, else None."""
    fold = np.full(m, -1, dtype=np.int64)
    for k, f in enumerate(folds):
        f = np.asarray(f, dtype=np.int64).ravel()
        if f.size == 0 or np.any(fold[f] >= 0) or np.unique(f).size != f.size:
            return None
        fold[f] = k
    return fold


def _kfold_cv(learner, folds, measure):
    """Mean over the folds of measure(Y[fold], holdout(fold)), undefined
    folds left out; returns (value, list of per-fold predictions)."""
    ids = _folds_ids(folds, learner.size)
    preds = []
    if ids is not None:
        P = learner._holdout_all(ids)
        for f in folds:
            preds.append(_squeeze(P[np.asarray(f, dtype=np.int64)], learner._one))
    else:
        preds = [learner.holdout(f) for f in folds]
    perfs = []
    for f, P in zip(folds, preds):
        try:
            perfs.append(measure(_squeeze(learner.Y[np.asarray(f, dtype=np.int64)], learner._one), P))
        except UndefinedPerformance:
            pass
    if not perfs:
        raise UndefinedPerformance("Performance undefined for all folds")
    return float(np.mean(perfs)), preds


def _lpo_cv(learner):
    """Leave-pair-out ranking accuracy: per output, over the pairs with
    different labels, the share whose held-out predictions order them as
    the labels do (a tie ½); the mean over the outputs."""
    Y = learner.Y
    m, t = Y.shape
    iu, ju = np.triu_indices(m, 1)
    differ = np.any(Y[iu] != Y[ju], axis=1)
    for k in range(t):
        if not np.any(Y[iu, k] != Y[ju, k]):
            raise UndefinedPerformance("Leave-pair-out undefined, all labels same for output %d" % k)
    a, b = iu[differ], ju[differ]
    Ps, Pe = learner.leave_pair_out(a, b)
    Ps, Pe = Ps.reshape(len(a), t), Pe.reshape(len(a), t)
    vals = []
    for k in range(t):
        sel = Y[a, k] != Y[b, k]
        sign = np.sign(Y[a, k] - Y[b, k])[sel]
        d = (Ps[sel, k] - Pe[sel, k]) * sign
        vals.append(float(np.mean(np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0)))))
    return float(np.mean(vals)), None


def _grid_search(learner, grid, cv, measure):
    perfs, preds = [], []
    for r in grid:
        learner.regparam = r
        v, P = cv(r)
        perfs.append(v)
        preds.append(P)
    best = grid[_first_best(perfs, measure)]
    learner.solve(best)
    return np.array(perfs), preds, best


class RLS(_Core):
    """Regularized least squares (kernel ridge regression) at one λ:
    A = (K + regparam·I)⁻¹ Y, learner "rls" of the core (one
    eigendecomposition, O(m³) or O(m·d² + d³) in the linear form).

    RLS(X, Y, regparam=1.0, kernel='LinearKernel', basis_vectors=None,
    bias=1.0 | gamma=1.0 | gamma, coef0, degree). Methods solve, predict,
    leave_one_out, holdout, leave_pair_out; attributes predictor (W, b or
    A), regparam, Y (2-D), A."""

    _learner = "rls"

    def __init__(self, X, Y, regparam=1.0, kernel="LinearKernel", basis_vectors=None, **kwargs):
        self._setup(X, Y, kernel, basis_vectors, kwargs)
        self.solve(regparam)

    def _linear_dual(self):
        # (K + λI) A = Y gives A = (Y − K A)/λ = (Y − predictions on the training rows)/λ.
        # RLScore reports the part of A in the span of the columns of [X, √bias·1] (the
        # part K sees; the same W and b): the least-squares projection onto that span.
        A = (self.Y - self.predictor._model.predict(self._X)) / self.regparam
        X = self._X.toarray() if sp.issparse(self._X) else self._X
        Xa = np.hstack([X, np.full((X.shape[0], 1), np.sqrt(float(self._ks["bias"])))])
        return Xa @ np.linalg.lstsq(Xa, A, rcond=None)[0]


class LeaveOneOutRLS(_Core):
    """RLS with regparam chosen by leave-one-out on the grid regparams
    (default 2^-15 … 2^15): cv_performances[g] = measure(Y, LOO predictions
    at grid[g]) (default sqerror), regparam the first best, cv_predictions
    an array (G, n) or (G, n, t), predictor the model at regparam.

    With measure sqerror (the default) the curve comes from one core search
    over the whole grid (its pooled LOO mse is sqerror of the LOO
    predictions: one factorization, then every λ), and cv_predictions are
    computed on first access (one core fit per λ); with any other measure
    each λ is one core fit."""

    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None, **kwargs):
        grid = list(_DEFAULT_GRID if regparams is None else regparams)
        measure = sqerror if measure is None else measure
        learner = RLS(X, Y, grid[0], kernel, basis_vectors, **kwargs)
        self.learner = learner
        self._grid = grid
        curve = _core_curve(learner, grid, "loo", "mse") if measure is sqerror else None
        if curve is not None:
            self.cv_performances = curve
            self.regparam = grid[_first_best(curve, measure)]
            learner.solve(self.regparam)
            self._preds = None
        else:
            def cv(r):
                P = learner.leave_one_out()
                return measure(_squeeze(learner.Y, learner._one), P), P

            self.cv_performances, preds, self.regparam = _grid_search(learner, grid, cv, measure)
            self._preds = np.array(preds)
        self.predictor = learner.predictor

    @property
    def cv_predictions(self):
        """The LOO predictions at each grid point, shape (G, n) or (G, n, t)."""
        if self._preds is None:
            preds = []
            for r in self._grid:
                model, _ = self.learner._fit(r, cv="loo", extra={"measure": "mse"})
                preds.append(_squeeze(model.cv_predictions(self.learner.size, self.learner.Y.shape[1]),
                                      self.learner._one))
            self._preds = np.array(preds)
        return self._preds


def _core_curve(learner, grid, cv, core_measure):
    """The core's CV curve over the whole grid in one search (one
    factorization), in the grid's order; None when the grid has repeated
    values (the core's grid is a set)."""
    if len(set(grid)) != len(grid) or any(not r > 0 for r in grid):
        return None
    _, res = learner._fit(grid[0], cv=cv, extra={
        "lambda": None, "lambda-grid": ",".join(repr(float(r)) for r in grid), "measure": core_measure})
    by = {pt["lambda"]: pt["value"] for pt in res["summary"]["cv"]["curve"]}
    if len(by) != len(grid) or any(float(r) not in by for r in grid):
        return None
    return np.array([by[float(r)] for r in grid], dtype=np.float64)


class KfoldRLS(_Core):
    """RLS with regparam chosen by K-fold CV over the given folds (lists of
    row indices): the mean of the folds' measure values (default sqerror),
    undefined folds left out. cv_predictions[g][k]: fold k's predictions at
    grid[g]."""

    def __init__(self, X, Y, folds, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None,
                 save_predictions=False, **kwargs):
        grid = list(_DEFAULT_GRID if regparams is None else regparams)
        self.measure = sqerror if measure is None else measure
        learner = RLS(X, Y, grid[0], kernel, basis_vectors, **kwargs)
        self.cv_performances, self.cv_predictions, self.regparam = _grid_search(
            learner, grid, lambda r: _kfold_cv(learner, folds, self.measure), self.measure)
        self.predictor = learner.predictor
        self.learner = learner


class LeavePairOutRLS(_Core):
    """RLS with regparam chosen by leave-pair-out ranking accuracy (AUC for
    labels ±1): every pair of rows with different labels held out
    together. cv_performances per grid point; cv_predictions a list of None
    (as RLScore's)."""

    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None, **kwargs):
        grid = list(_DEFAULT_GRID if regparams is None else regparams)
        learner = RLS(X, Y, grid[0], kernel, basis_vectors, **kwargs)
        self.cv_performances, self.cv_predictions, self.regparam = _grid_search(
            learner, grid, lambda r: _lpo_cv(learner), cindex)
        self.predictor = learner.predictor
        self.learner = learner


class GlobalRankRLS(_Core):
    """RankRLS over all pairs (Pahikkala et al. 2009), learner
    "globalrank": minimizes Σ_{i<j} ((y_i − y_j) − (f(x_i) − f(x_j)))² +
    regparam·‖f‖². Arguments, methods and attributes as RLS's."""

    _learner = "globalrank"

    def __init__(self, X, Y, regparam=1.0, kernel="LinearKernel", basis_vectors=None, **kwargs):
        self._setup(X, Y, kernel, basis_vectors, kwargs)
        self.solve(regparam)


class KfoldRankRLS(_Core):
    """GlobalRankRLS with regparam chosen by K-fold CV over the folds (mean
    of the folds' values of measure, grid default 2^-15 … 2^14 as
    RLScore's). With measure=None RLScore scores the folds by sqerror
    (its attribute measure says cindex); so does this class."""

    def __init__(self, X, Y, folds, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None,
                 save_predictions=False, **kwargs):
        grid = list(_RANK_GRID if regparams is None else regparams)
        self.measure = cindex if measure is None else measure
        # As RLScore's: with measure=None the folds are scored (and λ chosen) by sqerror,
        # though the attribute measure reads cindex; pass measure=cindex for the C-index.
        used = sqerror if measure is None else measure
        learner = GlobalRankRLS(X, Y, grid[0], kernel, basis_vectors, **kwargs)
        self.cv_performances, self.cv_predictions, self.regparam = _grid_search(
            learner, grid, lambda r: _kfold_cv(learner, folds, used), used)
        self.predictor = learner.predictor
        self.learner = learner


class LeavePairOutRankRLS(_Core):
    """GlobalRankRLS with regparam chosen by leave-pair-out ranking
    accuracy (grid default 2^-15 … 2^15)."""

    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None, **kwargs):
        grid = list(_DEFAULT_GRID if regparams is None else regparams)
        learner = GlobalRankRLS(X, Y, grid[0], kernel, basis_vectors, **kwargs)
        self.cv_performances, self.cv_predictions, self.regparam = _grid_search(
            learner, grid, lambda r: _lpo_cv(learner), cindex)
        self.predictor = learner.predictor
        self.learner = learner


def _query_splits(qids):
    """The rows of each query, queries in order of first appearance, and a
    query number per row."""
    qids = list(np.asarray(qids).ravel())
    seen = {}
    num = np.empty(len(qids), dtype=np.int64)
    for i, q in enumerate(qids):
        num[i] = seen.setdefault(q, len(seen))
    return [np.flatnonzero(num == k) for k in range(len(seen))], num


class QueryRankRLS(_Core):
    """RankRLS within queries, learner "queryrank": the pairwise squared
    loss over the pairs of rows sharing a query id (qids, one per row).
    Methods solve, predict, holdout; attributes as RLS's."""

    _learner = "queryrank"
    _extra = {"query-normalize": True}  # RLScore's within-query loss (its solution; tested)

    def __init__(self, X, Y, qids, regparam=1.0, kernel="LinearKernel", basis_vectors=None, **kwargs):
        self.qidlist, num = _query_splits(qids)
        if len(num) != np.shape(X)[0]:
            raise ValueError("QueryRankRLS: %d qids for %d rows" % (len(num), np.shape(X)[0]))
        self._setup(X, Y, kernel, basis_vectors, kwargs, groups=num)
        self.solve(regparam)

    def leave_one_out(self):
        raise AttributeError("QueryRankRLS has no leave_one_out (RLScore's neither); use holdout")

    def leave_pair_out(self, pairs_start_inds, pairs_end_inds):
        raise AttributeError("QueryRankRLS has no leave_pair_out (RLScore's neither); use holdout")


class LeaveQueryOutRankRLS(_Core):
    """QueryRankRLS with regparam chosen by leave-query-out: each query held
    out in turn, its value the measure (default cindex) of its rows; the
    mean over the queries where it is defined. cv_predictions[g][q]: query
    q's predictions at grid[g] (queries in order of first appearance)."""

    def __init__(self, X, Y, qids, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None,
                 **kwargs):
        grid = list(_RANK_GRID if regparams is None else regparams)
        self.measure = cindex if measure is None else measure
        learner = QueryRankRLS(X, Y, qids, grid[0], kernel, basis_vectors, **kwargs)
        self.cv_performances, self.cv_predictions, self.regparam = _grid_search(
            learner, grid, lambda r: _kfold_cv(learner, learner.qidlist, self.measure), self.measure)
        self.predictor = learner.predictor
        self.learner = learner


class PPRankRLS(_Core):
    """RankRLS learned from pairwise preferences (Pahikkala, Tsivtsivadze,
    Airola, Järvinen & Boberg 2009), learner "prefrank" of the core with the
    unit cost (their eq. 20): minimizes
    Σ_e (1 − (f(x_{s_e}) − f(x_{t_e})))² + regparam·‖f‖² over the
    preferences e, row s_e = pairs_start_inds[e] preferred over
    t_e = pairs_end_inds[e] (a preference given twice counts twice). The
    dual solution is A = (L K + regparam·I)⁻¹ Mᵀ1 with M the preferences'
    ±1 incidence rows and L = MᵀM. One eigendecomposition: O(m³ + p), or
    O(m·d² + d³ + p) with the linear kernel (p preferences).

    PPRankRLS(X, pairs_start_inds, pairs_end_inds, regparam=1.0,
    kernel='LinearKernel', basis_vectors=None, bias=1.0 | gamma=1.0 |
    gamma, coef0, degree). Methods solve, predict; attributes predictor,
    regparam, pairs (p×2), A (kernel models)."""

    _learner = "prefrank"
    _extra = {"cost": "unit"}  # RLScore's target 1 per preference (magnitudes are 1 here anyway)

    def __init__(self, X, pairs_start_inds, pairs_end_inds, regparam=1.0, kernel="LinearKernel",
                 basis_vectors=None, **kwargs):
        if basis_vectors is not None:
            raise ValueError("PPRankRLS: basis_vectors (an explicit reduced set) is not supported by rlskit.rlscore")
        self._X = _rows(X)
        a, b = np.asarray(pairs_start_inds).ravel(), np.asarray(pairs_end_inds).ravel()
        if a.shape != b.shape:
            raise ValueError("PPRankRLS: %d start and %d end indices" % (a.size, b.size))
        self.pairs = np.vstack([a, b]).T
        self._preferences = (a, b)
        self.Y, self._one, self._groups = None, True, None
        self.size = self._X.shape[0]
        self._kernel_name = kernel
        self._kernel_args = dict(kwargs)
        self._ks = _kernel_settings(kernel, kwargs, "PPRankRLS")
        self.solve(regparam)

    def holdout(self, indices):
        raise AttributeError("PPRankRLS has no holdout (RLScore's neither)")

    def leave_one_out(self):
        raise AttributeError("PPRankRLS has no leave_one_out (RLScore's neither)")

    def leave_pair_out(self, pairs_start_inds, pairs_end_inds):
        raise AttributeError("PPRankRLS has no leave_pair_out (RLScore's neither)")


class GreedyRLS(_Core):
    """Greedy forward feature selection for linear RLS (Pahikkala, Airola &
    Salakoski 2010), learner "greedy" at the single λ regparam: adds, one
    at a time, the feature whose inclusion gives the smallest leave-one-out
    squared error, until subsetsize features are selected.

    Attributes: selected (feature indices in order of selection),
    performances (the LOO error after each step), predictor (LinearPredictor
    over all d features, zero weight outside selected; b from the bias
    feature), regparam, bias. callbackfun: its callback(learner) is called
    after each step (selected, performances and predictor then those of the
    step) and finished(learner) at the end, as RLScore's."""

    _learner = "greedy"

    def __init__(self, X, Y, subsetsize, regparam=1.0, bias=1.0, callbackfun=None, **kwargs):
        if kwargs:
            raise TypeError("GreedyRLS: unexpected arguments %s" % ", ".join(sorted(kwargs)))
        self._setup(X, Y, "LinearKernel", None, {"bias": bias})
        d = self._X.shape[1]
        if not d >= subsetsize:
            raise ValueError("GreedyRLS: the overall number of features %d is smaller than the desired number %d "
                             "of features to be selected" % (d, subsetsize))
        self.regparam, self.bias, self.callbackfun = regparam, bias, callbackfun
        _, res = self._fit(regparam, cv="loo", extra={"select": int(subsetsize)})
        steps = res["summary"]["selection"]["curve"][:subsetsize]
        self.selected = [int(s["feature"]) for s in steps]
        self.performances = [float(s["value"]) for s in steps]
        if len(self.selected) != subsetsize:
            raise RuntimeError("GreedyRLS: the core selected %d features, %d asked" % (len(self.selected), subsetsize))
        selected, performances = self.selected, self.performances
        if callbackfun is not None:
            # RLScore calls callback(learner) after each step, the learner then holding
            # the features selected so far and their model: replayed here in order.
            for k in range(1, subsetsize + 1):
                self.selected, self.performances = selected[:k], performances[:k]
                self.predictor = self._model_on(selected[:k], regparam, bias, d)
                callbackfun.callback(self)
        self.selected, self.performances = selected, performances
        self.predictor = self._model_on(selected, regparam, bias, d)
        if callbackfun is not None:
            callbackfun.finished(self)

    def _model_on(self, cols, regparam, bias, d):
        """Linear RLS at regparam on the columns cols (one core fit), as a
        LinearPredictor over all d features (zero weight elsewhere)."""
        sub = _Core()
        sub._learner = "rls"
        sub._setup(self._X[:, cols], self.Y, "LinearKernel", None, {"bias": bias})
        model, _ = sub._fit(regparam)
        doc = json.loads(model.to_json())
        Wsel = np.array(doc["weights"], dtype=np.float64).reshape(-1, self.Y.shape[1])
        W = np.zeros((d, self.Y.shape[1]))
        W[cols] = Wsel
        b = np.array(doc["intercept"], dtype=np.float64)
        return LinearPredictor(W[:, 0], float(b[0])) if self._one else LinearPredictor(W, b)


from .pairwise import CGKronRLS, KronRLS, TwoStepRLS  # noqa: E402  (the learners of pairs)
from .cg import CGRankRLS, CGRLS  # noqa: E402  (conjugate gradients)
from .steepest_descent_mmc import SteepestDescentMMC  # noqa: E402  (maximum margin clustering)
