"""RLScore's learners of pairs (``rlscore.learner.KronRLS``, ``TwoStepRLS``,
``CGKronRLS``) over the Go core's learners "kronrls" and "twostep" (C ABI
rlskit_fit_pairs, pairfit.Fit).

RLScore's conventions are kept: the objects come as X1 (row objects) and X2
(column objects) for the linear kernel x·z without a bias, or as kernel
matrices K1 and K2; the labels Y of a complete data set are a vector with
Y[i + j·n1] the label of (X1[i], X2[j]) (column order) — every prediction
and every cross-validation method returns that order too; ``predict(X1,
X2, inds_X1pred, inds_X2pred)`` predicts the pairs (X1[inds_X1pred[k]],
X2[inds_X2pred[k]]), or without indices every pair in column order
(kernel mode: K1pred, n1'×n1 kernel values of the new row objects against
the training ones, and K2pred likewise).

Each cross-validation method is one core fit at the current λ with the
setting it names (Pahikkala et al. 2015): in_sample_loo leaves a pair out
(setting A), leave_x1_out a row object (B), leave_x2_out a column object
(C), out_of_sample_loo a row and a column object with every pair touching
either (D); x1_kfold_cv, x2_kfold_cv and out_of_sample_kfold_cv take folds
of objects. The core computes each by its exact shortcut, equal to
retraining; KronRLS has the same methods (RLScore's KronRLS has only
in_sample_loo).
"""

import json

import numpy as np

from ..._lib import Model

__all__ = ["KronRLS", "TwoStepRLS", "CGKronRLS"]


def _matrix(a, name, cls):
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    if a.ndim != 2:
        raise ValueError("%s: %s: want a 2-D array, got shape %s" % (cls, name, a.shape))
    return a


def _fold_numbers(folds, n, name):
    """RLScore's folds (a list of index lists) as a fold number per object
    (-1: in no fold)."""
    out = np.full(n, -1, dtype=np.int64)
    for k, f in enumerate(folds):
        f = np.asarray(f, dtype=np.int64).ravel()
        if f.size == 0:
            raise ValueError("%s: fold %d is empty" % (name, k))
        if f.min() < 0 or f.max() >= n:
            raise IndexError("%s: fold %d has an object outside 0..%d" % (name, k, n - 1))
        if np.any(out[f] >= 0):
            raise ValueError("%s: object %d is in two folds" % (name, int(f[out[f] >= 0][0])))
        out[f] = k
    return out


class _PairPredictor:
    """RLScore's KernelPairwisePredictor / LinearPairwisePredictor: A (the
    dual coefficients: n1×n2 on complete data, one per training pair after
    CGKronRLS) or W (linear, d1×d2), and predict — the core's."""

    def __init__(self, model, kernelmode, A=None, W=None):
        self._model = model
        self._kernelmode = kernelmode
        if A is not None:
            self.A = A
        if W is not None:
            self.W = W

    def predict(self, X1=None, X2=None, inds_X1pred=None, inds_X2pred=None, pko=None):
        if pko is not None:
            raise ValueError("predict: pko (RLScore's pairwise kernel operator) is not supported; give X1, X2 "
                             "(or K1pred, K2pred) and the indices")
        if X1 is None or X2 is None:
            raise ValueError("predict: give the row and column objects X1 and X2 (kernel mode: K1pred, K2pred)")
        X1 = np.asarray(X1, dtype=np.float64)
        X2 = np.asarray(X2, dtype=np.float64)
        X1 = X1.reshape(1, -1) if X1.ndim == 1 else X1
        X2 = X2.reshape(1, -1) if X2.ndim == 1 else X2
        if inds_X1pred is None and inds_X2pred is None:
            n1, n2 = X1.shape[0], X2.shape[0]
            rows, cols = np.tile(np.arange(n1), n2), np.repeat(np.arange(n2), n1)
        elif inds_X1pred is None or inds_X2pred is None:
            raise ValueError("predict: give both inds_X1pred and inds_X2pred, or neither (every pair)")
        else:
            rows = np.asarray(inds_X1pred, dtype=np.int64).ravel()
            cols = np.asarray(inds_X2pred, dtype=np.int64).ravel()
        return self._model.predict_pairs(np.column_stack([rows, cols]), X1, X2)


class _PairCore:
    """What the learners of pairs share: the objects, the labelled pairs and
    one core fit per (λ, setting)."""

    _learner = None

    def _setup(self, kwargs, complete=True):
        cls = type(self).__name__
        if "Y" not in kwargs:
            raise TypeError("%s: Y (the labels) is required" % cls)
        if "K1" in kwargs or "K2" in kwargs:
            self.K1 = _matrix(kwargs["K1"], "K1", cls)
            self.K2 = _matrix(kwargs["K2"], "K2", cls)
            self._R, self._C, self.kernelmode = self.K1, self.K2, True
            self._ks = {"kernel": "precomputed"}
        elif "X1" in kwargs or "X2" in kwargs:
            self.X1 = _matrix(kwargs["X1"], "X1", cls)
            self.X2 = _matrix(kwargs["X2"], "X2", cls)
            self._R, self._C, self.kernelmode = self.X1, self.X2, False
            # RLScore's linear KronRLS: f(u, v) = x_uᵀ W z_v, the kernel x·z without a bias
            self._ks = {"kernel": "linear", "bias": "0.0", "col-bias": "0.0"}
        else:
            raise TypeError("%s: give the objects as X1 and X2 (linear) or as kernel matrices K1 and K2" % cls)
        self.Y = np.asarray(kwargs["Y"], dtype=np.float64)
        m, q = self._R.shape[0], self._C.shape[0]
        if complete:
            y = self.Y.ravel(order="F")
            if y.size != m * q:
                raise ValueError("%s: Y has %d labels for the %d×%d pairs of a complete data set (Y[i + j·n1] labels "
                                 "(X1[i], X2[j]))" % (cls, y.size, m, q))
            self._pairs = np.column_stack([np.tile(np.arange(m), q), np.repeat(np.arange(q), m)])
            self._y = y
        self._m, self._q = m, q

    def _lambdas(self):
        raise NotImplementedError

    def _fit(self, cv="none", row_folds=None, col_folds=None, extra=None):
        s = {"learner": self._learner, "cv": cv, "seed": 1}
        s.update(self._ks)
        s.update(self._lambdas())
        if extra:
            s.update(extra)
        model = Model()
        res = model.fit_pairs(s, self._R, self._C, self._pairs, self._y, row_folds, col_folds)
        return model, res

    def _set_model(self, model):
        doc = json.loads(model.to_json())
        if "coefficients" in doc:
            A = np.array(doc["coefficients"], dtype=np.float64)
        else:  # conjugate gradients: one coefficient per observed pair, in the order of the training pairs
            e = doc["entries"]
            at = {(r, c): v for r, c, v in zip(e["rows"], e["cols"], e["values"])}
            A = np.array([at.get((int(r), int(c)), 0.0) for r, c in self._pairs])
        self._model = model
        if self.kernelmode:
            self.A = A
            self.predictor = _PairPredictor(model, True, A=A)
        else:
            W = self._primal(A)
            self.W = W
            self.predictor = _PairPredictor(model, False, W=W)

    def _primal(self, A):
        """The linear model's W (d1×d2) with f(u, v) = x_uᵀ W z_v: X1ᵀ A X2
        from the dual A (n1×n2), or Σ_k A_k x_{r_k} z_{c_k}ᵀ over the
        training pairs after CGKronRLS."""
        if A.ndim == 2:
            return self.X1.T @ A @ self.X2
        return (self.X1[self._pairs[:, 0]] * A[:, None]).T @ self.X2[self._pairs[:, 1]]

    def predict(self, X1=None, X2=None, inds_X1pred=None, inds_X2pred=None, pko=None):
        """Predictions for pairs of (new) objects; see the module doc."""
        return self.predictor.predict(X1, X2, inds_X1pred, inds_X2pred, pko)

    def _cv(self, cv, row_folds=None, col_folds=None):
        model, _ = self._fit(cv, row_folds, col_folds)
        return model.cv_predictions(len(self._y), 1).ravel()

    def in_sample_loo(self):
        """Leave-one-pair-out predictions (setting A), in column order:
        F[i + j·n1] predicts (X1[i], X2[j]) from every other label."""
        return self._cv("pairs")

    def leave_x1_out(self):
        """Each row object left out with all its pairs (setting B)."""
        return self._cv("rows")

    def leave_x2_out(self):
        """Each column object left out with all its pairs (setting C)."""
        return self._cv("cols")

    def out_of_sample_loo(self):
        """Pair (i, j) predicted without row object i, column object j and
        every pair touching either (setting D)."""
        return self._cv("both")

    def x1_kfold_cv(self, folds):
        """Folds of row objects left out with their pairs (setting B)."""
        return self._cv("rows", row_folds=_fold_numbers(folds, self._m, "folds"))

    def x2_kfold_cv(self, folds):
        """Folds of column objects left out with their pairs (setting C)."""
        return self._cv("cols", col_folds=_fold_numbers(folds, self._q, "folds"))

    def out_of_sample_kfold_cv(self, rowfolds, colfolds):
        """Pair (i, j) predicted without the row fold of i, the column fold
        of j and every pair touching either (setting D)."""
        return self._cv("both", row_folds=_fold_numbers(rowfolds, self._m, "rowfolds"),
                        col_folds=_fold_numbers(colfolds, self._q, "colfolds"))

    def in_sample_kfoldcv(self, folds, maxiter=None):
        raise NotImplementedError("in_sample_kfoldcv: k-fold over pairs (setting A) is not in the Go core, which "
                                  "leaves each pair out alone (in_sample_loo) or folds of objects (x1_kfold_cv, "
                                  "x2_kfold_cv, out_of_sample_kfold_cv)")


class KronRLS(_PairCore):
    """Kronecker RLS on a complete data set (learner "kronrls"; Pahikkala et
    al. 2013): A = U[(UᵀYV) ⊘ (e sᵀ + λ)]Vᵀ from the two eigendecompositions.
    KronRLS(X1=, X2=, Y=, regparam=1.0) or (K1=, K2=, Y=, regparam=1.0);
    solve(regparam) retrains (one core fit, O(n1³ + n2³)); attributes
    predictor, A (kernel mode, n1×n2) or W (linear, d1×d2), regparam."""

    _learner = "kronrls"

    def __init__(self, **kwargs):
        self._setup(kwargs)
        self.regparam = kwargs.get("regparam", 1.0)
        self.solve(self.regparam)

    def _lambdas(self):
        return {"lambda": repr(float(self.regparam))}

    def solve(self, regparam):
        """Retrain at regparam."""
        self.regparam = regparam
        model, _ = self._fit()
        self._set_model(model)


class TwoStepRLS(_PairCore):
    """Two-step RLS on a complete data set (learner "twostep"; Pahikkala et
    al. 2014): A = (K1 + λ1 I)⁻¹ Y (K2 + λ2 I)⁻¹. TwoStepRLS(X1=, X2=, Y=,
    regparam1=, regparam2=) or with K1, K2; solve(regparam1, regparam2)
    retrains; attributes predictor, A or W, regparam1, regparam2."""

    _learner = "twostep"

    def __init__(self, **kwargs):
        self._setup(kwargs)
        for k in ("regparam1", "regparam2"):
            if k not in kwargs:
                raise TypeError("TwoStepRLS: %s is required" % k)
        self.solve(kwargs["regparam1"], kwargs["regparam2"])

    def _lambdas(self):
        return {"lambda": repr(float(self.regparam1)), "col-lambda": repr(float(self.regparam2))}

    def solve(self, regparam1, regparam2):
        """Retrain at (regparam1, regparam2)."""
        self.regparam1, self.regparam2 = regparam1, regparam2
        model, _ = self._fit()
        self._set_model(model)


class CGKronRLS(_PairCore):
    """Kronecker RLS on incomplete data by conjugate gradients (learner
    "kronrls" on the pairs label_row_inds, label_col_inds; Airola &
    Pahikkala 2018): CGKronRLS(X1=, X2=, Y=, label_row_inds=,
    label_col_inds=, regparam=, maxiter=) or with K1, K2. The core iterates
    to a relative residual of 1e-10 (or maxiter iterations), so its model is
    the minimizer RLScore's MINRES approaches. regparam must be > 0 (RLScore's
    default 0 is a least-squares fit the core refuses). callback (a
    per-iteration model) is not supported. Attributes predictor, A (one
    coefficient per training pair) or W."""

    _learner = "kronrls"

    def __init__(self, **kwargs):
        for k in ("callback", "pko", "weights", "warm_start"):
            if kwargs.get(k) is not None:
                raise ValueError("CGKronRLS: %s is not supported by rlskit.rlscore (the Go core runs the conjugate "
                                 "gradients to convergence and reports no per-iteration model)" % k)
        self._setup(kwargs, complete=False)
        for k in ("label_row_inds", "label_col_inds"):
            if k not in kwargs:
                raise TypeError("CGKronRLS: %s is required" % k)
        rows = np.asarray(kwargs["label_row_inds"], dtype=np.int64).ravel()
        cols = np.asarray(kwargs["label_col_inds"], dtype=np.int64).ravel()
        self._pairs = np.column_stack([rows, cols])
        self._y = np.ravel(self.Y)
        self.regparam = kwargs.get("regparam", 0.0)
        self._maxiter = kwargs.get("maxiter")
        model, res = self._fit(extra={"solver": "cg", "cv": "none",
                                      **({} if self._maxiter is None else {"max-iter": int(self._maxiter)})})
        self.convergence_info = res["summary"].get("cg")
        self._set_model(model)

    def _lambdas(self):
        return {"lambda": repr(float(self.regparam))}
