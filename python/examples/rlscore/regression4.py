# KfoldRLS over given folds (a seeded permutation cut in 5), polynomial kernel.
import numpy as np
from rlskit.rlscore.learner import KfoldRLS
from rlskit.rlscore.measure import sqerror

from data import load_diabetes


def train_rls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    perm = np.random.RandomState(7).permutation(X_train.shape[0])
    folds = [list(f) for f in np.array_split(perm, 5)]
    learner = KfoldRLS(X_train, Y_train, folds, kernel="PolynomialKernel", gamma=0.05, coef0=1, degree=2,
                       regparams=[2. ** i for i in range(-6, 9)], measure=sqerror)
    for r, e in zip([2. ** i for i in range(-6, 9)], learner.cv_performances):
        print("regparam %f, 5-fold error %f" % (r, e))
    print("chosen regparam %f" % learner.regparam)
    print("test error %f" % sqerror(Y_test, learner.predict(X_test)))
    print("first fold predictions %s" % np.array2string(learner.cv_predictions[0][0][:4], precision=6))


if __name__ == "__main__":
    train_rls()
