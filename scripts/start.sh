#!/usr/bin/env bash
# npm start: install, build, then the supervisor (server/src/supervisor): it finds or starts Postgres and Redis,
# migrates, and runs the api, worker and projector roles as child processes. package.json runs this script with
# `exec`, and the script ends in `exec node`, so npm's SIGTERM reaches the supervisor itself (a plain `sh -c` in
# between would not pass it on); the supervisor stops its children and the services it started.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh
exec node dist/server/src/main.js "$@"
