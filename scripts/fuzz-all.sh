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
# Not part of .ci/run: it takes minutes, and a time-bounded search is a
# benchmark of robustness, not a pass/fail test of a change.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
parallel=${FUZZPARALLEL:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
failed=()
ran=0
for pkg in $(go list "${pkgs[@]}"); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    ran=$((ran + 1))
    echo "== $pkg $target ($fuzztime, $parallel workers)"
    if ! go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel "$parallel"; then
      failed+=("$pkg $target")
    fi
  done
done
echo "== fuzzed $ran targets for $fuzztime each"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAIL %s\n' "${failed[@]}"
  exit 1
fi
