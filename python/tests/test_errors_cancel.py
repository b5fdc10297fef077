"""Go errors become Python exceptions with the Go message; Ctrl-C and
Model.cancel stop a fit."""

import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import rlskit
from rlskit import Model


def data(m=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, X @ rng.normal(size=d)


@pytest.mark.parametrize("est,flags", [
    (rlskit.RLS(cv="kfold:0"), ["--cv", "kfold:0"]),
    (rlskit.RLS(measure="nope"), ["--measure", "nope"]),
    (rlskit.RLS(kernel="gaussian", gamma=-1.0), ["--kernel", "gaussian", "--gamma", "-1.0"]),
    (rlskit.RLS(alphas=[1.0, -2.0]), ["--lambda-grid", "1.0,-2.0"]),
    (rlskit.RLS(kernel="sigmoid"), ["--kernel", "sigmoid"]),
])
def test_error_is_the_cli_message(rlskit_cli, tmp_path, est, flags):
    """The ValueError's message is the CLI's error message for the same
    settings (the CLI prefixes "rlskit: ")."""
    X, y = data()
    csv = tmp_path / "d.csv"
    with open(csv, "w") as f:
        f.write("a,b,c,y\n")
        for r, v in zip(X, y):
            f.write(",".join(repr(float(t)) for t in list(r) + [v]) + "\n")
    cli = subprocess.run([rlskit_cli, "fit", "--data", str(csv), "--label", "y", "--quiet"] + flags,
                         capture_output=True, text=True)
    assert cli.returncode != 0
    with pytest.raises(ValueError) as e:
        est.fit(X, y)
    assert "rlskit: " + str(e.value) in cli.stderr, (str(e.value), cli.stderr)


def test_error_kinds():
    X, y = data()
    m = Model()
    with pytest.raises(TypeError, match='"nope": not a setting of rlskit fit'):
        m.fit({"nope": 1}, X, y.reshape(-1, 1))
    with pytest.raises(TypeError, match='"data": not taken by the C ABI'):
        m.fit({"data": "x.csv"}, X, y.reshape(-1, 1))
    with pytest.raises(ValueError, match="no model on this handle"):
        m.predict(X)
    with pytest.raises(ValueError, match="learns on pairs of objects"):
        m.fit({"learner": "kronrls"}, X, y.reshape(-1, 1))
    r = rlskit.RLS().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        r.predict(X[:, :2])  # scikit-learn's n_features_in_ check
    with pytest.raises(ValueError, match="model: data width does not match the model"):
        r.model_.predict(X[:, :2])  # the core's own check, below scikit-learn's
    with pytest.raises(ValueError, match="corrupt|model"):
        Model.from_json("{}")


def long_fit_args():
    """A fit of a few seconds: 300 Gaussian widths, one factorization each."""
    X, y = data(m=300, d=5)
    s = {"learner": "rls", "kernel": "gaussian", "gamma-grid": "2^-10..2^10:300", "lambda-grid": "2^-5..2^5", "cv": "loo"}
    return s, X, y.reshape(-1, 1)


def test_cancel_from_another_thread():
    s, X, Y = long_fit_args()
    m = Model()
    t = threading.Timer(0.3, m.cancel)
    t.start()
    with pytest.raises(KeyboardInterrupt, match="rlskit: fit cancelled"):
        m.fit(s, X, Y)
    t.join()
    # the handle is usable again: the cancellation ended with its fit
    res = m.fit({"learner": "rls", "lambda-grid": "0.1,1"}, X, Y)
    assert res["summary"]["lambda"] in (0.1, 1.0)


def test_cancel_before_fit_cancels_it():
    X, y = data()
    m = Model()
    m.cancel()
    with pytest.raises(KeyboardInterrupt, match="rlskit: fit cancelled"):
        m.fit({"learner": "rls"}, X, y.reshape(-1, 1))


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs signal.pthread_kill")
def test_ctrl_c_stops_the_fit():
    """SIGINT to the main thread during a fit (what Ctrl-C sends) raises
    KeyboardInterrupt from the core's cancellation."""
    s, X, Y = long_fit_args()
    m = Model()
    main = threading.get_ident()
    t = threading.Timer(0.3, lambda: signal.pthread_kill(main, signal.SIGINT))
    t.start()
    with pytest.raises(KeyboardInterrupt) as e:
        m.fit(s, X, Y)
    t.join()
    assert "rlskit: fit cancelled" in str(e.value)


def test_fits_on_two_handles_run_in_parallel_threads():
    """Fits on separate handles from several threads (the GIL is released
    during each) give the same results as one after another."""
    rng = np.random.default_rng(2)
    jobs = []
    for k in range(4):
        X = rng.normal(size=(80, 4))
        jobs.append((X, X @ rng.normal(size=4) + 0.1 * rng.normal(size=80)))
    make = lambda: rlskit.RLS(kernel="gaussian", gamma=0.3, alphas=[0.01, 0.1, 1.0, 10.0])
    alone = [make().fit(X, y) for X, y in jobs]
    together = [None] * len(jobs)

    def work(k):
        together[k] = make().fit(*jobs[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # (to rounding: a fit's single-threaded BLAS sections, linalg.SerialBLAS,
    # can change the other fits' BLAS thread count and so their sums' order)
    for a, b in zip(alone, together):
        assert a.alpha_ == b.alpha_
        np.testing.assert_allclose(a.cv_results_["value"], b.cv_results_["value"], rtol=1e-12)
        np.testing.assert_allclose(a.cv_predictions_, b.cv_predictions_, rtol=1e-12, atol=1e-12)


def test_cancel_greedy_selection():
    """Feature selection (greedy.Select, its own search) stops too."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 1500))
    y = X[:, :5].sum(axis=1) + rng.normal(size=300)
    m = Model()
    t = threading.Timer(0.3, m.cancel)
    t.start()
    with pytest.raises(KeyboardInterrupt, match="rlskit: fit cancelled"):
        m.fit({"learner": "greedy", "select": 300, "lambda-grid": "2^-5..2^5"}, X, y.reshape(-1, 1))
    t.join()
