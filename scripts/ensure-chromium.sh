#!/usr/bin/env bash
# The console tests drive the system Chromium through playwright-core (never a downloaded browser).
set -euo pipefail
if [ -x /usr/bin/chromium ] || [ -n "${CHROMIUM_PATH:-}" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "[setup] installing chromium (apt-get install -y chromium)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "[setup] chromium is missing: install it (Debian/Ubuntu: sudo apt-get install -y chromium) or set CHROMIUM_PATH" >&2
  exit 1
fi
