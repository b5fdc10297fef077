# Runs RLScore's SteepestDescentMMC on the cases given as JSON (argv[1]) from
# initial labellings drawn by NumPy's RandomState(seed), and prints the data,
# the starts, RLScore's final labels, their objective (eq. 1 of package mmc,
# by a fresh solve) and RLScore's time. Used by mmc/rlscore_test.go.
import sys, json, time, random
import numpy as np
from rlscore.learner.steepest_descent_mmc import SteepestDescentMMC
import contextlib, io

def std(X):
    s = X.std(0); s[s == 0] = 1
    return (X - X.mean(0)) / s

def kernel(X, name, gamma, bias):
    if name == "gaussian":
        sq = (X*X).sum(1)
        return np.exp(-gamma*np.maximum(sq[:,None]+sq[None,:]-2*X@X.T, 0))
    return X@X.T + bias

def objective(K, lam, labels, c):
    m = K.shape[0]
    Y = -np.ones((m, c)); Y[np.arange(m), labels] = 1
    return float(lam*np.sum(Y*np.linalg.solve(K+lam*np.eye(m), Y)))

def blobs(ppc, seed):
    random.seed(seed)
    X = []
    for mx, my in [(10,10),(10,20),(20,15)]:
        for i in range(ppc):
            X.append([random.gauss(mx,2), random.gauss(my,2)])
    return np.array(X)

cases = json.loads(sys.argv[1])
out = []
for cs in cases:
    if cs["data"] == "blobs":
        X = blobs(cs["ppc"], cs["seed"])
    else:
        X = np.loadtxt(cs["data"], delimiter=",", skiprows=1)[:, 1:]
    if cs.get("standardize"): X = std(X)
    m, c, lam = X.shape[0], cs["clusters"], cs["lambda"]
    rs = np.random.RandomState(cs["seed"])
    res = []
    K = kernel(X, cs["kernel"], cs.get("gamma", 1.0), cs.get("bias", 1.0))
    for s in range(cs["starts"]):
        init = rs.randint(0, c, size=m)
        Y0 = -np.ones((m, c)); Y0[np.arange(m), init] = 1
        kw = dict(regparam=lam, number_of_clusters=c, Y=Y0)
        if cs["kernel"] == "gaussian": kw.update(kernel="GaussianKernel", gamma=cs["gamma"])
        else: kw.update(kernel="LinearKernel", bias=cs.get("bias", 1.0))
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            l = SteepestDescentMMC(X, **kw)
        t = time.perf_counter() - t0
        Yf = np.asarray(l.Y)
        labels = (np.argmax(Yf, 1) if Yf.ndim == 2 else np.where(Yf > 0, 0, 1)).tolist()
        res.append({"init": init.tolist(), "labels": labels, "objective": objective(K, lam, labels, c), "seconds": t})
    out.append({"x": X.tolist(), "starts": res})
print(json.dumps(out))
