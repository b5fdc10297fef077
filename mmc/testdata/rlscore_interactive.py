# Runs RLScore's InteractiveRlsClassifier through a seeded sequence of
# steps (argv[1]: JSON {seed, m, gamma, lambda, steps}) and prints the data
# and the labels after every step. Working sets are drawn by NumPy's
# RandomState(seed) here and passed to the Go side with the labels.
# Used by mmc/interactive_test.go.
import sys, json, io, contextlib
import numpy as np
from rlscore.learner.interactive_rls_classifier import InteractiveRlsClassifier

cfg = json.loads(sys.argv[1])
rs = np.random.RandomState(cfg["seed"])
m = cfg["m"]
X = np.vstack([rs.randn(m // 2, 2) + [0, 0], rs.randn(m - m // 2, 2) + [2.5, 1.5]])
with contextlib.redirect_stdout(io.StringIO()):
    l = InteractiveRlsClassifier(X, regparam=cfg["lambda"], number_of_clusters=2, kernel="GaussianKernel", gamma=cfg["gamma"],
                                 Y=np.zeros(m, dtype=np.int32))  # all in class 0 (its default, as int32 for its Cython)
out = []
for st in cfg["steps"]:
    rec = {"op": st[0]}
    if st[0] == "ws":
        ws = sorted(rs.choice(m, st[1], replace=False).tolist()) if st[1] < m else list(range(m))
        l.new_working_set(ws)
        rec["rows"] = ws
    elif st[0] == "claim":
        l.claim_n_points(st[1], st[2]); rec["n"], rec["class"] = st[1], st[2]
    elif st[0] == "all":
        l.claim_all_points_in_working_set(st[1]); rec["class"] = st[1]
    elif st[0] == "descend":
        rec["moved"] = int(l.cyclic_descent_in_working_set(st[1] if len(st) > 1 else None))
    rec["labels"] = np.asarray(l.classvec).astype(int).tolist()
    out.append(rec)
print(json.dumps({"x": X.tolist(), "steps": out}))
