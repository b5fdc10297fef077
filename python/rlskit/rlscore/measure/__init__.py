"""RLScore's performance measures (``rlscore.measure``), written in NumPy.

Every measure takes Y (correct) and P (predicted), each of shape (n,) or
(n, t); a 2-D pair is scored column by column and the columns' values are
averaged, as RLScore does. Each function carries RLScore's ``iserror``
attribute (True: lower is better), which the learners' grid searches read.
A measure that has no value on its data (e.g. AUC with one class) raises
UndefinedPerformance; the k-fold searches skip such folds, as RLScore's.
"""

import numpy as np

__all__ = ["UndefinedPerformance", "sqerror", "cindex", "auc", "accuracy", "ova_accuracy", "fscore",
           "spearman", "sqmprank", "disagreement"]


class UndefinedPerformance(Exception):
    """The measure has no value on these labels (e.g. no pair of rows with
    different labels for the C-index)."""


def _two_d(Y, P):
    Y = np.asarray(Y, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if P.ndim == 1:
        P = P.reshape(-1, 1)
    if Y.shape != P.shape:
        raise UndefinedPerformance("Y and P must be of same shape (got %s and %s)" % (Y.shape, P.shape))
    return Y, P


def _pm_one(Y, name):
    if not np.all((Y == 1) | (Y == -1)):
        raise UndefinedPerformance("%s accepts as Y-values only 1 and -1" % name)


def sqerror(Y, P):
    """Mean squared error: for each column Σ_i (Y_i − P_i)² / n, averaged
    over the columns. O(n·t)."""
    Y, P = _two_d(Y, P)
    return float(np.mean(np.mean((Y - P) ** 2, axis=0)))


sqerror.iserror = True


def _concordance(y, p):
    """(concordant + ½·tied-prediction pairs, pairs) over the pairs i, j with
    y_i > y_j. O(n log n): rows sorted by label; for each label level, the
    predictions of the rows with a smaller label are counted below / equal
    by binary search in their sorted predictions."""
    order = np.argsort(y, kind="mergesort")
    ys, ps = y[order], p[order]
    starts = np.flatnonzero(np.r_[True, ys[1:] != ys[:-1]])
    ends = np.r_[starts[1:], len(ys)]
    good = 0.0
    pairs = 0
    below = np.empty(0)
    for s, e in zip(starts, ends):
        level = ps[s:e]
        if below.size:
            lo = np.searchsorted(below, level, side="left")   # strictly smaller predictions
            hi = np.searchsorted(below, level, side="right")  # ≤
            good += float(np.sum(lo)) + 0.5 * float(np.sum(hi - lo))
            pairs += below.size * (e - s)
        below = np.sort(np.r_[below, level], kind="mergesort")
    return good, pairs


def _cindex_column(y, p):
    good, pairs = _concordance(y, p)
    if pairs == 0:
        raise UndefinedPerformance("No pairs, all the instances have the same output")
    return good / pairs


def cindex(Y, P):
    """Concordance index: the share of pairs y_i > y_j whose predictions
    agree, p_i > p_j, a tied prediction counting ½. Columns without a pair
    of different labels are left out of the average (all left out:
    UndefinedPerformance). Equals AUC for labels ±1. O(n log n + n·L) per
    column for L distinct labels."""
    Y, P = _two_d(Y, P)
    vals = []
    for k in range(Y.shape[1]):
        try:
            vals.append(_cindex_column(Y[:, k], P[:, k]))
        except UndefinedPerformance:
            pass
    if not vals:
        raise UndefinedPerformance("No pairs, all the instances have the same output")
    return float(np.mean(vals))


cindex.iserror = False


def disagreement(Y, P):
    """1 − cindex: the share of discordant pairs (ties ½)."""
    return 1.0 - cindex(Y, P)


disagreement.iserror = True


def auc(Y, P):
    """Area under the ROC curve for labels in {−1, 1}: the share of
    (positive, negative) pairs with the positive predicted higher, a tie
    counting ½; averaged over the columns. A column with one class raises
    UndefinedPerformance. O(n log n) per column."""
    Y, P = _two_d(Y, P)
    _pm_one(Y, "auc")
    vals = []
    for k in range(Y.shape[1]):
        good, pairs = _concordance(Y[:, k], P[:, k])
        if pairs == 0:
            raise UndefinedPerformance("AUC undefined if both classes not present")
        vals.append(good / pairs)
    return float(np.mean(vals))


auc.iserror = False


def accuracy(Y, P):
    """Binary accuracy for labels in {−1, 1}: P > 0 predicts 1, P < 0
    predicts −1, P = 0 abstains and counts ½; averaged over the columns."""
    Y, P = _two_d(Y, P)
    _pm_one(Y, "binary classification accuracy")
    return float(np.mean(np.mean((np.sign(Y * P) + 1.0) / 2.0, axis=0)))


accuracy.iserror = False


def ova_accuracy(Y, P):
    """One-vs-all multiclass accuracy: the class of a row is the column of
    its largest entry (the first on a tie) in Y and in P; the share of rows
    where they agree."""
    Y = np.asarray(Y)
    P = np.asarray(P)
    if Y.shape != P.shape:
        raise UndefinedPerformance("Y and P must be of same shape")
    return float(np.mean(np.argmax(Y, axis=1) == np.argmax(P, axis=1)))


ova_accuracy.iserror = False


def fscore(Y, P):
    """F1 score for labels in {−1, 1}, P > 0 predicting the positive class:
    2·precision·recall / (precision + recall), averaged over the columns."""
    Y, P = _two_d(Y, P)
    _pm_one(Y, "fscore")
    vals = []
    for k in range(Y.shape[1]):
        pos, pred = Y[:, k] > 0, P[:, k] > 0
        tp = float(np.sum(pos & pred))
        fp = float(np.sum(~pos & pred))
        fn = float(np.sum(pos & ~pred))
        if tp + fp == 0 or tp + fn == 0 or tp == 0:
            raise UndefinedPerformance("fscore undefined: no true positive")
        prec, rec = tp / (tp + fp), tp / (tp + fn)
        vals.append(2.0 * prec * rec / (prec + rec))
    return float(np.mean(vals))


fscore.iserror = False


def spearman(Y, P):
    """Spearman's rank correlation (average ranks for ties), averaged over
    the columns."""
    from scipy.stats import spearmanr
    Y, P = _two_d(Y, P)
    return float(np.mean([spearmanr(Y[:, k], P[:, k])[0] for k in range(Y.shape[1])]))


spearman.iserror = False


def sqmprank(Y, P):
    """RLScore's pairwise squared ranking error as its multi-output form
    computes it: with D = Y − P per column, the mean over rows of
    (n·D_i − Σ_j D_j)², divided by the n(n−1)/2 pairs, averaged over the
    columns."""
    Y, P = _two_d(Y, P)
    n = Y.shape[0]
    D = Y - P
    C = n * D - D.sum(axis=0)
    return float(np.mean(np.mean(C ** 2, axis=0) / ((n * n - n) / 2.0)))


sqmprank.iserror = True
