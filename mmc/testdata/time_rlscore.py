# Times RLScore's SteepestDescentMMC at the size of its own test
# (rlscore/test/test_learner/test_mmc.py): three 2-D Gaussian blobs of 400
# points, GaussianKernel gamma 2^-20, regparam 2^-30, 100 basis vectors,
# 3 clusters; and the same data with the full kernel matrix (gamma 0.02,
# regparam 1). Prints the median of 5 runs of each, in seconds.
import random, time, io, contextlib, statistics
import numpy as np
from rlscore.learner.steepest_descent_mmc import SteepestDescentMMC
random.seed(100)
X = []
for mx, my in [(10,10),(10,20),(20,15)]:
    for i in range(400):
        X.append([random.gauss(mx,2), random.gauss(my,2)])
X = np.array(X)
bvecs = random.sample(range(400), 100)
def run(**kw):
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            SteepestDescentMMC(X, number_of_clusters=3, kernel='GaussianKernel', **kw)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)
print("basis100 %.4f" % run(gamma=2.**-20, regparam=2.**-30, basis_vectors=X[bvecs]))
print("full %.4f" % run(gamma=0.02, regparam=1.0))
