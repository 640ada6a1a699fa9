#!/usr/bin/env bash
# `npm test`: typecheck, lint, then every test (unit, integration, end-to-end) against the
# real Postgres and Redis on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-programs.sh
[ -d node_modules ] || npm ci
npm run --silent build
npx tsc -p tsconfig.json --noEmit
npx eslint .
npx prettier --check . >/dev/null || { npx prettier --check . ; exit 1; }
NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning" npx jest "$@"
