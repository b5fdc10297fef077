"""Cross-validation helpers (RLScore's utilities.cross_validation)."""

import random

import numpy as np

from ..measure import UndefinedPerformance


def random_folds(ssize, k, seed=None):
    """Rows 0…ssize−1 split into k random folds, the first ssize mod k folds
    one row larger. Each fold is random.Random(seed).sample of the rows not
    yet drawn, taken in increasing order. RLScore's own function draws from
    a set (refused by Python ≥ 3.11), so its folds may differ from these:
    pass folds explicitly to reproduce an RLScore run exactly."""
    if not 1 <= k <= ssize:
        raise ValueError("random_folds: k=%d folds of %d rows" % (k, ssize))
    rng = random.Random(seed) if seed is not None else random
    left = list(range(ssize))
    base, extra = divmod(ssize, k)
    folds = []
    for i in range(k):
        fold = rng.sample(left, base + (1 if i < extra else 0))
        taken = set(fold)
        left = [j for j in left if j not in taken]
        folds.append(fold)
    return folds


def map_ids(ids):
    """Runs of equal consecutive ids → lists of their row indices (RLScore's
    map_ids: a query split in two runs gives two lists)."""
    ids = list(ids)
    out = []
    for i, q in enumerate(ids):
        if i == 0 or q != ids[i - 1]:
            out.append([])
        out[-1].append(i)
    return out


def grid_search(crossvalidator, grid):
    """Score each grid point with crossvalidator.cv(point) → (value,
    predictions), keep the first best (crossvalidator.measure.iserror: the
    smallest), re-solve the crossvalidator's learner (attribute rls) there.
    Returns (values array, predictions list, best point)."""
    perfs, preds = [], []
    for g in grid:
        v, p = crossvalidator.cv(g)
        perfs.append(v)
        preds.append(p)
    perfs = np.array(perfs)
    best = grid[int(np.argmin(perfs) if crossvalidator.measure.iserror else np.argmax(perfs))]
    crossvalidator.rls.solve(best)
    return perfs, preds, best


__all__ = ["random_folds", "map_ids", "grid_search", "UndefinedPerformance"]
