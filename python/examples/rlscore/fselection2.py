# GreedyRLS with a callback: the test error after each selected feature.
from rlskit.rlscore.learner import GreedyRLS
from rlskit.rlscore.measure import sqerror

from data import load_diabetes


class Callback(object):

    def __init__(self, X_test, Y_test):
        self.X_test = X_test
        self.Y_test = Y_test
        self.iteration = 0

    def callback(self, learner):
        self.iteration += 1
        e = sqerror(self.Y_test, learner.predict(self.X_test))
        print("Features selected %d, test error %f" % (self.iteration, e))

    def finished(self, learner):
        print("finished with %d features" % len(learner.selected))


def train_rls():
    X_train, Y_train, X_test, Y_test = load_diabetes()
    cb = Callback(X_test, Y_test)
    learner = GreedyRLS(X_train, Y_train, 10, callbackfun=cb)
    print("test error %f" % sqerror(Y_test, learner.predict(X_test)))
    print("Selected features " + str(learner.selected))


if __name__ == "__main__":
    train_rls()
