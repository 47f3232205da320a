#!/usr/bin/env bash
# Builds the server (tsc) and the console (vite) when their sources changed since the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
newer() { [ ! -e "$1" ] || [ -n "$(find "${@:2}" -newer "$1" -type f -print -quit 2>/dev/null)" ]; }
if newer dist/server/src/main.js server/src projections/src tsconfig.json tsconfig.build.json package-lock.json; then
  echo "[setup] building the server"
  rm -rf dist
  npx tsc -p tsconfig.build.json
fi
if [ -f console/index.html ] && newer console/dist/index.html console/src console/index.html console/vite.config.ts package-lock.json; then
  echo "[setup] building the console"
  npx vite build --config console/vite.config.ts --logLevel warn
fi
