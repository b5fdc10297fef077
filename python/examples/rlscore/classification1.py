# Binary classification: regparam by leave-pair-out AUC (LeavePairOutRLS).
import numpy as np
from rlskit.rlscore.learner import LeavePairOutRLS, RLS
from rlskit.rlscore.measure import accuracy, auc

from data import load_wine_binary


def train_rls():
    X, Y = load_wine_binary()
    perm = np.random.RandomState(1).permutation(X.shape[0])
    train, test = perm[:40], perm[40:]
    regparams = [2. ** i for i in range(-8, 9, 2)]
    learner = LeavePairOutRLS(X[train], Y[train], kernel="GaussianKernel", gamma=0.05, regparams=regparams)
    print("leave-pair-out AUC per regparam %s" % np.array2string(learner.cv_performances, precision=6))
    print("best regparam %f" % learner.regparam)
    P = learner.predict(X[test])
    print("test AUC %f, accuracy %f" % (auc(Y[test], P), accuracy(Y[test], P)))
    rls = RLS(X[train], Y[train], regparam=learner.regparam, kernel="GaussianKernel", gamma=0.05)
    P1, P2 = rls.leave_pair_out(np.array([0, 1, 2]), np.array([3, 4, 5]))
    print("held-out pair predictions %s %s" % (np.array2string(P1, precision=6), np.array2string(P2, precision=6)))


if __name__ == "__main__":
    train_rls()
