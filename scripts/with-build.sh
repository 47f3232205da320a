#!/usr/bin/env bash
# Runs a compiled CLI after making sure dependencies are installed and the server is built.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh
exec "$@"
