"""Data sets of the examples: files in docs/data, read with NumPy only (no
rlskit, no RLScore), so that the same script runs under either."""

import os

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "data")


def load(name):
    """(X, y) of a CSV in docs/data: the first column is the label."""
    a = np.loadtxt(os.path.join(DATA, name), delimiter=",", skiprows=1)
    return a[:, 1:], a[:, 0]


def load_diabetes():
    """The diabetes train/test split, features scaled to mean 0, sd 1 by the
    training rows' statistics."""
    X_train, Y_train = load("diabetes-train.csv")
    X_test, Y_test = load("diabetes-test.csv")
    mu, sd = X_train.mean(axis=0), X_train.std(axis=0)
    return (X_train - mu) / sd, Y_train, (X_test - mu) / sd, Y_test


def load_wine_binary():
    """The wine data, class 1 against the rest (labels ±1), features scaled."""
    X, y = load("wine-binary.csv")
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def load_wine():
    """The wine train/test split, classes 0, 1, 2, features scaled."""
    X_train, Y_train = load("wine-train.csv")
    X_test, Y_test = load("wine-test.csv")
    mu, sd = X_train.mean(axis=0), X_train.std(axis=0)
    return (X_train - mu) / sd, Y_train.astype(int), (X_test - mu) / sd, Y_test.astype(int)


def queries(seed=3, n_queries=12, per_query=15, d=6):
    """A seeded query-structured ranking problem: relevance is a linear
    score plus noise, offset per query (so only within-query order matters)."""
    rng = np.random.RandomState(seed)
    w = rng.randn(d)
    X = rng.randn(n_queries * per_query, d)
    qids = np.repeat(np.arange(n_queries), per_query)
    y = X @ w + 0.5 * rng.randn(len(qids)) + 3.0 * rng.randn(n_queries)[qids]
    return X, y, qids


def _objects(name):
    return np.loadtxt(os.path.join(DATA, name), delimiter=",", skiprows=1)


def _pair_labels(name, m, q):
    """The m×q label matrix of a complete pairs file ("row col label" lines)."""
    a = np.loadtxt(os.path.join(DATA, name), comments="#")
    Y = np.full((m, q), np.nan)
    Y[a[:, 0].astype(int), a[:, 1].astype(int)] = a[:, 2]
    assert not np.isnan(Y).any(), name + ": not every pair is labelled"
    return Y


def load_dti():
    """The synthetic drug–target data (docs/data/README.md): 60 drugs × 12
    descriptors (X1), 40 targets × 10 features (X2), the 60×40 affinities Y
    (complete), features scaled to mean 0, sd 1."""
    X1, X2 = _objects("dti-drugs.csv"), _objects("dti-targets.csv")
    Y = _pair_labels("dti-pairs.txt", X1.shape[0], X2.shape[0])
    return (X1 - X1.mean(axis=0)) / X1.std(axis=0), (X2 - X2.mean(axis=0)) / X2.std(axis=0), Y


def load_dti_new_drugs():
    """12 new drugs (scaled by the training drugs' statistics) and their
    12×40 affinities with the 40 training targets."""
    X1 = _objects("dti-drugs.csv")
    new = _objects("dti-drugs-new.csv")
    return (new - X1.mean(axis=0)) / X1.std(axis=0), _pair_labels("dti-pairs-new.txt", new.shape[0], 40)


def gaussian(A, B, gamma):
    """The Gaussian kernel matrix exp(−gamma‖a − b‖²) of the rows of A against those of B."""
    d2 = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * A @ B.T
    return np.exp(-gamma * np.maximum(d2, 0.0))
