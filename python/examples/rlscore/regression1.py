# RLS with its defaults (regparam=1.0, LinearKernel): leave-one-out and test error.
import numpy as np
from rlskit.rlscore.learner import RLS
from rlskit.rlscore.measure import sqerror

from data import load_diabetes


def train_rls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    learner = RLS(X_train, Y_train)
    P_loo = learner.leave_one_out()
    P_test = learner.predict(X_test)
    print("leave-one-out error %f" % sqerror(Y_train, P_loo))
    print("test error %f" % sqerror(Y_test, P_test))
    print("mean predictor %f" % sqerror(Y_test, np.ones(Y_test.shape) * np.mean(Y_train)))
    print("W %s b %f" % (np.array2string(learner.predictor.W, precision=6), learner.predictor.b))


if __name__ == "__main__":
    train_rls()
