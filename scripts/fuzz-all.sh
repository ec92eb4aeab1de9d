#!/usr/bin/env bash
# Fuzzes every parser: every Fuzz* target of every package of the module,
# one after the other, for FUZZTIME each (30s by default). A target that
# fails leaves its input in <package>/testdata/fuzz/<target>/; keep it there
# as a seed once it is fixed, so that `go test` replays it forever.
#
#   scripts/fuzz-all.sh                 # every target, 30s each
#   FUZZTIME=5m scripts/fuzz-all.sh ./specs/...
#   FUZZPARALLEL=1 scripts/fuzz-all.sh  # one worker, on a shared machine
#
# It ends with a table of executions per target: a target that runs only a
# handful in its time finds nothing (keep fuzz inputs small: the fuzzer
# minimizes every input that finds new coverage, and no input counts while
# it does). FUZZMINIMIZE bounds that minimization (default 5s).
#
# Not part of .ci/run: it takes minutes, and a time-bounded search is a
# benchmark of robustness, not a pass/fail test of a change.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
parallel=${FUZZPARALLEL:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
minimize=${FUZZMINIMIZE:-5s}
failed=()
execs=()
ran=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for pkg in $(go list "${pkgs[@]}"); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    ran=$((ran + 1))
    echo "== $pkg $target ($fuzztime, $parallel workers)"
    status=0
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -parallel "$parallel" 2>&1 | tee "$log" || status=1
    if [ "$status" -ne 0 ] || grep -q '^--- FAIL' "$log"; then
      failed+=("$pkg $target")
    fi
    n=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
    execs+=("$(printf '%12s  %s %s' "${n:-?}" "$pkg" "$target")")
  done
done
echo "== fuzzed $ran targets for $fuzztime each; executions per target:"
printf '%s\n' "${execs[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAIL %s\n' "${failed[@]}"
  exit 1
fi
