#!/bin/sh
# Gleaner container entrypoint. Gleaner reads its configuration from environment variables only, so
# this wrapper turns Docker secrets (files) into variables, then replaces itself with node: tini (PID 1)
# sends SIGTERM straight to node, which drains in-flight jobs before exiting.
#
# For each variable below (every secret the README's configuration table names), the value is read
# from $<NAME>_FILE when set, otherwise from the default Docker secret path when that file exists;
# otherwise the variable is left as it is.
#   GLEANER_SECRET              /run/secrets/gleaner_secret
#   GLEANER_PREVIOUS_SECRETS    /run/secrets/gleaner_previous_secrets   (rotation: the old secret(s), comma-separated)
#   GLEANER_BOOTSTRAP_KEY       /run/secrets/gleaner_bootstrap_key
#   MONGODB_URI                 /run/secrets/mongodb_uri
#   REDIS_URL                   /run/secrets/redis_url
#   GLEANER_OPENAI_API_KEY      /run/secrets/gleaner_openai_api_key
#   GLEANER_ANTHROPIC_API_KEY   /run/secrets/gleaner_anthropic_api_key
#   GLEANER_OPENROUTER_API_KEY  /run/secrets/gleaner_openrouter_api_key
#   GLEANER_PROXY_POOLS         /run/secrets/gleaner_proxy_pools
# All arguments are passed to node (default: dist/apps/api/src/main.js, the embedded app).
set -eu

load_secret() {
  name="$1"
  default_file="$2"
  eval "file=\${${name}_FILE:-}"
  if [ -z "$file" ]; then
    [ -e "$default_file" ] || return 0
    file="$default_file"
  fi
  if [ ! -r "$file" ]; then
    echo "entrypoint: cannot read $file for $name (running as uid $(id -u))" >&2
    exit 1
  fi
  # Command substitution drops trailing newlines, as secret files usually end with one.
  value="$(cat "$file")"
  export "$name=$value"
  unset "${name}_FILE"
}

load_secret GLEANER_SECRET /run/secrets/gleaner_secret
load_secret GLEANER_PREVIOUS_SECRETS /run/secrets/gleaner_previous_secrets
load_secret GLEANER_BOOTSTRAP_KEY /run/secrets/gleaner_bootstrap_key
load_secret MONGODB_URI /run/secrets/mongodb_uri
load_secret REDIS_URL /run/secrets/redis_url
load_secret GLEANER_OPENAI_API_KEY /run/secrets/gleaner_openai_api_key
load_secret GLEANER_ANTHROPIC_API_KEY /run/secrets/gleaner_anthropic_api_key
load_secret GLEANER_OPENROUTER_API_KEY /run/secrets/gleaner_openrouter_api_key
load_secret GLEANER_PROXY_POOLS /run/secrets/gleaner_proxy_pools

exec node "$@"
