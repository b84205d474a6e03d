#!/usr/bin/env bash
# The independent WARC reader the tests check Gleaner's WARC files with: Python warcio (PyPI, pinned)
# in a local virtualenv, .venv-warcio (as .ci/fuzz.sh installs schemathesis). Idempotent; run by
# install-system-deps.sh (npm test's pretest and .ci/run).
set -euo pipefail
cd "$(dirname "$0")/../.."
WARCIO_VERSION=1.8.1
VENV=.venv-warcio
if "$VENV/bin/python" -c "import sys, importlib.metadata as m; sys.exit(0 if m.version('warcio') == '$WARCIO_VERSION' else 1)" 2>/dev/null; then exit 0; fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  else
    echo "python3 with venv is needed for the WARC tests: apt-get install -y python3-venv" >&2
    exit 1
  fi
fi
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "warcio==$WARCIO_VERSION"
echo "warcio $WARCIO_VERSION installed in $VENV"
