#!/usr/bin/env bash
# Make sure Debian's chromium is installed, for the docs' browser test (tests/docs/test_browser.py).
#
# Idempotent: when /usr/bin/chromium (or $CHROMIUM) is already there it does nothing and makes
# no network request. Otherwise it installs the distribution's package with apt-get, as root or
# through passwordless sudo. It exits non-zero, saying why, when that is impossible; the browser
# test then skips with that reason instead of passing silently.
set -euo pipefail

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure_chromium: $CHROMIUM is missing and this system has no apt-get" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    echo "ensure_chromium: $CHROMIUM is missing; installing it needs root (or passwordless sudo)" >&2
    exit 1
  fi
fi

echo "ensure_chromium: installing chromium with apt-get" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium

if [ ! -x "$CHROMIUM" ]; then
  echo "ensure_chromium: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
