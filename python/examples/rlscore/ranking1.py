# Global ranking: GlobalRankRLS, leave-pair-out selection, C-index.
import numpy as np
from rlskit.rlscore.learner import GlobalRankRLS, LeavePairOutRankRLS
from rlskit.rlscore.measure import cindex

from data import load_diabetes


def train_rankrls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    X_train, Y_train = X_train[:40], Y_train[:40]
    learner = GlobalRankRLS(X_train, Y_train, regparam=1.0)
    print("test cindex %f" % cindex(Y_test, learner.predict(X_test)))
    print("holdout %s" % np.array2string(learner.holdout([0, 1, 2]), precision=6))
    lpo = LeavePairOutRankRLS(X_train, Y_train, regparams=[2. ** i for i in range(-6, 7, 2)])
    print("leave-pair-out cindex %s" % np.array2string(lpo.cv_performances, precision=8))
    print("best regparam %f, test cindex %f" % (lpo.regparam, cindex(Y_test, lpo.predict(X_test))))


if __name__ == "__main__":
    train_rankrls()
