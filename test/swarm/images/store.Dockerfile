# The stand-in for mongo:8 (no MongoDB server for this machine): the MongoDB-wire test server
# (test/servers/mongo-wire, built on the host by its build.sh) on its H2 file backend in /data/db, the
# stack's volume, so a killed and restarted container keeps its data. `mongosh` here is a stand-in for the
# stack's healthcheck (`mongosh --quiet --eval "db.adminCommand('ping').ok"`): it prints 1 when the
# server accepts a connection. Context: test/servers/mongo-wire/out plus mongosh.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends default-jre-headless \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data/db
COPY out /opt/mongo-wire
COPY mongosh /usr/local/bin/mongosh
VOLUME ["/data/db"]
EXPOSE 27017
CMD ["java", "-Xmx512m", "-cp", "/opt/mongo-wire:/opt/mongo-wire/lib/*", "MongoWireServer", "27017", "/data/db/gleaner.mv.db", "0.0.0.0"]
