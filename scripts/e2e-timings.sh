#!/usr/bin/env bash
# Regenerates the end-to-end `rlskit fit` timings of docs/performance.md and
# the demo's time in README.md ("Two commands"):
#   backend       "Fast numerical backend": gaussian RLS, m = 2000, d = 50, LOO
#                 over 31 λ, the default build (OpenBLAS loaded at run time)
#                 against the cgo build (-tags openblas), RUNS alternating runs
#                 each: every run, min–max and median
#   gaussian-loo  "RLS": the same fit with its timing split (load, train, CV)
#   rank          "RankRLS": globalrank --cv lpo on 1000 rows (d = 20, about
#                 250k positive–negative pairs); queryrank --cv lqo on 3000
#                 LETOR-shaped rows in 100 queries (d = 20), 31 λ
#   sparse        "Sparse RLS": gaussian, m = 20,000, d = 50, 500 basis vectors,
#                 LOO over 31 λ, from CSV
#   greedy        "Greedy RLS": --learner greedy --select 50 --lambda 1 on a
#                 2000 × 1000 CSV file (18 MB)
#   demo          README: `rlskit demo`
# Usage: scripts/e2e-timings.sh [CASE...]   (default: all of them)
#
# Data: cmd/rlskit-datagen (-kind regression: y = xᵀβ + 2 + noise, x ~ N(0, 1);
# -kind letor for queries), converted to CSV where the docs say CSV; the
# globalrank label is the sign of y − 2. The docs' figures were measured on
# data of these shapes; the generator and the kernel widths here (γ = 1/d)
# are this script's, so expect the same magnitudes, not the same digits.
#
# Inputs (environment): RUNS (alternating runs for backend, default 5),
# QUICK=1 (small sizes — m = 400 for backend, 300 rows for the others, RUNS=2 —
# to check that the script runs: about 30 s on 2 cores, builds included).
# Needs: go; gcc, libopenblas-dev and liblapacke-dev for the cgo build
# (backend); OpenBLAS at run time for the default build's figures; jq or
# python3 to print the JSON timing.
# Time, full mode on this project's 2-core machine: backend ~15 s, rank
# ~20 s, sparse ~10 s, greedy ~5 s, demo ~2 s, plus data generation (~30 s)
# and the builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

QUICK=${QUICK:-0}
RUNS=${RUNS:-5}
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(backend gaussian-loo rank sparse greedy demo)
if [ "$QUICK" = 1 ]; then
  RUNS=2
  m_rls=400 m_glob=300 m_query=300 q_query=10 m_sparse=300 n_basis=50 m_greedy=300 d_greedy=100 k_greedy=10
else
  m_rls=2000 m_glob=1000 m_query=3000 q_query=100 m_sparse=20000 n_basis=500 m_greedy=2000 d_greedy=1000 k_greedy=50
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== building rlskit and rlskit-datagen"
CGO_ENABLED=0 go build -o "$tmp/rlskit" ./cmd/rlskit
go build -o "$tmp/datagen" ./cmd/rlskit-datagen
"$tmp/rlskit" version | head -3

# regression ROWS D NAME: CSV (header y,f1..fD) of -kind regression rows.
regression() {
  local rows=$1 d=$2 out=$tmp/$3.csv
  [ -f "$out" ] && return 0
  "$tmp/datagen" -kind regression -rows "$rows" -features "$d" -shards 1 -seed 7 -out "$tmp/gen-$3" >/dev/null
  awk -v d="$d" 'BEGIN { printf "y"; for (j = 1; j <= d; j++) printf ",f%d", j; print "" }
    { for (j = 1; j <= d; j++) v[j] = 0
      for (i = 2; i <= NF; i++) { split($i, a, ":"); v[a[1]] = a[2] }
      printf "%s", $1; for (j = 1; j <= d; j++) printf ",%s", v[j]; print "" }' "$tmp/gen-$3/part-00000.svm" > "$out"
  rm -rf "$tmp/gen-$3"
}

# run LABEL BINARY ARGS...: one fit, its wall time and the JSON's timing.
run() {
  local label=$1 bin=$2 t0 t1
  shift 2
  t0=$(date +%s.%N)
  "$bin" "$@" --quiet > "$tmp/out.json"
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  printf '%-44s wall %7.3f s   %s\n' "$label" "$wall" "$(timing "$tmp/out.json")"
}

# timing FILE: the summary's timing object, compact.
timing() {
  if command -v jq >/dev/null; then
    jq -c '.timing // {}' "$1" 2>/dev/null || true
  else
    python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])).get("timing", {})))' "$1" 2>/dev/null || true
  fi
}

# stats: min–max and median of the numbers on stdin.
stats() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f–%.2f s (median %.2f s) over %d runs\n", v[1], v[NR], m, NR }'; }

for c in "${cases[@]}"; do
  echo "=== $c (QUICK=$QUICK)"
  case "$c" in
    backend)
      regression "$m_rls" 50 rls
      go build -tags openblas -o "$tmp/rlskit-cgo" ./cmd/rlskit
      args=(fit --data "$tmp/rls.csv" --label y --kernel gaussian --gamma 0.02 --cv loo)
      : > "$tmp/default.txt"; : > "$tmp/cgo.txt"
      for r in $(seq "$RUNS"); do
        run "default build (run-time OpenBLAS), run $r" "$tmp/rlskit" "${args[@]}"; echo "$wall" >> "$tmp/default.txt"
        run "cgo build (-tags openblas), run $r" "$tmp/rlskit-cgo" "${args[@]}"; echo "$wall" >> "$tmp/cgo.txt"
      done
      echo "default build: $(stats < "$tmp/default.txt")"
      echo "cgo build:     $(stats < "$tmp/cgo.txt")"
      ;;
    gaussian-loo)
      regression "$m_rls" 50 rls
      run "gaussian RLS m=$m_rls d=50, loo, 31 λ" "$tmp/rlskit" fit --data "$tmp/rls.csv" --label y --kernel gaussian --gamma 0.02 --cv loo
      ;;
    rank)
      regression "$m_glob" 20 glob
      awk -F, 'NR == 1 { print; next } { $1 = ($1 > 2) ? 1 : -1; print }' OFS=, "$tmp/glob.csv" > "$tmp/glob-binary.csv"
      run "globalrank m=$m_glob d=20, lpo" "$tmp/rlskit" fit --data "$tmp/glob-binary.csv" --label y --learner globalrank --kernel gaussian --gamma 0.05 --cv lpo
      "$tmp/datagen" -kind letor -rows "$m_query" -features 20 -queries "$q_query" -shards 1 -seed 7 -out "$tmp/letor" >/dev/null
      run "queryrank m=$m_query in $q_query queries d=20, lqo, 31 λ" "$tmp/rlskit" fit --data "$tmp/letor/part-00000.svm" --learner queryrank --kernel gaussian --gamma 0.05 --cv lqo
      ;;
    sparse)
      regression "$m_sparse" 50 sparse
      run "sparse gaussian m=$m_sparse n=$n_basis, loo, 31 λ" "$tmp/rlskit" fit --data "$tmp/sparse.csv" --label y --kernel gaussian --gamma 0.02 --basis "$n_basis" --cv loo
      ;;
    greedy)
      regression "$m_greedy" "$d_greedy" greedy
      echo "data: $(du -h "$tmp/greedy.csv" | cut -f1)"
      run "greedy m=$m_greedy d=$d_greedy K=$k_greedy, loo, λ = 1" "$tmp/rlskit" fit --data "$tmp/greedy.csv" --label y --learner greedy --select "$k_greedy" --lambda 1
      ;;
    demo)
      t0=$(date +%s.%N)
      "$tmp/rlskit" demo > /dev/null
      t1=$(date +%s.%N)
      awk -v a="$t0" -v b="$t1" 'BEGIN { printf "rlskit demo: wall %.2f s\n", b - a }'
      ;;
    *) echo "e2e-timings.sh: unknown case $c" >&2; exit 2 ;;
  esac
done
