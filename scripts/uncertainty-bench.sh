#!/usr/bin/env bash
# Regenerates the "Uncertainty" section of docs/performance.md (issue 22):
#   predict   intervals for 1000 test points after a gaussian fit at m = 2000
#             (d = 10, γ = 0.1, kfold:10 over 31 λ, --interval cv+):
#             `rlskit predict --coverage 0.9` against plain `rlskit predict`,
#             end to end, best of RUNS; and in process, go test -bench
#             BenchmarkPredictInterval ./interval (cv+/gaussian and the
#             linear jackknife+), best of COUNT
#   cvplus    CV+'s K = 10 fold models and residuals at m = 2000 (gaussian,
#             dual form) by the shortcut against refitting the 10 fold
#             models: go test -bench BenchmarkCVPlus ./interval, the refit
#             (3 operations a run) and the shortcuts (30) alternating, best
#             of COUNT each
#   stream    fit --stream --cv kfold:10 (linear kernel, m = 200000, d = 10)
#             with and without --interval cv+ (the interval's extra pass),
#             best of RUNS, peak memory (one more run each), the model
#             files' sizes, and predict --coverage 0.9 of 1000 test points
#             with that model against plain predict
#   nested    nested 10 × 10 cross-validation over 13 γ × 31 λ at m = 1000
#             (d = 10, gaussian, mse): rlskit fit --outer-folds FILE --folds
#             FILE --fold-score mean against scikit-learn's
#             GridSearchCV(KernelRidge(kernel="rbf")) with PredefinedSplit
#             inner folds inside a loop over the same outer folds. The inner
#             partition is independent of the outer one, so each outer
#             training part has 10 inner folds (the inner partition's folds
#             restricted to it), on both sides; both score an inner point by
#             the mean of its folds' mse and refit the chosen point on the
#             outer training part. scikit-learn refits 13·31·10 models per
#             outer fold, so the full-grid peer runs on SK_OUTER of the 10
#             outer folds and its time is scaled by 10/SK_OUTER (cost model:
#             the same number of equal-size fits per outer fold); the check on
#             those folds: the same (γ, λ) and the fold's outer mse to 1e-8
#             relative. A second, complete nested run on a 3 γ × 5 λ grid
#             checks the pooled outer value of all 10 folds to 1e-8 relative
#             and times both sides without extrapolation.
# Usage: scripts/uncertainty-bench.sh [CASE...]   (default: all four;
# nested-small and nested-full run one half of nested)
# Inputs (environment): RUNS (end-to-end runs, default 5), COUNT (-count of
# the go benchmarks, default 3), SK_OUTER (outer folds the full-grid peer
# runs, default 1), FULL_RUNS (rlskit runs of the full nested grid, default
# 1), PYTHON (default /usr/bin/python3: numpy, scikit-learn),
# QUICK=1 (m = 300 and 200, 3 γ × 5 λ, 100 test points, RUNS=COUNT=1, the
# benchmarks at -benchtime 1x: checks that the script runs, about 1 min).
# Time, full mode on this project's 2-core machine under load 6–14: predict
# ~1 min, cvplus ~1.5 min, stream ~1 min, nested ~17 min (small grid ~4 min; full grid:
# rlskit ~8 min, the peer's one outer fold ~5 min).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

QUICK=${QUICK:-0}
RUNS=${RUNS:-5}
COUNT=${COUNT:-3}
SK_OUTER=${SK_OUTER:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(predict cvplus stream nested)
if [ "$QUICK" = 1 ]; then
  RUNS=1 COUNT=1 SK_OUTER=1 benchtime=1x
  m_pred=300 m_test=100 m_nest=200 m_stream=2000 ggrid=2^-6..2^-4 lgrid=2^-4..2^0
  sg_small="2^-6..2^-4" sl_small="2^-4..2^0"
else
  benchtime=3x
  m_pred=2000 m_test=1000 m_nest=1000 m_stream=200000 ggrid=2^-12..2^0 lgrid=2^-15..2^15
  sg_small="2^-6..2^-4" sl_small="2^-4..2^0"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== $(date -u +%FT%TZ), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
CGO_ENABLED=0 go build -o "$tmp/rlskit" ./cmd/rlskit
"$tmp/rlskit" version | head -3

# data NAME ROWS SEED: CSV (header y,f1..f10) of y = sin(2 f1) + f2²/2 − f3 + 0.3·noise, f ~ N(0, 1).
data() {
  "$PYTHON" - "$tmp/$1.csv" "$2" "$3" <<'EOF'
import sys, numpy as np
path, m, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = np.random.default_rng(seed)
X = r.standard_normal((m, 10))
y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 / 2 - X[:, 2] + 0.3 * r.standard_normal(m)
with open(path, "w") as f:
    f.write("y," + ",".join(f"f{j + 1}" for j in range(10)) + "\n")
    for i in range(m):
        f.write(",".join(repr(float(v)) for v in [y[i], *X[i]]) + "\n")
EOF
}

# best SECONDS... : the smallest.
best() { printf '%s\n' "$@" | sort -g | head -1; }

# wall CMD...: seconds of one run (stdout to $tmp/out).
wall() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > "$tmp/out"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

# gobench PATTERN: go test -bench in ./interval, the best ns/op of each sub-benchmark.
gobench() {
  nice -n 10 go test -run '^$' -bench "$1" -benchtime "$benchtime" -count "$COUNT" ./interval | tee "$tmp/bench.txt" |
    grep -E '^Benchmark' || true
  awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); v = $3; if (!(n in b) || v < b[n]) b[n] = v }
       END { for (n in b) printf "best of %s: %-60s %14.0f ns/op (%.4f s)\n", "'"$COUNT"'", n, b[n], b[n] / 1e9 }' "$tmp/bench.txt" | sort
}

for c in "${cases[@]}"; do
  echo "=== $c (QUICK=$QUICK)"
  case "$c" in
    predict)
      data train "$m_pred" 1
      data test "$m_test" 2
      "$tmp/rlskit" fit --data "$tmp/train.csv" --label y --kernel gaussian --gamma 0.1 --cv kfold:10 --seed 1 \
        --interval cv+ --model "$tmp/m.json" --quiet > /dev/null
      echo "model file: $(du -k "$tmp/m.json" | cut -f1) KB ($m_pred rows, 10 fold models)"
      plain=() cover=()
      for r in $(seq "$RUNS"); do
        plain+=("$(wall "$tmp/rlskit" predict --model "$tmp/m.json" --data "$tmp/test.csv")")
        cover+=("$(wall "$tmp/rlskit" predict --model "$tmp/m.json" --data "$tmp/test.csv" --coverage 0.9)")
      done
      echo "predict, $m_test points:                 ${plain[*]} s; best $(best "${plain[@]}") s"
      echo "predict --coverage 0.9, $m_test points:  ${cover[*]} s; best $(best "${cover[@]}") s"
      if [ "$QUICK" != 1 ]; then gobench 'BenchmarkPredictInterval'; fi
      ;;
    cvplus)
      if [ "$QUICK" = 1 ]; then
        nice -n 10 go test -run '^$' -bench 'BenchmarkCVPlus' -benchtime 1x ./interval | grep -E '^(Benchmark|ok)'
      else
        # alternating, COUNT times: the refit (about 1 s an operation) at
        # 3 operations a run, the shortcuts (10–150 ms) at 30, so that a
        # cold first operation does not weigh a third of their mean
        : > "$tmp/cv.txt"
        for r in $(seq "$COUNT"); do
          nice -n 10 go test -run '^$' -bench 'BenchmarkCVPlus/refit' -benchtime 3x ./interval | grep -E '^Benchmark' | tee -a "$tmp/cv.txt"
          nice -n 10 go test -run '^$' -bench 'BenchmarkCVPlus/shortcut' -benchtime 30x ./interval | grep -E '^Benchmark' | tee -a "$tmp/cv.txt"
        done
        awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); v = $3; if (!(n in b) || v < b[n]) b[n] = v }
             END { for (n in b) printf "best of %s: %-60s %14.0f ns/op (%.4f s)\n", "'"$COUNT"'", n, b[n], b[n] / 1e9 }' "$tmp/cv.txt" | sort
      fi
      ;;
    stream)
      # fit --stream --cv kfold:10 of the linear kernel with and without
      # --interval cv+ (one more pass: the rows' hold-out residuals), the
      # model's size, and predict --coverage 0.9 of the test points.
      data big "$m_stream" 4
      data test "$m_test" 2
      plain=() withiv=() pp=() pc=()
      for r in $(seq "$RUNS"); do
        plain+=("$(wall "$tmp/rlskit" fit --stream --data "$tmp/big.csv" --label y --cv kfold:10 --model "$tmp/s.json" --quiet)")
        withiv+=("$(wall "$tmp/rlskit" fit --stream --data "$tmp/big.csv" --label y --cv kfold:10 --interval cv+ --model "$tmp/siv.json" --quiet)")
        "$PYTHON" -c 'import json,sys; print("  passes:", [(p["kind"], round(p["seconds"], 3)) for p in json.load(open(sys.argv[1]))["stream"]["passes"]])' "$tmp/out"
        pp+=("$(wall "$tmp/rlskit" predict --model "$tmp/siv.json" --data "$tmp/test.csv")")
        pc+=("$(wall "$tmp/rlskit" predict --model "$tmp/siv.json" --data "$tmp/test.csv" --coverage 0.9)")
      done
      peak() { if [ -x /usr/bin/time ]; then /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; else echo "(no /usr/bin/time: not measured)"; fi; }
      echo "fit --stream, $m_stream rows:                 ${plain[*]} s; best $(best "${plain[@]}") s; peak $(peak "$tmp/rlskit" fit --stream --data "$tmp/big.csv" --label y --cv kfold:10 --model "$tmp/s.json" --quiet) KB"
      echo "fit --stream --interval cv+, $m_stream rows:  ${withiv[*]} s; best $(best "${withiv[@]}") s; peak $(peak "$tmp/rlskit" fit --stream --data "$tmp/big.csv" --label y --cv kfold:10 --interval cv+ --model "$tmp/siv.json" --quiet) KB"
      echo "model file: $(wc -c < "$tmp/s.json") bytes plain, $(wc -c < "$tmp/siv.json") bytes with the interval"
      echo "predict, $m_test points:                ${pp[*]} s; best $(best "${pp[@]}") s"
      echo "predict --coverage 0.9, $m_test points: ${pc[*]} s; best $(best "${pc[@]}") s"
      ;;
    nested|nested-small|nested-full)
      data nest "$m_nest" 3
      "$PYTHON" - "$m_nest" "$tmp" <<'EOF'
import sys, numpy as np
m, tmp = int(sys.argv[1]), sys.argv[2]
for name, seed in (("outer", 11), ("inner", 12)):
    p = np.random.default_rng(seed).permutation(m)
    with open(f"{tmp}/{name}.txt", "w") as f:
        for k in range(10):
            f.write(" ".join(str(i) for i in sorted(p[k::10])) + "\n")
EOF
      cat > "$tmp/peer.py" <<'EOF'
# the nested GridSearchCV(KernelRidge) peer: argv = data.csv outer.txt
# inner.txt gamma-spec lambda-spec number-of-outer-folds; prints JSON.
import json, sys, time
import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, PredefinedSplit

def grid(spec):  # rlskit's 2^a..2^b: every integer exponent from a to b
    lo, hi = spec.split("..")
    a, b = int(lo.split("^")[1]), int(hi.split("^")[1])
    return [2.0 ** e for e in range(a, b + 1)]

D = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
y, X = D[:, 0], D[:, 1:]
outer = [np.array(l.split(), dtype=int) for l in open(sys.argv[2]) if l.strip()]
fold = np.empty(len(y), dtype=int)
for k, l in enumerate(open(sys.argv[3])):
    fold[np.array(l.split(), dtype=int)] = k
gammas, alphas = grid(sys.argv[4]), grid(sys.argv[5])
use = int(sys.argv[6])
t0 = time.perf_counter()
pred, per = np.full(len(y), np.nan), []
for k, O in enumerate(outer[:use]):
    T = np.setdiff1d(np.arange(len(y)), O)
    gs = GridSearchCV(KernelRidge(kernel="rbf"), {"gamma": gammas, "alpha": alphas},
                      cv=PredefinedSplit(fold[T]), scoring="neg_mean_squared_error", refit=True)
    gs.fit(X[T], y[T])
    pred[O] = gs.predict(X[O])
    per.append({"fold": k, "gamma": gs.best_params_["gamma"], "lambda": gs.best_params_["alpha"],
                "inner": -gs.best_score_, "outer": float(np.mean((pred[O] - y[O]) ** 2))})
sec = time.perf_counter() - t0
done = ~np.isnan(pred)
print(json.dumps({"seconds": sec, "per_fold": per, "value": float(np.mean((pred[done] - y[done]) ** 2)), "fits": use * len(gammas) * len(alphas) * 10}))
EOF
      # compare RLSKIT.json PEER.json FOLDS: the chosen points and outer values (1e-8 relative).
      compare() {
        "$PYTHON" - "$1" "$2" "$3" <<'EOF'
import json, sys
a, b, use = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
rel = lambda u, v: abs(u - v) / max(abs(u), abs(v), 1e-300)
ok, worst = True, 0.0
for f, p in zip(a["outer"]["per_fold"][:use], b["per_fold"]):
    same = rel(f["kernel"]["gamma"], p["gamma"]) < 1e-12 and rel(f["lambda"], p["lambda"]) < 1e-12
    worst = max(worst, rel(f["outer"], p["outer"]))
    print(f"  outer fold {f['fold']}: rlskit γ={f['kernel']['gamma']:g} λ={f['lambda']:g} inner {f['inner']:.12g} outer {f['outer']:.12g} | "
          f"scikit-learn γ={p['gamma']:g} λ={p['lambda']:g} inner {p['inner']:.12g} outer {p['outer']:.12g}{'' if same else '  DIFFERENT POINT'}")
    ok = ok and same
if use == len(a["outer"]["per_fold"]):
    r = rel(a["outer"]["value"], b["value"])
    print(f"  pooled outer mse: rlskit {a['outer']['value']:.15g}, scikit-learn {b['value']:.15g}, relative difference {r:.2e}")
    worst = max(worst, r)
print(f"  largest relative difference of the outer values: {worst:.2e}: {'same to 1e-8' if ok and worst <= 1e-8 else 'NOT THE SAME'}")
sys.exit(0 if ok and worst <= 1e-8 else 1)
EOF
      }
      # nestedpair GAMMAS LAMBDAS PEER_FOLDS LABEL RUNS
      nestedpair() {
        local rk=() t
        for r in $(seq "$5"); do
          rk+=("$(wall "$tmp/rlskit" fit --data "$tmp/nest.csv" --label y --kernel gaussian --gamma-grid "$1" --lambda-grid "$2" \
            --folds "$tmp/inner.txt" --fold-score mean --outer-folds "$tmp/outer.txt" --quiet)")
          cp "$tmp/out" "$tmp/rlskit.json"
        done
        "$PYTHON" "$tmp/peer.py" "$tmp/nest.csv" "$tmp/outer.txt" "$tmp/inner.txt" "$1" "$2" "$3" > "$tmp/peer.json"
        t=$("$PYTHON" -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["seconds"])' "$tmp/peer.json")
        echo "$4, m = $m_nest: rlskit fit (end to end): ${rk[*]} s, best $(best "${rk[@]}") s"
        echo "$4: scikit-learn nested GridSearchCV(KernelRidge), $3 of 10 outer folds (in process, reading excluded): $t s" \
          "-> all 10: $(awk -v t="$t" -v u="$3" 'BEGIN { printf "%.1f", t * 10 / u }') s; ratio peer/rlskit $(awk -v t="$t" -v u="$3" -v r="$(best "${rk[@]}")" 'BEGIN { printf "%.0f", t * 10 / u / r }')"
        compare "$tmp/rlskit.json" "$tmp/peer.json" "$3"
      }
      if [ "$c" != nested-full ]; then nestedpair "$sg_small" "$sl_small" 10 "small grid 3 γ × 5 λ, 10 × 10" "$RUNS"; fi
      if [ "$c" != nested-small ]; then nestedpair "$ggrid" "$lgrid" "$SK_OUTER" "full grid $ggrid × $lgrid, 10 × 10" "${FULL_RUNS:-1}"; fi
      ;;
    *) echo "uncertainty-bench.sh: unknown case $c" >&2; exit 2 ;;
  esac
done
echo "== load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
