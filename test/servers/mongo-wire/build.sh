#!/usr/bin/env bash
# Builds the test MongoDB-wire server into ./out (jars + compiled launcher). Idempotent: rebuilds when
# pom.xml or a source file changed since the last build (out/.stamp holds their checksum).
set -euo pipefail
cd "$(dirname "$0")"
stamp=$(cat pom.xml src/*.java | sha256sum | cut -c1-64)
if [ -f out/.stamp ] && [ "$(cat out/.stamp)" = "$stamp" ] && [ -f out/MongoWireServer.class ]; then exit 0; fi
rm -rf out
mkdir -p out/lib
mvn -q -B dependency:copy-dependencies -DoutputDirectory=out/lib -DincludeScope=runtime
javac -cp 'out/lib/*' -d out src/*.java
echo "$stamp" > out/.stamp
echo "mongo-wire built"
