"""scikit-learn estimators over the Go core.

Each estimator is a thin front end: it turns its parameters into the
settings of ``rlskit fit`` (the flag names of package plan) and hands them,
with the data, to the Go core's search (selection.Search through the learner
registry). The CV curve, the chosen point and the CV predictions are the
core's, computed by its exact shortcuts: one factorization per kernel
setting, then every λ and every fold.
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._lib import Model

# The kernel parameters each kernel of the core takes (package plan refuses
# the others): the settings carry only these.
_KERNEL_PARAMS = {
    "linear": ("bias",),
    "gaussian": ("gamma",),
    "polynomial": ("gamma", "degree", "coef0"),
    "precomputed": (),
}


def _grid(values):
    """A grid setting: the values in full precision, comma-separated (a
    string is passed on as the core's grid SPEC, e.g. "2^-10..2^10")."""
    if isinstance(values, str):
        return values
    return ",".join(repr(float(v)) for v in np.ravel(values))


def _fold_ids(cv, X, y, groups):
    """A fold number per row (-1: in no test set) from a scikit-learn
    splitter or an iterable of (train, test) index pairs. The exact CV holds
    out each test set and trains on all other rows: the test sets must be
    disjoint and each train set the complement of its test set."""
    m = X.shape[0]
    splits = cv.split(X, y, groups) if hasattr(cv, "split") else cv
    fold = np.full(m, -1, dtype=np.int64)
    k = 0
    for train, test in splits:
        test = np.asarray(test)
        train = np.asarray(train)
        if test.dtype == bool:
            test = np.flatnonzero(test)
        if train.dtype == bool:
            train = np.flatnonzero(train)
        if test.size == 0:
            raise ValueError("cv: split %d has an empty test set" % k)
        if np.any(fold[test] >= 0):
            i = int(test[fold[test] >= 0][0])
            raise ValueError("cv: row %d is in the test sets of splits %d and %d; the exact CV needs disjoint test sets"
                             % (i, fold[i], k))
        if train.size + test.size != m or np.intersect1d(train, test).size:
            raise ValueError("cv: split %d does not train on every row outside its test set; the exact CV holds out "
                             "the test set and trains on all other rows" % k)
        fold[test] = k
        k += 1
    if k == 0:
        raise ValueError("cv: the splitter gave no splits")
    return fold


class _Base(BaseEstimator):
    """What every estimator over the core shares: settings, fit, predict."""

    _learner = None  # the registered learner's name (learn.Lookup)

    def _settings(self):
        s = {"learner": self._learner, "kernel": self.kernel}
        uses = _KERNEL_PARAMS.get(self.kernel, ())
        if "gamma" in uses:
            if isinstance(self.gamma, str) and self.gamma == "scale":
                s["gamma"] = "scale"
            elif np.ndim(self.gamma) == 0 and not isinstance(self.gamma, str):
                s["gamma"] = repr(float(self.gamma))
            else:
                s["gamma-grid"] = _grid(self.gamma)
        if "degree" in uses:
            s["degree"] = int(self.degree)
        if "coef0" in uses:
            s["coef0"] = repr(float(self.coef0))
        if "bias" in uses and self.bias is not None:
            s["bias"] = repr(float(self.bias))
        if self.alphas is not None:
            if isinstance(self.alphas, numbers.Real):
                s["lambda"] = repr(float(self.alphas))
            else:
                s["lambda-grid"] = _grid(self.alphas)
        if self.measure is not None:
            s["measure"] = self.measure
        if self.standardize:
            s["standardize"] = True
        s["seed"] = int(self.seed)
        return s

    def _cv(self, s, X, y, groups):
        """Set the CV setting; returns the fold numbers of an explicit
        splitter (None for a scheme the core draws)."""
        cv = self.cv
        if isinstance(cv, str):
            s["cv"] = cv
            return None
        if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
            s["cv"] = "kfold:%d" % cv
            return None
        if cv is None:
            s["cv"] = "kfold:5"  # scikit-learn's default of cv=None
            return None
        s["cv"] = "folds"
        return _fold_ids(cv, X, y, groups)

    def _fit(self, X, y, groups, preferences=None):
        X, y = self._validate_data(X, y, accept_sparse="csr", multi_output=True, y_numeric=True, dtype=np.float64,
                                   order="C")
        y2 = y.reshape(-1, 1) if y.ndim == 1 else y
        s = self._settings()
        folds = self._cv(s, X, y, groups)
        if groups is not None:
            groups = np.asarray(groups)
            if groups.shape != (X.shape[0],):
                raise ValueError("groups: want one id per row (%d), got shape %s" % (X.shape[0], groups.shape))
            _, groups = np.unique(groups, return_inverse=True)  # any hashable ids → 0..G-1
        model = Model()
        try:
            res = model.fit(s, X, y2, groups=groups, folds=folds, preferences=preferences)
        except ValueError as e:
            if X.shape[0] == 1:  # scikit-learn's wording for the count, then the core's message
                raise ValueError("n_samples = 1: %s" % e) from None
            raise
        self.model_ = model
        self.result_ = res
        summary = res["summary"]
        self.alpha_ = summary["lambda"]
        self.measure_ = res["measure"]
        self._higher_is_better = res["higher_is_better"]
        self.kernel_ = summary["kernel"]
        self._y_ndim = y.ndim
        cv = summary.get("cv")
        if cv is not None:
            sign = 1.0 if res["higher_is_better"] else -1.0
            curve = cv["curve"]
            params = []
            for pt in curve:
                p = {"alpha": pt["lambda"]}
                for k in ("gamma", "degree", "coef0"):
                    if k in pt:
                        p[k] = pt[k]
                params.append(p)
            value = np.array([np.nan if pt["value"] is None else pt["value"] for pt in curve], dtype=float)
            self.cv_results_ = {
                "params": params,
                "param_alpha": np.array([p["alpha"] for p in params]),
                "value": value,
                "mean_test_score": sign * value,
            }
            for k in ("gamma", "degree", "coef0"):
                if params and k in params[0]:
                    self.cv_results_["param_" + k] = np.array([p[k] for p in params])
            best = res["best_index"]
            self.best_index_ = best
            self.best_params_ = dict(params[best])
            self.best_score_ = float(sign * value[best])
            if res["has_cv_predictions"]:
                p = model.cv_predictions(X.shape[0], y2.shape[1])
                self.cv_predictions_ = p.ravel() if y.ndim == 1 else p
        return self

    def predict(self, X, coverage=None):
        """Predictions of the model at the chosen point for the rows of X:
        shape (n,) for a 1-D y, (n, t) for t outputs. O(n·d·t) for a linear
        model, O(n·m·d) for a kernel expansion over m training rows.

        With coverage (in (0, 1); a model fitted with interval="jackknife+"
        or "cv+"), returns (prediction, lower, upper), the interval of
        Barber et al. (2021) at that level (±inf beyond n/(n+1)), as
        ``rlskit predict --coverage``."""
        check_is_fitted(self, "model_")
        X = self._validate_data(X, accept_sparse="csr", reset=False, dtype=np.float64, order="C")
        if coverage is not None:
            out = self.model_.predict_interval(X, coverage)
            return tuple(o.ravel() if self._y_ndim == 1 else o for o in out)
        p = self.model_.predict(X)
        return p.ravel() if self._y_ndim == 1 else p

    def _score(self, X, y, groups=None):
        """The core's measure of the predictions for X against y (the CV
        measure of the fit, measure_), higher is better: a loss is negated."""
        check_is_fitted(self, "model_")
        p = self.predict(X)
        y = np.asarray(y, dtype=np.float64)
        if groups is not None:
            _, groups = np.unique(np.asarray(groups), return_inverse=True)
        v = self.model_.score(self.measure_, y.reshape(len(y), -1), p.reshape(len(y), -1), groups)
        return v if self._higher_is_better else -v

    def model_json(self):
        """The fitted model in rlskit's model file format: ``rlskit predict
        --model`` reads it."""
        check_is_fitted(self, "model_")
        return self.model_.to_json()

    def _more_tags(self):
        return {"multioutput": True}


class RLS(RegressorMixin, _Base):
    """Regularized least squares (kernel ridge regression) with λ — and the
    kernel's parameters when given as grids — chosen by exact
    cross-validation in the Go core (learner "rls").

    Minimizes Σ_i (y_i − f(x_i))² + λ‖f‖² over the kernel's function space:
    one eigendecomposition of the kernel matrix (O(m³), or O(m·d² + d³) in
    the linear form) per kernel setting, then the whole λ grid and every
    hold-out exactly, as retraining would give (rlskit's docs/correctness.md).

    Parameters
    ----------
    kernel : {"linear", "gaussian", "polynomial", "precomputed"}
    gamma : float, "scale" or array of floats
        Gaussian exp(−γ‖x − z‖²) and polynomial width; an array is a grid
        searched with λ; "scale" is scikit-learn's 1/(d·Var X).
    bias : float or None
        Bias of the linear kernel x·z + bias (None: the learner's default, 1).
    degree, coef0 : polynomial kernel (γ x·z + coef0)^degree.
    alphas : float, array of floats, grid string or None
        λ (scikit-learn's alpha): one value, a grid, a grid SPEC such as
        "2^-10..2^10", or None for the default 2^-15..2^15.
    cv : "loo", int, str, splitter or iterable of (train, test)
        Leave-one-out (default), K-fold (seeded by ``seed``), any scheme
        name of ``rlskit fit --cv`` ("lgo" over ``groups``, "lpo", …), or
        explicit disjoint test sets.
    measure : str or None
        The CV measure (``rlskit fit --measure``; default mse).
    standardize : bool
        Scale features to mean 0, sd 1 first (stored in the model).
    fit_intercept : bool
        An unpenalized intercept (scikit-learn's Ridge(fit_intercept=True)).
    seed : int
        Seed of the folds drawn for K-fold.
    interval : None, "jackknife+" or "cv+"
        Record in the model what prediction intervals need (``rlskit fit
        --interval``): the jackknife+ (cv="loo", linear kernel) or CV+ (a
        K-fold or group cv); then ``predict(X, coverage=0.9)``.

    Attributes
    ----------
    alpha_ : the chosen λ.  best_params_ : the chosen point's parameters.
    best_score_ : the CV value at the chosen point, higher is better (a loss
        such as mse is negated, as scikit-learn's neg_mean_squared_error).
    cv_results_ : per grid point: params, param_alpha (param_gamma, …),
        value (the measure's own value) and mean_test_score (signed).
    cv_predictions_ : the CV predictions at the chosen point (LOO and folds).
    result_ : the core's summary (``rlskit fit``'s JSON output).
    """

    _learner = "rls"

    def __init__(self, kernel="linear", gamma=1.0, bias=None, degree=2, coef0=0.0, alphas=None,
                 cv="loo", measure=None, standardize=False, fit_intercept=False, seed=1, interval=None):
        self.kernel = kernel
        self.gamma = gamma
        self.bias = bias
        self.degree = degree
        self.coef0 = coef0
        self.alphas = alphas
        self.cv = cv
        self.measure = measure
        self.standardize = standardize
        self.fit_intercept = fit_intercept
        self.seed = seed
        self.interval = interval

    def _settings(self):
        s = super()._settings()
        if self.fit_intercept:
            s["intercept"] = True
        if self.interval is not None:
            s["interval"] = self.interval
        return s

    def fit(self, X, y, groups=None):
        """Fit and select by exact CV. groups: a group id per row, for
        cv="lgo" (leave-group-out) or group-kfold."""
        return self._fit(X, y, groups)


class _Ranker(_Base):
    """RankRLS: what the two rankers share. score is the fit's measure
    (the learner's default, cindex or disagreement, unless measure is set),
    higher is better (a loss such as disagreement is negated)."""

    def __init__(self, kernel="linear", gamma=1.0, bias=None, degree=2, coef0=0.0, alphas=None,
                 cv="loo", measure=None, standardize=False, seed=1):
        self.kernel = kernel
        self.gamma = gamma
        self.bias = bias
        self.degree = degree
        self.coef0 = coef0
        self.alphas = alphas
        self.cv = cv
        self.measure = measure
        self.standardize = standardize
        self.seed = seed


class GlobalRankRLS(_Ranker):
    """RankRLS over all pairs of rows (learner "globalrank"; Pahikkala et
    al. 2009): minimizes Σ_{i,j} ((y_i − y_j) − (f(x_i) − f(x_j)))² + λ‖f‖²,
    one factorization per kernel setting, λ by exact CV (default LOO and the
    C-index; cv="lpo" for leave-pair-out). Parameters and attributes as
    RLS's (no fit_intercept: the pairwise loss cancels any constant)."""

    _learner = "globalrank"

    def fit(self, X, y, groups=None):
        """Fit and select by exact CV; groups for cv="lgo"."""
        return self._fit(X, y, groups)

    def score(self, X, y, groups=None):
        """The fit's measure (measure_, default cindex) on X, y."""
        return self._score(X, y, groups)

    def _more_tags(self):
        return {"multioutput": True, "poor_score": True}


class QueryRankRLS(_Ranker):
    """RankRLS within queries (learner "queryrank"): the pairwise loss over
    the pairs of rows sharing a query id (groups), λ by exact CV (default
    leave-query-out, cv="lqo", scored by pairwise disagreement).

    fit(X, y, groups) needs the query ids; score(X, y, groups) too."""

    _learner = "queryrank"

    def __init__(self, kernel="linear", gamma=1.0, bias=None, degree=2, coef0=0.0, alphas=None,
                 cv="lqo", measure=None, standardize=False, query_normalize=False, seed=1):
        super().__init__(kernel=kernel, gamma=gamma, bias=bias, degree=degree, coef0=coef0, alphas=alphas,
                         cv=cv, measure=measure, standardize=standardize, seed=seed)
        self.query_normalize = query_normalize

    def _settings(self):
        s = super()._settings()
        if self.query_normalize:
            s["query-normalize"] = True
        return s

    def fit(self, X, y, groups=None):
        """Fit on queries: groups is a query id per row (required)."""
        if groups is None:
            raise ValueError("QueryRankRLS.fit needs the query ids: fit(X, y, groups=qid)")
        return self._fit(X, y, groups)

    def score(self, X, y, groups=None):
        """The fit's measure (measure_, default disagreement, negated) within
        the queries groups."""
        if groups is None:
            raise ValueError("QueryRankRLS.score needs the query ids: score(X, y, groups=qid)")
        return self._score(X, y, groups)


class Estimator(_Base):
    """Any learner of the Go core's registry (``rlskit.learners()``), by
    name: the settings go to the core as ``rlskit fit`` flags, so a learner
    registered in Go is reachable here with no new Python or C code.

    learner is the registry name; settings a dict of further ``rlskit fit``
    flags the C ABI takes (e.g. {"intercept": True}); the other parameters
    are RLS's. groups are passed to fit (and score) for the learners that
    need them, preferences to fit for a learner that learns from a
    preference graph (needs_graph: (i, j[, magnitude[, weight]]) arrays, row
    i[e] preferred over row j[e]; y then only scores the cross-validation).
    score is the fit's measure, higher is better (a loss negated).
    """

    def __init__(self, learner="rls", kernel="linear", gamma=1.0, bias=None, degree=2, coef0=0.0, alphas=None,
                 cv="loo", measure=None, standardize=False, seed=1, settings=None):
        self.learner = learner
        self.kernel = kernel
        self.gamma = gamma
        self.bias = bias
        self.degree = degree
        self.coef0 = coef0
        self.alphas = alphas
        self.cv = cv
        self.measure = measure
        self.standardize = standardize
        self.seed = seed
        self.settings = settings

    def _settings(self):
        self._learner = self.learner
        s = super()._settings()
        for k, v in (self.settings or {}).items():
            s[k] = v
        return s

    def fit(self, X, y, groups=None, preferences=None):
        """Fit the learner and select by exact CV."""
        return self._fit(X, y, groups, preferences)

    def score(self, X, y, groups=None):
        """The fit's measure (measure_) on X, y, higher is better."""
        return self._score(X, y, groups)


class GreedyRLS(TransformerMixin, RegressorMixin, _Base):
    """Greedy forward feature selection for linear RLS (learner "greedy";
    Pahikkala, Airola & Salakoski 2010): adds, one at a time, the feature
    whose inclusion gives the best exact LOO (or hold-out) criterion, up to
    n_features_to_select, and keeps the best k ≤ n_features_to_select at the
    best λ, as ``rlskit fit --learner greedy --select K``.

    Attributes: selected_ (the kept features' column indices, in the order
    they were added), support_ (their mask), selection_ (the core's summary
    of the path: every step's criterion per λ), and RLS's alpha_,
    best_score_, cv_results_ (per λ, at its best k), cv_predictions_.
    transform(X) keeps the selected columns.
    """

    _learner = "greedy"

    def __init__(self, n_features_to_select=1, bias=None, alphas=None, cv="loo", measure=None,
                 standardize=False, seed=1):
        self.n_features_to_select = n_features_to_select
        self.bias = bias
        self.alphas = alphas
        self.cv = cv
        self.measure = measure
        self.standardize = standardize
        self.seed = seed

    kernel = "linear"  # greedy selection is of the linear kernel's features (not a parameter)

    def _settings(self):
        s = super()._settings()
        s["select"] = int(self.n_features_to_select)
        return s

    def fit(self, X, y, groups=None):
        """Select features and fit; groups for cv="lgo"."""
        self._fit(X, y, groups)
        sel = self.result_["summary"]["selection"]
        self.selection_ = sel
        self.selected_ = np.array(sel["selected"], dtype=int)
        self.support_ = np.zeros(self.n_features_in_, dtype=bool)
        self.support_[self.selected_] = True
        return self

    def transform(self, X):
        """The selected columns of X, in the order they were added."""
        check_is_fitted(self, "model_")
        X = self._validate_data(X, accept_sparse="csr", reset=False)
        return X[:, self.selected_]

    def get_support(self, indices=False):
        """The mask of the selected features, or their indices."""
        check_is_fitted(self, "model_")
        return np.flatnonzero(self.support_) if indices else self.support_
