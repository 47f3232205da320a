#!/usr/bin/env bash
# npm test: the same set-up as npm start, then every test (unit, integration, e2e, Playwright).
set -euo pipefail
cd "$(dirname "$0")/.."
# Set-up must leave a clean clone clean: remember the tracked files' state, so a file set-up rewrites (say,
# package-lock.json) fails the run instead of being committed by the next person. Your own edits are left alone.
tracked_state() {
  git diff HEAD --name-only --no-renames -z | while IFS= read -r -d '' file; do
    if [ -e "$file" ]; then echo "$(git hash-object -- "$file") $file"; else echo "deleted $file"; fi
  done
}
in_git=false
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && git rev-parse --verify -q HEAD >/dev/null; then
  in_git=true
  before="$(tracked_state)"
fi
bash scripts/ensure-deps.sh
bash scripts/ensure-chromium.sh
echo "[test] type-checking"
npx tsc -p tsconfig.json --noEmit
if [ -f console/tsconfig.json ]; then npx tsc -p console/tsconfig.json --noEmit; fi
# The layer boundaries (eslint.config.mjs) and one format (Prettier): a crossed boundary fails the run.
echo "[test] linting"
npx eslint .
npx prettier --check . --log-level warn
bash scripts/build.sh
if [ "$in_git" = true ]; then
  changed="$(diff <(echo "$before") <(tracked_state) | sed -n 's/^[<>] [^ ]* //p' | sort -u || true)"
  if [ -n "$changed" ]; then
    echo "[test] set-up (install, build) modified tracked files; fix the step that wrote them:" >&2
    echo "$changed" | sed 's/^/  /' >&2
    exit 1
  fi
fi
echo "[test] running jest"
if [ "$#" -gt 0 ]; then exec npx jest -c jest.config.js --ci "$@"; fi
# Two passes: every spec but the heavy ones (HEAVY in jest.config.js: fault suites, 500-way concurrency), then those
# alone, one at a time, so they never starve a neighbour's timeouts on a 2-core machine.
JEST_PASS=light npx jest -c jest.config.js --ci
echo "[test] running the heavy specs, one at a time"
exec npx jest -c jest.config.js --ci --runInBand test/faults/ test/e2e/overspend-
