"""RLScore's kernels (``rlscore.kernel``): objects built on the basis rows
X that compute kernel matrices with ``getKM(Z)`` (rows of Z against the rows
of X, shape (n_Z, n_X)), in NumPy. The learners take the same kernels by
name (kernel="GaussianKernel", gamma=…), and then the Go core computes them.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["LinearKernel", "GaussianKernel", "PolynomialKernel", "PrecomputedKernel"]


def _dense(X):
    if sp.issparse(X):
        return np.asarray(X.todense(), dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    return X.reshape(1, -1) if X.ndim == 1 else X


class LinearKernel:
    """k(x, z) = x·z + bias (RLScore's default bias=1.0). getKM is O(n_Z·n_X·d)."""

    def __init__(self, X, bias=1.0):
        self.train_X = _dense(X)
        self.bias = float(bias)

    def getKM(self, X):
        return _dense(X) @ self.train_X.T + self.bias


class GaussianKernel:
    """k(x, z) = exp(−gamma·‖x − z‖²) (RLScore's default gamma=1.0)."""

    def __init__(self, X, gamma=1.0):
        if gamma <= 0:
            raise ValueError("GaussianKernel: gamma must be positive, got %r" % gamma)
        self.train_X = _dense(X)
        self.gamma = float(gamma)

    def getKM(self, X):
        Z = _dense(X)
        d2 = (np.sum(Z * Z, axis=1)[:, None] + np.sum(self.train_X ** 2, axis=1)[None, :]
              - 2.0 * Z @ self.train_X.T)
        return np.exp(-self.gamma * np.maximum(d2, 0.0))


class PolynomialKernel:
    """k(x, z) = (gamma·x·z + coef0)^degree (RLScore's defaults gamma=1.0,
    coef0=0.0, degree=2)."""

    def __init__(self, X, degree=2, gamma=1.0, coef0=0.0):
        self.train_X = _dense(X)
        self.degree, self.gamma, self.coef0 = int(degree), float(gamma), float(coef0)

    def getKM(self, X):
        return (self.gamma * (_dense(X) @ self.train_X.T) + self.coef0) ** self.degree


class PrecomputedKernel:
    """X is already the kernel matrix: getKM(K) returns K (rows: new
    points, columns: the training rows)."""

    def __init__(self, X=None):
        self.train_X = X

    def getKM(self, X):
        return _dense(X)
