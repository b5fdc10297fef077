"""Times RLScore's KronRLS.solve_linear_conditional_ranking at the size of
RLScore's drug-target tutorials (Davis: 68 drugs x 442 targets, their kernel
rows as features: d = 68, e = 442) on random data; prints the best and the
median of REPEATS runs in seconds. Compare with
go test ./pairwise -run XXX -bench KronRankTutorial (pairwise/kronrank_bench_test.go).
Run: PYTHONPATH=/tmp/rlscore /usr/bin/python3 pairwise/testdata/bench_rlscore_kronrank.py"""
import statistics
import time

import numpy as np
from rlscore.learner import KronRLS

M, D, Q, E, REPEATS = 68, 68, 442, 442, 15
rng = np.random.RandomState(1)
x1, x2, y = rng.randn(M, D), rng.randn(Q, E), rng.randn(M, Q)
learner = KronRLS(X1=x1, X2=x2, Y=y.ravel(order="F"), regparam=1.0)
times = []
for _ in range(REPEATS):
    start = time.perf_counter()
    learner.solve_linear_conditional_ranking(1.0)
    times.append(time.perf_counter() - start)
print("rlscore solve_linear_conditional_ranking %dx%d, %dx%d: best %.4f s, median %.4f s" % (M, D, Q, E, min(times), statistics.median(times)))
