#!/bin/sh
# As the official image's entrypoint: `redis-server ARGS` runs with protected mode off (no config file).
set -e
if [ "${1:-}" = "redis-server" ]; then
  shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
