"""Runs RLScore's linear conditional ranking (KronRLS.solve_linear_conditional_ranking)
on the cases given as JSON in argv[1] and prints, per case, its weights W
(d x e) and its predictions for every pair of the test objects (m' x q')
as JSON. Used by pairwise/kronrank_rlscore_test.go (PYTHONPATH=/tmp/rlscore)."""
import json
import sys
import time

import numpy as np
from rlscore.learner import KronRLS

out = []
for case in json.loads(sys.argv[1]):
    x1, x2, y = np.array(case["x1"]), np.array(case["x2"]), np.array(case["y"])
    t1, t2 = np.array(case["t1"]), np.array(case["t2"])
    # RLScore reads the labels of (x1[i], x2[j]) at i + j*m (column order)
    learner = KronRLS(X1=x1, X2=x2, Y=y.ravel(order="F"), regparam=case["lambda"])
    start = time.perf_counter()
    learner.solve_linear_conditional_ranking(case["lambda"])
    seconds = time.perf_counter() - start
    d, e = x1.shape[1], x2.shape[1]
    w = np.asarray(learner.predictor.W).reshape((d, e), order="F")
    p = np.asarray(learner.predict(t1, t2)).reshape((t1.shape[0], t2.shape[0]), order="F")
    out.append({"w": w.tolist(), "p": p.tolist(), "seconds": seconds})
print(json.dumps(out))
