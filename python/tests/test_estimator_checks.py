"""scikit-learn's own estimator suite, sklearn.utils.estimator_checks.

No check is skipped when pandas is installed (.ci/run installs Debian's
python3-pandas); without it scikit-learn skips the pandas parts of
check_regressor_data_not_an_array and check_dataframe_column_names_consistency,
and pytest reports them as skipped with that reason.

QueryRankRLS learns from query ids, which scikit-learn's checks do not
pass (they call fit(X, y) and score(X, y)): it is checked through
_QueryRankRLS3, the same estimator with rows split into three contiguous
queries (row i of m in query ⌊3i/m⌋) by its fit and score — every check
runs on QueryRankRLS's own code."""

import numpy as np
from sklearn.utils.estimator_checks import parametrize_with_checks

import rlskit


class _QueryRankRLS3(rlskit.QueryRankRLS):
    """QueryRankRLS with three contiguous queries supplied by fit and score."""

    @staticmethod
    def _queries(X):
        m = X.shape[0] if hasattr(X, "shape") else len(X)
        return np.arange(m) * 3 // max(m, 1)

    def fit(self, X, y):
        return super().fit(X, y, groups=self._queries(X))

    def score(self, X, y):
        return super().score(X, y, groups=self._queries(X))


@parametrize_with_checks([
    rlskit.RLS(),
    rlskit.RLS(kernel="gaussian", gamma=0.5, cv=3),
    rlskit.GlobalRankRLS(),
    rlskit.GlobalRankRLS(kernel="gaussian", gamma=0.5, cv="lpo"),
    _QueryRankRLS3(),
    rlskit.Estimator(),
    rlskit.GreedyRLS(),
    rlskit.GreedyRLS(n_features_to_select=2, cv=3, standardize=True),
    rlskit.Estimator(learner="globalrank", kernel="gaussian", gamma=0.5, cv=4),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)
