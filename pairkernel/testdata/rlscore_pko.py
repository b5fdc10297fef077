"""Runs RLScore's PairwiseKernelOperator (and CGKronRLS when SciPy's minres
takes its rtol keyword) on the cases given as JSON on stdin; prints JSON.

Each case: kernels (training, square), cross (test × training), terms
[[weight, row kernel, column kernel, swapped]], train/test pairs, y, lambda,
v (a vector for the operator's product). Written for rlskit's tests from
RLScore's documented interface; nothing here is RLScore's code."""
import json
import sys
import time

import numpy as np
from scipy.sparse.linalg import LinearOperator, minres

from rlscore.learner.cg_kron_rls import CGKronRLS
from rlscore.utilities.pairwise_kernel_operator import PairwiseKernelOperator


def operator(kernels, terms, out_rows, out_cols, in_rows, in_cols):
    k1, k2, r1, r2, c1, c2, w = [], [], [], [], [], [], []
    for weight, a, b, swapped in terms:
        k1.append(kernels[a])
        k2.append(kernels[b])
        r1.append(out_rows)
        r2.append(out_cols)
        c1.append(in_cols if swapped else in_rows)
        c2.append(in_rows if swapped else in_cols)
        w.append(weight)
    return PairwiseKernelOperator(k1, k2, r1, r2, c1, c2, w)


def run(case):
    ks = [np.array(k, dtype=np.float64) for k in case["kernels"]]
    cs = [np.array(k, dtype=np.float64) for k in case["cross"]]
    tr, te = case["train"], case["test"]
    tr_r, tr_c = np.array(tr[0], dtype=np.int32), np.array(tr[1], dtype=np.int32)
    te_r, te_c = np.array(te[0], dtype=np.int32), np.array(te[1], dtype=np.int32)
    y = np.array(case["y"], dtype=np.float64)
    lam = case["lambda"]
    pko = operator(ks, case["terms"], tr_r, tr_c, tr_r, tr_c)
    mv = pko.matvec(np.array(case["v"]))
    solver = "CGKronRLS"
    t0 = time.perf_counter()
    try:
        a = CGKronRLS(pko=pko, Y=y, regparam=lam, maxiter=case["maxiter"]).A
    except TypeError as e:
        # Debian's SciPy minres() has tol, not rtol: the same MINRES on the
        # same RLScore operator plus λI, called with SciPy's own keyword.
        solver = "minres(tol) on PairwiseKernelOperator + lambda I: CGKronRLS failed: %s" % e
        g = LinearOperator((len(y), len(y)), matvec=lambda v: pko.matvec(v) + lam * v, dtype=np.float64)
        a, _ = minres(g, y, maxiter=case["maxiter"], tol=1e-15)
    secs = time.perf_counter() - t0
    fitted = pko.matvec(a)
    pred = operator(cs, case["terms"], te_r, te_c, tr_r, tr_c).matvec(a)
    return {"mv": mv.tolist(), "a": np.asarray(a).ravel().tolist(), "fitted": fitted.tolist(),
            "pred": pred.tolist(), "solver": solver, "seconds": secs}


print(json.dumps([run(c) for c in json.load(sys.stdin)]))
