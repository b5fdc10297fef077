# Global ranking with K-fold selection (KfoldRankRLS) and the Gaussian kernel.
import numpy as np
from rlskit.rlscore.learner import KfoldRankRLS
from rlskit.rlscore.measure import cindex

from data import load_diabetes


def train_rankrls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    folds = [list(range(i, X_train.shape[0], 4)) for i in range(4)]
    regparams = [2. ** i for i in range(-4, 9, 2)]
    for gamma in [2. ** -6, 2. ** -4]:
        learner = KfoldRankRLS(X_train, Y_train, folds=folds, kernel="GaussianKernel", gamma=gamma,
                               regparams=regparams, measure=cindex)
        print("gamma %f: cv %s" % (gamma, np.array2string(learner.cv_performances, precision=8)))
        print("regparam %f, test cindex %f" % (learner.regparam, cindex(Y_test, learner.predict(X_test))))


if __name__ == "__main__":
    train_rankrls()
