#!/usr/bin/env bash
# The Debian packages of the multi-node shape (drills/scale, test/drills/scale.e2e-spec.ts,
# docs/scaling.md): redis-server (run in cluster mode on private ports), pgbouncer, haproxy. Quick when
# they are installed. Installing never starts their services: the drill runs its own instances.
set -euo pipefail

[ "${SKIP_PROGRAM_INSTALL:-false}" = "true" ] && exit 0
PACKAGES="redis-server pgbouncer haproxy"
if dpkg -s $PACKAGES >/dev/null 2>&1; then exit 0; fi

if [ "$(id -u)" != "0" ]; then
  if ! sudo -n true 2>/dev/null; then
    echo "Missing Debian packages for the multi-node drill. As root, run: apt-get install -y --no-install-recommends $PACKAGES" >&2
    exit 0
  fi
  SUDO="sudo -n"
else
  SUDO=""
fi

export DEBIAN_FRONTEND=noninteractive
# No service of theirs is started by the install (a machine's own Redis on 6379 stays as it is).
policy_added=false
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  policy_added=true
fi
echo "== installing $PACKAGES (Debian packages; once per machine)"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $PACKAGES
if [ "$policy_added" = "true" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
