# Greedy forward feature selection (GreedyRLS) on the quadratic diabetes features.
import numpy as np
from rlskit.rlscore.learner import GreedyRLS
from rlskit.rlscore.measure import sqerror

from data import load


def train_greedy():
    X_train, Y_train = load("diabetes-quadratic-train.csv")
    X_test, Y_test = load("diabetes-quadratic-test.csv")
    mu, sd = X_train.mean(axis=0), X_train.std(axis=0)
    X_train, X_test = (X_train - mu) / sd, (X_test - mu) / sd
    learner = GreedyRLS(X_train, Y_train, 8, regparam=4.0)
    print("selected features %s" % learner.selected)
    print("leave-one-out error after each step %s" % np.array2string(np.array(learner.performances), precision=4))
    print("test error %f" % sqerror(Y_test, learner.predict(X_test)))


if __name__ == "__main__":
    train_greedy()
