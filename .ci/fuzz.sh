#!/usr/bin/env bash
# CI fuzz step (docs/api.md, "Fuzzing"): installs the pinned schemathesis from PyPI into .venv-fuzz
# (the only network use), then fuzzes both deployments built in dist/ inside a network namespace
# that has only loopback, so no generated URL can leave the machine. Prints a summary; exits non-zero
# on any finding outside test/fuzz/baseline.json. Needs root (unshare -n) and python3 with venv.
# `.ci/fuzz.sh --prepare` only installs (.ci/run does it early, in the background).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
VENV=.venv-fuzz

need=()
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v unshare >/dev/null 2>&1 || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
  echo "fuzz: installing ${need[*]} (apt-get)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
echo "schemathesis: $("$VENV/bin/st" --version)"
[ "${1:-}" = "--prepare" ] && exit 0

[ -f dist/apps/api/src/main.js ] || npm run build

# Loopback only: generated URLs (public names, metadata addresses, ...) fail inside the namespace.
exec unshare -n -- bash -c "ip link set lo up && exec npx node --import tsx test/fuzz/run.ts --st $VENV/bin/st"
