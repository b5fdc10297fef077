"""RLScore's maximum margin clustering (``rlscore.learner.steepest_descent_mmc
.SteepestDescentMMC``) over the Go core's learner "mmc" (package mmc,
through the C ABI's clustering entry: the registry's descriptor takes
learn.ParamClusters).

The labelling of the m rows into K clusters, coded Y ∈ {±1}^{m×K}, minimizes
J(Y) = Σ_c (m − y_cᵀ R y_c) with R = K(K + λI)⁻¹ — the loss the
one-versus-all RLS models of the labelling leave — by the steepest-descent
search with class rotation of Pahikkala, Airola, Gieseke & Kramer (2012,
ICDM): 20 rounds in which each cluster in turn claims the rows whose move
into it raises J least, up to m/K plus a surplus halving every round. From
the same initial labelling the core ends at RLScore's labelling (tested).

Differences from RLScore's class: ``predictor`` (and ``A``, ``predict``) is
the RLS model of the final labelling, A = (K + λI)⁻¹Y; RLScore's keeps the
model of the initial labelling (its search never updates A).
``fixed_indices``, ``callback`` and ``basis_vectors`` are refused (the
core fixes no rows and reports no per-round state). ``objective`` (J of the
labels) is an addition.

RLScore's ``rlscore.learner.mmc.MMC`` (a round-robin first-improvement
search) is neither exported by RLScore's ``rlscore.learner`` nor runnable
with current NumPy; this module does not mimic it.
"""

import json
import random

import numpy as np

from ..._lib import Model
from ..predictor import KernelPredictor, LinearPredictor
from .. import kernel as _kernels
from . import _KERNELS, _kernel_settings, _rows

__all__ = ["SteepestDescentMMC"]


def _rlscore_start(m, k):
    """RLScore's default initial labelling (its RandomLabelSource): Python's
    random.Random seeded 100 draws m // k rows for each of the first k − 1
    clusters, without replacement, from the rows left (taken in the
    iteration order of a Python set of them); the rest form the last one."""
    rand = random.Random()
    rand.seed(100)
    labels = np.full(m, k - 1, dtype=np.int64)
    left = set(range(m))
    for c in range(k - 1):
        take = rand.sample(list(left), int(m / k))
        left = left - set(take)
        labels[take] = c
    return labels


def _initial_labels(Y, m):
    """An initial labelling from RLScore's Y: a vector (positive: cluster 0,
    else 1; as RLScore, a 0 goes to cluster 0) or an m×K matrix (each row's
    first largest entry). Returns (labels, K, one-vector form)."""
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        if Y.shape[0] != m:
            raise ValueError("SteepestDescentMMC: Y has %d entries for %d rows" % (Y.shape[0], m))
        return np.where(Y >= -Y, 0, 1).astype(np.int64), 2, True
    if Y.ndim != 2 or Y.shape[0] != m:
        raise ValueError("SteepestDescentMMC: Y: want shape (%d,) or (%d, K), got %s" % (m, m, Y.shape))
    return np.argmax(Y, axis=1).astype(np.int64), Y.shape[1], False


class SteepestDescentMMC:
    """Maximum margin clustering by RLS (Pahikkala et al. 2012): the core's
    learner "mmc" at one kernel and regparam from one initial labelling —
    Y's when given, else RLScore's seeded default. Cost: R from a Cholesky
    factor of K + λI and its inverse (about m³ flops, m² numbers kept), then about
    2m–3m moves of O(m).

    SteepestDescentMMC(X, regparam=1.0, number_of_clusters=2,
    kernel='LinearKernel', basis_vectors=None, Y=None, fixed_indices=None,
    callback=None, bias=1.0 | gamma=1.0 | gamma, coef0, degree).
    fixed_indices: rows whose cluster of the initial labelling the search
    keeps, as documented (RLScore's own search ignores them).
    Attributes: Y (the final labelling, ±1: a vector, +1 for cluster 0, with
    two clusters and no matrix Y given; else m×K), classvec (a cluster per
    row), classcounts, labelcount, size, regparam, results
    ({'predicted_clusters_for_training_data': Y}), objective (J), predictor
    and A (the RLS model of the final labelling); predict(X)."""

    def __init__(self, X, regparam=1.0, number_of_clusters=2, kernel="LinearKernel", basis_vectors=None, Y=None,
                 fixed_indices=None, callback=None, **kwargs):
        if basis_vectors is not None:
            raise ValueError("SteepestDescentMMC: basis_vectors (an explicit reduced set) is not supported by rlskit.rlscore")
        if callback is not None:
            raise ValueError("SteepestDescentMMC: callback: the core reports no per-round state to Python")
        self._X = _rows(X)
        self.size = self._X.shape[0]
        if Y is not None:
            init, self.labelcount, self.oneclass = _initial_labels(Y, self.size)
        else:
            self.labelcount = int(number_of_clusters)
            self.oneclass = self.labelcount == 2
            if not 2 <= self.labelcount <= self.size:
                raise ValueError("SteepestDescentMMC: number_of_clusters=%r: want 2 … %d" % (number_of_clusters, self.size))
            init = _rlscore_start(self.size, self.labelcount)
        self._init = init
        # RLScore documents fixed_indices for this learner but its search never
        # reads them (only its MMC honours them); the core keeps those rows
        self._fixed = None if fixed_indices is None or not len(fixed_indices) else \
            np.asarray(fixed_indices, dtype=np.int64)
        self._kernel_name = kernel
        self._kernel_args = dict(kwargs)
        self._ks = _kernel_settings(kernel, kwargs, "SteepestDescentMMC")
        self.solve(regparam)

    def solve(self, regparam):
        """Run the search from the initial labelling at regparam (one core
        fit); sets the labelling, objective and predictor."""
        s = {"learner": "mmc", "lambda": repr(float(regparam)), "clusters": int(self.labelcount)}
        s.update(self._ks)
        model = Model()
        res = model.fit(s, self._X, None, init=self._init, fixed=self._fixed)["summary"]
        self.regparam = regparam
        self._model = model
        self.classvec = np.array(res["labels"], dtype=np.int32)
        self.classcounts = np.array(res["counts"], dtype=np.int32)
        self.objective = float(res["objective"])
        Y = -np.ones((self.size, self.labelcount))
        Y[np.arange(self.size), self.classvec] = 1.0
        self.Y = Y[:, 0] if self.oneclass else Y
        self.results = {"predicted_clusters_for_training_data": self.Y}
        doc = json.loads(model.to_json())
        k = self.labelcount
        if doc["type"] == "linear":
            W = np.array(doc["weights"], dtype=np.float64).reshape(-1, k)
            b = np.array(doc["intercept"], dtype=np.float64)
            self.predictor = LinearPredictor(W[:, 0], float(b[0]), _model=model) if self.oneclass else \
                LinearPredictor(W, b, _model=model)
            self._A = None
        else:
            A = np.array(doc["coefficients"], dtype=np.float64).reshape(-1, k)
            name, defaults = _KERNELS[self._kernel_name]
            args = {a: self._kernel_args.get(a, v) for a, v in defaults.items()}
            kern = getattr(_kernels, self._kernel_name)(self._X, **args)
            self._A = A[:, :1] if self.oneclass else A
            self.predictor = KernelPredictor(A[:, 0] if self.oneclass else A, kern, _model=model)

    @property
    def A(self):
        """The dual coefficients of the final labelling's RLS model,
        (K + λI)⁻¹Y: shape (m, 1) with two clusters in vector form (the
        first cluster's column, as RLScore's), else (m, K)."""
        if self._A is None:
            raise AttributeError("SteepestDescentMMC: A of a linear-kernel model is not kept; use predictor.W and predictor.b")
        return self._A

    def predict(self, X):
        """The final labelling's RLS model on the rows of X: shape (n,)
        (cluster 0's output) in vector form, else (n, K); argmax is the
        cluster."""
        return self.predictor.predict(X)
