#!/usr/bin/env bash
# One command: build, then measure MCP tool exposure at catalog scale (tools/list bytes, search → load → call).
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run --silent build
node bench/mcp/main.mjs
