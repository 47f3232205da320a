#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than package.json / package-lock.json.
#
# `npm ci`: it installs exactly what package-lock.json pins and never rewrites the lock, so set-up cannot dirty a clean
# clone. The committed lock lists every platform's optional binaries (@swc/core-*, msgpackr-extract-*, ...), which is
# what `npm ci` needs to accept it; after changing package.json, run `npm install` yourself and commit the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing npm dependencies (npm ci, as pinned by package-lock.json)"
  if ! npm ci --no-audit --no-fund --loglevel=error; then
    echo "[setup] npm ci failed: if package.json changed, run 'npm install' and commit the updated package-lock.json" >&2
    exit 1
  fi
fi
