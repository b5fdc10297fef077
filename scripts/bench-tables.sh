#!/usr/bin/env bash
# Regenerates the `go test -bench` tables of docs/performance.md ("Linear
# algebra and kernels", the SVD route table, "RLS", "RankRLS", the conjugate
# gradient line, "Sparse RLS", "Greedy RLS", "Pairwise learning") and the
# statistics-pass figures of docs/larger-than-memory.md ("Measured", last
# paragraph).
#
# Usage: scripts/bench-tables.sh TABLE...   (or all)
#   linalg    internal/linalg + kernel: eigendecomposition, SVD, Cholesky, gemm,
#             gaussian kernel blocks; with BUILD=openblas also LAPACK's dsyevd
#             called from C (internal/linalg/testdata/dsyevd.c), the yardstick
#   svd       BenchmarkSVD alone, 5 runs (the "QR route" column; the "LQ route
#             (before)" column is the code before that change and is not
#             reproducible from this tree)
#   rls       rls/bench_test.go, the dual gaussian table
#   rank      rank/bench_test.go, the RankRLS tables
#   cg        cg/bench_test.go, global ranking by conjugate gradients
#   sparse    rls/sparse_bench_test.go: Table1 (m = 5000, n = 500…2500) and
#             SparseLOO31 (m = 20,000, n = 500). The "naive" column is
#             measured as 2 retrainings and reported ×10 (metric s/20λ).
#   greedy    greedy/bench_test.go; full mode adds BenchmarkWide (d = 200,000,
#             3.2 GB of data) under /usr/bin/time -v for its peak RSS
#   pairwise  pairwise/bench_test.go, the three pairwise tables
#   stream    stream/bench_test.go: the statistics pass and the fold solve
#
# Inputs (environment):
#   BUILD   openblas (default: -tags openblas, needs libopenblas-dev and
#           liblapacke-dev, as the tables were measured), runtime (the default
#           build, OpenBLAS loaded at run time) or gonum (RLSKIT_LAPACK=gonum:
#           the "pure Go" columns)
#   COUNT   runs of each benchmark (default 3; the tables give the fastest —
#           greedy of 3, pairwise of 5 — and the SVD table a benchstat of 5)
#   QUICK=1 the smallest size of each table's benchmarks, once (-benchtime 1x,
#           COUNT=1), to check that the script runs: under a minute per table,
#           about 3 min for all nine with the builds, on a loaded 2-core machine.
#           Left out in quick mode: Table1 (its set-up trains every basis size;
#           sparse runs SparseLOO31 only), greedy's Grid, Growth, Sparse and
#           Wide (it runs the LOO/cached case of Select2000x1000K50), pairwise's
#           KronCG, the C dsyevd yardstick.
#
# Output: go test's lines, then per benchmark the fastest run in seconds with
# its extra metrics (pairs, iterations, ms/iter, s/20λ …).
# Time, full mode (openblas), estimated from the tables' own figures on this
# project's 2-core machine: a few minutes per table — the longest sparse
# (Table1: about 5 min per run), greedy (Wide: 3.3 GB, about 30 s more) and
# pairwise (5 runs); all nine tables about 30 min. The machine is shared in the
# docs' runs too: take the fastest of several runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

BUILD=${BUILD:-openblas}
QUICK=${QUICK:-0}
COUNT=${COUNT:-3}
[ "$QUICK" = 1 ] && COUNT=1
tags=()
case "$BUILD" in
  openblas) tags=(-tags openblas) ;;
  runtime) export CGO_ENABLED=0 ;;
  gonum) export CGO_ENABLED=0 RLSKIT_LAPACK=gonum ;;
  *) echo "bench-tables.sh: BUILD must be openblas, runtime or gonum, not $BUILD" >&2; exit 2 ;;
esac

if [ $# -eq 0 ]; then
  echo "usage: scripts/bench-tables.sh TABLE... (linalg svd rls rank cg sparse greedy pairwise stream, or all)" >&2
  exit 2
fi
tables=("$@")
[ "${tables[0]}" = all ] && tables=(linalg svd rls rank cg sparse greedy pairwise stream)

# fastest prints, per benchmark name, the run with the least ns/op, in seconds.
fastest() {
  awk '/^Benchmark/ && / ns\/op/ {
      name = $1; sub(/-[0-9]+$/, "", name)
      for (i = 2; i <= NF; i++) if ($(i+1) == "ns/op") { ns = $i; rest = ""; for (j = i + 2; j <= NF; j++) rest = rest " " $j }
      if (!(name in best) || ns + 0 < best[name] + 0) { best[name] = ns; extra[name] = rest }
      if (!(name in seen)) { seen[name] = 1; order[++n] = name }
    }
    END {
      if (n) print "-- fastest of the runs:"
      for (k = 1; k <= n; k++) printf "%-60s %10.4g s %s\n", order[k], best[order[k]] / 1e9, extra[order[k]]
    }'
}

# bench PKG... -- REGEX BENCHTIME: runs the benchmarks and summarizes them.
bench() {
  local pkgs=() regex benchtime
  while [ "$1" != -- ]; do pkgs+=("$1"); shift; done
  shift
  regex=$1 benchtime=$2
  [ "$QUICK" = 1 ] && benchtime=1x
  echo "== go test ${tags[*]} -run '^\$' -bench '$regex' -benchtime $benchtime -count $COUNT ${pkgs[*]}"
  go test "${tags[@]}" -run '^$' -bench "$regex" -benchtime "$benchtime" -count "$COUNT" "${pkgs[@]}" | tee /dev/stderr | fastest
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pick() { if [ "$QUICK" = 1 ]; then echo "$2"; else echo "$1"; fi; }

for t in "${tables[@]}"; do
  echo "=== table $t (BUILD=$BUILD QUICK=$QUICK)"
  case "$t" in
    linalg)
      bench ./internal/linalg -- "$(pick '^Benchmark(EigSym|SVD|Cholesky|Gemm)$' '^Benchmark(EigSym|SVD|Cholesky|Gemm)$/^n=500$')" 1s
      bench ./kernel -- "$(pick '^BenchmarkGaussianBlock$' '^BenchmarkGaussianBlock$//^n=500$')" 1s
      if [ "$BUILD" = openblas ] && [ "$QUICK" != 1 ]; then
        gcc -O2 -o "$tmp/dsyevd" internal/linalg/testdata/dsyevd.c -llapacke -lopenblas
        echo "== LAPACK dsyevd from C, n = 2000 (the yardstick)"; "$tmp/dsyevd"
      fi
      ;;
    svd)
      c=$COUNT; [ "$QUICK" = 1 ] || COUNT=5
      bench ./internal/linalg -- "$(pick '^BenchmarkSVD$' '^BenchmarkSVD$/^n=500$')" 1s
      COUNT=$c
      command -v benchstat >/dev/null && echo "(benchstat on the lines above gives the table's medians)"
      ;;
    rls)
      bench ./rls -- "$(pick '^Benchmark(FitDual|LOOPath|Solve|LeaveOneOut|HoldOut10Fold|LeavePairOut)$' '^Benchmark(FitDual|LeavePairOut)$/^m=500$')" 3x
      ;;
    rank)
      bench ./rank -- "$(pick '^Benchmark(GlobalLPO|GlobalLPOPairs|QueryLQO)$' '^Benchmark(GlobalLPO|GlobalLPOPairs|QueryLQO)$/^m=(500|750)$')" 3x
      ;;
    cg)
      bench ./cg -- "$(pick '^BenchmarkGlobalRankSparse$/^m=(10000|20000),d=20000$' '^BenchmarkGlobalRankSparse$/^m=10000,d=20000$')" 1x
      ;;
    sparse)
      bench ./rls -- "$(pick '^Benchmark(Table1|SparseLOO31)$' '^BenchmarkSparseLOO31$')" 1x
      ;;
    greedy)
      bench ./greedy -- "$(pick '^Benchmark(Select2000x1000K50|Grid|Growth|Sparse)$' '^BenchmarkSelect2000x1000K50$/^loo$/^cache$')" 3x
      if [ "$QUICK" != 1 ]; then
        go test "${tags[@]}" -c -o "$tmp/greedy.test" ./greedy
        echo "== BenchmarkWide (m = 2000, d = 200,000: 3.2 GB) under /usr/bin/time -v"
        /usr/bin/time -v "$tmp/greedy.test" -test.run '^$' -test.bench '^Wide$' -test.benchtime 1x 2> "$tmp/time.txt"
        grep -E 'Maximum resident|Elapsed' "$tmp/time.txt"
      fi
      ;;
    pairwise)
      c=$COUNT; [ "$QUICK" = 1 ] || COUNT=5
      bench ./pairwise -- "$(pick '^Benchmark(KronFit|KronSettingA|KronSettings|TwoStep|KronCG|KronRetrainPair)$' '^Benchmark(KronFit|KronSettingA|KronSettings|TwoStep|KronRetrainPair)$/^m=(150,q=500|50,q=100)$')" 1x
      COUNT=$c
      ;;
    stream)
      bench ./stream -- '^Benchmark(StatsPass|FoldSolve)$' 1s
      ;;
    *) echo "bench-tables.sh: unknown table $t" >&2; exit 2 ;;
  esac
done
