# Times RLScore's InteractiveRlsClassifier at the size of its own test
# (rlscore/test/test_learner/test_interactive_rls_classifier.py): three 2-D
# Gaussian blobs of 400 points, GaussianKernel gamma 2^-20, regparam 2^-30,
# 100 basis vectors, 2 classes; the constructor, then claim 300 rows into
# class 1 and a cyclic descent over all rows. Prints the median of 5 runs.
import random, time, io, contextlib, statistics
import numpy as np
from rlscore.learner.interactive_rls_classifier import InteractiveRlsClassifier
random.seed(100)
X = []
for mx, my in [(10,10),(10,20),(20,15)]:
    for i in range(400):
        X.append([random.gauss(mx,2), random.gauss(my,2)])
X = np.array(X)
bvecs = random.sample(range(400), 100)
ts = []
for _ in range(5):
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        l = InteractiveRlsClassifier(X, regparam=2.**-30, number_of_clusters=2, kernel='GaussianKernel', gamma=2.**-20,
                                     basis_vectors=X[bvecs], Y=np.zeros(1200, dtype=np.int32))
        l.claim_n_points(300, 1)
        l.cyclic_descent_in_working_set()
    ts.append(time.perf_counter() - t0)
print("interactive %.4f" % statistics.median(ts))
