"""The RLScore-style scripts in python/examples/rlscore run unchanged but for
the import and print the same numbers (relative 1e-6) three ways:

- with rlskit.rlscore (the Go core);
- with RLScore itself (the import rewritten to ``rlscore``), when it is
  importable from RLSCORE_PATH (default /tmp/rlscore); skipped otherwise;
- with a reference written here in NumPy, independent of both: every
  hold-out by retraining (leave-one-out by the hat-matrix identity
  e_i = (y_i − ŷ_i)/(1 − H_ii)), pairwise measures by counting pairs.
"""

import os
import re
import subprocess
import sys
import types

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples", "rlscore")
SCRIPTS = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py") and f != "data.py")
RLSCORE = os.environ.get("RLSCORE_PATH", "/tmp/rlscore")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


# ---- the NumPy reference (module "refrls") -------------------------------------------

class UndefinedPerformance(Exception):
    pass


def _2d(a):
    a = np.asarray(a, dtype=float)
    return a.reshape(-1, 1) if a.ndim == 1 else a


def ref_sqerror(Y, P):
    return float(np.mean((_2d(Y) - _2d(P)) ** 2))


def _pairs(y, p):
    """Over every ordered pair with y_i > y_j: the count, and the pairs
    ordered right by p (a tie ½). O(n²) memory: fine for a few thousand."""
    above = y[:, None] > y[None, :]
    dp = p[:, None] - p[None, :]
    good = float(np.sum(above & (dp > 0)) + 0.5 * np.sum(above & (dp == 0)))
    return good, float(np.sum(above))


def ref_cindex(Y, P):
    Y, P = _2d(Y), _2d(P)
    vals = []
    for k in range(Y.shape[1]):
        g, n = _pairs(Y[:, k], P[:, k])
        if n:
            vals.append(g / n)
    if not vals:
        raise UndefinedPerformance("no pairs")
    return float(np.mean(vals))


def ref_auc(Y, P):
    return ref_cindex(Y, P)


def ref_accuracy(Y, P):
    Y, P = _2d(Y), _2d(P)
    return float(np.mean(np.where(Y * P > 0, 1.0, np.where(P == 0, 0.5, 0.0))))


def ref_ova_accuracy(Y, P):
    return float(np.mean(np.argmax(Y, axis=1) == np.argmax(P, axis=1)))


for _f, _e in ((ref_sqerror, True), (ref_cindex, False), (ref_auc, False), (ref_accuracy, False),
               (ref_ova_accuracy, False)):
    _f.iserror = _e


def ref_to_one_vs_all(Y, startzero=True):
    Y = np.asarray(Y, dtype=int) - (0 if startzero else 1)
    out = -np.ones((len(Y), Y.max() + 1))
    for i, c in enumerate(Y):
        out[i, c] = 1.0
    return out


def ref_from_one_vs_all(Y, startzero=True):
    return np.argmax(Y, axis=1) + (0 if startzero else 1)


def _kernel(name, args):
    if name == "LinearKernel":
        b = args.get("bias", 1.0)
        return lambda A, B: A @ B.T + b
    if name == "GaussianKernel":
        g = args.get("gamma", 1.0)
        return lambda A, B: np.exp(-g * ((A ** 2).sum(1)[:, None] + (B ** 2).sum(1)[None, :] - 2 * A @ B.T))
    if name == "PolynomialKernel":
        g, c, d = args.get("gamma", 1.0), args.get("coef0", 0.0), args.get("degree", 2)
        return lambda A, B: (g * A @ B.T + c) ** d
    raise ValueError(name)


def _L_all(n):
    return n * np.eye(n) - np.ones((n, n))


def _L_query(q):
    L = np.zeros((len(q), len(q)))
    for g in np.unique(q):
        idx = np.flatnonzero(q == g)
        L[np.ix_(idx, idx)] = np.eye(len(idx)) - 1.0 / len(idx)
    return L


class RefLearner:
    """Kernel RLS with loss (Y − KA)ᵀ L (Y − KA): L = I (RLS), all pairs
    (GlobalRankRLS), within-query centring (QueryRankRLS); A = (LK + λI)⁻¹ L Y."""

    L = None

    def __init__(self, X, Y, regparam=1.0, kernel="LinearKernel", basis_vectors=None, qids=None, **kw):
        self.X = np.asarray(X, dtype=float)
        self.one = np.ndim(Y) == 1
        self.Y = _2d(Y)
        self.q = None if qids is None else np.asarray(qids)
        self.k = _kernel(kernel, kw)
        self.bias = kw.get("bias", 1.0) if kernel == "LinearKernel" else None
        self.solve(regparam)

    @property
    def W(self):
        """The linear kernel's primal weights XᵀA (and b = bias·ΣA)."""
        return self._out(self.X.T @ self.A)

    @property
    def b(self):
        return float(self.bias * self.A.sum()) if self.one else self.bias * self.A.sum(axis=0)

    def _Lof(self, idx):
        if self.L == "rls":
            return np.eye(len(idx))
        if self.L == "all":
            return _L_all(len(idx))
        return _L_query(self.q[idx])

    def _train(self, idx, lam):
        K = self.k(self.X[idx], self.X[idx])
        L = self._Lof(idx)
        return np.linalg.solve(L @ K + lam * np.eye(len(idx)), L @ self.Y[idx])

    def solve(self, regparam=1.0):
        self.regparam = regparam
        self.A = self._train(np.arange(len(self.Y)), regparam)
        self.predictor = self

    def _out(self, P):
        return P[:, 0] if self.one else P

    def predict(self, X):
        return self._out(self.k(np.asarray(X, dtype=float), self.X) @ self.A)

    def holdout(self, idx):
        idx = np.asarray(idx)
        rest = np.setdiff1d(np.arange(len(self.Y)), idx)
        return self._out(self.k(self.X[idx], self.X[rest]) @ self._train(rest, self.regparam))

    def leave_one_out(self):
        K = self.k(self.X, self.X)
        H = K @ np.linalg.inv(K + self.regparam * np.eye(len(K)))
        return self._out(self.Y - (self.Y - H @ self.Y) / (1 - np.diag(H))[:, None])

    def leave_pair_out(self, a, b):
        P = np.array([np.atleast_2d(self._out2(self.holdout([i, j]))) for i, j in zip(a, b)])
        return self._out(P[:, 0, :]), self._out(P[:, 1, :])

    def _out2(self, P):
        return np.asarray(P).reshape(2, -1)


class RefPPRankRLS:
    """RankRLS from preferences: A = (L K + λI)⁻¹ Mᵀ1 with M the ±1
    incidence rows of the preferences (start minus end) and L = MᵀM."""

    def __init__(self, X, pairs_start_inds, pairs_end_inds, regparam=1.0, kernel="LinearKernel",
                 basis_vectors=None, **kw):
        self.X = np.asarray(X, dtype=float)
        self.k = _kernel(kernel, kw)
        s, e = np.asarray(pairs_start_inds), np.asarray(pairs_end_inds)
        self.M = np.zeros((len(s), len(self.X)))
        np.add.at(self.M, (np.arange(len(s)), s), 1.0)
        np.add.at(self.M, (np.arange(len(s)), e), -1.0)
        self.solve(regparam)

    def solve(self, regparam=1.0):
        self.regparam = regparam
        K, L = self.k(self.X, self.X), self.M.T @ self.M
        self.A = np.linalg.solve(L @ K + regparam * np.eye(len(K)), self.M.T @ np.ones(len(self.M)))

    def predict(self, X):
        return self.k(np.asarray(X, dtype=float), self.X) @ self.A


class RefRLS(RefLearner):
    L = "rls"


class RefGlobalRankRLS(RefLearner):
    L = "all"


class RefQueryRankRLS(RefLearner):
    L = "query"

    def __init__(self, X, Y, qids, regparam=1.0, kernel="LinearKernel", basis_vectors=None, **kw):
        super().__init__(X, Y, regparam, kernel, basis_vectors, qids=qids, **kw)


def _search(obj, learner, grid, cv, measure):
    perfs, preds = [], []
    for r in grid:
        learner.solve(r)
        v, p = cv()
        perfs.append(v)
        preds.append(p)
    perfs = np.array(perfs)
    obj.cv_performances, obj.cv_predictions = perfs, preds
    obj.regparam = grid[int(np.argmin(perfs) if measure.iserror else np.argmax(perfs))]
    learner.solve(obj.regparam)
    obj.predictor = learner


def _kfold(learner, folds, measure):
    preds = [learner.holdout(f) for f in folds]
    vals = []
    for f, p in zip(folds, preds):
        try:
            vals.append(measure(learner._out(learner.Y[np.asarray(f)]), p))
        except UndefinedPerformance:
            pass
    return float(np.mean(vals)), preds


def _lpo(learner):
    Y, vals = learner.Y, []
    for k in range(Y.shape[1]):
        s = []
        for i in range(len(Y)):
            for j in range(i + 1, len(Y)):
                if Y[i, k] != Y[j, k]:
                    P = learner._out2(learner.holdout([i, j]))
                    d = (P[0, k] - P[1, k]) * np.sign(Y[i, k] - Y[j, k])
                    s.append(1.0 if d > 0 else 0.5 if d == 0 else 0.0)
        vals.append(np.mean(s))
    return float(np.mean(vals)), None


GRID = [2.0 ** k for k in range(-15, 16)]


class RefLeaveOneOutRLS:
    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None, **kw):
        m = measure or ref_sqerror
        lr = RefRLS(X, Y, 1.0, kernel, **kw)
        _search(self, lr, regparams or GRID, lambda: (m(lr._out(lr.Y), lr.leave_one_out()), lr.leave_one_out()), m)
        self.cv_predictions = np.array(self.cv_predictions)

    def predict(self, X):
        return self.predictor.predict(X)


class _RefSearch:
    def predict(self, X):
        return self.predictor.predict(X)


class RefKfoldRLS(_RefSearch):
    def __init__(self, X, Y, folds, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None, **kw):
        m = measure or ref_sqerror
        lr = RefRLS(X, Y, 1.0, kernel, **kw)
        _search(self, lr, regparams or GRID, lambda: _kfold(lr, folds, m), m)


class RefKfoldRankRLS(_RefSearch):
    def __init__(self, X, Y, folds, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None, **kw):
        m = measure or ref_sqerror
        lr = RefGlobalRankRLS(X, Y, 1.0, kernel, **kw)
        _search(self, lr, regparams or GRID[:-1], lambda: _kfold(lr, folds, m), m)


class RefLeavePairOutRLS(_RefSearch):
    cls = RefRLS

    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None, **kw):
        lr = self.cls(X, Y, 1.0, kernel, **kw)
        _search(self, lr, regparams or GRID, lambda: _lpo(lr), ref_cindex)


class RefLeavePairOutRankRLS(RefLeavePairOutRLS):
    cls = RefGlobalRankRLS


class RefLeaveQueryOutRankRLS(_RefSearch):
    def __init__(self, X, Y, qids, kernel="LinearKernel", basis_vectors=None, regparams=None, measure=None, **kw):
        m = measure or ref_cindex
        lr = RefQueryRankRLS(X, Y, qids, 1.0, kernel, **kw)
        _, first = np.unique(qids, return_index=True)
        folds = [np.flatnonzero(np.asarray(qids) == qids[i]) for i in sorted(first)]
        _search(self, lr, regparams or GRID[:-1], lambda: _kfold(lr, folds, m), m)


class RefGreedyRLS:
    """Forward selection by the LOO squared error of linear RLS (bias column
    √bias), each candidate's LOO by the hat matrix in the primal."""

    def __init__(self, X, Y, subsetsize, regparam=1.0, bias=1.0, callbackfun=None, **kw):
        X, Y = np.asarray(X, dtype=float), _2d(Y)
        self.one = True
        ones = np.full((len(Y), 1), np.sqrt(bias))
        self.selected, self.performances = [], []

        def loo(cols):
            Z = np.hstack([X[:, cols], ones])
            H = Z @ np.linalg.solve(Z.T @ Z + regparam * np.eye(Z.shape[1]), Z.T)
            return np.mean(((Y - H @ Y) / (1 - np.diag(H))[:, None]) ** 2)

        for _ in range(subsetsize):
            errs = [(loo(self.selected + [f]), f) for f in range(X.shape[1]) if f not in self.selected]
            e, f = min(errs)
            self.selected.append(f)
            self.performances.append(e)
            self._fit(X, Y, ones, regparam, bias)
            if callbackfun is not None:
                callbackfun.callback(self)
        self.predictor = self
        if callbackfun is not None:
            callbackfun.finished(self)

    def _fit(self, X, Y, ones, regparam, bias):
        Z = np.hstack([X[:, self.selected], ones])
        w = np.linalg.solve(Z.T @ Z + regparam * np.eye(Z.shape[1]), Z.T @ Y)
        self.W = np.zeros(X.shape[1])
        self.W[self.selected] = w[:-1, 0]
        self.b = float(w[-1, 0] * np.sqrt(bias))

    def predict(self, X):
        return np.asarray(X, dtype=float) @ self.W + self.b


def _pair_kernels(kw):
    """K1, K2 given, or the linear kernels x·z (no bias) of X1, X2."""
    if "K1" in kw:
        return np.asarray(kw["K1"], dtype=float), np.asarray(kw["K2"], dtype=float), None, None
    X1, X2 = np.asarray(kw["X1"], dtype=float), np.asarray(kw["X2"], dtype=float)
    return X1 @ X1.T, X2 @ X2.T, X1, X2


class _RefPairs:
    """What the two references of pairs share: the data (Y[i + j·n1] labels
    (i, j)), predict, and the hold-outs of objects by retraining."""

    def __init__(self, kw):
        self.K1, self.K2, self.X1, self.X2 = _pair_kernels(kw)
        self.m, self.q = len(self.K1), len(self.K2)
        self.Ymat = np.asarray(kw["Y"], dtype=float).reshape(self.m, self.q, order="F")

    def predict(self, X1, X2, inds_X1pred=None, inds_X2pred=None):
        k1 = np.asarray(X1, dtype=float) @ self.X1.T if self.X1 is not None else np.asarray(X1, dtype=float)
        k2 = np.asarray(X2, dtype=float) @ self.X2.T if self.X2 is not None else np.asarray(X2, dtype=float)
        P = k1 @ self.A @ k2.T
        if inds_X1pred is None:
            return P.ravel(order="F")
        return P[np.asarray(inds_X1pred), np.asarray(inds_X2pred)]

    def _block(self, rows_out, cols_out):
        """Predictions for the block rows_out × cols_out by the model trained
        on the other rows and columns (retraining)."""
        R = np.setdiff1d(np.arange(self.m), rows_out)
        C = np.setdiff1d(np.arange(self.q), cols_out)
        A = self._train(self.K1[np.ix_(R, R)], self.K2[np.ix_(C, C)], self.Ymat[np.ix_(R, C)])
        return self.K1[np.ix_(rows_out, R)] @ A @ self.K2[np.ix_(C, cols_out)]

    def _blocks(self, rowfolds, colfolds):
        P = np.empty((self.m, self.q))
        for rf in rowfolds:
            for cf in colfolds:
                P[np.ix_(rf, cf)] = self._block(np.asarray(rf), np.asarray(cf))
        return P.ravel(order="F")

    def x1_kfold_cv(self, folds):
        P = np.empty((self.m, self.q))
        for f in folds:
            f = np.asarray(f)
            P[f] = self._rows_out(f)
        return P.ravel(order="F")

    def _rows_out(self, f):
        R = np.setdiff1d(np.arange(self.m), f)
        A = self._train(self.K1[np.ix_(R, R)], self.K2, self.Ymat[R])
        return self.K1[np.ix_(f, R)] @ A @ self.K2

    def _cols_out(self, f):
        C = np.setdiff1d(np.arange(self.q), f)
        A = self._train(self.K1, self.K2[np.ix_(C, C)], self.Ymat[:, C])
        return self.K1 @ A @ self.K2[np.ix_(C, f)]

    def x2_kfold_cv(self, folds):
        P = np.empty((self.m, self.q))
        for f in folds:
            f = np.asarray(f)
            P[:, f] = self._cols_out(f)
        return P.ravel(order="F")

    def leave_x1_out(self):
        return self.x1_kfold_cv([[i] for i in range(self.m)])

    def leave_x2_out(self):
        return self.x2_kfold_cv([[j] for j in range(self.q)])

    def out_of_sample_kfold_cv(self, rowfolds, colfolds):
        return self._blocks(rowfolds, colfolds)

    def out_of_sample_loo(self):
        return self._blocks([[i] for i in range(self.m)], [[j] for j in range(self.q)])


class RefKronRLS(_RefPairs):
    """Kronecker KRR by the n1·n2 linear system (K2⊗K1 + λI) vec(A) = vec(Y);
    in-sample LOO by the hat-matrix identity of kernel ridge regression,
    e_i = (y_i − ŷ_i)/(1 − H_ii), which equals retraining without pair i."""

    def __init__(self, **kw):
        super().__init__(kw)
        self.solve(kw.get("regparam", 1.0))

    def _train(self, K1, K2, Y):
        a = np.linalg.solve(np.kron(K2, K1) + self.regparam * np.eye(Y.size), Y.ravel(order="F"))
        return a.reshape(Y.shape, order="F")

    def solve(self, regparam):
        self.regparam = regparam
        self.A = self._train(self.K1, self.K2, self.Ymat)

    def in_sample_loo(self):
        KK = np.kron(self.K2, self.K1)
        y = self.Ymat.ravel(order="F")
        inv = np.linalg.inv(KK + self.regparam * np.eye(len(y)))
        h = 1.0 - self.regparam * np.diag(inv)  # diag of H = KK (KK + λI)⁻¹ = I − λ(KK + λI)⁻¹
        fitted = y - self.regparam * (inv @ y)
        return (fitted - h * y) / (1.0 - h)


class RefTwoStepRLS(_RefPairs):
    """Two-step RLS A = (K1 + λ1 I)⁻¹ Y (K2 + λ2 I)⁻¹; the hold-outs of
    objects by retraining on the rest; in-sample LOO by the identity of the
    linear smoother H2 ⊗ H1 (its definition for two-step RLS: Stock et al.
    2018)."""

    def __init__(self, **kw):
        super().__init__(kw)
        self.solve(kw["regparam1"], kw["regparam2"])

    def _train(self, K1, K2, Y):
        left = np.linalg.solve(K1 + self.regparam1 * np.eye(len(K1)), Y)
        return np.linalg.solve(K2 + self.regparam2 * np.eye(len(K2)), left.T).T

    def solve(self, regparam1, regparam2):
        self.regparam1, self.regparam2 = regparam1, regparam2
        self.A = self._train(self.K1, self.K2, self.Ymat)

    def in_sample_loo(self):
        H1 = self.K1 @ np.linalg.inv(self.K1 + self.regparam1 * np.eye(self.m))
        H2 = self.K2 @ np.linalg.inv(self.K2 + self.regparam2 * np.eye(self.q))
        P = H1 @ self.Ymat @ H2.T
        h = np.outer(np.diag(H1), np.diag(H2))
        return ((P - h * self.Ymat) / (1.0 - h)).ravel(order="F")


def install_reference():
    """Register the reference as the package "refrls" (learner, measure,
    utilities.multiclass) in sys.modules."""
    pkg = types.ModuleType("refrls")
    learner = types.ModuleType("refrls.learner")
    measure = types.ModuleType("refrls.measure")
    util = types.ModuleType("refrls.utilities")
    multi = types.ModuleType("refrls.utilities.multiclass")
    for name in ("RLS", "GlobalRankRLS", "QueryRankRLS", "LeaveOneOutRLS", "KfoldRLS", "KfoldRankRLS",
                 "LeavePairOutRLS", "LeavePairOutRankRLS", "LeaveQueryOutRankRLS", "GreedyRLS", "KronRLS", "TwoStepRLS",
                 "PPRankRLS"):
        setattr(learner, name, globals()["Ref" + name])
    for name in ("sqerror", "cindex", "auc", "accuracy", "ova_accuracy"):
        setattr(measure, name, globals()["ref_" + name])
    measure.UndefinedPerformance = UndefinedPerformance
    multi.to_one_vs_all, multi.from_one_vs_all = ref_to_one_vs_all, ref_from_one_vs_all
    pkg.learner, pkg.measure, pkg.utilities, util.multiclass = learner, measure, util, multi
    sys.modules.update({"refrls": pkg, "refrls.learner": learner, "refrls.measure": measure,
                        "refrls.utilities": util, "refrls.utilities.multiclass": multi})


# ---- running the scripts ----------------------------------------------------------------

RUNNER = r"""
import sys
path, package = sys.argv[1], sys.argv[2]
if package == "refrls":
    sys.path.insert(0, sys.argv[3])
    import test_rlscore_examples
    test_rlscore_examples.install_reference()
src = open(path).read()
if package != "rlskit.rlscore":
    src = src.replace("rlskit.rlscore", package)
sys.path.insert(0, sys.argv[4])
exec(compile(src, path, "exec"), {"__name__": "__main__", "__file__": path})
"""


def run(script, package, pythonpath=None):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")  # small solves: one thread is faster
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", RUNNER, os.path.join(EXAMPLES, script), package, HERE, EXAMPLES],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, "%s with %s:\n%s" % (script, package, out.stderr)
    return out.stdout


def same_numbers(a, b, what):
    """The two outputs have the same words and numbers equal to 1e-6
    (relative, or absolute near 0)."""
    assert NUMBER.sub("#", a) == NUMBER.sub("#", b), "%s: the text differs:\n%s\n---\n%s" % (what, a, b)
    x = np.array([float(v) for v in NUMBER.findall(a)])
    y = np.array([float(v) for v in NUMBER.findall(b)])
    np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6, err_msg=what)


def test_at_least_eight_scripts():
    assert len(SCRIPTS) >= 8, SCRIPTS
    for s in SCRIPTS:
        text = open(os.path.join(EXAMPLES, s)).read()
        assert "from rlskit.rlscore" in text and "import rlscore" not in text.replace("rlskit.rlscore", "")


@pytest.fixture(scope="module")
def outputs():
    return {}


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_equals_numpy_reference(script, outputs):
    if script not in outputs:
        outputs[script] = run(script, "rlskit.rlscore")
    ours = outputs[script]
    same_numbers(ours, run(script, "refrls"), script + " (NumPy reference)")


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_equals_rlscore(script, outputs):
    if not os.path.isdir(os.path.join(RLSCORE, "rlscore")):
        pytest.skip("RLScore not found at %s (set RLSCORE_PATH): compared with the NumPy reference only" % RLSCORE)
    if script not in outputs:
        outputs[script] = run(script, "rlskit.rlscore")
    ours = outputs[script]
    same_numbers(ours, run(script, "rlscore", pythonpath=RLSCORE), script + " (RLScore)")
