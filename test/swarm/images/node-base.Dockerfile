# The stand-in for node:24-bookworm-slim (no Docker Hub here): the Debian base (debootstrap), Node 24 from
# the `node` npm package the project pins (its ELF binary), npm from the host, and the `node` user and
# group (uid/gid 1000) that docker/Dockerfile's `USER node` expects. Context: a directory holding `node`
# and `npm/` (test/swarm/images.ts makes it).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --create-home --shell /bin/sh node \
 && node --version && npm --version
ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin
CMD ["node"]
