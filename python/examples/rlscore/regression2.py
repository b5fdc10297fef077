# regparam by leave-one-out: solve() at each grid point, the LOO shortcut at each.
from rlskit.rlscore.learner import RLS
from rlskit.rlscore.measure import sqerror

from data import load_diabetes


def train_rls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    learner = RLS(X_train, Y_train)
    best_regparam = None
    best_error = float("inf")
    for log_regparam in range(-5, 11):
        regparam = 2. ** log_regparam
        learner.solve(regparam)
        e = sqerror(Y_train, learner.leave_one_out())
        print("regparam 2**%d, loo-error %f" % (log_regparam, e))
        if e < best_error:
            best_error = e
            best_regparam = regparam
    learner.solve(best_regparam)
    print("best regparam %f with loo-error %f" % (best_regparam, best_error))
    print("test error %f" % sqerror(Y_test, learner.predict(X_test)))


if __name__ == "__main__":
    train_rls()
