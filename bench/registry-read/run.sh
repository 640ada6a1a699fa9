#!/usr/bin/env bash
# One command: build, then benchmark registry reads against a bare Fastify process serving the same bytes, in one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run --silent build
node bench/registry-read/main.mjs
