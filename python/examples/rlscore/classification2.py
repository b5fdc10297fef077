# Multi-class: one-vs-all coding, regparam by leave-one-out ova_accuracy.
from rlskit.rlscore.learner import LeaveOneOutRLS
from rlskit.rlscore.measure import ova_accuracy
from rlskit.rlscore.utilities.multiclass import from_one_vs_all, to_one_vs_all

from data import load_wine


def train_rls():
    X_train, Y_train, X_test, Y_test = load_wine()
    Y_ova = to_one_vs_all(Y_train)
    learner = LeaveOneOutRLS(X_train, Y_ova, regparams=[2. ** i for i in range(-5, 11)], measure=ova_accuracy)
    print("loo accuracies %s" % learner.cv_performances)
    print("chosen regparam %f" % learner.regparam)
    P = learner.predict(X_test)
    print("test accuracy %f" % ova_accuracy(to_one_vs_all(Y_test, startzero=True), P))
    print("predicted classes %s" % from_one_vs_all(P)[:10])


if __name__ == "__main__":
    train_rls()
