"""scikit-learn conventions beyond check_estimator: clone, Pipeline,
GridSearchCV, cross_val_score, splitters as cv."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import rlskit


def data(m=60, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = X @ rng.normal(size=d) + 0.3 * rng.normal(size=m)
    return X, y


def test_clone_pipeline_grid_search():
    X, y = data()
    est = rlskit.RLS(kernel="gaussian", gamma=0.1, alphas=[0.1, 1.0])
    c = clone(est)
    assert c.get_params() == est.get_params() and not hasattr(c, "model_")
    pipe = make_pipeline(StandardScaler(), est).fit(X, y)
    assert pipe.predict(X).shape == (60,)
    gs = GridSearchCV(est, {"gamma": [0.01, 0.1]}, cv=3).fit(X, y)
    assert gs.best_params_["gamma"] in (0.01, 0.1)
    scores = cross_val_score(est, X, y, cv=3)
    assert scores.shape == (3,) and np.all(np.isfinite(scores))


def test_splitter_is_the_named_scheme():
    """A KFold splitter as cv gives the curve of the same folds passed as
    explicit fold numbers, and GroupKFold's test sets are whole groups."""
    X, y = data()
    kf = KFold(4, shuffle=True, random_state=0)
    a = rlskit.RLS(alphas=[0.01, 1, 100], cv=kf).fit(X, y)
    b = rlskit.RLS(alphas=[0.01, 1, 100], cv=list(kf.split(X))).fit(X, y)
    np.testing.assert_array_equal(a.cv_results_["value"], b.cv_results_["value"])
    # the CV predictions of each fold come from a model trained without it
    for train, test in kf.split(X):
        r = rlskit.RLS(alphas=a.alpha_, cv="none").fit(X[train], y[train])
        np.testing.assert_allclose(a.cv_predictions_[test], r.predict(X[test]), rtol=1e-9, atol=1e-9)
    groups = np.repeat(np.arange(12), 5)
    g = rlskit.RLS(alphas=[0.1, 1], cv=GroupKFold(3)).fit(X, y, groups=groups)
    assert np.isfinite(g.best_score_)


def test_overlapping_test_sets_refused():
    X, y = data()
    idx = np.arange(60)
    splits = [(idx[10:], idx[:10]), (idx[5:], idx[:5])]
    with pytest.raises(ValueError, match="disjoint"):
        rlskit.RLS(cv=splits).fit(X, y)


def test_best_score_sign_and_curve():
    X, y = data()
    r = rlskit.RLS(alphas=[0.01, 0.1, 1, 10]).fit(X, y)
    v = r.cv_results_["value"]
    assert r.best_index_ == int(np.argmin(v))
    assert r.best_score_ == -v.min() and r.alpha_ == r.best_params_["alpha"]
    assert r.measure_ == "mse"


def test_pickle_keeps_the_model():
    import pickle
    X, y = data()
    r = rlskit.RLS(kernel="gaussian", gamma=0.2).fit(X, y)
    r2 = pickle.loads(pickle.dumps(r))
    np.testing.assert_array_equal(r.predict(X), r2.predict(X))


def test_model_outlives_training_array():
    """The handle owns what it keeps: the training X (read in place during
    fit) may be overwritten afterwards without changing predictions."""
    X, y = data()
    Xt = X.copy()
    r = rlskit.RLS(kernel="gaussian", gamma=0.2, alphas=1.0, cv="none").fit(Xt, y)
    before = r.predict(X)
    Xt[:] = 1e3
    np.testing.assert_array_equal(before, r.predict(X))


def test_sparse_model_outlives_training_arrays():
    """A sparse X is read in place; the model keeps its own copy of the
    support rows (with standardize, the scaler shares X's indices)."""
    sp = pytest.importorskip("scipy.sparse")
    X, y = data()
    X[np.abs(X) < 0.8] = 0
    for kw in (dict(), dict(standardize=True)):
        Xs = sp.csr_matrix(X)
        Xs.indices = Xs.indices.astype(np.int64)  # read in place, not converted
        Xs.indptr = Xs.indptr.astype(np.int64)
        r = rlskit.RLS(kernel="gaussian", gamma=0.2, alphas=1.0, cv="none", **kw).fit(Xs, y)
        before = r.predict(X)
        Xs.data[:] = 1e3
        Xs.indices[:] = 0
        np.testing.assert_array_equal(before, r.predict(X))
