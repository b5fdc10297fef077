"""Runs RLScore's KronSVM on the cases given as JSON (argv[1]) and prints,
per case, its predictions for the training pairs and for the test pairs,
and the training time in seconds. A case is dual (k1, k2: training kernel
matrices; t1, t2: test-by-training kernel rows) or primal (x1, x2: training
features; t1, t2: test features). Used by pairwise/kronsvm_rlscore_test.go
and the speed note of docs/cli.md; needs RLScore on PYTHONPATH."""
import json
import sys
import time

import inspect

import numpy as np
import scipy.sparse.linalg
import rlscore.learner.kron_svm as kron_svm
from rlscore.learner.kron_svm import KronSVM

# RLScore calls qmr(..., rtol=1e-5); SciPy before 1.12 names it tol. Pass it
# on under the name this SciPy takes (the same relative tolerance).
if "rtol" not in inspect.signature(scipy.sparse.linalg.qmr).parameters:
    def _qmr(A, b, rtol=1e-5, **kw):
        return scipy.sparse.linalg.qmr(A, b, tol=rtol, **kw)
    kron_svm.qmr = _qmr


def run(c):
    rows = np.array(c["rows"], dtype=np.int32)
    cols = np.array(c["cols"], dtype=np.int32)
    y = np.array(c["y"], dtype=float)
    args = dict(Y=y, label_row_inds=rows, label_col_inds=cols,
                regparam=c["lambda"], maxiter=c["maxiter"], inneriter=c["inneriter"])
    if "k1" in c:
        args["K1"], args["K2"] = np.array(c["k1"]), np.array(c["k2"])
    else:
        args["X1"], args["X2"] = np.array(c["x1"]), np.array(c["x2"])
    best = float("inf")
    for _ in range(c.get("repeat", 1)):
        t0 = time.perf_counter()
        learner = KronSVM(**args)
        best = min(best, time.perf_counter() - t0)
    if "k1" in c:
        train = learner.predict(args["K1"], args["K2"], rows, cols)
    else:
        train = learner.predict(args["X1"], args["X2"], rows, cols)
    t1, t2 = np.array(c["t1"]), np.array(c["t2"])
    trows = np.array(c["trows"], dtype=np.int32)
    tcols = np.array(c["tcols"], dtype=np.int32)
    test = learner.predict(t1, t2, trows, tcols)
    return {"train": np.ravel(train).tolist(), "test": np.ravel(test).tolist(), "seconds": best}


cases = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
print(json.dumps([run(c) for c in cases]))
