"""Python results equal the CLI's on the same data and settings: the chosen
λ (and kernel parameter), every point of the CV curve, the CV predictions
and the predictions of the model, to 1e-12 (relative to the values' scale).
The data go to the CLI as a CSV of shortest round-trip decimals, which it
reads back to the same float64 values."""

import json
import subprocess

import numpy as np
import pytest

import rlskit

TOL = 1e-12


def write_csv(path, X, y, qid=None):
    cols = ["f%d" % j for j in range(X.shape[1])] + ["y"] + (["q"] if qid is not None else [])
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for i in range(X.shape[0]):
            row = [repr(float(v)) for v in X[i]] + [repr(float(y[i]))]
            if qid is not None:
                row.append(str(int(qid[i])))
            f.write(",".join(row) + "\n")


def read_column(path):
    with open(path) as f:
        lines = f.read().split()
    return np.array([float(v) for v in lines[1:]], dtype=float)  # under the header (the output name)


def close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    if a.size == 0:
        return
    scale = max(1.0, float(np.max(np.abs(b))))
    assert a.shape == b.shape
    assert np.max(np.abs(a - b)) <= TOL * scale, np.max(np.abs(a - b))


def data(m=45, d=4, seed=3, queries=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = X @ rng.normal(size=d) + 0.4 * rng.normal(size=m)
    q = np.arange(m) * queries // m if queries else None
    return X, y, q


CASES = [
    # (estimator, CLI flags, queries)
    (rlskit.RLS(kernel="gaussian", gamma=[0.05, 0.3], alphas=[0.01, 0.1, 1.0, 10.0]),
     ["--learner", "rls", "--kernel", "gaussian", "--gamma-grid", "0.05,0.3", "--lambda-grid", "0.01,0.1,1.0,10.0", "--cv", "loo"], 0),
    (rlskit.RLS(alphas="2^-6..2^6", cv=5, seed=7, standardize=True),
     ["--learner", "rls", "--kernel", "linear", "--lambda-grid", "2^-6..2^6", "--cv", "kfold:5", "--seed", "7", "--standardize"], 0),
    (rlskit.RLS(kernel="polynomial", gamma=0.5, degree=3, coef0=1.0, alphas=[0.1, 1.0, 10.0], cv=4, measure="mae"),
     ["--learner", "rls", "--kernel", "polynomial", "--gamma", "0.5", "--degree", "3", "--coef0", "1.0",
      "--lambda-grid", "0.1,1.0,10.0", "--cv", "kfold:4", "--measure", "mae"], 0),
    (rlskit.RLS(alphas=[0.01, 1.0, 100.0], fit_intercept=True),
     ["--learner", "rls", "--lambda-grid", "0.01,1.0,100.0", "--cv", "loo", "--intercept"], 0),
    (rlskit.RLS(kernel="gaussian", gamma="scale", alphas=[0.1, 1.0]),
     ["--learner", "rls", "--kernel", "gaussian", "--gamma", "scale", "--lambda-grid", "0.1,1.0", "--cv", "loo"], 0),
    (rlskit.GlobalRankRLS(kernel="gaussian", gamma=0.2, alphas=[0.1, 1.0, 10.0]),
     ["--learner", "globalrank", "--kernel", "gaussian", "--gamma", "0.2", "--lambda-grid", "0.1,1.0,10.0", "--cv", "loo"], 0),
    (rlskit.GlobalRankRLS(alphas=[0.1, 1.0, 10.0], cv="lpo"),
     ["--learner", "globalrank", "--lambda-grid", "0.1,1.0,10.0", "--cv", "lpo"], 0),
    (rlskit.QueryRankRLS(alphas=[0.1, 1.0, 10.0]),
     ["--learner", "queryrank", "--lambda-grid", "0.1,1.0,10.0", "--cv", "lqo", "--qid", "q"], 5),
    (rlskit.QueryRankRLS(kernel="gaussian", gamma=0.3, alphas=[0.1, 1.0], query_normalize=True),
     ["--learner", "queryrank", "--kernel", "gaussian", "--gamma", "0.3", "--lambda-grid", "0.1,1.0", "--cv", "lqo",
      "--qid", "q", "--query-normalize"], 5),
]


@pytest.mark.parametrize("est,flags,queries", CASES, ids=[" ".join(c[1][1:4]) + " " + c[1][-1] for c in CASES])
def test_python_equals_cli(rlskit_cli, tmp_path, est, flags, queries):
    X, y, q = data(queries=queries)
    train = tmp_path / "train.csv"
    write_csv(train, X, y, q)
    model, cvp = tmp_path / "m.json", tmp_path / "cv.csv"
    has_cvp = "lpo" not in flags
    cmd = [rlskit_cli, "fit", "--data", str(train), "--label", "y", "--quiet", "--model", str(model)] + flags
    if has_cvp:
        cmd += ["--cv-predictions", str(cvp)]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)

    est.fit(X, y, groups=q) if q is not None else est.fit(X, y)
    cv = out["cv"]
    assert est.alpha_ == out["lambda"]
    assert est.kernel_ == out["kernel"]
    close(est.cv_results_["value"], [pt["value"] for pt in cv["curve"]])
    close(est.cv_results_["param_alpha"], [pt["lambda"] for pt in cv["curve"]])
    assert est.cv_results_["value"][est.best_index_] == cv["best"]["value"]
    if has_cvp:
        close(est.cv_predictions_, read_column(cvp))
    # predictions of the CLI's model on new rows equal the estimator's
    Xn, yn, qn = data(m=20, seed=11, queries=queries)
    test = tmp_path / "test.csv"
    write_csv(test, Xn, yn, qn)
    pred = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--data", str(test)],
                          check=True, capture_output=True, text=True).stdout.split()
    close(est.predict(Xn), np.array(pred, dtype=float))
    # and the estimator's model file, read by the CLI, predicts the same
    # (its model records no column names: every column but the label is a feature)
    mine = tmp_path / "mine.json"
    mine.write_text(est.model_json())
    plain = tmp_path / "plain.csv"
    write_csv(plain, Xn, yn)
    pred2 = subprocess.run([rlskit_cli, "predict", "--model", str(mine), "--data", str(plain)],
                           check=True, capture_output=True, text=True).stdout.split()
    close(est.predict(Xn), np.array(pred2, dtype=float))


def write_svmlight(path, X, y):
    """1-based svmlight of the nonzero entries, shortest round-trip decimals."""
    with open(path, "w") as f:
        for i in range(X.shape[0]):
            items = ["%d:%r" % (j + 1, float(X[i, j])) for j in np.flatnonzero(X[i])]
            f.write(" ".join([repr(float(y[i]))] + items) + "\n")


SPARSE_CASES = [
    (dict(alphas=[0.01, 0.1, 1.0, 10.0]), ["--lambda-grid", "0.01,0.1,1.0,10.0"]),
    (dict(kernel="gaussian", gamma=0.3, alphas=[0.01, 0.1, 1.0]),
     ["--kernel", "gaussian", "--gamma", "0.3", "--lambda-grid", "0.01,0.1,1.0"]),
    (dict(alphas=[0.1, 1.0], standardize=True, cv=4), ["--lambda-grid", "0.1,1.0", "--standardize", "--cv", "kfold:4"]),
]


@pytest.mark.parametrize("params,flags", SPARSE_CASES, ids=[" ".join(c[1]) for c in SPARSE_CASES])
def test_sparse_python_equals_cli(rlskit_cli, tmp_path, params, flags):
    """A SciPy CSR X (read in place by the core) gives the CLI's fit on the
    same rows in svmlight: λ, curve, CV predictions, predictions."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(8)
    X = rng.normal(size=(50, 7))
    X[rng.random(X.shape) < 0.7] = 0
    X[0, -1] = 1.5  # the file's widest row names the last feature
    y = X @ rng.normal(size=7) + 0.2 * rng.normal(size=50)
    train = tmp_path / "train.svm"
    write_svmlight(train, X, y)
    model, cvp = tmp_path / "m.json", tmp_path / "cv.csv"
    if params.get("cv", "loo") != "loo":  # CV+ intervals recorded from the k-fold CV
        params, flags = dict(params, interval="cv+"), flags + ["--interval", "cv+"]
    out = json.loads(subprocess.run([rlskit_cli, "fit", "--data", str(train), "--zero-based", "false", "--quiet",
                                     "--model", str(model), "--cv-predictions", str(cvp)] + flags,
                                    check=True, capture_output=True, text=True).stdout)
    est = rlskit.RLS(**params).fit(sp.csr_matrix(X), y)
    assert est.alpha_ == out["lambda"]
    close(est.cv_results_["value"], [pt["value"] for pt in out["cv"]["curve"]])
    close(est.cv_predictions_, read_column(cvp))
    Xn = rng.normal(size=(15, 7))
    Xn[rng.random(Xn.shape) < 0.7] = 0
    Xn[0, -1] = 0.5
    test = tmp_path / "test.svm"
    write_svmlight(test, Xn, np.zeros(15))
    pred = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--data", str(test)],
                          check=True, capture_output=True, text=True).stdout.split()
    close(est.predict(sp.csr_matrix(Xn)), np.array(pred, dtype=float))
    close(est.predict(Xn), np.array(pred, dtype=float))
    if "interval" in params:  # sparse rows: the interval rlskit predict --coverage gives
        out = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--data", str(test), "--coverage", "0.7"],
                             check=True, capture_output=True, text=True).stdout
        cli = np.array([[float(v) for v in line.split("\t")] for line in out.strip().split("\n")])
        for got, col in zip(est.predict(sp.csr_matrix(Xn), coverage=0.7), cli.T):
            close(got, col)


INTERVAL_CASES = [
    (dict(alphas=[0.1, 1.0, 10.0], interval="jackknife+"),
     ["--lambda-grid", "0.1,1.0,10.0", "--cv", "loo", "--interval", "jackknife+"]),
    (dict(kernel="gaussian", gamma=0.2, alphas=[0.1, 1.0, 10.0], cv=5, seed=3, interval="cv+"),
     ["--kernel", "gaussian", "--gamma", "0.2", "--lambda-grid", "0.1,1.0,10.0", "--cv", "kfold:5", "--seed", "3",
      "--interval", "cv+"]),
]


@pytest.mark.parametrize("params,flags", INTERVAL_CASES, ids=[c[0]["interval"] for c in INTERVAL_CASES])
def test_interval_python_equals_cli(rlskit_cli, tmp_path, params, flags):
    """predict(X, coverage=c) gives rlskit predict --coverage c's prediction,
    lower and upper columns, including ±inf beyond n/(n+1); the training
    array may be overwritten after fit."""
    X, y, _ = data(m=40)
    train = tmp_path / "train.csv"
    write_csv(train, X, y)
    model = tmp_path / "m.json"
    subprocess.run([rlskit_cli, "fit", "--data", str(train), "--label", "y", "--quiet", "--model", str(model)] + flags,
                   check=True, capture_output=True, text=True)
    Xt = X.copy()
    est = rlskit.RLS(**params).fit(Xt, y)
    Xt[:] = 7.0
    Xn, yn, _ = data(m=12, seed=4)
    test = tmp_path / "test.csv"
    write_csv(test, Xn, yn)
    for c in (0.513, 0.903, 0.99):  # c·41 just above an integer: the order statistic read moves with c
        out = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--data", str(test), "--coverage", str(c)],
                             check=True, capture_output=True, text=True).stdout
        cli = np.array([[float(v) for v in line.split("\t")] for line in out.strip().split("\n")])
        pred, lo, hi = est.predict(Xn, coverage=c)
        close(pred, cli[:, 0])
        finite = np.isfinite(cli[:, 1])
        assert finite.all() if c < 40 / 41 else not finite.any()  # ±inf beyond n/(n+1)
        np.testing.assert_array_equal(np.isfinite(lo), finite)
        np.testing.assert_array_equal(np.isfinite(hi), np.isfinite(cli[:, 2]))
        close(lo[finite], cli[finite, 1])
        close(hi[finite], cli[finite, 2])


def available_learners():
    """The learners on rows (a learner of pairs, needs_pairs, is fitted by
    rlskit.PairEstimator: test_pairs.py)."""
    return [l for l in rlskit.learners() if l["available"] and not l.get("needs_pairs")]


@pytest.mark.parametrize("info", available_learners(), ids=lambda l: l["name"])
def test_every_registered_learner_equals_cli(rlskit_cli, tmp_path, info):
    """Every learner of the registry that the C ABI fits, named only by
    rlskit.learners() (no name in this file or the package), gives the
    CLI's λ and curve through rlskit.Estimator, with the learner's default
    CV scheme and measure (a preference graph passed when it declares
    needs_graph); a clustering learner (clustering) gives the CLI's
    labelling and J through rlskit.Model with no labels."""
    queries = 5 if info["needs_groups"] else 0
    X, y, q = data(queries=queries)
    train = tmp_path / "train.csv"
    write_csv(train, X, y, q)
    kernel = "gaussian" if not info["kernels"] or "gaussian" in info["kernels"] else info["kernels"][0]
    if info.get("clustering"):  # labels unlabelled rows at one kernel and λ: the labelling and J
        cmd = [rlskit_cli, "fit", "--data", str(train), "--ignore", "y", "--quiet", "--learner", info["name"],
               "--kernel", kernel, "--lambda", "0.5", "--clusters", "3", "--restarts", "2"]
        cmd += ["--gamma", "0.2"] if kernel == "gaussian" else []
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        settings = {"learner": info["name"], "kernel": kernel, "lambda": 0.5, "clusters": 3, "restarts": 2}
        if kernel == "gaussian":
            settings["gamma"] = 0.2
        res = rlskit.Model().fit(settings, X, None)["summary"]
        assert res["labels"] == out["labels"] and res["counts"] == out["counts"]
        close(res["objective"], out["objective"])
        return
    cmd = [rlskit_cli, "fit", "--data", str(train), "--label", "y", "--quiet", "--learner", info["name"],
           "--kernel", kernel, "--lambda-grid", "0.1,1.0,10.0"]
    if kernel == "gaussian":
        cmd += ["--gamma", "0.2"]
    settings = {}
    if "select" in info["params"]:  # a learner that selects features needs how many
        cmd += ["--select", "2"]
        settings["select"] = 2
    if q is not None:
        cmd += ["--qid", "q"]
    prefs = None
    if info.get("needs_graph"):  # a preference graph: each row over the next lower-labelled one
        order = np.argsort(-y, kind="stable")
        prefs = (order[:-1], order[1:], y[order[:-1]] - y[order[1:]])
        graph = tmp_path / "prefs.txt"
        graph.write_text("".join("%d %d %r\n" % (i, j, float(g)) for i, j, g in zip(*prefs)))
        cmd += ["--preferences", str(graph)]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    est = rlskit.Estimator(learner=info["name"], kernel=kernel, gamma=0.2, alphas=[0.1, 1.0, 10.0],
                           cv=out["cv"]["strategy"], settings=settings)
    est.fit(X, y, groups=q, preferences=prefs)
    assert est.alpha_ == out["lambda"] and est.measure_ == out["cv"]["measure"]
    close(est.cv_results_["value"], [pt["value"] for pt in out["cv"]["curve"]])


@pytest.mark.parametrize("params,flags", [
    (dict(n_features_to_select=3, alphas=[0.1, 1.0, 10.0]), ["--select", "3", "--lambda-grid", "0.1,1.0,10.0"]),
    (dict(n_features_to_select=2, alphas=[0.1, 1.0], cv=4, standardize=True, seed=5),
     ["--select", "2", "--lambda-grid", "0.1,1.0", "--cv", "kfold:4", "--standardize", "--seed", "5"]),
], ids=["loo", "kfold standardize"])
def test_greedy_python_equals_cli(rlskit_cli, tmp_path, params, flags):
    """GreedyRLS gives rlskit fit --learner greedy's selected features, λ,
    criterion path, CV predictions and predictions."""
    X, y, _ = data(d=6)
    train = tmp_path / "train.csv"
    write_csv(train, X, y)
    model, cvp = tmp_path / "m.json", tmp_path / "cv.csv"
    out = json.loads(subprocess.run([rlskit_cli, "fit", "--data", str(train), "--label", "y", "--quiet", "--learner", "greedy",
                                     "--model", str(model), "--cv-predictions", str(cvp)] + flags,
                                    check=True, capture_output=True, text=True).stdout)
    est = rlskit.GreedyRLS(**params).fit(X, y)
    assert list(est.selected_) == out["selection"]["selected"] and est.alpha_ == out["lambda"]
    close([st["value"] for st in est.selection_["curve"]], [st["value"] for st in out["selection"]["curve"]])
    close(est.cv_results_["value"], [pt["value"] for pt in out["cv"]["curve"]])
    close(est.cv_predictions_, read_column(cvp))
    Xn, yn, _ = data(m=10, d=6, seed=9)
    test = tmp_path / "test.csv"
    write_csv(test, Xn, yn)
    pred = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--data", str(test)],
                          check=True, capture_output=True, text=True).stdout.split()
    close(est.predict(Xn), np.array(pred, dtype=float))
    np.testing.assert_array_equal(est.transform(Xn), Xn[:, est.selected_])


@pytest.mark.parametrize("learner,flags", [("rls", []), ("globalrank", ["--bias", "0"])], ids=["rls", "globalrank"])
def test_cg_python_equals_cli(rlskit_cli, tmp_path, learner, flags):
    """--solver cg (conjugate gradients at one λ, no CV) through the C ABI
    equals rlskit fit --solver cg: iterations, residual, predictions (a
    loose --tol, so that the stopping rule decides the model)."""
    X, y, _ = data(m=80, d=20)
    train = tmp_path / "train.csv"
    write_csv(train, X, y)
    model = tmp_path / "m.json"
    out = json.loads(subprocess.run([rlskit_cli, "fit", "--data", str(train), "--label", "y", "--quiet", "--learner", learner,
                                     "--solver", "cg", "--lambda", "0.5", "--cv", "none", "--tol", "1e-3",
                                     "--model", str(model)] + flags, check=True, capture_output=True, text=True).stdout)
    settings = {"solver": "cg", "tol": "1e-3"}
    est = rlskit.Estimator(learner=learner, alphas=0.5, cv="none", bias=0.0 if flags else None, settings=settings).fit(X, y)
    assert est.result_["summary"]["form"] == "cg" and est.result_["summary"]["cg"] == out["cg"]
    Xn, _, _ = data(m=10, d=20, seed=9)
    test = tmp_path / "test.csv"
    write_csv(test, Xn, np.zeros(10))
    pred = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--data", str(test)],
                          check=True, capture_output=True, text=True).stdout.split()
    close(est.predict(Xn), np.array(pred, dtype=float))
