"""An independent reference: scikit-learn's KernelRidge refit on every fold
by GridSearchCV. KernelRidge(kernel="rbf", gamma=γ, alpha=λ) minimizes the
same Σ(y − f(x))² + λ‖f‖² as RLS(kernel="gaussian") (no intercept), so
with equal-size folds the pooled CV mse of the core equals the mean of
GridSearchCV's per-fold mse, and the CV predictions equal cross_val_predict."""

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict

import rlskit


def test_kfold_curve_equals_gridsearch_kernelridge():
    rng = np.random.default_rng(5)
    m, d = 100, 6
    X = rng.normal(size=(m, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=m)
    alphas = [2.0**k for k in range(-8, 5)]
    kf = KFold(5, shuffle=True, random_state=1)  # 5 folds of 20 rows
    gs = GridSearchCV(KernelRidge(kernel="rbf", gamma=0.2), {"alpha": alphas}, cv=kf,
                      scoring="neg_mean_squared_error").fit(X, y)
    r = rlskit.RLS(kernel="gaussian", gamma=0.2, alphas=alphas, cv=kf).fit(X, y)
    np.testing.assert_allclose(r.cv_results_["mean_test_score"], gs.cv_results_["mean_test_score"], rtol=1e-9)
    assert r.alpha_ == gs.best_params_["alpha"]
    ref = cross_val_predict(KernelRidge(kernel="rbf", gamma=0.2, alpha=r.alpha_), X, y, cv=kf)
    np.testing.assert_allclose(r.cv_predictions_, ref, rtol=1e-9, atol=1e-9 * np.abs(y).max())
    np.testing.assert_allclose(r.predict(X), gs.best_estimator_.predict(X), rtol=1e-9, atol=1e-9 * np.abs(y).max())
