#!/usr/bin/env bash
# Builds the test MongoDB-wire server into ./out (jars + compiled launcher). Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
if [ -f out/MongoWireServer.class ] && [ -d out/lib ]; then exit 0; fi
mkdir -p out/lib
mvn -q -B dependency:copy-dependencies -DoutputDirectory=out/lib -DincludeScope=runtime
javac -cp 'out/lib/*' -d out src/MongoWireServer.java
echo "mongo-wire built"
