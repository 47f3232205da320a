#!/usr/bin/env bash
# npm test: the same set-up as npm start, then every test (unit, integration, e2e, Playwright).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/ensure-chromium.sh
echo "[test] type-checking"
npx tsc -p tsconfig.json --noEmit
if [ -f console/tsconfig.json ]; then npx tsc -p console/tsconfig.json --noEmit; fi
bash scripts/build.sh
echo "[test] running jest"
exec npx jest -c jest.config.js --ci "$@"
