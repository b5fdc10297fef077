# Query-structured ranking: QueryRankRLS, leave-query-out selection.
import numpy as np
from rlskit.rlscore.learner import LeaveQueryOutRankRLS, QueryRankRLS
from rlskit.rlscore.measure import cindex

from data import queries


def train_rankrls():
    X, Y, qids = queries()
    train = qids < 9
    X_train, Y_train, q_train = X[train], Y[train], qids[train]
    X_test, Y_test, q_test = X[~train], Y[~train], qids[~train]
    learner = LeaveQueryOutRankRLS(X_train, Y_train, q_train, regparams=[2. ** i for i in range(-6, 9, 2)],
                                   measure=cindex)
    print("leave-query-out cindex %s" % np.array2string(learner.cv_performances, precision=8))
    print("best regparam %f" % learner.regparam)
    P = learner.predict(X_test)
    perfs = [cindex(Y_test[q_test == q], P[q_test == q]) for q in np.unique(q_test)]
    print("test cindex per query %s, mean %f" % (np.array2string(np.array(perfs), precision=6), np.mean(perfs)))
    q = QueryRankRLS(X_train, Y_train, q_train, regparam=4.0)
    print("holdout of query 0 %s" % np.array2string(q.holdout(np.flatnonzero(q_train == 0))[:4], precision=6))


if __name__ == "__main__":
    train_rankrls()
