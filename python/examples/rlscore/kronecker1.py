# KronRLS on complete drug–target data, as in RLScore's Kronecker tutorial:
# regparam by in-sample leave-one-out (setting A) with linear kernels, then
# Gaussian kernel matrices, with the error on pairs of new drugs (setting B).
from rlskit.rlscore.learner import KronRLS
from rlskit.rlscore.measure import cindex, sqerror

from data import gaussian, load_dti, load_dti_new_drugs


def main():
    X1, X2, Y = load_dti()
    Y = Y.ravel(order="F")
    learner = KronRLS(X1=X1, X2=X2, Y=Y)
    for log_regparam in range(0, 13, 3):
        learner.solve(2. ** log_regparam)
        P = learner.in_sample_loo()
        print("linear, regparam 2**%d, loo sqerror %f, cindex %f" % (log_regparam, sqerror(Y, P), cindex(Y, P)))
    X1_new, Y_new = load_dti_new_drugs()
    Y_new = Y_new.ravel(order="F")
    K1, K2 = gaussian(X1, X1, 0.05), gaussian(X2, X2, 0.1)
    K1_new = gaussian(X1_new, X1, 0.05)
    learner = KronRLS(K1=K1, K2=K2, Y=Y)
    best = None
    for log_regparam in range(-6, 3, 2):
        learner.solve(2. ** log_regparam)
        P = learner.in_sample_loo()
        e = sqerror(Y, P)
        print("gaussian, regparam 2**%d, loo sqerror %f, cindex %f" % (log_regparam, e, cindex(Y, P)))
        if best is None or e < best[0]:
            best = (e, log_regparam)
    learner.solve(2. ** best[1])
    P = learner.predict(K1_new, K2)
    print("regparam 2**%d: new drugs sqerror %f, cindex %f" % (best[1], sqerror(Y_new, P), cindex(Y_new, P)))
    P = learner.predict(K1_new, K2, [0, 3, 11], [5, 0, 39])
    print("three new pairs: %f %f %f" % tuple(P))


if __name__ == "__main__":
    main()
