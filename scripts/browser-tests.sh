#!/usr/bin/env bash
# Browser tests of the web client (public/) in headless Chromium, against the
# real server. Installs what is missing, then runs pytest; the pytest fixture
# starts the server on a free loopback port (and restarts it for the reconnect
# test), so it also works when run as plain `pytest Tests/browser`.
#
#   scripts/browser-tests.sh [pytest args]
#   REMVVM_SERVER_BIN=path/to/remvvm-server   server binary (default .build/debug/remvvm-server)
#   REMVVM_BASE_URL=http://127.0.0.1:8080     use a running server instead (restart test skipped)
set -euo pipefail
cd "$(dirname "$0")/.."

export REMVVM_SERVER_BIN="${REMVVM_SERVER_BIN:-$PWD/.build/debug/remvvm-server}"
VENV=.venv-browser

# Chromium and its driver come from Debian: Selenium must not try to download a browser.
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
if ((${#missing[@]})); then
  if [[ $(id -u) == 0 ]]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "browser-tests: ${missing[*]} not installed and not root." >&2
    echo "browser-tests: run 'sudo apt-get install -y chromium chromium-driver' first." >&2
    exit 1
  fi
fi

# Selenium and pytest in a private venv; fall back to the user site when venv is unavailable.
PY="$VENV/bin/python"
if ! "$PY" -c 'import selenium, pytest' 2>/dev/null; then
  if python3 -m venv "$VENV" 2>/dev/null; then
    "$PY" -m pip install -q --disable-pip-version-check selenium pytest
  else
    PY=python3
    "$PY" -c 'import selenium, pytest' 2>/dev/null ||
      python3 -m pip install -q --user --disable-pip-version-check selenium pytest
  fi
fi

if [[ -z ${REMVVM_BASE_URL:-} && ! -x $REMVVM_SERVER_BIN ]]; then
  echo "browser-tests: $REMVVM_SERVER_BIN not found: run 'swift build' first or set REMVVM_SERVER_BIN." >&2
  exit 1
fi

# The JSON Patch unit tests need no browser; run them first when node is here.
if command -v node >/dev/null; then
  node --test Tests/browser/
fi

mkdir -p artifacts/screenshots
exec "$PY" -m pytest -q -p no:cacheprovider Tests/browser "$@"
