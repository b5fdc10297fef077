#!/usr/bin/env bash
# Regenerates the measured peaks of docs/performance.md: the "Memory" table's
# measured entries and the paragraph under it, and the end-to-end linear fits
# at the end of "Fast numerical backend". Every run is `rlskit fit` under
# /usr/bin/time -v (wall time and maximum resident set size).
#   linear     the linear kernel on 10⁵ × 136 svmlight (-kind letor) without CV
#              and with kfold:10 (the table: 800 MB and 953 MB; the backend
#              section: 0.94 s); 10⁶ × 50 svmlight (-kind regression) without
#              CV (the backend section: 3.8 s)
#   queryrank  linear queryrank on the same 10⁵ × 136 rows (1000 queries of
#              about 100 rows) without CV and with lqo (1.5 GB and 2.0 GB)
#   gaussian   gaussian RLS, m = 2000, d = 20, 11 λ, LOO in pure Go
#              (RLSKIT_LAPACK=gonum): 55 MB, m² = 32 MB, the "≈ 1.7 m²" of the
#              pure-Go eigensolver's row
# Usage: scripts/memory-peaks.sh [CASE...]   (default: all three)
#
# The "before" figures in the docs (7.0 s and 9.2 s by LAPACK's wide SVD route,
# 111 MB before the in-place eigendecomposition) are the code before those
# changes and are not reproducible from this tree. The column "largest m in
# 24 GiB" is the formula of each row solved for m, not a run.
#
# Inputs (environment): QUICK=1 (10⁴ × 136 rows in 100 queries, 10⁵ × 50
# rows, m = 300: checks that the script runs, in about 30 s on 2 cores).
# Needs: go, /usr/bin/time (Debian package time), OpenBLAS for the default
# build's linear figures (apt-get install libopenblas0).
# Time, full mode on 2 cores: linear ~1.5 min (data generation included,
# 0.7 GB in TMPDIR), queryrank ~3 min (LQO: an m×d product per query),
# gaussian ~2.5 min (pure-Go eigendecomposition of order 2000); peak about
# 2 GB.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

QUICK=${QUICK:-0}
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(linear queryrank gaussian)
if [ "$QUICK" = 1 ]; then
  m_letor=10000 q_letor=100 m_reg=100000 m_gauss=300
else
  m_letor=100000 q_letor=1000 m_reg=1000000 m_gauss=2000
fi
[ -x /usr/bin/time ] || { echo "memory-peaks.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/rlskit" ./cmd/rlskit
go build -o "$tmp/datagen" ./cmd/rlskit-datagen
"$tmp/rlskit" version | head -2

# peak LABEL ARGS...: one rlskit run under /usr/bin/time -v.
peak() {
  local label=$1
  shift
  /usr/bin/time -v "$tmp/rlskit" "$@" --quiet > "$tmp/out.json" 2> "$tmp/time.txt" || { cat "$tmp/time.txt" >&2; exit 1; }
  awk -v l="$label" '/Maximum resident set size/ { kb = $NF } /Elapsed \(wall clock\)/ { w = $NF }
    END { printf "%-52s wall %s   peak %.0f MB\n", l, w, kb / 1024 }' "$tmp/time.txt"
}

letor() {
  [ -d "$tmp/letor" ] && return 0
  "$tmp/datagen" -kind letor -rows "$m_letor" -features 136 -queries "$q_letor" -shards 1 -seed 1 -out "$tmp/letor" >/dev/null
}

for c in "${cases[@]}"; do
  echo "=== $c (QUICK=$QUICK)"
  case "$c" in
    linear)
      letor
      peak "linear rls $m_letor × 136, no CV" fit --data "$tmp/letor/part-00000.svm" --cv none --lambda 1
      peak "linear rls $m_letor × 136, kfold:10" fit --data "$tmp/letor/part-00000.svm" --cv kfold:10
      "$tmp/datagen" -kind regression -rows "$m_reg" -features 50 -shards 1 -seed 1 -out "$tmp/reg" >/dev/null
      peak "linear rls $m_reg × 50, no CV" fit --data "$tmp/reg/part-00000.svm" --cv none --lambda 1
      rm -rf "$tmp/reg"
      ;;
    queryrank)
      letor
      peak "linear queryrank $m_letor × 136 ($q_letor queries), no CV" fit --data "$tmp/letor/part-00000.svm" --learner queryrank --cv none --lambda 1
      peak "linear queryrank $m_letor × 136 ($q_letor queries), lqo" fit --data "$tmp/letor/part-00000.svm" --learner queryrank --cv lqo
      ;;
    gaussian)
      "$tmp/datagen" -kind regression -rows "$m_gauss" -features 20 -shards 1 -seed 1 -out "$tmp/g" >/dev/null
      RLSKIT_LAPACK=gonum peak "gaussian rls m=$m_gauss d=20, 11 λ, loo (pure Go)" fit --data "$tmp/g/part-00000.svm" --kernel gaussian --gamma 0.05 --lambda-grid 2^-5..2^5 --cv loo
      awk -v m="$m_gauss" 'BEGIN { printf "m² float64 values = %.0f MB: divide the peak by it for the row of the table\n", m * m * 8 / 1e6 }'
      ;;
    *) echo "memory-peaks.sh: unknown case $c" >&2; exit 2 ;;
  esac
done
