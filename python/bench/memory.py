"""Peak memory of a fit through Python: gaussian RLS, m = 2000, d = 50, LOO
over 31 λ; the growth of the process's maximum resident set during fit (the
interpreter, NumPy, scikit-learn and the loaded library before it). Compare
with the CLI on the same data (overhead.py writes bench.csv):
/usr/bin/time -f %M rlskit fit --data bench.csv --label y --kernel gaussian
--gamma 0.01 --lambda-grid 2^-15..2^15 --quiet"""
import resource

import numpy as np

import rlskit

rng = np.random.default_rng(0)
m, d = 2000, 50
X = rng.normal(size=(m, d))
y = X @ rng.normal(size=d) / 7 + rng.normal(size=m)
rlskit.RLS(alphas=1.0, cv="none").fit(X[:5], y[:5])  # load the library
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rlskit.RLS(kernel="gaussian", gamma=0.01, alphas="2^-15..2^15").fit(X, y)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("max RSS before fit %.1f MB, after %.1f MB: the fit added %.1f MB" % (before / 1024, after / 1024, (after - before) / 1024))
