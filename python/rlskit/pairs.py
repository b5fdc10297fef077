"""Estimators of pairs (dyadic data) over the Go core: Kronecker RLS and
two-step RLS (``rlskit fit --learner kronrls|twostep``).

Each label belongs to a pair (u, v) of a row object u (say a drug, with
features X_rows[i]) and a column object v (a protein target, X_cols[j]);
``fit(X_rows, X_cols, pairs, y)`` takes the two object matrices, an n×2
array of 0-based (row, column) indices and the n labels. The setting
(Pahikkala et al. 2015; Stock et al. 2018) says what cross-validation holds
out, as ``rlskit fit --cv``: "pairs" (A: a pair alone), "rows" (B: new row
objects), "cols" (C: new column objects), "both" (D: both new), "vertices"
(a homogeneous network, X_cols=None) or "none"; the core's shortcuts give
every hold-out exactly, as retraining would. Incomplete data (not every
row × column pair labelled), or ``solver="cg"``, train Kronecker RLS by
conjugate gradients at one λ, without cross-validation.
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._lib import Model
from .estimators import _KERNEL_PARAMS, _grid

# A setting by its letter (Pahikkala et al. 2015) or the core's name.
_SETTINGS = {"A": "pairs", "B": "rows", "C": "cols", "D": "both",
             "pairs": "pairs", "rows": "rows", "cols": "cols", "both": "both", "vertices": "vertices", "none": "none"}

# The kernel parameters of a side, in the summary's kernel spec.
_SPEC_PARAMS = ("gamma", "degree", "coef0", "bias")


def _kernel_settings(s, prefix, kernel, gamma, bias, degree, coef0):
    """Add one side's kernel and its parameters (those the kernel takes) to
    the settings, the flags prefixed by prefix ("" or "col-")."""
    s[prefix + "kernel"] = kernel
    uses = _KERNEL_PARAMS.get(kernel, ())
    if "gamma" in uses and gamma is not None:
        if np.ndim(gamma) == 0 and not isinstance(gamma, str):
            s[prefix + "gamma"] = repr(float(gamma))
        else:
            s[prefix + "gamma-grid"] = _grid(gamma)
    if "degree" in uses and degree is not None:
        s[prefix + "degree"] = int(degree)
    if "coef0" in uses and coef0 is not None:
        s[prefix + "coef0"] = repr(float(coef0))
    if "bias" in uses and bias is not None:
        s[prefix + "bias"] = repr(float(bias))


def _lambda_settings(s, prefix, alphas):
    if alphas is None:
        return
    if isinstance(alphas, numbers.Real):
        s[prefix + "lambda"] = repr(float(alphas))
    else:
        s[prefix + "lambda-grid"] = _grid(alphas)


def _fold_numbers(folds, n, name):
    """A fold number per object (-1: in no fold) from a fold number per
    object or a list of index lists."""
    if folds is None:
        return None
    a = np.asarray(folds, dtype=object) if not hasattr(folds, "dtype") else folds
    if getattr(a, "ndim", 0) == 1 and len(a) == n and all(isinstance(v, numbers.Integral) for v in np.ravel(a)):
        return np.asarray(a, dtype=np.int64)
    out = np.full(n, -1, dtype=np.int64)
    for k, f in enumerate(folds):
        f = np.asarray(f, dtype=np.int64)
        if np.any(out[f] >= 0):
            raise ValueError("%s: object %d is in two folds" % (name, int(f[out[f] >= 0][0])))
        out[f] = k
    return out


class _PairBase(RegressorMixin, BaseEstimator):
    """What the estimators of pairs share: settings, fit, predict, score."""

    _learner = None  # the registered learner's name (learn.Lookup)
    _col_lambda = False  # the learner has a second, column λ

    def _settings(self):
        s = {"learner": self._learner}
        _kernel_settings(s, "", self.kernel, self.gamma, self.bias, self.degree, self.coef0)
        _lambda_settings(s, "", self.alphas)
        if self._col_lambda:
            _lambda_settings(s, "col-", getattr(self, "col_alphas", None))  # PairEstimator: in settings
        cv = self.cv
        if self.setting is None:  # the learner's default (PairEstimator)
            if cv is not None:
                raise ValueError("cv=%r: K folds need a setting (rows, cols, both or vertices)" % (cv,))
            return self._common_settings(s)
        setting = _SETTINGS.get(self.setting)
        if setting is None:
            raise ValueError("setting=%r: want one of %s" % (self.setting, ", ".join(sorted(_SETTINGS))))
        if cv is not None and setting in ("rows", "cols", "both", "vertices"):
            if not isinstance(cv, numbers.Integral) or isinstance(cv, bool):
                raise ValueError("cv=%r: want None (one object per fold, or the folds given to fit) or an integer K" % (cv,))
            setting = "%s:%d" % (setting, cv)
        elif cv is not None:
            raise ValueError("cv=%r: K folds apply to the settings rows, cols, both and vertices, not %s" % (cv, setting))
        s["cv"] = setting
        return self._common_settings(s)

    def _common_settings(self, s):
        if self.measure is not None:
            s["measure"] = self.measure
        if self.standardize:
            s["standardize"] = True
        if self.symmetry is not None:
            s["symmetry"] = self.symmetry
        if getattr(self, "interval", None) is not None:
            s["interval"] = self.interval
        s["seed"] = int(self.seed)
        return s

    def _side_settings(self, s, homogeneous):
        """The column side's kernel (two sets of objects only)."""
        if homogeneous:
            return
        kernel = self.col_kernel if self.col_kernel is not None else self.kernel
        same = self.col_kernel is None or self.col_kernel == self.kernel

        def pick(col, row):
            return col if col is not None else (row if same else None)

        _kernel_settings(s, "col-", kernel, pick(self.col_gamma, self.gamma), pick(self.col_bias, self.bias),
                         pick(self.col_degree, self.degree), pick(self.col_coef0, self.coef0))

    def fit(self, X_rows, X_cols, pairs, y, row_folds=None, col_folds=None):
        """Fit on the labelled pairs and select λ (and the kernels'
        parameters) by exact cross-validation in the setting.

        X_rows : (m, d) row objects (features, or the m×m kernel matrix with
            kernel="precomputed").
        X_cols : (q, e) column objects, or None for a homogeneous network
            (its columns are its rows; symmetry says how a pair's two
            orientations relate).
        pairs : (n, 2) 0-based (row, column) indices of the labelled pairs.
        y : (n,) their labels.
        row_folds, col_folds : the object folds of a k-fold setting (a fold
            number per object, -1 for none, or a list of index lists): the
            folds of ``rlskit fit --folds`` and ``--col-folds``.
        """
        X_rows = np.asarray(X_rows, dtype=np.float64)
        homogeneous = X_cols is None
        if not homogeneous:
            X_cols = np.asarray(X_cols, dtype=np.float64)
        if X_rows.ndim != 2 or (not homogeneous and X_cols.ndim != 2):
            raise ValueError("X_rows and X_cols: want 2-D arrays of objects (one row each)")
        pairs = np.asarray(pairs)
        y = np.asarray(y, dtype=np.float64)
        s = self._settings()
        self._side_settings(s, homogeneous)
        if self.solver != "direct":
            s["solver"] = self.solver
        if self.tol is not None:
            s["tol"] = repr(float(self.tol))
        if self.max_iter is not None:
            s["max-iter"] = int(self.max_iter)
        rf = _fold_numbers(row_folds, X_rows.shape[0], "row_folds")
        cf = None if homogeneous else _fold_numbers(col_folds, X_cols.shape[0], "col_folds")
        model = Model()
        res = model.fit_pairs(s, X_rows, None if homogeneous else X_cols, pairs, y, rf, cf)
        self.model_ = model
        self.result_ = res
        summary = res["summary"]
        self.alpha_ = summary["lambda"]
        if self._col_lambda:
            self.col_alpha_ = summary.get("col_lambda", 0.0)
        self.kernel_ = summary["kernel"]
        self.col_kernel_ = summary.get("col_kernel")
        self.measure_ = res["measure"]
        self._higher_is_better = res["higher_is_better"]
        self.n_rows_, self.n_cols_ = summary["rows"], summary["cols"]
        self.homogeneous_ = res["homogeneous"]
        self.complete_ = summary["complete"]
        self.n_features_rows_ = X_rows.shape[1]
        self.n_features_cols_ = X_rows.shape[1] if homogeneous else X_cols.shape[1]
        for a in ("cv_results_", "best_params_", "best_score_", "best_index_", "cv_predictions_"):
            if hasattr(self, a):
                delattr(self, a)
        cv = summary.get("cv")
        if cv is not None:
            self._set_cv(res, cv, model, len(y))
        return self

    def _set_cv(self, res, cv, model, n):
        sign = 1.0 if res["higher_is_better"] else -1.0
        summary = res["summary"]
        params = []
        for pt in cv["curve"]:
            p = {"alpha": pt["lambda"]}
            if self._col_lambda:
                p["col_alpha"] = pt.get("col_lambda", 0.0)
            for side, prefix in (("kernel", ""), ("col_kernel", "col_")):
                spec = pt.get(side) or summary.get(side)
                if spec:
                    for k in _SPEC_PARAMS:
                        if k in spec and k in _KERNEL_PARAMS.get(spec["name"], ()):
                            p[prefix + k] = spec[k]
            params.append(p)
        value = np.array([np.nan if pt["value"] is None else pt["value"] for pt in cv["curve"]], dtype=float)
        self.cv_results_ = {"params": params, "value": value, "mean_test_score": sign * value}
        for k in params[0] if params else ():
            self.cv_results_["param_" + k] = np.array([p.get(k, np.nan) for p in params])
        best = res["best_index"]
        self.best_index_ = best
        self.best_params_ = dict(params[best])
        self.best_score_ = float(sign * value[best])
        if res["has_cv_predictions"]:
            self.cv_predictions_ = model.cv_predictions(n, 1).ravel()

    def predict(self, pairs, X_rows=None, X_cols=None, coverage=None):
        """f(u, v) for the (row, column) index pairs: indices into the new
        objects X_rows (X_cols), or into the training objects where None
        (for a homogeneous network X_rows gives the new vertices). O(m'·m·(d
        + q) + n·q) for m' distinct row objects asked.

        With coverage (in (0, 1); a model fitted with interval="cv+"),
        returns (prediction, lower, upper): the CV+ interval over folds of
        objects (Barber et al. 2021) at that level for pairs with the kind
        of new object the setting held out — new rows against training
        columns (rows), training rows against new columns (cols), new rows
        with new columns (both) — as ``rlskit predict --pairs --coverage``.
        It costs the K (K·L for both) hold-out models' predictions besides
        the model's."""
        check_is_fitted(self, "model_")
        if X_cols is not None and self.homogeneous_:
            raise ValueError("X_cols: the model is a homogeneous network; X_rows gives its new vertices")
        return self.model_.predict_pairs(pairs, X_rows, X_cols, coverage=coverage)

    def score(self, pairs, y, X_rows=None, X_cols=None):
        """The fit's measure (measure_, default mse) of the predictions for
        the pairs against y, higher is better (a loss is negated)."""
        p = self.predict(pairs, X_rows, X_cols)
        y = np.asarray(y, dtype=np.float64).reshape(-1, 1)
        v = self.model_.score(self.measure_, y, p.reshape(-1, 1))
        return v if self._higher_is_better else -v

    def model_json(self):
        """The fitted model in rlskit's model file format of pairs:
        ``rlskit predict --model FILE --pairs …`` reads it."""
        check_is_fitted(self, "model_")
        return self.model_.to_json()


_PARAMS_DOC = """
    Parameters
    ----------
    kernel : {"linear", "gaussian", "polynomial", "precomputed"}
        The row objects' kernel (and the columns' unless col_kernel is set).
    gamma, bias, degree, coef0 : the row kernel's parameters; gamma may be
        a grid (array), searched with λ. The column side takes the same
        values unless its own (col_gamma, …) are set.
    col_kernel, col_gamma, col_bias, col_degree, col_coef0 : the column
        objects' kernel and parameters (``--col-kernel`` …; None: the row
        side's).
    alphas : float, array, grid string or None
        λ: one value, a grid or a grid SPEC ("2^-10..2^10"); None: the
        core's default grid.
    setting : "pairs" (A), "rows" (B), "cols" (C), "both" (D), "vertices"
        (homogeneous networks) or "none": the cross-validation setting.
    cv : None or int K
        K folds of the objects the setting holds out (seeded by seed); None:
        one object per fold, or the folds given to fit.
    measure : str or None (default mse), standardize : bool,
    symmetry : None, "symmetric" or "antisymmetric" (X_cols=None only),
    seed : int.
    interval : None or "cv+"
        Record in the model what CV+ prediction intervals need (``rlskit fit
        --interval cv+``: the models retrained without each fold of the
        objects the setting holds out, and every pair's hold-out residual;
        K·m·q numbers for rows or cols, K·L·m·q for both): setting "rows",
        "cols" or "both" on complete data; then ``predict(…, coverage=0.9)``.

    Attributes
    ----------
    alpha_ (and col_alpha_), kernel_, col_kernel_, best_params_,
    best_score_ (higher is better: mse negated), cv_results_ (params,
    param_alpha, …, value, mean_test_score), cv_predictions_ (one per
    training pair, in the order of pairs), measure_, complete_, result_
    (``rlskit fit``'s JSON summary).
"""


class PairEstimator(_PairBase):
    """Any learner of pairs of the Go core's registry (``rlskit.learners()``
    entries with needs_pairs), by name: a learner of pairs registered in Go
    is reachable here with no new Python or C code. settings adds further
    ``rlskit fit`` flags (e.g. {"col-lambda-grid": "2^-3..2^3"}).

    setting=None (the default) is the learner's own default: "pairs", or
    "rows" for kronrank, and no cross-validation with a pair kernel.
    pair_kernel ("kronecker", "cartesian", "symmetric", "antisymmetric",
    "ranking" or "sum"; ``--pair-kernel``) trains Kronecker RLS's loss with
    that pairwise kernel by conjugate gradients at one λ; for "sum",
    pair_kernel_weights gives one weight per term (the kernels of the gamma
    and col_gamma grids in order) — or a 2-D grid of weight vectors, one
    per row, chosen with setting "rows" or "cols" (cv K folds) by refitting
    without each fold. After fit, pair_kernel_weights_ are the weights used
    and weight_search_ the search (strategy, folds, grid of weights and
    mse, best)."""

    def __init__(self, learner="kronrls", kernel="linear", gamma=None, bias=None, degree=None, coef0=None,
                 col_kernel=None, col_gamma=None, col_bias=None, col_degree=None, col_coef0=None,
                 alphas=None, setting=None, cv=None, measure=None, standardize=False, symmetry=None,
                 solver="direct", tol=None, max_iter=None, seed=1, pair_kernel=None, pair_kernel_weights=None,
                 settings=None):
        self.learner = learner
        self.kernel = kernel
        self.gamma = gamma
        self.bias = bias
        self.degree = degree
        self.coef0 = coef0
        self.col_kernel = col_kernel
        self.col_gamma = col_gamma
        self.col_bias = col_bias
        self.col_degree = col_degree
        self.col_coef0 = col_coef0
        self.alphas = alphas
        self.setting = setting
        self.cv = cv
        self.measure = measure
        self.standardize = standardize
        self.symmetry = symmetry
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.seed = seed
        self.pair_kernel = pair_kernel
        self.pair_kernel_weights = pair_kernel_weights
        self.settings = settings

    def _settings(self):
        self._learner = self.learner
        from ._lib import learners
        info = [l for l in learners() if l["name"] == self.learner]
        self._col_lambda = bool(info) and "col-lambda" in info[0]["params"]
        s = super()._settings()
        if self.pair_kernel is not None:
            s["pair-kernel"] = self.pair_kernel
        if self.pair_kernel_weights is not None:
            w = np.asarray(self.pair_kernel_weights, dtype=np.float64)
            if w.ndim not in (1, 2) or w.size == 0:
                raise ValueError("pair_kernel_weights: want one weight per term, or a 2-D grid of them (one row each)")
            s["pair-kernel-weights"] = ":".join(",".join(repr(float(v)) for v in row) for row in np.atleast_2d(w))
        for k, v in (self.settings or {}).items():
            s[k] = v
        return s

    def fit(self, X_rows, X_cols, pairs, y, row_folds=None, col_folds=None):
        super().fit(X_rows, X_cols, pairs, y, row_folds, col_folds)
        for a in ("pair_kernel_weights_", "weight_search_"):
            if hasattr(self, a):
                delattr(self, a)
        pk = self.result_["summary"].get("pair_kernel")
        if pk is not None:
            self.pair_kernel_weights_ = pk.get("weights")
            if pk.get("weight_search") is not None:
                self.weight_search_ = pk["weight_search"]
        return self


class KronRLS(_PairBase):
    __doc__ = """Kronecker RLS (learner "kronrls"; Pahikkala et al. 2013, Stock
    et al. 2018): kernel ridge regression with the product kernel
    k(u, u')·g(v, v') of the row and column objects. On complete data
    A = U [(UᵀYV) ⊘ (e sᵀ + λ)] Vᵀ from the eigendecompositions K = U diag(e)
    Uᵀ, G = V diag(s) Vᵀ — O(m³ + q³) per kernel setting, then the whole λ
    grid and every hold-out of the setting exactly; on incomplete data (or
    solver="cg") conjugate gradients with the generalized vec trick (Airola &
    Pahikkala 2018), O(n·(m + q)) per iteration, at one λ (tol, max_iter).
    fit(X_rows, X_cols, pairs, y); predict(pairs, X_rows=None, X_cols=None).
    """ + _PARAMS_DOC + """    solver : "direct" (closed form on complete data, CG otherwise) or "cg".
    tol, max_iter : the conjugate gradients' stopping rule (None: the core's).
    """

    _learner = "kronrls"

    def __init__(self, kernel="linear", gamma=None, bias=None, degree=None, coef0=None,
                 col_kernel=None, col_gamma=None, col_bias=None, col_degree=None, col_coef0=None,
                 alphas=None, setting="pairs", cv=None, measure=None, standardize=False, symmetry=None,
                 solver="direct", tol=None, max_iter=None, seed=1, interval=None):
        self.kernel = kernel
        self.gamma = gamma
        self.bias = bias
        self.degree = degree
        self.coef0 = coef0
        self.col_kernel = col_kernel
        self.col_gamma = col_gamma
        self.col_bias = col_bias
        self.col_degree = col_degree
        self.col_coef0 = col_coef0
        self.alphas = alphas
        self.setting = setting
        self.cv = cv
        self.measure = measure
        self.standardize = standardize
        self.symmetry = symmetry
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.seed = seed
        self.interval = interval


class TwoStepRLS(_PairBase):
    __doc__ = """Two-step RLS (learner "twostep"; Pahikkala et al. 2014, Stock et
    al. 2016, 2018): a ridge regression over the rows, then one over the
    columns, A = (K + λ I)⁻¹ Y (G + λ_c I)⁻¹, with a λ per side (alphas,
    col_alphas: both searched, the grids crossed). O(m³ + q³) per kernel
    setting, then every (λ, λ_c) and every hold-out of the setting exactly.
    Complete data only. fit(X_rows, X_cols, pairs, y); predict(pairs,
    X_rows=None, X_cols=None).
    """ + _PARAMS_DOC + """    col_alphas : the column λ_c (as alphas; ``--col-lambda-grid``).
    """

    _learner = "twostep"
    _col_lambda = True

    def __init__(self, kernel="linear", gamma=None, bias=None, degree=None, coef0=None,
                 col_kernel=None, col_gamma=None, col_bias=None, col_degree=None, col_coef0=None,
                 alphas=None, col_alphas=None, setting="pairs", cv=None, measure=None, standardize=False,
                 symmetry=None, seed=1, interval=None):
        self.kernel = kernel
        self.gamma = gamma
        self.bias = bias
        self.degree = degree
        self.coef0 = coef0
        self.col_kernel = col_kernel
        self.col_gamma = col_gamma
        self.col_bias = col_bias
        self.col_degree = col_degree
        self.col_coef0 = col_coef0
        self.alphas = alphas
        self.col_alphas = col_alphas
        self.setting = setting
        self.cv = cv
        self.measure = measure
        self.standardize = standardize
        self.symmetry = symmetry
        self.seed = seed
        self.interval = interval

    solver = "direct"  # closed form only (not a parameter)
    tol = None
    max_iter = None
