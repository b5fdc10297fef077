"""scikit-learn's own estimator suite. Skipped checks (reported by pytest
as skipped, with the reason): check_regressor_data_not_an_array's pandas
part when pandas is not installed, and check_dataframe_column_names_consistency
for the same reason."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import rlskit


@parametrize_with_checks([rlskit.RLS(), rlskit.RLS(kernel="gaussian", gamma=0.5, cv=3)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
