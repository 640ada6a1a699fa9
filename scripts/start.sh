#!/usr/bin/env bash
# `npm start`: build what changed, then run the whole system against the Postgres and Redis it finds.
# The registry creates its database and applies migrations itself.
set -euo pipefail
cd "$(dirname "$0")/.."
export START_SH_STARTED_AT="${EPOCHREALTIME}" # run-all reports the time to ready from here

if [ -f .env ]; then
  set -a; . ./.env; set +a
fi
if [ -z "${ADMIN_TOKENS:-}" ]; then
  export ADMIN_TOKENS="dev=dev-admin-token"
  echo "ADMIN_TOKENS is not set: using the development token 'dev-admin-token' (set ADMIN_TOKENS in production)"
fi

# The Debian programs are independent of the build: checked (or installed) beside it.
bash scripts/install-programs.sh &
programs=$!
trap 'wait "$programs" 2>/dev/null || true' EXIT # a failed build does not leave it running behind us
[ -d node_modules ] || npm ci
# The steps of `npm run build`, each only when its inputs changed (nothing to do: ~0.1 s).
node scripts/build-if-changed.mjs
wait "$programs"

exec node scripts/run-all.mjs
