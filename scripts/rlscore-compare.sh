#!/usr/bin/env bash
# Regenerates the RLScore comparisons quoted in docs/performance.md: the same
# jobs timed in RLScore (Python) and in `rlskit fit`, on the same files:
#   globalrank  GlobalRankRLS, leave-pair-out over every positive–negative pair,
#               1000 rows, d = 20, gaussian (γ = 0.05), λ = 1   ("RankRLS": 3.7 s)
#   queryrank   LeaveQueryOutRankRLS, 3000 LETOR-shaped rows in 100 queries,
#               d = 20, gaussian, 31 λ                         ("RankRLS": 9 s)
#   sparse      LeaveOneOutRLS over 500 random basis vectors, m = 20,000,
#               d = 50, gaussian (γ = 0.02), 31 λ              ("Sparse RLS": 2.8 s)
#   greedy      GreedyRLS (Cython), 2000 × 1000, 50 features, λ = 1
#                                                              ("Greedy RLS": about 5 s)
# Usage: RLSCORE=/path/to/RLScore scripts/rlscore-compare.sh [JOB...]   (default: all)
#
# RLScore is not vendored and not fetched: RLSCORE must name a directory
# holding the `rlscore` package with its Cython extensions built — a checkout
# of https://github.com/aatapa/RLScore after
#   python3 cython_setup.py build_ext --inplace
# (with Debian's old setuptools, move pyproject.toml aside first: its license
# field does not parse), or a site-packages directory where it is installed.
# The released package (rlscore 0.8.1 on PyPI, 2018) does not build on
# current Python. PYTHON (default python3) must import numpy and scipy
# (Debian: python3-numpy python3-scipy cython3). Without RLSCORE the script
# stops with an error before doing anything.
#
# The docs' RLScore figures were not taken by this script: they are the ones
# quoted in the project's issues that asked for the comparisons, timed on a day
# when LAPACK's dsyevd took about 0.7 s for n = 2000 on this machine (1.58 s on
# the day of the rlskit tables), on data of these shapes. This script times
# both tools on the same files on the same day, the comparison that means
# something; its figures replace the docs' when rerun.
#
# Inputs (environment): RLSCORE (required), PYTHON, QUICK=1 (300 rows, d = 20,
# 50 basis vectors, 10 features selected: checks that both sides run, in about
# 30 s on 2 cores once RLScore is built).
# Time, full mode on 2 cores: about 1 min in all (RLScore's side dominates).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

if [ -z "${RLSCORE:-}" ]; then
  echo "rlscore-compare.sh: set RLSCORE to an RLScore checkout with its Cython extensions built (python3 cython_setup.py build_ext --inplace) or to the site-packages holding it; RLScore's released package does not build on current Python, so it is not installed by this script" >&2
  exit 2
fi
PYTHON=${PYTHON:-python3}
if ! PYTHONPATH=$RLSCORE "$PYTHON" -c 'import numpy, scipy; from rlscore.learner import GreedyRLS' 2>/dev/null; then
  echo "rlscore-compare.sh: $PYTHON cannot import numpy, scipy and rlscore.learner from RLSCORE=$RLSCORE (are the Cython extensions built?)" >&2
  PYTHONPATH=$RLSCORE "$PYTHON" -c 'import numpy, scipy; from rlscore.learner import GreedyRLS' || true
  exit 2
fi

QUICK=${QUICK:-0}
jobs=("$@")
[ ${#jobs[@]} -eq 0 ] && jobs=(globalrank queryrank sparse greedy)
if [ "$QUICK" = 1 ]; then
  m_glob=300 m_query=300 q_query=10 m_sparse=300 n_basis=50 m_greedy=300 d_greedy=100 k_greedy=10
else
  m_glob=1000 m_query=3000 q_query=100 m_sparse=20000 n_basis=500 m_greedy=2000 d_greedy=1000 k_greedy=50
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/rlskit" ./cmd/rlskit
go build -o "$tmp/datagen" ./cmd/rlskit-datagen

# regression ROWS D NAME: CSV (header y,f1..fD) of -kind regression rows.
regression() {
  local rows=$1 d=$2 out=$tmp/$3.csv
  "$tmp/datagen" -kind regression -rows "$rows" -features "$d" -shards 1 -seed 7 -out "$tmp/gen-$3" >/dev/null
  awk -v d="$d" 'BEGIN { printf "y"; for (j = 1; j <= d; j++) printf ",f%d", j; print "" }
    { for (j = 1; j <= d; j++) v[j] = 0
      for (i = 2; i <= NF; i++) { split($i, a, ":"); v[a[1]] = a[2] }
      printf "%s", $1; for (j = 1; j <= d; j++) printf ",%s", v[j]; print "" }' "$tmp/gen-$3/part-00000.svm" > "$out"
}

# rlskit LABEL ARGS...: wall time of one rlskit fit.
rlskit() {
  local label=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$tmp/rlskit" fit "$@" --quiet > /dev/null
  t1=$(date +%s.%N)
  awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN { printf "rlskit  %-28s %7.2f s end to end\n", l, b - a }'
}

# rlscore JOB FILE [ARGS]: the RLScore side, timed in Python (reading the file
# apart from learning).
rlscore() {
  PYTHONPATH=$RLSCORE "$PYTHON" - "$@" <<'EOF'
import sys, time
import numpy as np
job, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if path.endswith(".csv"):
    a = np.loadtxt(path, delimiter=",", skiprows=1)
    Y, X = a[:, 0], a[:, 1:]
else:  # svmlight with qid, every row's features as given
    ys, qs, rows = [], [], []
    for line in open(path):
        f = line.split()
        ys.append(float(f[0])); qs.append(f[1].split(":")[1])
        rows.append({int(k): float(v) for k, v in (t.split(":") for t in f[2:])})
    d = max(max(r) for r in rows if r)
    X = np.zeros((len(rows), d))
    for i, r in enumerate(rows):
        for k, v in r.items():
            X[i, k - 1] = v
    Y = np.array(ys)
    ids = {q: n for n, q in enumerate(dict.fromkeys(qs))}
    qids = [ids[q] for q in qs]
t1 = time.perf_counter()
grid = [2.0 ** k for k in range(-15, 16)]
if job == "globalrank":
    from rlscore.learner import GlobalRankRLS
    pos, neg = np.where(Y > 0)[0], np.where(Y < 0)[0]
    start, end = np.repeat(pos, len(neg)), np.tile(neg, len(pos))
    learner = GlobalRankRLS(X, Y, regparam=1.0, kernel="GaussianKernel", gamma=0.05)
    learner.leave_pair_out(start, end)
    what = "%d pairs" % len(start)
elif job == "queryrank":
    from rlscore.learner import LeaveQueryOutRankRLS
    from rlscore.measure import cindex  # named: its default (None) fails in LQOCV
    learner = LeaveQueryOutRankRLS(X, Y, qids, kernel="GaussianKernel", gamma=0.05, regparams=grid, measure=cindex)
    what = "%d queries, %d λ" % (len(set(qids)), len(grid))
elif job == "sparse":
    from rlscore.learner import LeaveOneOutRLS
    n = int(sys.argv[3])
    basis = np.random.default_rng(1).choice(len(Y), n, replace=False)
    learner = LeaveOneOutRLS(X, Y, kernel="GaussianKernel", gamma=0.02, basis_vectors=X[basis], regparams=grid)
    what = "%d basis vectors, %d λ" % (n, len(grid))
elif job == "greedy":
    from rlscore.learner import GreedyRLS
    k = int(sys.argv[3])
    learner = GreedyRLS(X, Y, subsetsize=k, regparam=1.0)
    what = "%d features selected" % k
t2 = time.perf_counter()
print("RLScore %-28s %7.2f s learning (+ %.2f s reading)  [%s]" % (job, t2 - t1, t1 - t0, what))
EOF
}

for j in "${jobs[@]}"; do
  echo "=== $j (QUICK=$QUICK)"
  case "$j" in
    globalrank)
      regression "$m_glob" 20 glob
      awk -F, 'NR == 1 { print; next } { $1 = ($1 > 2) ? 1 : -1; print }' OFS=, "$tmp/glob.csv" > "$tmp/glob-binary.csv"
      rlskit "globalrank lpo m=$m_glob" --data "$tmp/glob-binary.csv" --label y --learner globalrank --kernel gaussian --gamma 0.05 --lambda 1 --cv lpo
      rlscore globalrank "$tmp/glob-binary.csv"
      ;;
    queryrank)
      "$tmp/datagen" -kind letor -rows "$m_query" -features 20 -queries "$q_query" -shards 1 -seed 7 -out "$tmp/letor" >/dev/null
      rlskit "queryrank lqo m=$m_query" --data "$tmp/letor/part-00000.svm" --learner queryrank --kernel gaussian --gamma 0.05 --cv lqo --measure cindex
      rlscore queryrank "$tmp/letor/part-00000.svm"
      ;;
    sparse)
      regression "$m_sparse" 50 sparse
      rlskit "sparse loo m=$m_sparse n=$n_basis" --data "$tmp/sparse.csv" --label y --kernel gaussian --gamma 0.02 --basis "$n_basis" --cv loo
      rlscore sparse "$tmp/sparse.csv" "$n_basis"
      ;;
    greedy)
      regression "$m_greedy" "$d_greedy" greedy
      rlskit "greedy K=$k_greedy" --data "$tmp/greedy.csv" --label y --learner greedy --select "$k_greedy" --lambda 1
      rlscore greedy "$tmp/greedy.csv" "$k_greedy"
      ;;
    *) echo "rlscore-compare.sh: unknown job $j" >&2; exit 2 ;;
  esac
done
