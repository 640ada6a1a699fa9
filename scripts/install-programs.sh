#!/usr/bin/env bash
# The engineering programs the tool adapters run, and bubblewrap for script tools, from Debian
# packages. Quick when they are installed already; `npm start`, `npm test` and CI all call it.
# SKIP_PROGRAM_INSTALL=true skips it (for machines managed otherwise).
set -euo pipefail

[ "${SKIP_PROGRAM_INSTALL:-false}" = "true" ] && exit 0

# chromium: the browser the console's end-to-end test drives (playwright-core; test/e2e/console.e2e-spec.ts).
PROGRAMS="ngspice calculix-ccx gmsh bubblewrap chromium"
kicad_ok() { kicad-cli version 2>/dev/null | grep -q '^9\.'; }
if dpkg -s $PROGRAMS >/dev/null 2>&1 && kicad_ok; then exit 0; fi

if [ "$(id -u)" != "0" ]; then
  SUDO="sudo -n"
  if ! $SUDO true 2>/dev/null || ! command -v apt-get >/dev/null; then
    # Not root and no password-less sudo (or no apt): say exactly what to run, and go on without them;
    # the adapters then report the missing programs as not installed.
    echo "Missing Debian packages for the tool adapters and script tools. As root, run:" >&2
    echo "  echo 'deb http://deb.debian.org/debian bookworm-backports main' > /etc/apt/sources.list.d/bookworm-backports.list" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends $PROGRAMS && apt-get install -y --no-install-recommends kicad/bookworm-backports" >&2
    echo "Starting without them: tools that need them are reported unavailable (SKIP_PROGRAM_INSTALL=true silences this)." >&2
    exit 0
  fi
else
  SUDO=""
fi

export DEBIAN_FRONTEND=noninteractive
started=$(date +%s)
# KiCad 9 (kicad-cli) comes from bookworm-backports; bookworm itself has KiCad 6.
if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "deb http://deb.debian.org/debian bookworm-backports main" | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
fi
echo "== installing $PROGRAMS kicad (Debian packages; once per machine)"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $PROGRAMS
# Only kicad from backports: '-t bookworm-backports' would also upgrade ngspice and others.
$SUDO apt-get install -y -qq --no-install-recommends kicad/bookworm-backports
echo "== installed $PROGRAMS kicad in $(( $(date +%s) - started )) s"
