# TwoStepRLS on complete drug–target data with its cross-validation methods
# (RLScore's TwoStepRLS tutorial): both regparams by leave-drug-out (setting
# B), then the other settings at the chosen pair — leave one pair out (A),
# leave a target out (C), leave a drug and a target out (D), and their
# k-fold forms — and the error on pairs of new drugs.
from rlskit.rlscore.learner import TwoStepRLS
from rlskit.rlscore.measure import cindex, sqerror

from data import gaussian, load_dti, load_dti_new_drugs


def main():
    X1, X2, Y = load_dti()
    Y = Y.ravel(order="F")
    K1, K2 = gaussian(X1, X1, 0.05), gaussian(X2, X2, 0.1)
    learner = TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=1.0, regparam2=1.0)
    best = None
    for log1 in range(-8, 0, 2):
        for log2 in range(-8, 0, 2):
            learner.solve(2. ** log1, 2. ** log2)
            P = learner.leave_x1_out()
            e = sqerror(Y, P)
            print("regparams 2**%d 2**%d, leave-drug-out sqerror %f" % (log1, log2, e))
            if best is None or e < best[0]:
                best = (e, log1, log2)
    _, log1, log2 = best
    learner.solve(2. ** log1, 2. ** log2)
    print("best regparams 2**%d 2**%d" % (log1, log2))
    for name, P in (("in-sample loo", learner.in_sample_loo()), ("leave-target-out", learner.leave_x2_out()),
                    ("out-of-sample loo", learner.out_of_sample_loo())):
        print("%s: sqerror %f, cindex %f" % (name, sqerror(Y, P), cindex(Y, P)))
    drug_folds = [list(range(i, 60, 5)) for i in range(5)]
    target_folds = [list(range(i, 40, 4)) for i in range(4)]
    for name, P in (("drug 5-fold", learner.x1_kfold_cv(drug_folds)),
                    ("target 4-fold", learner.x2_kfold_cv(target_folds)),
                    ("drug x target folds", learner.out_of_sample_kfold_cv(drug_folds, target_folds))):
        print("%s: sqerror %f" % (name, sqerror(Y, P)))
    X1_new, Y_new = load_dti_new_drugs()
    Y_new = Y_new.ravel(order="F")
    P = learner.predict(gaussian(X1_new, X1, 0.05), K2)
    print("new drugs: sqerror %f, cindex %f" % (sqerror(Y_new, P), cindex(Y_new, P)))


if __name__ == "__main__":
    main()
