"""Overhead of the Python front end: gaussian RLS, m = 2000, d = 50, LOO
over 31 λ (2^-15..2^15), five times each through rlskit fit (the CLI,
reading a CSV) and rlskit.RLS (in process). The Python wall time minus the
core's own total (result_["summary"]["timing"]["total_s"], measured inside
the Go call) is what the Python layer adds: the ctypes call, the worker
thread, the JSON result. Usage: python3 overhead.py /path/to/rlskit"""
import json, subprocess, sys, time

import numpy as np

import rlskit

CLI = sys.argv[1] if len(sys.argv) > 1 else "rlskit"
rng = np.random.default_rng(0)
m, d = 2000, 50
X = rng.normal(size=(m, d)); y = X @ rng.normal(size=d) / 7 + rng.normal(size=m)
with open("bench.csv", "w") as f:
    f.write(",".join("f%d" % j for j in range(d)) + ",y\n")
    for r, v in zip(X, y):
        f.write(",".join(repr(float(t)) for t in r) + "," + repr(float(v)) + "\n")
grid = "2^-15..2^15"
for rep in range(5):
    t0 = time.perf_counter()
    out = json.loads(subprocess.run([CLI, "fit", "--data", "bench.csv", "--label", "y", "--kernel", "gaussian",
        "--gamma", "0.01", "--lambda-grid", grid, "--cv", "loo", "--quiet"], capture_output=True, text=True, check=True).stdout)
    cli_wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = rlskit.RLS(kernel="gaussian", gamma=0.01, alphas=grid).fit(X, y)
    py = time.perf_counter() - t0
    tm = out["timing"]
    core = r.result_["summary"]["timing"]["total_s"]
    print("overhead py wall - core total = %.1f ms;" % (1000 * (py - core)), end=" ")
    print("cli wall %.3f total %.3f (load %.3f train %.3f cv %.3f) | python fit %.3f (core train %.3f cv %.3f) ratio py/cli_total %.3f py/cli_wall %.3f"
          % (cli_wall, tm["total_s"], tm["load_s"], tm["train_s"], tm["cv_s"], py, r.result_["summary"]["timing"]["train_s"], r.result_["summary"]["timing"]["cv_s"], py / tm["total_s"], py/cli_wall), len(r.cv_results_["value"]), r.alpha_ == out["lambda"])
