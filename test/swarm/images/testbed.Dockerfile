# The test's own containers: the test site, the stand-in model server and the scenario driver (bundled
# from test/swarm/testbed by esbuild), with the Docker client the driver uses on the test's daemon socket.
# Context: a directory made by test/swarm/images.ts.
ARG NODE_BASE_IMAGE
FROM ${NODE_BASE_IMAGE}
COPY docker /usr/local/bin/docker
COPY app /testbed
WORKDIR /testbed
