# Ranking from pairwise preferences: PPRankRLS, as RLScore's tutorial
# (pairwise_ranking.py) samples 1000 preferences from the training labels.
import random

import numpy as np
from rlskit.rlscore.learner import PPRankRLS
from rlskit.rlscore.measure import cindex

from data import load_diabetes

random.seed(33)


def train_rls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    pairs_start = []
    pairs_end = []
    # Sample 1000 pairwise preferences from the data
    trange = range(len(Y_train))
    while len(pairs_start) < 1000:
        ind0 = random.choice(trange)
        ind1 = random.choice(trange)
        if Y_train[ind0] > Y_train[ind1]:
            pairs_start.append(ind0)
            pairs_end.append(ind1)
        elif Y_train[ind0] < Y_train[ind1]:
            pairs_start.append(ind1)
            pairs_end.append(ind0)
    learner = PPRankRLS(X_train, pairs_start, pairs_end)
    # Test set predictions
    P_test = learner.predict(X_test)
    print("test cindex %f" % cindex(Y_test, P_test))
    print("first test scores %s" % np.array2string(P_test[:4], precision=8))
    learner = PPRankRLS(X_train, pairs_start, pairs_end, regparam=10.0, kernel="GaussianKernel", gamma=0.01)
    P_test = learner.predict(X_test)
    print("gaussian test cindex %f, first scores %s" % (cindex(Y_test, P_test), np.array2string(P_test[:4], precision=8)))


if __name__ == "__main__":
    train_rls()
