"""Clustering through the C ABI (rlskit_fit with y NULL for a learner whose
descriptor takes learn.ParamClusters — "mmc" — and an initial labelling
staged by rlskit_init_labels) and RLScore's SteepestDescentMMC in
rlskit.rlscore over it:

- rlskit fit --learner mmc on the same rows and --init file: labels,
  objective, cluster sizes and the model's per-cluster outputs (1e-12);
- J of the labelling and the model A = (K + λI)⁻¹Y against NumPy (1e-9);
- RLScore's SteepestDescentMMC from the same initial labellings (its
  default start, a matrix Y and a vector Y): the same labelling, so the same
  J, when RLScore is importable from RLSCORE_PATH (default /tmp/rlscore);
- the refusals, by the learner's declared parameters.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import rlskit
from rlskit._lib import Model
from rlskit.rlscore.learner.steepest_descent_mmc import SteepestDescentMMC

RLSCORE = os.environ.get("RLSCORE_PATH", "/tmp/rlscore")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "data")


def wine():
    a = np.loadtxt(os.path.join(DATA, "wine.csv"), delimiter=",", skiprows=1)
    X = a[:, 1:]
    return (X - X.mean(0)) / X.std(0)


def blobs(seed=2, n=40):
    rng = np.random.RandomState(seed)
    centers = np.array([[0.0, 0.0], [4.0, 0.5], [1.0, 4.0]])
    return np.vstack([c + rng.randn(n, 2) for c in centers])


def gauss(A, B, gamma):
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def objective(labels, K, lam, k):
    """J = Σ_c (m − y_cᵀ K (K + λI)⁻¹ y_c) of a labelling, y_c = ±1."""
    m = len(labels)
    Y = -np.ones((m, k))
    Y[np.arange(m), labels] = 1.0
    RY = K @ np.linalg.solve(K + lam * np.eye(m), Y)
    return float(sum(m - Y[:, c] @ RY[:, c] for c in range(k))), Y


def close(a, b, tol=1e-12):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.max(np.abs(a - b)) <= tol * max(1.0, float(np.max(np.abs(b)))), np.max(np.abs(a - b))


def write_csv(path, X):
    with open(path, "w") as f:
        f.write(",".join("f%d" % j for j in range(X.shape[1])) + "\n")
        for row in X:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


@pytest.mark.parametrize("kernel,k,restarts", [(["--kernel", "gaussian", "--gamma", "0.05"], 3, 0),
                                               (["--kernel", "linear", "--bias", "1"], 2, 3)],
                         ids=["gaussian k3 init", "linear k2 init+3 restarts"])
def test_mmc_equals_cli(rlskit_cli, tmp_path, kernel, k, restarts):
    """The ABI's clustering (Model.fit with Y None and an initial
    labelling) equals rlskit fit --learner mmc --init FILE: labels, J, sizes,
    the starts, and rlskit predict --scores of the model (1e-12)."""
    X = wine()
    init = np.random.RandomState(7).randint(0, k, len(X))
    data, initf, model = tmp_path / "x.csv", tmp_path / "init.txt", tmp_path / "m.json"
    write_csv(data, X)
    initf.write_text("".join("%d\n" % c for c in init))
    out = json.loads(subprocess.run(
        [rlskit_cli, "fit", "--learner", "mmc", "--data", str(data), "--clusters", str(k), "--lambda", "0.5",
         "--init", str(initf), "--restarts", str(restarts), "--seed", "4", "--quiet", "--model", str(model)] + kernel,
        check=True, capture_output=True, text=True).stdout)
    s = {"learner": "mmc", "clusters": k, "lambda": 0.5, "restarts": restarts, "seed": 4}
    s.update(dict(zip([f.lstrip("-") for f in kernel[::2]], kernel[1::2])))
    m = Model()
    res = m.fit(s, X, None, init=init)
    assert res["clustering"] and res["n_outputs"] == k
    got = res["summary"]
    assert got["labels"] == out["labels"] and got["counts"] == out["counts"]
    assert got.get("best_start") == out.get("best_start")
    close(got["objective"], out["objective"])
    close([st["objective"] for st in got["starts"]], [st["objective"] for st in out["starts"]])
    text = subprocess.run([rlskit_cli, "predict", "--model", str(model), "--data", str(data), "--scores"],
                          check=True, capture_output=True, text=True).stdout
    cli = np.array([[float(v) for v in line.split("\t")] for line in text.strip().split("\n")])
    P = m.predict(X)
    close(P, cli[:, 1:])
    np.testing.assert_array_equal(np.argmax(P, axis=1), cli[:, 0].astype(int))
    # fixed rows (--fixed FILE; Model.fit fixed=; the shim's fixed_indices): the
    # same labelling through all three, the rows in their initial clusters
    fixed = np.arange(0, len(X), 7)
    fixedf = tmp_path / "fixed.txt"
    fixedf.write_text(" ".join(str(i) for i in fixed) + "\n")
    outf = json.loads(subprocess.run(
        [rlskit_cli, "fit", "--learner", "mmc", "--data", str(data), "--clusters", str(k), "--lambda", "0.5",
         "--init", str(initf), "--fixed", str(fixedf), "--restarts", str(restarts), "--seed", "4", "--quiet"] + kernel,
        check=True, capture_output=True, text=True).stdout)
    gotf = Model().fit(s, X, None, init=init, fixed=fixed)["summary"]
    assert gotf["labels"] == outf["labels"]
    np.testing.assert_array_equal(np.array(gotf["labels"])[fixed], init[fixed])
    if restarts == 0 and kernel[1] == "gaussian":
        Y0 = -np.ones((len(X), k))
        Y0[np.arange(len(X)), init] = 1
        sd = SteepestDescentMMC(X, regparam=0.5, Y=Y0, kernel="GaussianKernel", gamma=0.05, fixed_indices=list(fixed))
        assert sd.classvec.tolist() == outf["labels"]


def test_steepest_descent_mmc_closed_form():
    """J of the shim's labelling is the NumPy J (1e-9), the search lowered it
    from the start's, and A, predict are the RLS model of the final labels."""
    X = blobs()
    Xt = X[::7] + 0.1
    lam, gamma = 0.5, 0.3
    K = gauss(X, X, gamma)
    for k in (2, 3):
        sd = SteepestDescentMMC(X, regparam=lam, number_of_clusters=k, kernel="GaussianKernel", gamma=gamma)
        J, Y = objective(sd.classvec, K, lam, k)
        assert abs(sd.objective - J) <= 1e-9 * J
        J0, _ = objective(_start(len(X), k), K, lam, k)
        assert J < J0
        A = np.linalg.solve(K + lam * np.eye(len(X)), Y)
        np.testing.assert_array_equal(sd.classcounts, np.bincount(sd.classvec, minlength=k))
        if k == 2:
            close(sd.A, A[:, :1], 1e-9)
            close(sd.predict(Xt), gauss(Xt, X, gamma) @ A[:, 0], 1e-9)
            np.testing.assert_array_equal(sd.Y, Y[:, 0])
        else:
            close(sd.A, A, 1e-9)
            close(sd.predict(Xt), gauss(Xt, X, gamma) @ A, 1e-9)
            np.testing.assert_array_equal(sd.Y, Y)
    # a given start: a vector Y (positive: cluster 0) and a linear kernel
    yv = np.where(X[:, 0] > 1.5, 1.0, -1.0)
    sd = SteepestDescentMMC(X, regparam=2.0, Y=yv)
    Xa = np.hstack([X, np.ones((len(X), 1))])
    J, Y = objective(sd.classvec, Xa @ Xa.T, 2.0, 2)
    assert sd.Y.shape == (len(X),) and abs(sd.objective - J) <= 1e-9 * J
    W = np.linalg.solve(Xa.T @ Xa + 2.0 * np.eye(3), Xa.T @ Y[:, 0])
    close(sd.predict(Xt), np.hstack([Xt, np.ones((len(Xt), 1))]) @ W, 1e-9)


def _start(m, k):
    from rlskit.rlscore.learner.steepest_descent_mmc import _rlscore_start
    return _rlscore_start(m, k)


COMPARE = r"""
import json, sys
import numpy as np
if sys.argv[1] == "rlskit":
    from rlskit.rlscore.learner.steepest_descent_mmc import SteepestDescentMMC
else:
    from rlscore.learner.steepest_descent_mmc import SteepestDescentMMC
d = json.loads(sys.stdin.read())
out = {}
for name, X in d["data"].items():
    X = np.array(X)
    m = len(X)
    rng = np.random.RandomState(11)
    for k in (2, 3):
        Ym = -np.ones((m, k))
        Ym[np.arange(m), rng.randint(0, k, m)] = 1.0
        yv = np.where(rng.rand(m) < 0.5, 1.0, -1.0)
        for start, kw in (("default", dict(number_of_clusters=k)), ("matrix", dict(Y=Ym)), ("vector", dict(Y=yv))):
            if start == "vector" and k == 3:
                continue
            for kern in ({"kernel": "GaussianKernel", "gamma": d["gamma"][name]}, {"kernel": "LinearKernel"}):
                sd = SteepestDescentMMC(X, regparam=1.0, **kern, **kw)
                out["%s k%d %s %s" % (name, k, start, kern["kernel"])] = np.asarray(sd.Y).ravel().tolist()
print(json.dumps(out))
"""


def run_compare(which, path, payload):
    env = dict(os.environ, PYTHONPATH=path)
    out = subprocess.run([sys.executable, "-c", COMPARE, which], env=env, input=payload, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_steepest_descent_mmc_equals_rlscore():
    """From the same initial labellings — RLScore's seeded default, a matrix
    Y and a vector Y — the shim ends at RLScore's labelling (hence its J) on
    the wine data and three Gaussian blobs, Gaussian and linear kernels."""
    if not os.path.isdir(os.path.join(RLSCORE, "rlscore", "learner")):
        pytest.skip("RLScore not found at %s (set RLSCORE_PATH): the closed form above stands in" % RLSCORE)
    payload = json.dumps({"data": {"wine": wine().tolist(), "blobs": blobs(5).tolist()},
                          "gamma": {"wine": 0.05, "blobs": 0.3}})
    here = os.path.dirname(os.path.dirname(os.path.abspath(rlskit.__file__)))
    ours = run_compare("rlskit", os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]), payload)
    theirs = run_compare("rlscore", RLSCORE, payload)
    assert ours.keys() == theirs.keys() and len(ours) == 20
    for key in ours:
        assert ours[key] == theirs[key], key


def test_clustering_refusals_by_declared_params():
    """rlskit.learners() says which learners cluster; the ABI refuses labels,
    a bad initial labelling, an initial labelling for a supervised learner,
    and the interactive classifier's steps (not through the ABI yet) — each
    by the learner's declared parameters; the shim refuses what the core
    does not do."""
    X = blobs()
    info = {li["name"]: li for li in rlskit.learners()}
    assert info["mmc"]["clustering"] and info["mmc"]["available"] and not info["rls"]["clustering"]
    if "interactive" in info:
        assert not info["interactive"]["available"] and "steps" in info["interactive"]["reason"]
    with pytest.raises(ValueError, match="clusters unlabelled rows"):
        Model().fit({"learner": "mmc", "clusters": 2}, X, np.zeros((len(X), 1)))
    with pytest.raises(ValueError, match="init: 3 labels for the 120 rows"):
        Model().fit({"learner": "mmc", "clusters": 2}, X, None, init=[0, 1, 0])
    with pytest.raises(ValueError, match="init: row 0 has cluster 2 outside 0 … 1"):
        Model().fit({"learner": "mmc", "clusters": 2}, X, None, init=np.full(len(X), 2))
    with pytest.raises(ValueError, match="init: row 1 has cluster -1"):
        Model().fit({"learner": "mmc", "clusters": 2}, X, None, init=[0, -1] + [0] * (len(X) - 2))
    with pytest.raises(ValueError, match="an initial labelling .*is for a learner that clusters rows, not --learner rls"):
        Model().fit({"learner": "rls", "cv": "none", "lambda": 1}, X, np.zeros((len(X), 1)), init=np.zeros(len(X)))
    with pytest.raises(ValueError, match="--cv does not apply to --learner mmc"):
        Model().fit({"learner": "mmc", "cv": "loo"}, X, None)
    with pytest.raises(ValueError, match="--clusters 121"):
        Model().fit({"learner": "mmc", "clusters": 121}, X, None)
    with pytest.raises(ValueError, match="fixed: 1 fixed rows keep their clusters of an initial labelling"):
        Model().fit({"learner": "mmc", "clusters": 2}, X, None, fixed=[3])
    with pytest.raises(ValueError, match="fixed row 500 is outside"):
        Model().fit({"learner": "mmc", "clusters": 2}, X, None, init=np.zeros(len(X)), fixed=[500])
    with pytest.raises(ValueError, match="callback"):
        SteepestDescentMMC(X, callback=object())
