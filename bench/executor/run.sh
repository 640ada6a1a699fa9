#!/usr/bin/env bash
# One command: build, then benchmark execution end to end against raw BullMQ in one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run --silent build
node bench/executor/main.mjs
