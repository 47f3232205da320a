#!/usr/bin/env bash
# npm start: install, build, find or start Postgres and Redis, migrate, then run every role in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh
exec node dist/server/src/main.js "$@"
