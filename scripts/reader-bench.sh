#!/usr/bin/env bash
# Regenerates the "Readers" section of docs/performance.md (issue 26 item 1):
#   bench  the readers' throughput in MB/s of the file's bytes,
#          `go test -bench '^BenchmarkReaders$' ./dataset`: the same dense
#          data (a label and 50 features, 12 significant digits, the shape of
#          rlskit-datagen -kind regression -digits 12) as svmlight, CSV, .npy
#          ('<f8') and Parquet (51 DOUBLE columns), read from memory, at two
#          row counts, on one core (-cpu 1) and on all cores (-cpu N, N the
#          machine's processors); the best of COUNT runs of each, as a
#          Markdown table, in wall-clock MB/s and in MB per second of the
#          process's CPU time (all threads: what a loaded machine does not
#          change; equal at 1 and N cores when the split costs nothing);
#          with it `BenchmarkReadersPairs`, a pairs file of the Kronecker
#          workload's shape (300 × 1000 lines "row col label", about 5 MB)
#          read by dataset.ReadPairs from memory (pairs-mem) and from a
#          file (pairs-file), at the same -cpu values, in the same table
#   fit    the end-to-end effect: `rlskit fit` (linear, LOO over the 31 λ
#          2^-15..2^15) on 50,000 × 50 rows as svmlight (about 45 MB), CSV
#          (about 39 MB) and .npy (20 MB, with the labels in a second file),
#          its JSON's timing.load_s (reading, and the model's input built
#          from the rows), the best of RUNS runs, as a Markdown table
# Usage: scripts/reader-bench.sh [bench] [fit]   (default: both)
#
# Inputs (environment): ROWS (the benchmark's row counts, comma-separated;
# default 5000,50000: about 4.5 and 45 MB of svmlight), COUNT (benchmark
# runs, best of; default 3), RUNS (fit runs, best of; default 3), PYTHON (a
# Python with numpy for the .npy fit; default python3, else /usr/bin/python3;
# without one the .npy row is skipped with a message), QUICK=1 (500 and 2000
# rows, one run of each, the fit on 2000 rows: checks that the script runs,
# in under a minute on 2 cores with the builds cached; its figures mean
# nothing).
# Needs: go; python3 (the JSON; numpy for .npy); awk.
# Time, full mode on this project's shared 2-core machine: bench about
# 2 minutes (the 50,000-row files are built once, a few seconds), fit about
# 1 minute with data generation and the builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

QUICK=${QUICK:-0}
ROWS=${ROWS:-5000,50000}
COUNT=${COUNT:-3}
RUNS=${RUNS:-3}
benchtime=1s
m_fit=50000
if [ "$QUICK" = 1 ]; then
  ROWS=500,2000 COUNT=1 RUNS=1 benchtime=3x m_fit=2000
fi
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(bench fit)
ncpu=$(nproc)
# one go test per -cpu value: given a list, go test measures the sub-benchmarks
# of the first value's first run at another GOMAXPROCS than the value says
# (with -cpu 2,1 the first "-2" results were read by one worker)
cpus=1
[ "$ncpu" -gt 1 ] && cpus="$ncpu 1"

PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then PYTHON=$p; break; fi
  done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "reader-bench.sh: QUICK=$QUICK, $ncpu processors, $(go version | cut -d' ' -f3)"

for c in "${cases[@]}"; do
  case $c in
    bench)
      echo "== BenchmarkReaders (rows $ROWS) and BenchmarkReadersPairs, -cpu $cpus, best of $COUNT (go test -benchtime $benchtime)"
      : > "$tmp/bench.txt"
      for cpu in $cpus; do
        RLSKIT_READER_BENCH_ROWS=$ROWS go test -run '^$' -bench '^BenchmarkReaders(Pairs)?$' -benchtime "$benchtime" \
          -count "$COUNT" -cpu "$cpu" ./dataset | tee -a "$tmp/bench.txt" | grep '^Benchmark' || true
      done
      echo
      echo "| format | rows | file | 1 core | 1 core, CPU time | $ncpu cores | $ncpu cores, CPU time |"
      echo "|---|---:|---:|---:|---:|---:|---:|"
      # Benchmark lines: BenchmarkReaders/FORMAT/rows=R[-N]  iters  ns/op  MB/s  MB/cpu-s,
      # BenchmarkReadersPairs/pairs-SOURCE/m=M,q=Q[-N] (rows column: m=M,q=Q)
      awk -v n="$ncpu" '
        /^BenchmarkReaders(Pairs)?\// {
          split($1, p, "/"); fmt = p[2]; r = p[3]; cpu = 1
          if (match(r, /-[0-9]+$/)) { cpu = substr(r, RSTART + 1); r = substr(r, 1, RSTART - 1) }
          sub(/^rows=/, "", r)
          mbs = ns = cs = 0
          for (i = 2; i < NF; i++) {
            if ($(i + 1) == "MB/s") mbs = $i
            if ($(i + 1) == "ns/op") ns = $i
            if ($(i + 1) == "MB/cpu-s") cs = $i
          }
          key = fmt SUBSEP r
          if (!(key in size)) { order[++k] = key; size[key] = mbs * ns / 1e9 }
          if (mbs > best[key, cpu]) best[key, cpu] = mbs
          if (cs > bestc[key, cpu]) bestc[key, cpu] = cs
        }
        function fmtv(v) { return v > 0 ? sprintf("%.0f MB/s", v) : "—" }
        END {
          for (j = 1; j <= k; j++) {
            key = order[j]; split(key, f, SUBSEP)
            printf "| %s | %s | %.1f MB | %s | %s | %s | %s |\n", f[1], f[2], size[key],
              fmtv(best[key, 1]), fmtv(bestc[key, 1]), fmtv(n > 1 ? best[key, n] : 0), fmtv(n > 1 ? bestc[key, n] : 0)
          }
        }' "$tmp/bench.txt"
      echo
      ;;
    fit)
      echo "== rlskit fit, linear, LOO over 31 λ, $m_fit × 50: timing.load_s, best of $RUNS"
      CGO_ENABLED=0 go build -o "$tmp/rlskit" ./cmd/rlskit
      go build -o "$tmp/datagen" ./cmd/rlskit-datagen
      "$tmp/datagen" -kind regression -rows "$m_fit" -features 50 -shards 1 -seed 7 -digits 12 -out "$tmp/gen" >/dev/null
      svm=$tmp/gen/part-00000.svm
      csv=$tmp/ridge.csv
      awk -v d=50 'BEGIN { printf "y"; for (j = 1; j <= d; j++) printf ",f%d", j; print "" }
        { for (j = 1; j <= d; j++) v[j] = 0
          for (i = 2; i <= NF; i++) { split($i, a, ":"); v[a[1]] = a[2] }
          printf "%s", $1; for (j = 1; j <= d; j++) printf ",%s", v[j]; print "" }' "$svm" > "$csv"
      inputs=("svmlight|$svm|--data $svm" "CSV|$csv|--data $csv --label y")
      if [ -n "$PYTHON" ]; then
        "$PYTHON" -c 'import sys, numpy as np
a = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
np.save(sys.argv[2], np.ascontiguousarray(a[:, 1:])); np.save(sys.argv[3], a[:, 0].copy())' "$csv" "$tmp/X.npy" "$tmp/y.npy"
        inputs+=(".npy|$tmp/X.npy|--data $tmp/X.npy --labels $tmp/y.npy")
      else
        echo "reader-bench.sh: no Python with numpy (set PYTHON): the .npy row is skipped" >&2
      fi
      echo
      echo "| input | file | load_s | MB/s |"
      echo "|---|---:|---:|---:|"
      for in in "${inputs[@]}"; do
        IFS='|' read -r label file args <<< "$in"
        best=
        for _ in $(seq "$RUNS"); do
          # shellcheck disable=SC2086 # args holds several flags
          t=$("$tmp/rlskit" fit $args --kernel linear --lambda-grid '2^-15..2^15' --cv loo --quiet |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["timing"]["load_s"])')
          best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
        done
        bytes=$(wc -c < "$file")
        awk -v l="$label" -v b="$bytes" -v t="$best" \
          'BEGIN { printf "| %s | %.1f MB | %.3f s | %.0f |\n", l, b / 1e6, t, b / 1e6 / t }'
      done
      echo
      ;;
    *)
      echo "reader-bench.sh: unknown case $c (want bench or fit)" >&2
      exit 2
      ;;
  esac
done
