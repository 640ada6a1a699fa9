#!/usr/bin/env bash
# `npm start`: build, then run the whole system against the Postgres and Redis it finds.
# The registry creates its database and applies migrations itself.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -f .env ]; then
  set -a; . ./.env; set +a
fi
if [ -z "${ADMIN_TOKENS:-}" ]; then
  export ADMIN_TOKENS="dev=dev-admin-token"
  echo "ADMIN_TOKENS is not set: using the development token 'dev-admin-token' (set ADMIN_TOKENS in production)"
fi

bash scripts/install-programs.sh
[ -d node_modules ] || npm ci
npm run --silent build

exec node scripts/run-all.mjs
