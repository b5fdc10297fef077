"""rlskit: regularized least-squares learning with exact cross-validation,
a scikit-learn front end over the Go core (in process, through the C ABI of
cmd/librlskit). See docs/python.md."""

from ._lib import Model, RlskitError, learners
from .estimators import RLS, Estimator, GlobalRankRLS, GreedyRLS, QueryRankRLS
from .pairs import KronRLS, PairEstimator, TwoStepRLS

__all__ = ["RLS", "GlobalRankRLS", "QueryRankRLS", "GreedyRLS", "Estimator", "KronRLS", "TwoStepRLS", "PairEstimator",
           "learners", "Model", "RlskitError"]
