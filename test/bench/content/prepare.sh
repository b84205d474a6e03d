#!/usr/bin/env bash
# What `npm run bench:content` needs beside the corpus, never `npm test`: trafilatura (PyPI, pinned) in its own
# virtualenv, .venv-trafilatura, the peer the WCXB set is timed and scored against in the same run; and two
# documentation sites from Debian, PostgreSQL's and Python's manuals, for the docs-site checks. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../../.."
TRAFILATURA_VERSION=2.3.1
# lxml 6 moved lxml.html.clean out into its own package; trafilatura's justext fallback imports it.
LXML_HTML_CLEAN_VERSION=0.4.6
VENV=.venv-trafilatura
DOC_PACKAGES=(postgresql-doc-15 python3.11-doc)

apt_install() {
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "bench:content needs: apt-get install -y $*" >&2
    exit 1
  fi
}

missing=()
for package in "${DOC_PACKAGES[@]}"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then missing+=(python3-venv); fi
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi

if ! "$VENV/bin/python" -c "import sys, importlib.metadata as m, trafilatura; sys.exit(0 if m.version('trafilatura') == '$TRAFILATURA_VERSION' else 1)" 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "trafilatura==$TRAFILATURA_VERSION" "lxml_html_clean==$LXML_HTML_CLEAN_VERSION"
  echo "trafilatura $TRAFILATURA_VERSION installed in $VENV"
fi
