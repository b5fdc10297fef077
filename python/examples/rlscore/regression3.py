# LeaveOneOutRLS with the Gaussian kernel: regparam by LOO for each gamma.
from rlskit.rlscore.learner import LeaveOneOutRLS
from rlskit.rlscore.measure import sqerror

from data import load_diabetes


def train_rls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    regparams = [2. ** i for i in range(-10, 11, 2)]
    for log_gamma in range(-8, -1, 2):
        gamma = 2. ** log_gamma
        learner = LeaveOneOutRLS(X_train, Y_train, kernel="GaussianKernel", gamma=gamma, regparams=regparams)
        print("gamma 2**%d: regparam %f, loo-error %f, test error %f" % (
            log_gamma, learner.regparam, min(learner.cv_performances),
            sqerror(Y_test, learner.predict(X_test))))


if __name__ == "__main__":
    train_rls()
