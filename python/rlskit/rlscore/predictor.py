"""RLScore's predictors (``rlscore.predictor``): LinearPredictor (W, b) and
KernelPredictor (A, kernel). The learners' ``predictor`` attributes are
these, filled from the Go core's fitted model; their ``predict`` is the
core's (the same numbers as ``rlskit predict``), so the attributes and the
predictions agree with what RLScore's learners expose.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["LinearPredictor", "KernelPredictor"]


def _out(P, squeeze):
    return P[:, 0] if squeeze else P


class LinearPredictor:
    """f(x) = x·W + b. W: shape (d,) for one output, (d, t) for t; b a
    float or (t,) array. predict(X) has shape (n,) or (n, t). O(n·d·t)."""

    def __init__(self, W, b=0.0, _model=None):
        self.W = W
        self.b = b
        self._model = _model

    def predict(self, X):
        if self._model is not None:
            P = self._model.predict(_rows(X))
            return _out(P, np.ndim(self.W) == 1)
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X.reshape(1, -1)
        return X @ self.W + self.b


class KernelPredictor:
    """f(x) = Σ_i A_i k(x, x_i) over the training (basis) rows x_i: A has
    shape (m,) for one output, (m, t) for t; kernel is a kernel object
    (rlskit.rlscore.kernel) built on those rows. predict is O(n·m·d)."""

    def __init__(self, A, kernel, _model=None):
        self.A = A
        self.kernel = kernel
        self._model = _model

    def predict(self, X):
        if self._model is not None:
            P = self._model.predict(_rows(X))
            return _out(P, np.ndim(self.A) == 1)
        return self.kernel.getKM(X) @ self.A


def _rows(X):
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        return X
    X = np.ascontiguousarray(X, dtype=np.float64)
    return X.reshape(1, -1) if X.ndim == 1 else X
