"""rlskit.RLS against scikit-learn's GridSearchCV(KernelRidge) on the same
grid and the same folds: gaussian kernel, m rows of d = 50 features, 31 λ
(2^-15..2^15), 5-fold CV (KFold, shuffled). KernelRidge is refit on every
fold for every λ (155 Cholesky factorizations of 0.8m × 0.8m); RLS factors
the kernel matrix once and gets every fold and λ from it. Both report the
CV mse per λ; they agree to rounding (python/tests/test_vs_sklearn.py
asserts it on a small problem). Usage: python3 vs_sklearn.py [m]"""
import sys
import time

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold

import rlskit

m = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
rng = np.random.default_rng(0)
X = rng.normal(size=(m, 50))
y = X @ rng.normal(size=50) / 7 + rng.normal(size=m)
alphas = [2.0**k for k in range(-15, 16)]
kf = KFold(5, shuffle=True, random_state=0)

t0 = time.perf_counter()
r = rlskit.RLS(kernel="gaussian", gamma=0.01, alphas=alphas, cv=kf).fit(X, y)
t_rls = time.perf_counter() - t0

t0 = time.perf_counter()
gs = GridSearchCV(KernelRidge(kernel="rbf", gamma=0.01), {"alpha": alphas}, cv=kf,
                  scoring="neg_mean_squared_error", n_jobs=1).fit(X, y)
t_gs = time.perf_counter() - t0

diff = np.max(np.abs(r.cv_results_["mean_test_score"] - gs.cv_results_["mean_test_score"])
              / np.abs(gs.cv_results_["mean_test_score"]))
print("m=%d d=50, 31 λ, 5-fold: rlskit.RLS %.2f s, GridSearchCV(KernelRidge) %.2f s (%.0f×); "
      "same λ: %s; max relative difference of the CV curves %.1e"
      % (m, t_rls, t_gs, t_gs / t_rls, r.alpha_ == gs.best_params_["alpha"], diff))
