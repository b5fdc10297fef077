"""Readers of RLScore's text formats (utilities.reader): sparse feature
files, query ids, folds. Errors name the file and line."""

import numpy as np
import scipy.sparse as sp


def read_sparse(fname, fdim=None):
    """A CSR matrix from lines of index:value pairs (0-based, strictly
    increasing indices; zeros dropped; with fdim, indices ≥ fdim dropped and
    the matrix has fdim columns). A blank or '#' line is a row without
    entries; text after '#' is a comment."""
    rows, cols, vals = [], [], []
    n = 0
    with open(fname) as f:
        for lineno, line in enumerate(f, 1):
            n = lineno
            body = line.split("#", 1)[0].split()
            prev = -1
            for tok in body:
                parts = tok.split(":")
                if len(parts) != 2:
                    raise ValueError("%s:%d: feature:value pair %r is not well-formed" % (fname, lineno, tok))
                try:
                    idx, val = int(parts[0]), float(parts[1])
                except ValueError:
                    raise ValueError("%s:%d: feature:value pair %r is not well-formed" % (fname, lineno, tok))
                if idx <= prev or idx < 0:
                    raise ValueError("%s:%d: feature indices must be non-negative and increasing (%d after %d)"
                                     % (fname, lineno, idx, prev))
                prev = idx
                if val != 0.0 and (fdim is None or idx < fdim):
                    rows.append(lineno - 1)
                    cols.append(idx)
                    vals.append(val)
    d = fdim if fdim is not None else (max(cols) + 1 if cols else 0)
    return sp.csr_matrix((np.array(vals, dtype=np.float64), (rows, cols)), shape=(n, d))


def read_qids(fname):
    """One query id per line (strings), mapped to 0, 1, … in order of first
    appearance."""
    ids = {}
    out = []
    with open(fname) as f:
        for line in f:
            q = line.strip()
            if q:
                out.append(ids.setdefault(q, len(ids)))
    return out


def read_folds(fname):
    """One fold per line: whitespace-separated row indices."""
    folds = []
    with open(fname) as f:
        for lineno, line in enumerate(f, 1):
            try:
                fold = [int(t) for t in line.split()]
            except ValueError:
                raise ValueError("%s:%d: a fold line holds integer row indices" % (fname, lineno))
            if fold:
                folds.append(fold)
    return folds


def loadtxtint(fname):
    """An integer array from a whitespace-separated text file."""
    return np.loadtxt(fname, dtype=int)
