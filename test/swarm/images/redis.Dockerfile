# The stand-in for redis:7: Debian's redis-server (7.0 in bookworm). Like the official image, the data
# directory is /data and protected mode is off (the stack's Redis is reached over the overlay network,
# never published), and the stack's `command` (redis-server --appendonly yes ...) is run as given.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/redis-entrypoint.sh
WORKDIR /data
USER redis
EXPOSE 6379
ENTRYPOINT ["/bin/sh", "/usr/local/bin/redis-entrypoint.sh"]
CMD ["redis-server"]
