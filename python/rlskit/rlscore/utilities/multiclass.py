"""One-vs-all coding of class labels (RLScore's utilities.multiclass)."""

import numpy as np


def to_one_vs_all(Y, startzero=True):
    """Class labels 0…C−1 (1…C with startzero=False) → an n×C matrix with
    1 in the row's class column and −1 elsewhere (C = largest label + 1)."""
    Y = np.asarray(Y, dtype=int).ravel()
    if not startzero:
        Y = Y - 1
    if Y.size and Y.min() < 0:
        raise ValueError("to_one_vs_all: class labels must start at %d" % (0 if startzero else 1))
    out = -np.ones((Y.shape[0], int(Y.max()) + 1 if Y.size else 0))
    out[np.arange(Y.shape[0]), Y] = 1.0
    return out


def from_one_vs_all(Y, startzero=True):
    """The class of each row of a one-vs-all matrix (or its predictions):
    the column of the largest entry, the first on a tie (+1 with
    startzero=False)."""
    c = np.argmax(np.asarray(Y), axis=1)
    return c if startzero else c + 1
