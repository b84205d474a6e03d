# The stand-in for prom/prometheus:v3.5.0: Debian's Prometheus (2.42 in bookworm), run as `nobody` with its
# data in /prometheus like the official image; the stack's `command` gives it its flags.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /prometheus && chown nobody:nogroup /prometheus \
 && prometheus --version
USER nobody
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
