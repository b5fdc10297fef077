"""rlskit.rlscore against references computed independently in NumPy:
closed forms and naive retraining (what RLScore computes by its
shortcuts), RLScore's tie rules and measure definitions; and, when RLScore
is importable (RLSCORE_PATH, default /tmp/rlscore), against RLScore itself."""

import os
import subprocess
import sys

import numpy as np
import pytest

from rlskit.rlscore import measure as M
from rlskit.rlscore.learner import (RLS, GlobalRankRLS, GreedyRLS, KfoldRankRLS, KfoldRLS, LeaveOneOutRLS,
                                    LeavePairOutRankRLS, LeavePairOutRLS, LeaveQueryOutRankRLS, QueryRankRLS)
from rlskit.rlscore.utilities.multiclass import from_one_vs_all, to_one_vs_all

TOL = 1e-9


def data(m=26, d=4, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(m, d)
    y = X @ rng.randn(d) + 0.5 * rng.randn(m)
    return X, y


def lin_K(A, B, bias=1.0):
    return A @ B.T + bias


def gauss_K(A, B, gamma):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


def ridge(K, Y, lam):
    return np.linalg.solve(K + lam * np.eye(len(K)), Y)


def rank_dual(K, Y, lam, L):
    """argmin (Y − KA)ᵀ L (Y − KA) + λ AᵀKA: A = (L K + λI)⁻¹ L Y."""
    return np.linalg.solve(L @ K + lam * np.eye(len(K)), L @ Y)


def naive_holdout(X, y, lam, test, fit):
    train = np.setdiff1d(np.arange(len(y)), test)
    return fit(X[train], y[train], X[test])


def rls_fit(lam, bias=1.0):
    return lambda Xtr, ytr, Xte: lin_K(Xte, Xtr, bias) @ ridge(lin_K(Xtr, Xtr, bias), ytr, lam)


def test_rls_closed_form_loo_holdout():
    X, y = data()
    lam = 0.7
    learner = RLS(X, y, regparam=lam)
    A = ridge(lin_K(X, X), y, lam)
    np.testing.assert_allclose(learner.predict(X[:5]), lin_K(X[:5], X) @ A, atol=TOL)
    loo = [naive_holdout(X, y, lam, [i], rls_fit(lam))[0] for i in range(len(y))]
    np.testing.assert_allclose(learner.leave_one_out(), loo, atol=TOL)
    np.testing.assert_allclose(learner.holdout([3, 8, 9]), naive_holdout(X, y, lam, [3, 8, 9], rls_fit(lam)),
                               atol=TOL)
    # W and b: the primal form of the same model; A its dual in the span of [X, 1].
    np.testing.assert_allclose(learner.predictor.W, X.T @ A, atol=TOL)
    np.testing.assert_allclose(learner.predictor.b, A.sum(), atol=TOL)
    # RLScore's A: the dual in the span of [X, √bias·1], so [X, 1]ᵀA = (W, b) and A = [X, 1]c.
    Xa = np.c_[X, np.ones(len(y))]
    np.testing.assert_allclose(Xa.T @ learner.A[:, 0], np.r_[learner.predictor.W, learner.predictor.b], atol=1e-9)
    c = np.linalg.lstsq(Xa, learner.A[:, 0], rcond=None)[0]
    np.testing.assert_allclose(Xa @ c, learner.A[:, 0], atol=1e-12)
    assert learner.predict(X).shape == (len(y),) and learner.leave_one_out().shape == (len(y),)
    Y2 = np.c_[y, -2 * y]
    assert RLS(X, Y2).predict(X).shape == (len(y), 2)


def test_rls_gaussian_and_leave_pair_out():
    X, y = data()
    lam, g = 0.3, 0.2
    learner = RLS(X, y, regparam=lam, kernel="GaussianKernel", gamma=g)
    A = ridge(gauss_K(X, X, g), y, lam)
    np.testing.assert_allclose(learner.A[:, 0], A, atol=TOL)
    np.testing.assert_allclose(learner.predict(X[:4]), gauss_K(X[:4], X, g) @ A, atol=TOL)
    a, b = np.array([0, 0, 1, 5, 7]), np.array([1, 2, 2, 6, 5])  # overlapping pairs: several rounds
    P1, P2 = learner.leave_pair_out(a, b)
    fit = lambda Xtr, ytr, Xte: gauss_K(Xte, Xtr, g) @ ridge(gauss_K(Xtr, Xtr, g), ytr, lam)
    for k in range(len(a)):
        ref = naive_holdout(X, y, lam, [a[k], b[k]], fit)
        np.testing.assert_allclose([P1[k], P2[k]], ref, atol=TOL)


def test_grid_searches_first_best_and_fold_mean():
    X, y = data()
    grid = [0.01, 0.1, 1.0, 10.0]
    loo = LeaveOneOutRLS(X, y, regparams=grid)
    ref, refP = [], []
    for lam in grid:
        P = [naive_holdout(X, y, lam, [i], rls_fit(lam))[0] for i in range(len(y))]
        ref.append(np.mean((y - P) ** 2))
        refP.append(P)
    np.testing.assert_allclose(loo.cv_performances, ref, atol=1e-9)  # one core search over the grid
    assert loo.regparam == grid[int(np.argmin(ref))]
    assert loo.cv_predictions.shape == (len(grid), len(y))
    np.testing.assert_allclose(loo.cv_predictions, refP, atol=TOL)
    # any other measure: each λ's LOO predictions scored in Python
    other = LeaveOneOutRLS(X, y, regparams=grid, measure=M.cindex)
    np.testing.assert_allclose(other.cv_performances, [M.cindex(y, P) for P in refP], atol=1e-12)
    np.testing.assert_allclose(other.cv_predictions, refP, atol=TOL)
    folds = [list(range(i, len(y), 4)) for i in range(4)]
    kf = KfoldRLS(X, y, folds, regparams=grid, measure=M.cindex)
    ref = [np.mean([M.cindex(y[f], naive_holdout(X, y, lam, f, rls_fit(lam))) for f in folds]) for lam in grid]
    np.testing.assert_allclose(kf.cv_performances, ref, atol=1e-12)
    # overlapping folds (not one disjoint design): each fold held out by itself
    over = [[0, 1, 2, 3], [2, 3, 4, 5], [10, 11]]
    ko = KfoldRLS(X, y, over, regparams=[0.5], measure=M.sqerror)
    for f, P in zip(over, ko.cv_predictions[0]):
        np.testing.assert_allclose(P, naive_holdout(X, y, 0.5, f, rls_fit(0.5)), atol=TOL)
    # a tie on the grid: RLScore keeps the first best point, not the larger λ
    tied = KfoldRLS(X, y, folds, regparams=[1e-6, 2e-6], measure=M.cindex)
    assert tied.cv_performances[0] == tied.cv_performances[1] and tied.regparam == 1e-6


def test_leave_pair_out_selection():
    X, y = data(m=18)
    yb = np.where(y > np.median(y), 1.0, -1.0)
    grid = [0.01, 1.0, 100.0]
    lpo = LeavePairOutRLS(X, yb, regparams=grid)
    ref = []
    for lam in grid:
        s = []
        for i in range(len(y)):
            for j in range(i + 1, len(y)):
                if yb[i] != yb[j]:
                    pi, pj = naive_holdout(X, yb, lam, [i, j], rls_fit(lam))
                    d = (pi - pj) * np.sign(yb[i] - yb[j])
                    s.append(1.0 if d > 0 else 0.5 if d == 0 else 0.0)
        ref.append(np.mean(s))
    np.testing.assert_allclose(lpo.cv_performances, ref, atol=1e-12)
    assert lpo.regparam == grid[int(np.argmax(ref))]


def test_global_rank_rls():
    X, y = data()
    m, lam = len(y), 0.5
    L = m * np.eye(m) - np.ones((m, m))
    learner = GlobalRankRLS(X, y, regparam=lam)
    K = lin_K(X, X)
    A = rank_dual(K, y, lam, L)
    np.testing.assert_allclose(learner.predict(X[:4]), lin_K(X[:4], X) @ A, atol=1e-8)

    def fit(Xtr, ytr, Xte):
        n = len(ytr)
        return lin_K(Xte, Xtr) @ rank_dual(lin_K(Xtr, Xtr), ytr, lam, n * np.eye(n) - np.ones((n, n)))

    np.testing.assert_allclose(learner.holdout([2, 3]), naive_holdout(X, y, lam, [2, 3], fit), atol=1e-8)
    folds = [list(range(i, m, 3)) for i in range(3)]
    kr = KfoldRankRLS(X, y, folds, regparams=[0.1, 10.0], measure=M.cindex)
    assert kr.cv_performances.shape == (2,) and kr.regparam in (0.1, 10.0)
    LeavePairOutRankRLS(X[:12], y[:12], regparams=[1.0])  # runs; values checked against RLScore below


def test_query_rank_rls_normalized_within_query():
    X, y = data(m=24)
    q = np.repeat([5, 2, 9, 7], 6)
    lam = 0.5
    L = np.zeros((24, 24))
    for g in np.unique(q):
        idx = np.flatnonzero(q == g)
        L[np.ix_(idx, idx)] = np.eye(len(idx)) - 1.0 / len(idx)
    learner = QueryRankRLS(X, y, q, regparam=lam)
    A = rank_dual(lin_K(X, X), y, lam, L)
    np.testing.assert_allclose(learner.predict(X[:4]), lin_K(X[:4], X) @ A, atol=1e-8)
    # holding out part of a query equals retraining on the rest (the rest of the query
    # normalized by its own size; RLScore's shortcut keeps the full query's size)
    def fit(Xtr, ytr, Xte, qtr):
        Ltr = np.zeros((len(ytr), len(ytr)))
        for g in np.unique(qtr):
            idx = np.flatnonzero(qtr == g)
            Ltr[np.ix_(idx, idx)] = np.eye(len(idx)) - 1.0 / len(idx)
        return lin_K(Xte, Xtr) @ rank_dual(lin_K(Xtr, Xtr), ytr, lam, Ltr)

    for test in ([0, 1, 2], [6, 7, 8, 9, 10, 11], [4, 13]):
        rest = np.setdiff1d(np.arange(24), test)
        np.testing.assert_allclose(learner.holdout(test), fit(X[rest], y[rest], X[test], q[rest]), atol=1e-8)
    lq = LeaveQueryOutRankRLS(X, y, q, regparams=[0.1, 1.0], measure=M.cindex)
    assert len(lq.cv_predictions) == 2 and len(lq.cv_predictions[0]) == 4


def test_greedy_rls_naive():
    rng = np.random.RandomState(4)
    X = rng.randn(30, 7)
    y = X[:, 2] - X[:, 5] + 0.3 * rng.randn(30)
    lam, k = 0.5, 3
    g = GreedyRLS(X, y, k, regparam=lam)
    chosen = []
    for _ in range(k):
        best = None
        for f in range(7):
            if f in chosen:
                continue
            cols = chosen + [f]
            P = [naive_holdout(X[:, cols], y, lam, [i], rls_fit(lam))[0] for i in range(30)]
            e = np.mean((y - P) ** 2)
            if best is None or e < best[0]:
                best = (e, f)
        chosen.append(best[1])
    assert g.selected == chosen
    A = ridge(lin_K(X[:, chosen], X[:, chosen]), y, lam)
    np.testing.assert_allclose(g.predict(X[:5]), lin_K(X[:5, chosen], X[:, chosen]) @ A, atol=1e-9)
    assert g.predictor.W.shape == (7,)


def naive_cindex(y, p):
    good = pairs = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] > y[j]:
                pairs += 1
                good += 1.0 if p[i] > p[j] else 0.5 if p[i] == p[j] else 0.0
    return good / pairs


def test_measures_ties_and_definitions():
    rng = np.random.RandomState(2)
    for _ in range(50):
        n = rng.randint(3, 25)
        y = rng.randint(0, 4, n).astype(float)
        p = rng.randint(0, 3, n).astype(float)  # many tied predictions
        if len(np.unique(y)) > 1:
            assert abs(M.cindex(y, p) - naive_cindex(y, p)) < 1e-12
        yb = np.where(y > 1, 1.0, -1.0)
        if len(np.unique(yb)) > 1:
            assert abs(M.auc(yb, p) - naive_cindex(yb, p)) < 1e-12
        assert abs(M.accuracy(yb, p - 1) - np.mean(np.where(yb * (p - 1) > 0, 1, np.where(p == 1, 0.5, 0)))) < 1e-12
        assert abs(M.sqerror(y, p) - np.mean((y - p) ** 2)) < 1e-12
    with pytest.raises(M.UndefinedPerformance):
        M.cindex([1, 1, 1], [0, 1, 2])
    Y = np.array([[1.0, 1], [2, 1], [3, 1]])
    assert M.cindex(Y, Y) == 1.0  # the constant column is left out of the mean
    assert M.sqerror.iserror and not M.cindex.iserror
    assert list(from_one_vs_all(to_one_vs_all([2, 0, 1]))) == [2, 0, 1]
    assert M.ova_accuracy(to_one_vs_all([2, 0, 1]), to_one_vs_all([2, 1, 1])) == pytest.approx(2 / 3)


RLSCORE = os.environ.get("RLSCORE_PATH", "/tmp/rlscore")


def have_rlscore():
    return os.path.isdir(os.path.join(RLSCORE, "rlscore"))


COMPARE = r"""
import sys, json, numpy as np
if sys.argv[1] == "rlscore":
    from rlscore import learner as L, measure as M
else:
    from rlskit.rlscore import learner as L, measure as M
rng = np.random.RandomState(0); X = rng.randn(24, 4); y = X @ [1, -1, .5, 0] + .5 * rng.randn(24)
q = np.repeat([0, 1, 2, 3], 6); yb = np.where(y > 0, 1., -1.)
folds = [list(range(i, 24, 4)) for i in range(4)]
out = {}
r = L.RLS(X, y, regparam=.3); out["rls"] = list(r.predict(X)) + list(r.leave_one_out()) + list(r.holdout([1, 5])) + list(np.ravel(r.A))
out["lpo"] = [list(a) for a in r.leave_pair_out(np.array([0, 1, 0]), np.array([3, 3, 5]))]
g = L.RLS(X, y, regparam=.3, kernel="GaussianKernel", gamma=.2); out["gauss"] = list(g.predict(X)) + list(np.ravel(g.A))
p = L.RLS(X, y, regparam=.3, kernel="PolynomialKernel", gamma=.2, coef0=1, degree=3); out["poly"] = list(p.predict(X))
out["loo"] = list(L.LeaveOneOutRLS(X, y, regparams=[.01, .1, 1, 10]).cv_performances)
out["kf"] = list(L.KfoldRLS(X, y, folds, regparams=[.01, .1, 1, 10], measure=M.cindex).cv_performances)
out["lporls"] = list(L.LeavePairOutRLS(X, yb, regparams=[.01, 1, 100]).cv_performances)
gr = L.GlobalRankRLS(X, y, regparam=.5); out["grank"] = list(gr.predict(X)) + list(gr.holdout([2, 3]))
out["kfrank"] = list(L.KfoldRankRLS(X, y, folds, regparams=[.01, 1, 100]).cv_performances)
out["lprank"] = list(L.LeavePairOutRankRLS(X, y, regparams=[.01, 1, 100]).cv_performances)
qr = L.QueryRankRLS(X, y, q, regparam=.5); out["qrank"] = list(qr.predict(X)) + list(qr.holdout([0, 1, 2, 3, 4, 5]))
out["lqo"] = list(L.LeaveQueryOutRankRLS(X, y, q, regparams=[.01, 1, 100], measure=M.cindex).cv_performances)
out["cgrls"] = list(L.CGRLS(X, y, regparam=.3).predict(X)) + list(L.CGRLS(X, y, regparam=.3, bias=0.).predict(X))
out["cgrank"] = list(L.CGRankRLS(X, y, regparam=.5).predict(X)) + list(L.CGRankRLS(X, y, regparam=.5, qids=q).predict(X))
gq = L.GreedyRLS(X, y, 2, regparam=.5); out["greedy"] = list(gq.selected) + list(gq.performances) + list(gq.predictor.W) + [gq.predictor.b]
Y2 = np.c_[y, 2 * y + rng.randn(24)]; P2 = np.c_[X @ [1, 0, 0, 0], X @ [0, 1, 1, 0]]
out["measures"] = [M.sqerror(Y2, P2), M.cindex(Y2, P2), M.auc(np.sign(Y2), P2), M.accuracy(np.sign(Y2), P2),
                   M.sqmprank(Y2, P2), M.spearman(Y2, P2), M.fscore(np.sign(Y2), P2)]
print(json.dumps({k: np.asarray(v, dtype=float).ravel().tolist() for k, v in out.items()}))
"""


def run_compare(which, env_path):
    env = dict(os.environ, PYTHONPATH=env_path)
    out = subprocess.run([sys.executable, "-c", COMPARE, which], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_learners_equal_rlscore():
    """Every learner's numbers equal RLScore's on the same data (1e-9)."""
    if not have_rlscore():
        pytest.skip("RLScore not found at %s (set RLSCORE_PATH): the NumPy references above stand in" % RLSCORE)
    import rlskit  # the package this suite imports (installed, or the source tree with RLSKIT_LIBRARY)
    here = os.path.dirname(os.path.dirname(os.path.abspath(rlskit.__file__)))
    ours = run_compare("rlskit", os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    theirs = run_compare("rlscore", RLSCORE)
    assert ours.keys() == theirs.keys()
    for k in ours:
        np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-9, atol=1e-9, err_msg=k)


def test_leave_pair_out_counts_ties_half():
    """The leave-pair-out value counts a tied pair of held-out predictions ½:
    rows 0, 1 and 2, 3 have the same features and different labels, so the
    pair's held-out predictions are equal (computed here by naive retraining,
    where they are exactly equal; the core's shortcut may differ in the last
    bits, as RLScore's does)."""
    from rlskit.rlscore.learner import _lpo_cv
    X, y = data(m=14)
    yb = np.where(y > np.median(y), 1.0, -1.0)
    X[1], X[3] = X[0], X[2]
    yb[[0, 1, 2, 3]] = [1.0, -1.0, -1.0, 1.0]
    lam = 0.5
    learner = RLS(X, yb, regparam=lam)

    def naive_lpo(a, b):
        P = np.array([naive_holdout(X, yb, lam, [i, j], rls_fit(lam)) for i, j in zip(a, b)])
        return P[:, 0], P[:, 1]

    learner.leave_pair_out = naive_lpo
    s, ties = [], 0
    for i in range(len(yb)):
        for j in range(i + 1, len(yb)):
            if yb[i] != yb[j]:
                pi, pj = naive_lpo([i], [j])
                d = (pi[0] - pj[0]) * np.sign(yb[i] - yb[j])
                ties += d == 0
                s.append(1.0 if d > 0 else 0.5 if d == 0 else 0.0)
    assert ties == 2
    assert _lpo_cv(learner)[0] == pytest.approx(np.mean(s), abs=1e-15)


def test_sparse_and_precomputed_inputs():
    """A SciPy sparse X gives the dense X's numbers; PrecomputedKernel on the
    Gaussian kernel matrix gives GaussianKernel's."""
    import scipy.sparse as sp
    X, y = data()
    X[np.abs(X) < 0.5] = 0.0
    dense, sparse = RLS(X, y, regparam=0.4), RLS(sp.csr_matrix(X), y, regparam=0.4)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X[:5])), dense.predict(X[:5]), atol=1e-10)
    np.testing.assert_allclose(sparse.leave_one_out(), dense.leave_one_out(), atol=1e-10)
    K = gauss_K(X, X, 0.3)
    pre = RLS(K, y, regparam=0.4, kernel="PrecomputedKernel")
    gau = RLS(X, y, regparam=0.4, kernel="GaussianKernel", gamma=0.3)
    np.testing.assert_allclose(pre.predict(K[:5]), gau.predict(X[:5]), atol=1e-10)
    np.testing.assert_allclose(pre.leave_one_out(), gau.leave_one_out(), atol=1e-10)


def test_other_measures_definitions():
    rng = np.random.RandomState(5)
    y, p = rng.randn(12), rng.randn(12)
    n, d = 12, y - p
    assert M.sqmprank(y, p) == pytest.approx(np.mean((n * d - d.sum()) ** 2) / ((n * n - n) / 2), rel=1e-12)
    assert M.disagreement(y, p) == pytest.approx(1 - naive_cindex(y, p), abs=1e-15)
    from scipy.stats import spearmanr
    assert M.spearman(y, p) == pytest.approx(spearmanr(y, p)[0], abs=1e-15)
    yb, pb = np.sign(y), p
    tp, fp, fn = np.sum((yb > 0) & (pb > 0)), np.sum((yb < 0) & (pb > 0)), np.sum((yb > 0) & (pb <= 0))
    assert M.fscore(yb, pb) == pytest.approx(2 * tp / (2 * tp + fp + fn), abs=1e-15)


def test_docs_migration_block_numbers():
    """The RLScore-migration example of docs/python.md prints what it quotes."""
    import contextlib
    import io
    import re
    from conftest import module_root
    root = module_root()
    if root is None:
        pytest.skip("no rlskit sources (docs/python.md)")
    text = open(os.path.join(root, "docs", "python.md")).read()
    section = text.split("## RLScore migration", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(root)
        with contextlib.redirect_stdout(out):
            exec(compile(block, "docs/python.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert out.getvalue().startswith("0.125 3078.3178657") and "\n2645.1953635" in out.getvalue()


def test_bad_arguments_are_named():
    X, y = data()
    with pytest.raises(ValueError, match="kernel='RBF'"):
        RLS(X, y, kernel="RBF")
    with pytest.raises(TypeError, match="gama"):
        RLS(X, y, kernel="GaussianKernel", gama=0.1)
    with pytest.raises(ValueError, match="26 rows, Y 25"):
        RLS(X, y[:-1])
    with pytest.raises(ValueError, match="basis_vectors"):
        RLS(X, y, basis_vectors=X[:5])
    with pytest.raises(IndexError, match="holdout"):
        RLS(X, y).holdout([0, 0])
    with pytest.raises(ValueError, match="3 qids for 26 rows"):
        QueryRankRLS(X, y, [0, 0, 1])
    with pytest.raises(ValueError, match="smaller than the desired number 9"):
        GreedyRLS(X, y, 9)


def test_cg_kron_rls_closed_form():
    """CGKronRLS on incomplete drug–target pairs equals kernel ridge
    regression on the observed pairs, a = (K_SS + λI)⁻¹ y with K_SS the
    product kernel of the observed pairs, for kernel matrices and for the
    linear kernel without a bias (RLScore's X1, X2); its A is a, one
    coefficient per training pair in their order."""
    from rlskit.rlscore.learner import CGKronRLS
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "data")
    X1 = np.loadtxt(os.path.join(data, "dti-drugs.csv"), delimiter=",", skiprows=1)
    X2 = np.loadtxt(os.path.join(data, "dti-targets.csv"), delimiter=",", skiprows=1)
    T = np.loadtxt(os.path.join(data, "dti-pairs-train.txt"))
    U = np.loadtxt(os.path.join(data, "dti-pairs-unseen.txt"))
    r, c, y = T[:, 0].astype(int), T[:, 1].astype(int), T[:, 2]
    ur, uc = U[:, 0].astype(int), U[:, 1].astype(int)

    def gauss(A, B, g):
        return np.exp(-g * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))

    K1, K2 = gauss(X1, X1, 0.02), gauss(X2, X2, 0.05)
    for kw, L1, L2, lam in ((dict(K1=K1, K2=K2), K1, K2, 1.0), (dict(X1=X1, X2=X2), X1 @ X1.T, X2 @ X2.T, 10.0)):
        a = np.linalg.solve(L1[np.ix_(r, r)] * L2[np.ix_(c, c)] + lam * np.eye(len(y)), y)
        want = (L1[np.ix_(ur, r)] * L2[np.ix_(uc, c)]) @ a
        learner = CGKronRLS(Y=y, label_row_inds=r, label_col_inds=c, regparam=lam, maxiter=5000, **kw)
        args = (K1, K2) if "K1" in kw else (X1, X2)
        np.testing.assert_allclose(learner.predict(*args, ur, uc), want, rtol=1e-8, atol=1e-8)
        if "K1" in kw:
            np.testing.assert_allclose(learner.A, a, rtol=1e-7, atol=1e-8)
    with pytest.raises(ValueError, match="callback"):
        CGKronRLS(K1=K1, K2=K2, Y=y, label_row_inds=r, label_col_inds=c, regparam=1.0, callback=object())


def test_pair_learners_cv_methods_retraining():
    """KronRLS's leave_x1_out and out_of_sample_kfold_cv (which RLScore's
    KronRLS does not have) equal retraining Kronecker RLS without the held-out
    objects, on a small complete grid."""
    from rlskit.rlscore.learner import KronRLS
    rng = np.random.RandomState(2)
    X1, X2 = rng.randn(9, 3), rng.randn(7, 2)
    K1, K2 = np.exp(-0.3 * ((X1[:, None] - X1[None]) ** 2).sum(-1)), np.exp(-0.5 * ((X2[:, None] - X2[None]) ** 2).sum(-1))
    Y = rng.randn(9, 7)
    learner = KronRLS(K1=K1, K2=K2, Y=Y.ravel(order="F"), regparam=0.3)

    def retrain(R, C, rows, cols):
        a = np.linalg.solve(np.kron(K2[np.ix_(C, C)], K1[np.ix_(R, R)]) + 0.3 * np.eye(len(R) * len(C)),
                            Y[np.ix_(R, C)].ravel(order="F")).reshape(len(R), len(C), order="F")
        return K1[np.ix_(rows, R)] @ a @ K2[np.ix_(C, cols)]

    want = np.empty((9, 7))
    for i in range(9):
        want[i] = retrain(np.setdiff1d(np.arange(9), [i]), np.arange(7), [i], np.arange(7))
    np.testing.assert_allclose(learner.leave_x1_out(), want.ravel(order="F"), rtol=1e-9, atol=1e-9)
    rf, cf = [[0, 3, 6], [1, 4, 7], [2, 5, 8]], [[0, 2, 4, 6], [1, 3, 5]]
    for a in rf:
        for b in cf:
            want[np.ix_(a, b)] = retrain(np.setdiff1d(np.arange(9), a), np.setdiff1d(np.arange(7), b), a, b)
    np.testing.assert_allclose(learner.out_of_sample_kfold_cv(rf, cf), want.ravel(order="F"), rtol=1e-9, atol=1e-9)


def test_cg_rls_and_rankrls_closed_forms():
    """CGRLS is linear RLS with the bias feature √bias, and CGRankRLS
    RLScore's ranking loss (y − Xw)ᵀL(y − Xw) + λ‖w‖² with L = I − 11ᵀ/m, or
    I − 11ᵀ/m_q within each query: their predictions equal the closed forms
    (the core iterates to convergence)."""
    from rlskit.rlscore.learner import CGRankRLS, CGRLS
    rng = np.random.RandomState(4)
    X = rng.randn(60, 5)
    y = X @ rng.randn(5) + 0.3 * rng.randn(60)
    q = np.repeat(np.arange(6), 10)[rng.permutation(60)]
    for bias in (1.0, 0.0, 4.0):
        Xa = np.hstack([X, np.full((60, 1), np.sqrt(bias))])
        w = np.linalg.solve(Xa.T @ Xa + 0.7 * np.eye(6), Xa.T @ y)
        learner = CGRLS(X, y, regparam=0.7, bias=bias)
        np.testing.assert_allclose(learner.predict(X), Xa @ w, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(learner.A, w[:5], rtol=1e-9, atol=1e-9)
    for qids in (None, q):
        if qids is None:
            L = np.eye(60) - 1.0 / 60
        else:
            L = np.zeros((60, 60))
            for g in np.unique(q):
                i = np.flatnonzero(q == g)
                L[np.ix_(i, i)] = np.eye(len(i)) - 1.0 / len(i)
        w = np.linalg.solve(X.T @ L @ X + 1.5 * np.eye(5), X.T @ L @ y)
        learner = CGRankRLS(X, y, regparam=1.5, qids=qids)
        np.testing.assert_allclose(learner.predict(X), X @ w, rtol=1e-9, atol=1e-9)
        assert learner.regparam == 1.5
    with pytest.raises(ValueError, match="callbackfun"):
        CGRLS(X, y, callbackfun=object())
