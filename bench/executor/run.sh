#!/usr/bin/env bash
# One command: build, then the executor benchmarks — throughput at concurrency 8, 32 and 128 against raw
# BullMQ, graphile-worker and pg-boss in one run, synchronous latency, the hard timeout — then memory.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run --silent build
status=0
node bench/executor/main.mjs || status=$?
node bench/executor/memory.mjs || status=$?
exit $status
