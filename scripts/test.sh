#!/usr/bin/env bash
# `npm test`: typecheck, lint, the dead-code check, then every test (unit, integration, end-to-end) against the
# real Postgres and Redis on this machine, then the OpenAPI document's lint and generated types.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-programs.sh
# The multi-node drill's programs (redis-server, pgbouncer, haproxy): its smoke test (test/drills/scale.e2e-spec.ts) runs here.
bash scripts/install-scale-programs.sh
[ -d node_modules ] || npm ci
node scripts/build-if-changed.mjs
npx tsc -p tsconfig.json --noEmit
npx eslint .
# Dead code: unused files, exports, types and dependencies (knip.json says where the entry points are).
npx knip --no-progress
npx prettier --check . >/dev/null || { npx prettier --check . ; exit 1; }
NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning" npx jest "$@"
# The OpenAPI document the contract test checked (dist/openapi.json): redocly's recommended rules, and
# typed bodies for every response with openapi-typescript. Only after a full run (the test writes it).
if [ "$#" -eq 0 ]; then
  npm run --silent openapi:lint
  npm run --silent openapi:types
fi
