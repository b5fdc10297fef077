"""The estimators of pairs (rlskit.KronRLS, TwoStepRLS, PairEstimator) equal
``rlskit fit --learner kronrls|twostep`` on the same files and settings —
λ, every point of the CV curve, the CV predictions, the predictions of the
model for pairs of new objects (``rlskit predict --pairs``) — to 1e-12, for
two settings each and for conjugate gradients on incomplete data; and
scikit-learn's conventions that apply to estimators of three inputs
(get_params, set_params, clone, pickle).

scikit-learn's check_estimator does not apply: its checks call fit(X, y)
with one matrix of rows, and a learner of pairs takes the row objects, the
column objects and the labelled pairs (fit(X_rows, X_cols, pairs, y)); see
docs/python.md."""

import json
import os
import pickle
import subprocess

import numpy as np
import pytest
from sklearn.base import clone

import rlskit

TOL = 1e-12
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "data")


def path(name):
    return os.path.join(DATA, name)


def objects(name):
    return np.loadtxt(path(name), delimiter=",", skiprows=1)


def pairs_file(name):
    a = np.loadtxt(path(name), comments="#")
    return a[:, :2].astype(np.int64), a[:, 2]


def close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    scale = max(1.0, float(np.max(np.abs(b))))
    assert np.max(np.abs(a - b)) <= TOL * scale, np.max(np.abs(a - b))


def read_cv(p):
    rows = [l.split("\t") for l in open(p).read().splitlines()[1:]]
    return np.array([[int(r), int(c)] for r, c, _ in rows]), np.array([float(v) for _, _, v in rows])


def write_folds(p, folds):
    with open(p, "w") as f:
        for fo in folds:
            f.write(" ".join(str(i) for i in fo) + "\n")


DRUGS, TARGETS = objects("dti-drugs.csv"), objects("dti-targets.csv")
NEW_DRUGS = objects("dti-drugs-new.csv")
ROW_FOLDS = [list(range(i, 60, 4)) for i in range(4)]
COL_FOLDS = [list(range(i, 40, 5)) for i in range(5)]

# (estimator, fit keyword arguments, rlskit fit flags): two settings per learner
CASES = [
    ("kronrls rows:5 gaussian", rlskit.KronRLS(kernel="gaussian", gamma=[0.005, 0.02], col_gamma=0.05,
                                               alphas="2^-5..2^5", setting="rows", cv=5, seed=3), {},
     ["--learner", "kronrls", "--kernel", "gaussian", "--gamma-grid", "0.005,0.02", "--col-gamma", "0.05",
      "--lambda-grid", "2^-5..2^5", "--cv", "rows:5", "--seed", "3"]),
    ("kronrls pairs linear", rlskit.KronRLS(alphas=[0.1, 1.0, 10.0, 100.0], setting="A", standardize=True), {},
     ["--learner", "kronrls", "--kernel", "linear", "--lambda-grid", "0.1,1.0,10.0,100.0", "--cv", "pairs",
      "--standardize"]),
    ("twostep both folds", rlskit.TwoStepRLS(kernel="gaussian", gamma=0.01, col_kernel="polynomial", col_gamma=0.1,
                                             col_degree=2, col_coef0=1.0, alphas=[0.1, 1.0, 10.0],
                                             col_alphas=[0.5, 5.0], setting="both"),
     dict(row_folds=ROW_FOLDS, col_folds=COL_FOLDS),
     ["--learner", "twostep", "--kernel", "gaussian", "--gamma", "0.01", "--col-kernel", "polynomial",
      "--col-gamma", "0.1", "--col-degree", "2", "--col-coef0", "1.0", "--lambda-grid", "0.1,1.0,10.0",
      "--col-lambda-grid", "0.5,5.0", "--cv", "both", "--folds", "@rows", "--col-folds", "@cols"]),
    ("twostep cols", rlskit.TwoStepRLS(kernel="gaussian", gamma=0.01, col_gamma=0.05, alphas="2^-3..2^3",
                                       col_alphas="2^-2..2^2", setting="cols", measure="cindex"), {},
     ["--learner", "twostep", "--kernel", "gaussian", "--gamma", "0.01", "--col-gamma", "0.05",
      "--lambda-grid", "2^-3..2^3", "--col-lambda-grid", "2^-2..2^2", "--cv", "cols", "--measure", "cindex"]),
]


def run_cli(cli, tmp_path, flags, pairs="dti-pairs.txt"):
    folds = {"@rows": tmp_path / "rows.folds", "@cols": tmp_path / "cols.folds"}
    write_folds(folds["@rows"], ROW_FOLDS)
    write_folds(folds["@cols"], COL_FOLDS)
    flags = [str(folds.get(f, f)) for f in flags]
    model, cvp = tmp_path / "m.json", tmp_path / "cv.tsv"
    cmd = [cli, "fit", "--rows", path("dti-drugs.csv"), "--cols", path("dti-targets.csv"), "--pairs", path(pairs),
           "--quiet", "--model", str(model)] + flags
    if "--cv" in flags and flags[flags.index("--cv") + 1] != "none":
        cmd += ["--cv-predictions", str(cvp)]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return out, model, cvp


def cli_predict(cli, model, rows=None, pairs="dti-pairs-new.txt"):
    cmd = [cli, "predict", "--model", str(model), "--pairs", path(pairs)]
    if rows:
        cmd += ["--rows", path(rows)]
    return np.array(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split(), dtype=float)


@pytest.mark.parametrize("name,est,kw,flags", CASES, ids=[c[0] for c in CASES])
def test_pairs_python_equals_cli(rlskit_cli, tmp_path, name, est, kw, flags):
    out, model, cvp = run_cli(rlskit_cli, tmp_path, flags)
    P, y = pairs_file("dti-pairs.txt")
    est = clone(est).fit(DRUGS, TARGETS, P, y, **kw)
    assert est.alpha_ == out["lambda"] and est.result_["summary"]["setting"] == out["setting"]
    if "col_lambda" in out:
        assert est.col_alpha_ == out["col_lambda"]
    assert est.kernel_ == out["kernel"] and est.col_kernel_ == out["col_kernel"]
    close(est.cv_results_["value"], [pt["value"] for pt in out["cv"]["curve"]])
    assert est.best_params_["alpha"] == out["cv"]["best"]["lambda"]
    assert est.cv_results_["value"][est.best_index_] == out["cv"]["best"]["value"]
    pairs_cv, cv = read_cv(cvp)
    np.testing.assert_array_equal(pairs_cv, P)
    close(est.cv_predictions_, cv)
    Pn, _ = pairs_file("dti-pairs-new.txt")
    close(est.predict(Pn, X_rows=NEW_DRUGS), cli_predict(rlskit_cli, model, rows="dti-drugs-new.csv"))
    close(est.predict(P[:50]), cli_predict(rlskit_cli, model, pairs="dti-pairs.txt")[:50])
    # the model file is the CLI's format: rlskit predict reads the Python model's
    mine = tmp_path / "py.json"
    mine.write_text(est.model_json())
    close(cli_predict(rlskit_cli, mine, rows="dti-drugs-new.csv"), est.predict(Pn, X_rows=NEW_DRUGS))


def test_cg_python_equals_cli(rlskit_cli, tmp_path):
    """Incomplete data: Kronecker RLS by conjugate gradients, as rlskit fit
    trains it, iterations and predictions equal."""
    out, model, _ = run_cli(rlskit_cli, tmp_path, ["--learner", "kronrls", "--kernel", "gaussian", "--gamma", "0.01",
                                                   "--col-gamma", "0.05", "--lambda", "0.5", "--cv", "none"],
                            pairs="dti-pairs-train.txt")
    assert out["form"] == "cg"
    P, y = pairs_file("dti-pairs-train.txt")
    est = rlskit.KronRLS(kernel="gaussian", gamma=0.01, col_gamma=0.05, alphas=0.5, setting="none").fit(DRUGS, TARGETS, P, y)
    assert not est.complete_ and est.result_["summary"]["cg"] == out["cg"]
    assert not hasattr(est, "cv_results_")
    U, _ = pairs_file("dti-pairs-unseen.txt")
    close(est.predict(U), cli_predict(rlskit_cli, model, pairs="dti-pairs-unseen.txt"))
    Pn, _ = pairs_file("dti-pairs-new.txt")
    close(est.predict(Pn, X_rows=NEW_DRUGS), cli_predict(rlskit_cli, model, rows="dti-drugs-new.csv"))


def pair_learners():
    return [l for l in rlskit.learners() if l["available"] and l.get("needs_pairs")]


def test_pair_learners_listed():
    assert len(pair_learners()) >= 2


@pytest.mark.parametrize("info", pair_learners(), ids=lambda l: l["name"])
def test_every_pair_learner_equals_cli(rlskit_cli, tmp_path, info):
    """Every learner of pairs of the registry, named only by
    rlskit.learners(), gives the CLI's λ and curve through
    rlskit.PairEstimator with setting B — or, for a loss of labels ±1
    (binary_labels: the support vector machine, one model without
    cross-validation), the CLI's training summary and predictions for new
    drugs from labels pKd ≥ 7 (binding) at one λ."""
    if info["binary_labels"]:
        P, pkd = pairs_file("dti-pairs.txt")
        yb = np.where(pkd >= 7, 1.0, -1.0)
        bp = tmp_path / "binding.txt"
        bp.write_text("".join("%d %d %g\n" % (r, c, v) for (r, c), v in zip(P, yb)))
        out, model, _ = run_cli(rlskit_cli, tmp_path, ["--learner", info["name"], "--kernel", "gaussian", "--gamma", "0.01",
                                                       "--col-gamma", "0.01", "--lambda", "1.0"], pairs=str(bp))
        est = rlskit.PairEstimator(learner=info["name"], kernel="gaussian", gamma=0.01, alphas=1.0,
                                   setting="none").fit(DRUGS, TARGETS, P, yb)
        assert est.alpha_ == out["lambda"] and est.result_["summary"]["svm"] == out["svm"] and out["svm"]["converged"]
        Pn, _ = pairs_file("dti-pairs-new.txt")
        close(est.predict(Pn, X_rows=NEW_DRUGS), cli_predict(rlskit_cli, model, rows="dti-drugs-new.csv"))
        # --newton-steps reaches the core as a setting: two steps, unconverged, as the CLI
        out2, _, _ = run_cli(rlskit_cli, tmp_path, ["--learner", info["name"], "--kernel", "gaussian", "--gamma", "0.01",
                                                    "--col-gamma", "0.01", "--lambda", "1.0", "--newton-steps", "2"], pairs=str(bp))
        est2 = rlskit.PairEstimator(learner=info["name"], kernel="gaussian", gamma=0.01, alphas=1.0, setting="none",
                                    settings={"newton-steps": 2}).fit(DRUGS, TARGETS, P, yb)
        assert est2.result_["summary"]["svm"] == out2["svm"] and out2["svm"]["newton_steps"] == 2
        with pytest.raises(ValueError, match="takes labels −1 and \\+1"):
            rlskit.PairEstimator(learner=info["name"], alphas=1.0, setting="none").fit(DRUGS, TARGETS, P, pkd)
        return
    out, _, _ = run_cli(rlskit_cli, tmp_path, ["--learner", info["name"], "--kernel", "gaussian", "--gamma", "0.01",
                                               "--col-gamma", "0.01", "--lambda-grid", "0.1,1.0,10.0", "--cv", "rows:4"])
    P, y = pairs_file("dti-pairs.txt")
    est = rlskit.PairEstimator(learner=info["name"], kernel="gaussian", gamma=0.01, alphas=[0.1, 1.0, 10.0],
                               setting="rows", cv=4).fit(DRUGS, TARGETS, P, y)
    assert est.alpha_ == out["lambda"] and est.measure_ == out["cv"]["measure"]
    close(est.cv_results_["value"], [pt["value"] for pt in out["cv"]["curve"]])


def test_homogeneous_network():
    """X_cols=None: a homogeneous network (its columns are its rows), the
    symmetric Kronecker kernel; a pair predicted in both orientations gives
    the same value, and vertices CV runs."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 3))
    iu = np.triu_indices(12)  # with the diagonal: every vertex pair labelled (complete)
    P = np.column_stack(iu)
    y = np.array([np.sin(X[i] @ X[j]) for i, j in P])
    est = rlskit.KronRLS(kernel="gaussian", gamma=0.3, alphas=[0.1, 1.0], setting="vertices").fit(X, None, P, y)
    assert est.homogeneous_ and est.cv_predictions_.shape == (len(P),)
    np.testing.assert_array_equal(est.predict(P), est.predict(P[:, ::-1]))
    with pytest.raises(ValueError, match="homogeneous"):
        est.predict(P, X_rows=X, X_cols=X)


def test_params_clone_pickle():
    """get_params/set_params/clone (scikit-learn's conventions for the
    parameters) and pickling (the model file) hold for the estimators of
    three inputs."""
    P, y = pairs_file("dti-pairs.txt")
    for est in (rlskit.KronRLS(kernel="gaussian", gamma=0.01, alphas=[0.1, 1.0], setting="rows"),
                rlskit.TwoStepRLS(alphas=[0.1, 1.0], col_alphas=[1.0], setting="cols"),
                rlskit.PairEstimator(learner="twostep", settings={"col-lambda": 2.0})):
        c = clone(est)
        assert c.get_params() == est.get_params() and not hasattr(c, "model_")
        c.set_params(alphas=[0.5, 5.0])
        assert c.get_params()["alphas"] == [0.5, 5.0] and est.get_params()["alphas"] != [0.5, 5.0]
        c.fit(DRUGS, TARGETS, P, y)
        assert c.alpha_ in (0.5, 5.0)
        c2 = pickle.loads(pickle.dumps(c))
        np.testing.assert_array_equal(c.predict(P[:20]), c2.predict(P[:20]))
        assert np.isfinite(c.score(P[:100], y[:100]))


def test_errors_name_the_setting():
    P, y = pairs_file("dti-pairs.txt")
    with pytest.raises(ValueError, match="setting"):
        rlskit.KronRLS(setting="E").fit(DRUGS, TARGETS, P, y)
    with pytest.raises(ValueError, match="--cv"):  # the core's refusal names the flag
        rlskit.KronRLS(setting="vertices").fit(DRUGS, TARGETS, P, y)
    with pytest.raises(ValueError, match="pair 3"):
        bad = P.copy()
        bad[3, 0] = 60
        rlskit.KronRLS().fit(DRUGS, TARGETS, bad, y)
    T, yt = pairs_file("dti-pairs-train.txt")
    with pytest.raises(ValueError, match="needs complete data"):
        rlskit.TwoStepRLS(alphas=1.0, col_alphas=1.0, setting="none").fit(DRUGS, TARGETS, T, yt)


def write_objects(p, X, header):
    with open(p, "w") as f:
        f.write(",".join(header) + "\n")
        for row in X:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


INTERVAL_CASES = [
    # (name, estimator, fit kwargs, rlskit fit flags, the kind of new object predicted)
    ("kronrls rows:5 cv+", rlskit.KronRLS(kernel="gaussian", gamma=0.005, col_gamma=0.05, alphas=[0.125, 1.0],
                                          setting="rows", cv=5, seed=3, interval="cv+"), {},
     ["--learner", "kronrls", "--kernel", "gaussian", "--gamma", "0.005", "--col-gamma", "0.05",
      "--lambda-grid", "0.125,1.0", "--cv", "rows:5", "--seed", "3", "--interval", "cv+"], "rows"),
    ("twostep cols cv+", rlskit.TwoStepRLS(kernel="gaussian", gamma=0.01, col_gamma=0.05, alphas=0.5,
                                           col_alphas=[0.25, 2.0], setting="cols", interval="cv+"), {},
     ["--learner", "twostep", "--kernel", "gaussian", "--gamma", "0.01", "--col-gamma", "0.05", "--lambda", "0.5",
      "--col-lambda-grid", "0.25,2.0", "--cv", "cols", "--interval", "cv+"], "cols"),
    ("twostep both folds cv+", rlskit.TwoStepRLS(kernel="gaussian", gamma=0.01, col_gamma=0.05, alphas=[0.1, 1.0],
                                                 col_alphas=[0.5, 5.0], setting="both", interval="cv+"),
     dict(row_folds=ROW_FOLDS, col_folds=COL_FOLDS),
     ["--learner", "twostep", "--kernel", "gaussian", "--gamma", "0.01", "--col-gamma", "0.05",
      "--lambda-grid", "0.1,1.0", "--col-lambda-grid", "0.5,5.0", "--cv", "both", "--folds", "@rows",
      "--col-folds", "@cols", "--interval", "cv+"], "both"),
    ("kronrls both:3 cv+", rlskit.KronRLS(kernel="gaussian", gamma=0.005, col_gamma=0.05, alphas=[0.25, 4.0],
                                          setting="D", cv=3, seed=5, interval="cv+"), {},
     ["--learner", "kronrls", "--kernel", "gaussian", "--gamma", "0.005", "--col-gamma", "0.05",
      "--lambda-grid", "0.25,4.0", "--cv", "both:3", "--seed", "5", "--interval", "cv+"], "both"),
]


@pytest.mark.parametrize("name,est,kw,flags,new", INTERVAL_CASES, ids=[c[0] for c in INTERVAL_CASES])
def test_pair_intervals_equal_cli(rlskit_cli, tmp_path, name, est, kw, flags, new):
    """interval="cv+" and predict(…, coverage=c) give rlskit fit --interval
    cv+ and rlskit predict --pairs --coverage c: prediction, lower and upper
    for pairs of the kind of new object the setting held out — settings B
    (new drugs), C (new targets) and D (both new) — to 1e-12."""
    out, model, _ = run_cli(rlskit_cli, tmp_path, flags)
    P, y = pairs_file("dti-pairs.txt")
    est = clone(est).fit(DRUGS, TARGETS, P, y, **kw)
    assert est.alpha_ == out["lambda"]
    close(est.cv_results_["value"], [pt["value"] for pt in out["cv"]["curve"]])
    rng = np.random.default_rng(4)
    new_targets = TARGETS[[3, 17, 29, 36, 8]] + 0.3 * rng.normal(size=(5, TARGETS.shape[1]))
    tpath = tmp_path / "new-targets.csv"
    write_objects(tpath, new_targets, open(path("dti-targets.csv")).readline().strip().split(","))
    kw_pred, cmd = {}, []
    if new == "rows":
        pairs = np.loadtxt(path("dti-pairs-new.txt"), comments="#")[:, :2].astype(np.int64)
        kw_pred["X_rows"], cmd = NEW_DRUGS, ["--rows", path("dti-drugs-new.csv")]
    elif new == "cols":
        pairs = np.array([(i, j) for i in range(0, 60, 7) for j in range(5)], dtype=np.int64)
        kw_pred["X_cols"], cmd = new_targets, ["--cols", str(tpath)]
    else:
        pairs = np.array([(i, j) for i in range(12) for j in range(5)], dtype=np.int64)
        kw_pred["X_rows"], kw_pred["X_cols"] = NEW_DRUGS, new_targets
        cmd = ["--rows", path("dti-drugs-new.csv"), "--cols", str(tpath)]
    ppath = tmp_path / "pred-pairs.txt"
    ppath.write_text("".join("%d %d\n" % (i, j) for i, j in pairs))
    for coverage in (0.8, 0.9):
        text = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--pairs", str(ppath),
                               "--coverage", repr(coverage)] + cmd, check=True, capture_output=True, text=True).stdout
        cli = np.array([[float(v) for v in line.split("\t")] for line in text.strip().split("\n")])
        got = est.predict(pairs, coverage=coverage, **kw_pred)
        assert len(got) == 3
        for g, col in zip(got, cli.T):
            close(g, col)
        assert np.all(got[1] <= got[0]) and np.all(got[0] <= got[2])
    close(est.predict(pairs, **kw_pred), cli[:, 0])
    # the estimator's model file carries the interval: the CLI reads it back
    mine = tmp_path / "mine.json"
    mine.write_text(est.model_json())
    text = subprocess.run([rlskit_cli, "predict", "--model", str(mine), "--pairs", str(ppath), "--coverage", "0.9"] + cmd,
                          check=True, capture_output=True, text=True).stdout
    cli = np.array([[float(v) for v in line.split("\t")] for line in text.strip().split("\n")])
    for g, col in zip(est.predict(pairs, coverage=0.9, **kw_pred), cli.T):
        close(g, col)


def test_pair_interval_refusals():
    """The core's refusals reach Python by the flag: setting pairs has no new
    pair to cover; a model fitted without interval records none."""
    P, y = pairs_file("dti-pairs.txt")
    with pytest.raises(ValueError, match="--interval cv\\+ with --cv pairs"):
        rlskit.KronRLS(alphas=1.0, setting="pairs", interval="cv+").fit(DRUGS, TARGETS, P, y)
    with pytest.raises(ValueError, match="--interval jackknife\\+"):
        rlskit.KronRLS(alphas=1.0, setting="rows", interval="jackknife+").fit(DRUGS, TARGETS, P, y)
    est = rlskit.KronRLS(alphas=1.0, setting="rows", cv=4).fit(DRUGS, TARGETS, P, y)
    with pytest.raises(ValueError, match="--coverage 0.9: the model records no prediction interval"):
        est.predict(P[:3], coverage=0.9, X_rows=DRUGS)
