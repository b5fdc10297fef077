"""Times RLScore's PairwiseKernelOperator.matvec at BenchmarkMulVec's sizes
(package pairkernel): the symmetric pairwise kernel ½(K⊗K + swapped K⊗K)
of one gaussian kernel over m objects, n random training pairs, the
operator applied to a random vector; best of 5 rounds of 50 products, per
product. Usage: PYTHONPATH=/path/to/RLScore python3 time_rlscore_pko.py.
Written from RLScore's documented interface; nothing here is RLScore's code."""
import time

import numpy as np

from rlscore.utilities.pairwise_kernel_operator import PairwiseKernelOperator

rng = np.random.default_rng(25)
for n, m in ((1000, 50), (4000, 100)):
    x = rng.normal(size=(m, 4))
    d = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    k = np.exp(-0.5 * d)
    rows = rng.integers(0, m, size=n).astype(np.int32)
    cols = rng.integers(0, m, size=n).astype(np.int32)
    pko = PairwiseKernelOperator([k, k], [k, k], [rows, rows], [cols, cols], [rows, cols], [cols, rows], [0.5, 0.5])
    v = rng.normal(size=n)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(50):
            pko.matvec(v)
        best = min(best, (time.perf_counter() - t0) / 50)
    print("n=%d m=%d pko.matvec %.1f µs" % (n, m, best * 1e6))
