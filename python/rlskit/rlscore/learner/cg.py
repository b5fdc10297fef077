"""RLScore's conjugate-gradient learners (``rlscore.learner.CGRLS``,
``CGRankRLS``) over the Go core: linear RLS and RankRLS trained without a
factorization, as ``rlskit fit --solver cg`` trains them (package cg through
the learner registry: learners "rls" and "globalrank" declare
learn.CanCG).

RLScore stops SciPy's ``cg`` at its default relative residual (1e-5); the
core iterates to 1e-10 (or maxiter iterations), so the model here is the
minimizer RLScore's iterations approach: equal to its numbers to about the
residual RLScore stopped at, and to the closed form to rounding.
"""

import numpy as np

from . import _Core

__all__ = ["CGRLS", "CGRankRLS"]

_CG = {"solver": "cg", "tol": "1e-10", "max-iter": 100000}


def _no_callback(cls, callbackfun):
    if callbackfun is not None:
        raise ValueError("%s: callbackfun (a per-iteration model) is not supported by rlskit.rlscore: the Go core "
                         "runs the conjugate gradients to convergence and reports no per-iteration model" % cls)


class _CGLinear(_Core):
    """A linear model trained once at regparam; attributes predictor (W, b),
    A (RLScore's name for the weights W) and b."""

    def _train(self, regparam):
        model, res = self._fit(regparam)
        self.regparam = regparam
        self._model = model
        self.predictor = self._predictor(model)
        self.results = res

    @property
    def A(self):
        return self.predictor.W

    @property
    def b(self):
        return self.predictor.b


class CGRLS(_CGLinear):
    """Linear RLS by conjugate gradients (learner "rls", --solver cg):
    minimizes ‖Y − Xw − b‖² + regparam·‖(w, b/√bias)‖² with the bias as a
    constant feature √bias (RLScore's default bias=1.0). CGRLS(X, Y,
    regparam=1.0, bias=1.0). O(iterations·(nnz(X) + m + d)), nothing
    factored."""

    _learner = "rls"

    def __init__(self, X, Y, regparam=1.0, bias=1.0, callbackfun=None, **kwargs):
        _no_callback("CGRLS", callbackfun)
        if kwargs:
            raise TypeError("CGRLS: unexpected arguments %s" % ", ".join(sorted(kwargs)))
        self._extra = dict(_CG)
        self._setup(X, Y, "LinearKernel", None, {"bias": bias})
        self._train(regparam)


class CGRankRLS(_CGLinear):
    """Linear RankRLS by conjugate gradients, RLScore's loss: (y − Xw)ᵀ L
    (y − Xw) + regparam·‖w‖² with L = I − 11ᵀ/m over all rows (no qids), or
    L = I − 11ᵀ/m_q within each query (qids), no bias. Without qids this is
    the core's globalrank (whose loss is the Laplacian mI − 11ᵀ, so its λ
    is regparam·m) by conjugate gradients; with qids, queryrank with
    query-normalize (weights 1/m_q) at regparam, which the core trains by
    its direct solver (its conjugate gradients take no query weights) — the
    same minimizer. CGRankRLS(X, Y, regparam=1.0, qids=None)."""

    def __init__(self, X, Y, regparam=1.0, qids=None, callbackfun=None, **kwargs):
        _no_callback("CGRankRLS", callbackfun)
        if kwargs:
            raise TypeError("CGRankRLS: unexpected arguments %s" % ", ".join(sorted(kwargs)))
        if np.ndim(Y) == 2 and np.shape(Y)[1] > 1:
            raise ValueError("CGRankRLS: one label column (RLScore's CGRankRLS has no multi-label mode)")
        groups = None
        if qids is not None:
            _, groups = np.unique(np.asarray(qids), return_inverse=True)
            self._learner, self._extra = "queryrank", {"query-normalize": True}
        else:
            self._learner, self._extra = "globalrank", dict(_CG)
        self._setup(X, Y, "LinearKernel", None, {"bias": 0.0}, groups=groups)
        self.qids = qids
        self._regparam = regparam
        self._train(regparam * (self.size if qids is None else 1))
        self.regparam = regparam
