#!/usr/bin/env bash
# `npm run test:loaded`: the full suite (npm test) RUNS times in a row (default 3) while a CPU hog
# (stress-ng, one busy worker per core, from Debian) runs beside it; stops at the first failing run.
# The hog is stopped whatever happens. Proves the suite does not depend on an idle machine (issue 30).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
if ! command -v stress-ng >/dev/null; then
  if [ "$(id -u)" = "0" ]; then apt-get install -y -qq --no-install-recommends stress-ng >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends stress-ng; }
  else echo "stress-ng is missing: apt-get install stress-ng" >&2; exit 1; fi
fi
stress-ng --cpu "$(nproc)" --cpu-load 100 --timeout 5h --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true' EXIT
for run in $(seq 1 "$runs"); do
  echo "== loaded run $run of $runs (stress-ng --cpu $(nproc) beside it)"
  started=$(date +%s)
  npm test
  echo "== loaded run $run passed in $(( $(date +%s) - started )) s"
done
