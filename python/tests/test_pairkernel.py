"""The pairwise kernels of ``rlskit fit --learner kronrls --pair-kernel …``
through the C ABI (rlskit_fit_pairs with the settings "pair-kernel" and
"pair-kernel-weights", rlskit_predict_pairs, rlskit_model_json,
rlskit_load) equal the command line on the same files: the model file
byte for byte and the predictions for pairs of training and of new objects
to 1e-12; a model file of the command line loads and predicts the same;
refusals reach Python as exceptions naming the setting."""

import json
import os
import subprocess

import numpy as np
import pytest

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


DRUGS, TARGETS, NEW_DRUGS = objects("dti-drugs.csv"), objects("dti-targets.csv"), objects("dti-drugs-new.csv")

# (settings of rlskit_fit_pairs, the same as rlskit fit flags, two object sets?)
CASES = [
    ("sum", {"learner": "kronrls", "pair-kernel": "sum", "pair-kernel-weights": "1,0.5", "kernel": "gaussian",
             "gamma-grid": "0.015625,0.0625", "col-kernel": "gaussian", "col-gamma": 0.05, "lambda": 1},
     ["--pair-kernel", "sum", "--pair-kernel-weights", "1,0.5", "--kernel", "gaussian", "--gamma-grid",
      "0.015625,0.0625", "--col-kernel", "gaussian", "--col-gamma", "0.05", "--lambda", "1"], True),
    ("cartesian", {"learner": "kronrls", "pair-kernel": "cartesian", "kernel": "gaussian", "gamma": 0.015625,
                   "col-kernel": "gaussian", "col-gamma": 0.05, "lambda": 0.5},
     ["--pair-kernel", "cartesian", "--kernel", "gaussian", "--gamma", "0.015625", "--col-kernel", "gaussian",
      "--col-gamma", "0.05", "--lambda", "0.5"], True),
    # a network of the 60 drugs: dti-pairs-train.txt's index pairs read as (drug, drug)
    ("symmetric", {"learner": "kronrls", "pair-kernel": "symmetric", "kernel": "gaussian", "gamma": 0.015625,
                   "lambda": 1},
     ["--pair-kernel", "symmetric", "--kernel", "gaussian", "--gamma", "0.015625", "--lambda", "1"], False),
]


@pytest.mark.parametrize("name,settings,flags,two", CASES, ids=[c[0] for c in CASES])
def test_pairkernel_abi_equals_cli(rlskit_cli, tmp_path, name, settings, flags, two):
    P, y = pairs_file("dti-pairs-train.txt")
    U, _ = pairs_file("dti-pairs-unseen.txt")
    N, _ = pairs_file("dti-pairs-new.txt")
    if not two:  # read as pairs of drugs (target indices < 40 ≤ 60 drugs); new drugs: 12
        N = N[N[:, 1] < 12]
    ptrain, punseen, pnew = tmp_path / "train.txt", tmp_path / "unseen.txt", tmp_path / "new.txt"
    for f, a, lab in ((ptrain, P, y), (punseen, U, None), (pnew, N, None)):
        with open(f, "w") as fh:
            for i, (r, c) in enumerate(a):
                fh.write("%d %d%s\n" % (r, c, "" if lab is None else " " + repr(float(lab[i]))))
    model = tmp_path / "m.json"
    cmd = [rlskit_cli, "fit", "--learner", "kronrls", "--rows", path("dti-drugs.csv"),
           "--cols", path("dti-targets.csv") if two else "same", "--pairs", str(ptrain), "--quiet", "--model", str(model)]
    out = json.loads(subprocess.run(cmd + flags, check=True, capture_output=True, text=True).stdout)

    m = rlskit.Model()
    res = m.fit_pairs(settings, DRUGS, TARGETS if two else None, P, y)
    assert res["summary"]["pair_kernel"] == out["pair_kernel"]
    assert res["summary"]["cg"]["iterations"] == out["cg"]["iterations"]
    assert m.to_json() == open(model).read()

    def cli(pairs, rows=None):
        c = [rlskit_cli, "predict", "--model", str(model), "--pairs", str(pairs)]
        if rows:
            c += ["--rows", path(rows)]
        return np.array(subprocess.run(c, check=True, capture_output=True, text=True).stdout.split(), dtype=float)

    close(m.predict_pairs(U), cli(punseen))
    close(m.predict_pairs(N, NEW_DRUGS), cli(pnew, "dti-drugs-new.csv"))
    # the command line's model file, loaded through the ABI
    loaded = rlskit.Model.from_json(open(model).read())
    close(loaded.predict_pairs(U), cli(punseen))


def test_pairkernel_abi_errors():
    P, y = pairs_file("dti-pairs-train.txt")
    m = rlskit.Model()
    with pytest.raises(ValueError, match="--pair-kernel symmetric compares"):
        m.fit_pairs({"learner": "kronrls", "pair-kernel": "symmetric", "lambda": 1}, DRUGS, TARGETS, P, y)
    with pytest.raises(ValueError, match="--pair-kernel-weights 1,-1"):
        m.fit_pairs({"learner": "kronrls", "pair-kernel": "sum", "pair-kernel-weights": "1,-1", "kernel": "gaussian",
                     "gamma-grid": "0.1,1", "lambda": 1}, DRUGS, TARGETS, P, y)
    m.fit_pairs({"learner": "kronrls", "pair-kernel": "kronecker", "lambda": 1}, DRUGS, TARGETS, P, y)
    with pytest.raises((ValueError, rlskit.RlskitError), match="records no prediction interval"):
        m.predict_pairs(P[:3], coverage=0.9)
    with pytest.raises((ValueError, rlskit.RlskitError), match="pairs: .*60"):
        m.predict_pairs(np.array([[60, 0]]))


def test_pair_estimator_pair_kernel(rlskit_cli, tmp_path):
    """rlskit.PairEstimator(pair_kernel=…, pair_kernel_weights=…) equals the
    command line: one weight vector (no cross-validation: the default
    setting) and a 2-D grid of them chosen with setting "rows", cv=4 — the
    summary's weight search, the chosen weights, the model file byte for
    byte and the predictions of new drugs to 1e-12."""
    P, y = pairs_file("dti-pairs-train.txt")
    N, _ = pairs_file("dti-pairs-new.txt")
    ptrain, pnew = tmp_path / "train.txt", tmp_path / "new.txt"
    for f, a, lab in ((ptrain, P, y), (pnew, N, None)):
        with open(f, "w") as fh:
            for i, (r, c) in enumerate(a):
                fh.write("%d %d%s\n" % (r, c, "" if lab is None else " " + repr(float(lab[i]))))
    base = dict(kernel="gaussian", gamma=[0.015625, 0.0625], col_kernel="gaussian", col_gamma=0.05, alphas=1.0,
                pair_kernel="sum")
    flags = ["--pair-kernel", "sum", "--kernel", "gaussian", "--gamma-grid", "0.015625,0.0625", "--col-kernel",
             "gaussian", "--col-gamma", "0.05", "--lambda", "1"]
    grid = [[1, 0], [0.5, 1], [1, 0.5], [0, 1]]
    for name, params, extra in (
            ("one", dict(pair_kernel_weights=[1, 0.5]), ["--pair-kernel-weights", "1,0.5"]),
            ("grid", dict(pair_kernel_weights=grid, setting="rows", cv=4),
             ["--pair-kernel-weights", "1,0:0.5,1:1,0.5:0,1", "--cv", "rows:4"])):
        model = tmp_path / (name + ".json")
        cmd = [rlskit_cli, "fit", "--learner", "kronrls", "--rows", path("dti-drugs.csv"), "--cols",
               path("dti-targets.csv"), "--pairs", str(ptrain), "--quiet", "--model", str(model)] + flags + extra
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        est = rlskit.PairEstimator(**base, **params).fit(DRUGS, TARGETS, P, y)
        assert est.result_["summary"]["pair_kernel"] == out["pair_kernel"]
        assert est.pair_kernel_weights_ == out["pair_kernel"]["weights"]
        assert est.model_json() == open(model).read()
        cli = np.array(subprocess.run([rlskit_cli, "predict", "--model", str(model), "--pairs", str(pnew), "--rows",
                                       path("dti-drugs-new.csv")], check=True, capture_output=True, text=True).stdout.split(),
                       dtype=float)
        close(est.predict(N, NEW_DRUGS), cli)
        if name == "grid":
            ws = est.weight_search_
            assert ws["strategy"] == "rows:4" and ws["folds"] == 4 and len(ws["grid"]) == 4
            best = min(range(4), key=lambda g: ws["grid"][g]["mse"])
            assert ws["best"] == best and est.pair_kernel_weights_ == grid[best]
        else:
            assert not hasattr(est, "weight_search_")
    with pytest.raises(ValueError, match="give --cv rows"):
        rlskit.PairEstimator(**base, pair_kernel_weights=grid).fit(DRUGS, TARGETS, P, y)
    with pytest.raises(ValueError, match="K folds need a setting"):
        rlskit.PairEstimator(**base, pair_kernel_weights=grid, cv=3).fit(DRUGS, TARGETS, P, y)
