#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than the lock file.
#
# `npm install` (which installs exactly what package-lock.json pins) rather than `npm ci`: npm 11 records only the
# host platform's optional binaries (@swc/core-*, msgpackr-extract-*) in a lock it writes, and `npm ci` then
# refuses that same lock as "out of sync" (npm/cli#4828, #8669). `npm install` accepts it and leaves it unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing npm dependencies (npm install, as pinned by package-lock.json)"
  npm install --no-audit --no-fund --loglevel=error
fi
