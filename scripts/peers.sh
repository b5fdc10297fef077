#!/usr/bin/env bash
# Runs issue 26's six workloads with `rlskit fit` and with their peers side by
# side, on the same files, and prints its table (workload | peer | rlskit s |
# peer s | ratio) with a check that both sides computed the same thing:
#   globalrank  m = 1000, d = 20, gaussian (γ = 0.05), λ = 1, leave-pair-out
#               over every positive–negative pair (~250k): RLScore
#               GlobalRankRLS.leave_pair_out, AUC from its pair predictions
#   queryrank   3000 LETOR-shaped rows (svmlight, qid:) in 100 queries, d = 20,
#               gaussian (γ = 0.05), leave-query-out over 31 λ, C-index per
#               query averaged: RLScore LeaveQueryOutRankRLS (its queries
#               normalized and its per-query mean: rlskit --query-normalize
#               --fold-score mean, the same problem)
#   ridge       linear ridge, m = 50,000, d = 50, LOO over the 31 λ 2^-15..2^15:
#               rlskit on the svmlight file and on .npy, scikit-learn RidgeCV
#               (its default efficient LOO) on the .npy files read with
#               numpy.load; rlskit's bias 1 is an extra feature of value 1
#               whose weight is penalized like the others, so RidgeCV gets
#               X with a column of ones and fit_intercept=False
#   kron        Kronecker RLS on complete data, 300 row × 1000 column objects
#               (d = 20 each, gaussian γ = 0.05 both), setting A (each pair
#               left out) over the 20 λ 2^-10..2^9: RLScore KronRLS (solve and
#               in_sample_loo per λ); both read the objects' features and the
#               300,000 labelled pairs, build both kernels, eigendecompose both
#   gaussian    gaussian RLS, m = 2000, d = 50, γ = 0.02, LOO over 31 λ:
#               RLScore LeaveOneOutRLS
#   greedy      greedy forward selection of 50 of 1000 features, m = 2000,
#               λ = 1: RLScore GreedyRLS
# Times are end to end — process start to finish, reading the files included —
# the best of RUNS runs each; ratio = rlskit / peer. The check compares what
# both sides chose and scored: the λ (or the features) and the CV value —
# relative difference ≤ 1e-8 for mean squared errors (exact LOO on both
# sides; the rest is the rounding of two different eigen/SVD routes); for the
# AUC less than half of one pair's weight (a single pair ordered or tied
# differently fails), for the C-index (a mean over queries) below 5e-10; for ridge also
# the training predictions of the chosen models (max difference ≤ 1e-8 of
# their largest magnitude; from an untimed run with --model). A row whose
# check fails is marked DIFFERENT: its speed comparison means nothing, and
# the script exits 1 after the table (so does a peer that fails).
#
# Usage: RLSCORE=/tmp/rlscore scripts/peers.sh [WORKLOAD...]   (default: all six)
# Inputs (environment):
#   RLSCORE  an RLScore checkout with its Cython extensions built (see
#            rlscore-compare.sh); unset: the RLScore rows are skipped with a
#            message (the rlskit side still runs)
#   PYTHON   a Python with numpy (default: python3, else /usr/bin/python3);
#            scikit-learn for the RidgeCV row (skipped with a message when
#            it is missing), scipy for RLScore
#   RUNS     runs per side, the best taken (default 3)
#   QUICK=1  tiny sizes (a few hundred rows; ridge 2000 rows, kron 30 × 50)
#            and RUNS=1 unless given: checks that everything runs
# Data: cmd/rlskit-datagen (-kind regression, -kind letor) converted to CSV
# and .npy as each side needs, and the pairwise data drawn by awk; generated
# once per run in a temporary directory, deleted on exit and on interrupt.
# Time: QUICK=1 about 40 s on 2 cores (builds cached); full mode 1.5 min on
# this project's 2-core machine when quiet, 5–6 minutes when shared —
# queryrank's two sides take most of it — data generation included.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  RUNS=${RUNS:-1}
  m_glob=200 m_query=300 q_query=10 m_ridge=2000 kr_rows=30 kr_cols=50 m_gauss=300 m_greedy=300 d_greedy=100 k_greedy=10
else
  RUNS=${RUNS:-3}
  m_glob=1000 m_query=3000 q_query=100 m_ridge=50000 kr_rows=300 kr_cols=1000 m_gauss=2000 m_greedy=2000 d_greedy=1000 k_greedy=50
fi
jobs=("$@")
[ ${#jobs[@]} -eq 0 ] && jobs=(globalrank queryrank ridge kron gaussian greedy)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the peers: which of them can run here
PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then PYTHON=$p; break; fi
  done
fi
have_numpy=0 have_rlscore=0 have_sklearn=0
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import numpy' 2>/dev/null; then
  have_numpy=1
  "$PYTHON" -c 'import sklearn.linear_model' 2>/dev/null && have_sklearn=1
  if [ -n "${RLSCORE:-}" ] && PYTHONPATH=$RLSCORE "$PYTHON" -c 'import scipy; from rlscore.learner import KronRLS, GreedyRLS' 2>/dev/null; then
    have_rlscore=1
  fi
fi
[ "$have_numpy" = 1 ] || echo "peers.sh: no Python with numpy (set PYTHON): every peer and the .npy row are skipped" >&2
if [ "$have_rlscore" = 0 ]; then
  if [ -z "${RLSCORE:-}" ]; then
    echo "peers.sh: RLSCORE is unset: the RLScore rows are skipped (set it to an RLScore checkout with its Cython extensions built, see rlscore-compare.sh)" >&2
  elif [ "$have_numpy" = 1 ]; then
    echo "peers.sh: $PYTHON cannot import scipy and rlscore.learner from RLSCORE=$RLSCORE: the RLScore rows are skipped" >&2
  fi
fi
[ "$have_numpy" = 1 ] && [ "$have_sklearn" = 0 ] && echo "peers.sh: $PYTHON has no scikit-learn: the RidgeCV row is skipped" >&2
echo "peers.sh: QUICK=$QUICK, best of $RUNS run(s) each; Python: ${PYTHON:-none}"

echo "== building rlskit and rlskit-datagen"
CGO_ENABLED=0 go build -o "$tmp/rlskit" ./cmd/rlskit
go build -o "$tmp/datagen" ./cmd/rlskit-datagen
"$tmp/rlskit" version | head -3

# --- the peers' side: one Python program, one job per run; it prints one JSON
# object (the chosen λ or features, the CV value, the curve).
cat > "$tmp/peer.py" <<'EOF'
import json, sys
import numpy as np

job, args = sys.argv[1], sys.argv[2:]
grid31 = [2.0 ** k for k in range(-15, 16)]

def csv(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return a[:, 1:], a[:, 0]

out = {}
if job == "globalrank":
    from rlscore.learner import GlobalRankRLS
    X, Y = csv(args[0])
    pos, neg = np.where(Y > 0)[0], np.where(Y < 0)[0]
    start, end = np.repeat(pos, len(neg)), np.tile(neg, len(pos))
    learner = GlobalRankRLS(X, Y, regparam=1.0, kernel="GaussianKernel", gamma=0.05)
    p1, p2 = learner.leave_pair_out(start, end)
    auc = (np.sum(p1 > p2) + 0.5 * np.sum(p1 == p2)) / len(start)
    out = {"lambda": 1.0, "value": float(auc), "pairs": int(len(start))}
elif job == "queryrank":
    from rlscore.learner import LeaveQueryOutRankRLS
    from rlscore.measure import cindex
    from rlscore.utilities.reader import read_svmlight
    X, Y, qids = read_svmlight(args[0])
    ids = {q: n for n, q in enumerate(dict.fromkeys(qids))}
    learner = LeaveQueryOutRankRLS(X.toarray(), Y, [ids[q] for q in qids], kernel="GaussianKernel", gamma=0.05,
                                   regparams=grid31, measure=cindex)
    curve = [float(v) for v in learner.cv_performances]
    out = {"lambda": float(learner.regparam), "value": max(curve), "curve": curve}
elif job == "ridge":
    from sklearn.linear_model import RidgeCV
    X, y = np.load(args[0]), np.load(args[1])
    X1 = np.hstack([X, np.ones((X.shape[0], 1))])  # rlskit's bias 1: a feature of value √1, penalized
    r = RidgeCV(alphas=grid31, fit_intercept=False).fit(X1, y)
    out = {"lambda": float(r.alpha_), "value": float(-r.best_score_)}
    if len(args) > 2:  # the check run: the training predictions
        np.save(args[2], r.predict(X1))
elif job == "kron":
    from rlscore.kernel import GaussianKernel
    from rlscore.learner import KronRLS
    gamma = float(args[3])
    X1 = np.loadtxt(args[0], delimiter=",", skiprows=1, ndmin=2)
    X2 = np.loadtxt(args[1], delimiter=",", skiprows=1, ndmin=2)
    P = np.loadtxt(args[2], ndmin=2)
    Y = np.full((len(X1), len(X2)), np.nan)
    Y[P[:, 0].astype(int), P[:, 1].astype(int)] = P[:, 2]
    y = Y.ravel(order="F")  # KronRLS's order: pair (i, j) at i + j·m
    K1 = GaussianKernel(X1, gamma=gamma).getKM(X1)
    K2 = GaussianKernel(X2, gamma=gamma).getKM(X2)
    learner = KronRLS(K1=K1, K2=K2, Y=y)
    grid = [2.0 ** k for k in range(-10, 10)]
    curve = []
    for lam in grid:
        learner.solve(lam)
        curve.append(float(np.mean((learner.in_sample_loo() - y) ** 2)))
    best = min(range(len(grid)), key=lambda n: (curve[n], -grid[n]))  # ties: the larger λ, as rlskit
    out = {"lambda": grid[best], "value": curve[best], "curve": curve}
elif job == "gaussian":
    from rlscore.learner import LeaveOneOutRLS
    X, Y = csv(args[0])
    learner = LeaveOneOutRLS(X, Y, kernel="GaussianKernel", gamma=0.02, regparams=grid31)
    curve = [float(v) for v in learner.cv_performances]
    out = {"lambda": float(learner.regparam), "value": min(curve), "curve": curve}
elif job == "greedy":
    from rlscore.learner import GreedyRLS
    X, Y = csv(args[0])
    learner = GreedyRLS(X, Y, subsetsize=int(args[1]), regparam=1.0)
    out = {"lambda": 1.0, "value": float(learner.bestlooperf), "selected": [int(v) for v in learner.selected]}
print(json.dumps(out))
EOF

# --- the check: standard library only
cat > "$tmp/check.py" <<'EOF'
import json, sys
kind, a, b = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
cv = a["cv"]["best"]
lam, val = a.get("lambda", cv.get("lambda")), cv["value"]
msgs, ok = [], True
if kind in ("auc", "cindex"):
    # less than half of one pair's weight: no pair ordered or tied differently
    weight = 1.0 / b["pairs"] if "pairs" in b else 1e-9
    if abs(val - b["value"]) >= weight / 2:
        ok = False
    msgs.append("%s %.10g vs %.10g" % (kind, val, b["value"]))
else:
    rel = abs(val - b["value"]) / max(abs(b["value"]), 1e-300)
    if rel > 1e-8:
        ok = False
    msgs.append("CV %.10g vs %.10g (rel. %.1e)" % (val, b["value"], rel))
if kind == "selected":
    mine = a["selection"]["selected"]
    if mine != b["selected"]:
        ok = False
        msgs.append("selected features differ: %s vs %s" % (mine[:10], b["selected"][:10]))
    else:
        msgs.append("same %d features in the same order" % len(mine))
elif abs(lam - b["lambda"]) > 1e-12 * abs(lam):
    ok = False
    msgs.append("λ %g vs %g" % (lam, b["lambda"]))
else:
    msgs.append("λ %g both" % lam)
if len(sys.argv) > 4:  # ridge: predictions of the chosen models, rlskit's from its --model file
    import numpy as np
    model, X, pred = json.load(open(sys.argv[4])), np.load(sys.argv[5]), np.load(sys.argv[6])
    w = np.array(model["weights"], dtype=float)[:, 0]
    mine = X @ w + model["intercept"][0]
    d = np.max(np.abs(mine - pred)) / np.max(np.abs(pred))
    if not d <= 1e-8:
        ok = False
    msgs.append("training predictions differ by at most %.1e of their largest magnitude" % d)
print(("ok" if ok else "DIFFERENT") + ": " + "; ".join(msgs))
EOF

# timeit OUT CMD...: runs CMD RUNS times (the last run's standard output to
# OUT, its standard error to OUT.err) and sets T to the best wall time in
# seconds, or to "failed".
timeit() {
  local out=$1 best="" t0 t1 r
  shift
  for r in $(seq "$RUNS"); do
    t0=$(date +%s.%N)
    if ! "$@" > "$out" 2> "$out.err"; then
      echo "peers.sh: failed: $*" >&2
      tail -5 "$out.err" >&2
      T=failed
      return 0
    fi
    t1=$(date +%s.%N)
    best=$(awk -v a="$best" -v b="$(awk -v x="$t0" -v y="$t1" 'BEGIN { printf "%.3f", y - x }')" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  T=$best
}

peer() { PYTHONPATH=${RLSCORE:-} "$PYTHON" "$tmp/peer.py" "$@"; }

rows=()
bad=()
# row WORKLOAD PEER RLSKIT_T PEER_T CHECK: one line of the table.
row() {
  local ratio="—"
  if [[ $3 =~ ^[0-9.]+$ && $4 =~ ^[0-9.]+$ ]]; then
    ratio=$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.2f", a / b }')
  fi
  rows+=("| $1 | $2 | $3 | $4 | $ratio | $5 |")
  case $5 in ok:* | skipped:*) ;; *) bad+=("$1 vs $2: $5") ;; esac
  echo "   $1 vs $2: rlskit $3 s, peer $4 s, ratio $ratio — $5"
}

# check KIND RLSKIT_JSON PEER_JSON [ridge extras]: the check line, or why there is none.
check() {
  if [ "$T" = failed ]; then echo "peer failed"; return; fi
  "$PYTHON" "$tmp/check.py" "$@" 2>&1 | tail -1
}

# tocsv SVM D OUT: the svmlight file as CSV (header y,f1..fD).
tocsv() {
  awk -v d="$2" 'BEGIN { printf "y"; for (j = 1; j <= d; j++) printf ",f%d", j; print "" }
    { for (j = 1; j <= d; j++) v[j] = 0
      for (i = 2; i <= NF; i++) { split($i, a, ":"); v[a[1]] = a[2] }
      printf "%s", $1; for (j = 1; j <= d; j++) printf ",%s", v[j]; print "" }' "$1" > "$3"
}

# regression ROWS D NAME: CSV of -kind regression rows (y = xᵀβ + 2 + noise).
regression() {
  "$tmp/datagen" -kind regression -rows "$1" -features "$2" -shards 1 -seed 7 -out "$tmp/gen-$3" >/dev/null
  tocsv "$tmp/gen-$3/part-00000.svm" "$2" "$tmp/$3.csv"
  rm -rf "$tmp/gen-$3"
}

skip() { row "$1" "$2" "$3" "—" "skipped: $4"; }

for j in "${jobs[@]}"; do
  echo "=== $j"
  case "$j" in
    globalrank)
      regression "$m_glob" 20 glob
      awk -F, 'NR == 1 { print; next } { $1 = ($1 > 2) ? 1 : -1; print }' OFS=, "$tmp/glob.csv" > "$tmp/glob-binary.csv"
      timeit "$tmp/glob-rlskit.json" "$tmp/rlskit" fit --data "$tmp/glob-binary.csv" --label y --learner globalrank \
        --kernel gaussian --gamma 0.05 --lambda 1 --cv lpo --measure auc --quiet
      tr=$T
      name="globalrank m = $m_glob, LPO over all positive–negative pairs"
      if [ "$have_rlscore" = 1 ]; then
        timeit "$tmp/glob-peer.json" peer globalrank "$tmp/glob-binary.csv"
        row "$name" "RLScore GlobalRankRLS" "$tr" "$T" "$(check auc "$tmp/glob-rlskit.json" "$tmp/glob-peer.json")"
      else
        skip "$name" "RLScore GlobalRankRLS" "$tr" "no RLScore"
      fi
      ;;
    queryrank)
      "$tmp/datagen" -kind letor -rows "$m_query" -features 20 -queries "$q_query" -shards 1 -seed 7 -out "$tmp/letor" >/dev/null
      timeit "$tmp/query-rlskit.json" "$tmp/rlskit" fit --data "$tmp/letor/part-00000.svm" --learner queryrank \
        --kernel gaussian --gamma 0.05 --query-normalize --cv lqo --measure cindex --fold-score mean --quiet
      tr=$T
      name="queryrank m = $m_query in $q_query queries, LQO over 31 λ"
      if [ "$have_rlscore" = 1 ]; then
        timeit "$tmp/query-peer.json" peer queryrank "$tmp/letor/part-00000.svm"
        row "$name" "RLScore LeaveQueryOutRankRLS" "$tr" "$T" "$(check cindex "$tmp/query-rlskit.json" "$tmp/query-peer.json")"
      else
        skip "$name" "RLScore LeaveQueryOutRankRLS" "$tr" "no RLScore"
      fi
      ;;
    ridge)
      "$tmp/datagen" -kind regression -rows "$m_ridge" -features 50 -shards 1 -seed 7 -out "$tmp/ridge" >/dev/null
      svm=$tmp/ridge/part-00000.svm
      echo "   svmlight file: $(du -h "$svm" | cut -f1)"
      timeit "$tmp/ridge-rlskit.json" "$tmp/rlskit" fit --data "$svm" --cv loo --quiet
      tsvm=$T
      name="linear ridge m = $m_ridge, d = 50, LOO over 31 λ"
      if [ "$have_numpy" = 1 ]; then
        tocsv "$svm" 50 "$tmp/ridge-csv.csv"
        "$PYTHON" -c 'import sys, numpy as np
a = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
np.save(sys.argv[2], np.ascontiguousarray(a[:, 1:])); np.save(sys.argv[3], a[:, 0].copy())' "$tmp/ridge-csv.csv" "$tmp/X.npy" "$tmp/y.npy"
        rm -f "$tmp/ridge-csv.csv"
        timeit "$tmp/ridge-npy-rlskit.json" "$tmp/rlskit" fit --data "$tmp/X.npy" --labels "$tmp/y.npy" --cv loo --quiet
        tnpy=$T
        if [ "$have_sklearn" = 1 ]; then
          timeit "$tmp/ridge-peer.json" peer ridge "$tmp/X.npy" "$tmp/y.npy"
          tp=$T
          # untimed: both models' training predictions
          "$tmp/rlskit" fit --data "$svm" --cv loo --quiet --model "$tmp/ridge-svm-model.json" > /dev/null
          "$tmp/rlskit" fit --data "$tmp/X.npy" --labels "$tmp/y.npy" --cv loo --quiet --model "$tmp/ridge-npy-model.json" > /dev/null
          [ "$tp" = failed ] || peer ridge "$tmp/X.npy" "$tmp/y.npy" "$tmp/ridge-pred.npy" > /dev/null
          T=$tp
          row "$name (svmlight)" "scikit-learn RidgeCV (.npy)" "$tsvm" "$tp" \
            "$(check mse "$tmp/ridge-rlskit.json" "$tmp/ridge-peer.json" "$tmp/ridge-svm-model.json" "$tmp/X.npy" "$tmp/ridge-pred.npy")"
          row "$name (.npy)" "scikit-learn RidgeCV (.npy)" "$tnpy" "$tp" \
            "$(check mse "$tmp/ridge-npy-rlskit.json" "$tmp/ridge-peer.json" "$tmp/ridge-npy-model.json" "$tmp/X.npy" "$tmp/ridge-pred.npy")"
        else
          skip "$name (svmlight)" "scikit-learn RidgeCV (.npy)" "$tsvm" "no scikit-learn"
          skip "$name (.npy)" "scikit-learn RidgeCV (.npy)" "$tnpy" "no scikit-learn"
        fi
      else
        skip "$name (svmlight)" "scikit-learn RidgeCV (.npy)" "$tsvm" "no numpy"
      fi
      ;;
    kron)
      # objects: d = 20 N(0,1) features each; label of pair (i, j):
      # sin(r_i1)·cos(c_j1) + r_i2·c_j2/2 + 0.3·N(0,1), every pair (complete)
      awk -v m="$kr_rows" -v q="$kr_cols" -v d=20 -v dir="$tmp" 'BEGIN {
          srand(7)
          hdr = "f1"; for (k = 2; k <= d; k++) hdr = hdr ",f" k
          print hdr > (dir "/kr-rows.csv"); print hdr > (dir "/kr-cols.csv")
          for (i = 0; i < m; i++) { line = ""; for (k = 1; k <= d; k++) { r[i, k] = gauss(); line = line (k > 1 ? "," : "") sprintf("%.6g", r[i, k]) } print line > (dir "/kr-rows.csv") }
          for (j = 0; j < q; j++) { line = ""; for (k = 1; k <= d; k++) { c[j, k] = gauss(); line = line (k > 1 ? "," : "") sprintf("%.6g", c[j, k]) } print line > (dir "/kr-cols.csv") }
          for (i = 0; i < m; i++) for (j = 0; j < q; j++)
            printf "%d %d %.6g\n", i, j, sin(r[i, 1]) * cos(c[j, 1]) + r[i, 2] * c[j, 2] / 2 + 0.3 * gauss() > (dir "/kr-pairs.txt")
        }
        function gauss(   u, v) { u = 1 - rand(); v = rand(); return sqrt(-2 * log(u)) * cos(6.283185307179586 * v) }'
      echo "   pairs file: $(du -h "$tmp/kr-pairs.txt" | cut -f1)"
      timeit "$tmp/kron-rlskit.json" "$tmp/rlskit" fit --learner kronrls --rows "$tmp/kr-rows.csv" --cols "$tmp/kr-cols.csv" \
        --pairs "$tmp/kr-pairs.txt" --kernel gaussian --gamma 0.05 --col-gamma 0.05 --cv pairs --lambda-grid 2^-10..2^9 --quiet
      tr=$T
      name="Kronecker RLS $kr_rows × $kr_cols complete, setting A over 20 λ"
      if [ "$have_rlscore" = 1 ]; then
        timeit "$tmp/kron-peer.json" peer kron "$tmp/kr-rows.csv" "$tmp/kr-cols.csv" "$tmp/kr-pairs.txt" 0.05
        row "$name" "RLScore KronRLS" "$tr" "$T" "$(check mse "$tmp/kron-rlskit.json" "$tmp/kron-peer.json")"
      else
        skip "$name" "RLScore KronRLS" "$tr" "no RLScore"
      fi
      ;;
    gaussian)
      regression "$m_gauss" 50 gauss
      timeit "$tmp/gauss-rlskit.json" "$tmp/rlskit" fit --data "$tmp/gauss.csv" --label y --kernel gaussian --gamma 0.02 --cv loo --quiet
      tr=$T
      name="gaussian RLS m = $m_gauss, LOO over 31 λ"
      if [ "$have_rlscore" = 1 ]; then
        timeit "$tmp/gauss-peer.json" peer gaussian "$tmp/gauss.csv"
        row "$name" "RLScore LeaveOneOutRLS" "$tr" "$T" "$(check mse "$tmp/gauss-rlskit.json" "$tmp/gauss-peer.json")"
      else
        skip "$name" "RLScore LeaveOneOutRLS" "$tr" "no RLScore"
      fi
      ;;
    greedy)
      regression "$m_greedy" "$d_greedy" greedy
      timeit "$tmp/greedy-rlskit.json" "$tmp/rlskit" fit --data "$tmp/greedy.csv" --label y --learner greedy --select "$k_greedy" --lambda 1 --quiet
      tr=$T
      name="greedy $k_greedy of $d_greedy features, m = $m_greedy"
      if [ "$have_rlscore" = 1 ]; then
        timeit "$tmp/greedy-peer.json" peer greedy "$tmp/greedy.csv" "$k_greedy"
        row "$name" "RLScore GreedyRLS" "$tr" "$T" "$(check selected "$tmp/greedy-rlskit.json" "$tmp/greedy-peer.json")"
      else
        skip "$name" "RLScore GreedyRLS" "$tr" "no RLScore"
      fi
      ;;
    *) echo "peers.sh: unknown workload $j (globalrank, queryrank, ridge, kron, gaussian, greedy)" >&2; exit 2 ;;
  esac
done

echo
echo "| workload | peer | rlskit s | peer s | ratio | same answer |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if [ ${#bad[@]} -gt 0 ]; then
  echo
  echo "peers.sh: ${#bad[@]} comparison(s) did not compute the same thing:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
