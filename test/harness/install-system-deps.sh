#!/usr/bin/env bash
# Makes sure the system parts the test suites start for real are on this machine, and reuses them when
# they are: redis-server, curl and jq (the document examples), Chromium, unshare and ip (network namespaces), Prometheus with promtool (Debian's `prometheus` package; the tests
# start the binary themselves on a free port, never the service), a JDK and Maven (to build the
# MongoDB-wire test server from Maven Central). Run by `npm test` (pretest) and by `.ci/run`. On
# Debian/Ubuntu as root it installs what is missing with apt-get; anywhere else it stops with the one
# command to run, so a run is never half green.
set -uo pipefail
cd "$(dirname "$0")/../.."

chromium_path="${GLEANER_CHROMIUM_PATH:-/usr/bin/chromium}"
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# The document examples (test/e2e/docs-examples.e2e-spec.ts) run curl and jq as a reader would.
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v jq >/dev/null 2>&1 || need+=(jq)
[ -x "$chromium_path" ] || need+=(chromium)
# Network namespaces for the tests that render hostile pages (test/support/netns.ts): unshare and ip.
command -v unshare >/dev/null 2>&1 || need+=(util-linux)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
{ command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; } || need+=(prometheus)

if [ ${#need[@]} -gt 0 ]; then
  command_line="apt-get update && apt-get install -y ${need[*]}"
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "test dependencies: installing ${need[*]} (apt-get)"
    if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null); then
      echo "test dependencies: apt-get failed; run it by hand and retry: $command_line" >&2
      exit 1
    fi
  else
    echo "The tests need ${need[*]}, which this machine lacks and this script cannot install (it needs root and apt-get)." >&2
    echo "Install them, then run npm test again:" >&2
    echo "    sudo sh -c '$command_line'" >&2
    exit 1
  fi
fi

if ! bash test/servers/mongo-wire/build.sh; then
  echo "test dependencies: building the MongoDB-wire test server failed (it needs Maven Central): bash test/servers/mongo-wire/build.sh" >&2
  exit 1
fi

if ! bash test/harness/warcio-venv.sh; then
  echo "test dependencies: installing Python warcio into .venv-warcio failed (it needs PyPI): bash test/harness/warcio-venv.sh" >&2
  exit 1
fi
