#!/usr/bin/env bash
# Regenerates the "Measured" table of docs/larger-than-memory.md: `rlskit fit
# --stream`, `rlskit-beam` on Prism and the in-memory `rlskit fit` on data from
# cmd/rlskit-datagen, each under /usr/bin/time -v (wall time, peak RSS), with
# the passes' times and rows/s from the JSON summary and the largest relative
# difference between the CV curves the table says agree.
#   ridge  5·10⁶ × 50 svmlight, one file (3.04 GB; -kind regression -rows
#          5000000 -features 50 -shards 1), kfold:10, 31 λ: fit --stream;
#          rlskit-beam fit on Prism (curve compared with fit --stream); in
#          memory on its first 10⁶ rows (3.2 GB). In memory on all 5·10⁶ rows
#          needs 17 GB and about 6 min: only with INMEM_FULL=1.
#   letor  LETOR-shaped 2·10⁶ × 136 in 20,000 queries, 8 shards (2.7 GB;
#          -kind letor -rows 2000000 -features 136 -queries 20000 -shards 8),
#          queryrank, lqo, 31 λ: fit --stream; on its first 2 shards (5·10⁵
#          rows) fit --stream and in memory (9.5 GB, about 5 min), LQO curves
#          compared. In memory on all 2·10⁶ rows is killed by the OOM killer
#          after about 4 min at 24 GB: only with INMEM_FULL=1.
# Usage: scripts/stream-measured.sh [ridge] [letor]   (default: both)
#
# Inputs (environment): QUICK=1 (ridge 10⁵ rows with 5·10⁴ in memory, letor
# 4·10⁴ rows in 400 queries, 8 shards: checks that the script runs — the runs
# take about 30 s on 2 cores, about 1.5 min with the builds; the first build of
# rlskit-beam takes a few minutes more), INMEM_FULL=1 (the in-memory runs on
# all rows: 17 GB and 24 GB+), TMPDIR (the data: 5.8 GB in full mode).
# Needs: go, /usr/bin/time, jq, OpenBLAS at run time, 6 GB of disk.
# Time, full mode on this project's 2-core machine: data generation ~5 min,
# ridge ~2 min (stream 23 s, Beam 41 s, 10⁶ rows in memory 47 s), letor
# ~8 min (stream 103 s, the 2-shard comparison ~6 min); peak RSS 9.5 GB (the
# 2-shard in-memory run).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

QUICK=${QUICK:-0}
INMEM_FULL=${INMEM_FULL:-0}
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(ridge letor)
if [ "$QUICK" = 1 ]; then
  ridge_rows=100000 ridge_inmem=50000 letor_rows=40000 letor_queries=400
else
  ridge_rows=5000000 ridge_inmem=1000000 letor_rows=2000000 letor_queries=20000
fi
for tool in /usr/bin/time jq; do
  command -v "$tool" >/dev/null || { echo "stream-measured.sh: needs $tool" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== building rlskit, rlskit-datagen and rlskit-beam (beam/, its own module)"
CGO_ENABLED=0 go build -o "$tmp/rlskit" ./cmd/rlskit
go build -o "$tmp/datagen" ./cmd/rlskit-datagen
(cd beam && CGO_ENABLED=0 go build -o "$tmp/rlskit-beam" ./cmd/rlskit-beam)
"$tmp/rlskit" version | head -2

# measure LABEL OUT BINARY ARGS...: one run under /usr/bin/time -v, its JSON
# summary kept in OUT.
measure() {
  local label=$1 out=$2 bin=$3
  shift 3
  /usr/bin/time -v "$bin" "$@" > "$out" 2> "$tmp/time.txt" || { tail -30 "$tmp/time.txt" >&2; return 1; }
  awk -v l="$label" '/Maximum resident set size/ { kb = $NF } /Elapsed \(wall clock\)/ { w = $NF }
    END { printf "%-58s wall %s   peak RSS %.0f MB\n", l, w, kb / 1024 }' "$tmp/time.txt"
  jq -r '"    " + (if .stream then "passes: " + ([.stream.passes[] | "\(.kind) \(.seconds | . * 10 | round / 10) s"] | join(", ")) +
    "; \(.stream.rows_per_s | round) rows/s; " else "" end) + "timing " + (.timing | tostring)' "$out" 2>/dev/null || true
}

# compare A B: the largest relative difference between two JSON summaries' CV curves.
compare() {
  jq -rn --slurpfile a "$1" --slurpfile b "$2" '
    [$a[0].cv.curve, $b[0].cv.curve] | transpose
    | map(((.[0].value - .[1].value) | fabs) / ([(.[1].value | fabs), 1e-300] | max))
    | "    curves: \(length) points, largest relative difference \(max)"'
}

for p in "${parts[@]}"; do
  echo "=== $p (QUICK=$QUICK)"
  case "$p" in
    ridge)
      "$tmp/datagen" -kind regression -rows "$ridge_rows" -features 50 -shards 1 -out "$tmp/ridge" >/dev/null
      f=$tmp/ridge/part-00000.svm
      echo "data: $(du -h "$f" | cut -f1), $ridge_rows rows"
      measure "fit --stream, kfold:10, 31 λ" "$tmp/stream.json" "$tmp/rlskit" fit --stream --data "$f" --cv kfold:10 --quiet
      measure "rlskit-beam fit (Prism), kfold:10, 31 λ" "$tmp/beam.json" "$tmp/rlskit-beam" fit --data "$f" --cv kfold:10
      compare "$tmp/beam.json" "$tmp/stream.json"
      head -n "$ridge_inmem" "$f" > "$tmp/ridge-head.svm"
      measure "in memory, fit --cv kfold:10, first $ridge_inmem rows" "$tmp/mem.json" "$tmp/rlskit" fit --data "$tmp/ridge-head.svm" --cv kfold:10 --quiet
      rm -f "$tmp/ridge-head.svm"
      if [ "$INMEM_FULL" = 1 ]; then
        measure "in memory, fit --cv kfold:10, all $ridge_rows rows" "$tmp/mem.json" "$tmp/rlskit" fit --data "$f" --cv kfold:10 --quiet
      else
        echo "(in memory on all $ridge_rows rows: INMEM_FULL=1; 17 GB at full size)"
      fi
      rm -rf "$tmp/ridge"
      ;;
    letor)
      "$tmp/datagen" -kind letor -rows "$letor_rows" -features 136 -queries "$letor_queries" -shards 8 -out "$tmp/letor" >/dev/null
      echo "data: $(du -sh "$tmp/letor" | cut -f1), $letor_rows rows in $letor_queries queries, 8 shards"
      measure "fit --stream, queryrank, lqo, 31 λ" "$tmp/stream.json" "$tmp/rlskit" fit --stream --data "$tmp/letor/part-*.svm" --learner queryrank --cv lqo --quiet
      if [ "$INMEM_FULL" = 1 ]; then
        cat "$tmp"/letor/part-*.svm > "$tmp/letor-all.svm"
        measure "in memory, queryrank lqo, all $letor_rows rows" "$tmp/mem.json" "$tmp/rlskit" fit --data "$tmp/letor-all.svm" --learner queryrank --cv lqo --quiet || true
        rm -f "$tmp/letor-all.svm"
      else
        echo "(in memory on all $letor_rows rows: INMEM_FULL=1; killed by the OOM killer at full size)"
      fi
      cat "$tmp/letor/part-00000.svm" "$tmp/letor/part-00001.svm" > "$tmp/letor-2.svm"
      measure "first 2 shards: fit --stream, queryrank, lqo" "$tmp/stream2.json" "$tmp/rlskit" fit --stream --data "$tmp/letor-2.svm" --learner queryrank --cv lqo --quiet
      measure "first 2 shards: in memory, queryrank, lqo" "$tmp/mem2.json" "$tmp/rlskit" fit --data "$tmp/letor-2.svm" --learner queryrank --cv lqo --quiet
      jq -r '"    \(.n_train) rows, \(.queries.count) queries"' "$tmp/mem2.json" 2>/dev/null || true
      compare "$tmp/stream2.json" "$tmp/mem2.json"
      rm -rf "$tmp/letor" "$tmp/letor-2.svm"
      ;;
    *) echo "stream-measured.sh: unknown part $p" >&2; exit 2 ;;
  esac
done
