#!/usr/bin/env bash
# One command: build, then benchmark in-process ranking and REST search against the baseline route.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run --silent build
node bench/search/main.mjs
