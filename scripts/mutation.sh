#!/usr/bin/env bash
# Regenerates docs/mutation.md and scripts/mutate/report.json: the mutation
# score of the exactness packages (rls, rank, pairwise, greedy, stream, cv,
# factor, selection).
#
# Each package's non-test code is enumerated into single-operator mutants
# (scripts/mutate/main.go says which), SAMPLE of them per package are drawn at
# random with SEED, and the package's own tests are run on each through
# `go test -overlay` (the working tree is not touched). Mutants that survive
# but compute the same results are listed, with the reason, in
# scripts/mutate/equivalent/.
#
# Inputs: SAMPLE (default 50 per package), SEED (default 2026), PKGS (default the
# eight packages). QUICK=1: 3 mutants of cv and factor, into a temporary file
# (under a minute; the committed report is not touched).
# Time: about 40 min for the default sample on 2 cores; every mutant (about
# 4,000) would take 5–6 hours.
# CI (.ci/run) reruns a random sample of the report's killed mutants with
# `-recheck`: each must still be killed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
SAMPLE=${SAMPLE:-50}
SEED=${SEED:-2026}
PKGS=${PKGS:-rls,rank,pairwise,greedy,stream,cv,factor,selection}
if [ "${QUICK:-0}" = 1 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  go run ./scripts/mutate -pkgs cv,factor -sample 3 -seed "$SEED" -report "$tmp/report.json"
  go run ./scripts/mutate -markdown "$tmp/report.json" >/dev/null
  exit 0
fi
go run ./scripts/mutate -pkgs "$PKGS" -sample "$SAMPLE" -seed "$SEED" -report scripts/mutate/report.json
trap 'rm -f docs/mutation.md.tmp' EXIT
{
  sed -n '1,/^<!-- generated below/p' docs/mutation.md
  go run ./scripts/mutate -markdown scripts/mutate/report.json
} > docs/mutation.md.tmp
mv docs/mutation.md.tmp docs/mutation.md
