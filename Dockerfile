# mock-server as a container, e.g. a CI service container; see docs/container-and-deployment.md.
# scripts/container-test.sh builds it with podman (no image registry needed: it makes the base image
# from Debian packages and passes BASE_IMAGE) and runs the image end to end.
#
# Build args (all optional):
#   BASE_IMAGE    Node 22 on Debian bookworm with a `node` user (uid 1000); default the official image
#   NPM_REGISTRY  npm registry to install from, e.g. --build-arg NPM_REGISTRY="$(npm config get registry)"
# Build secret (optional): id=npm_ca, a CA bundle for the registry's TLS, e.g.
#   --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt
ARG BASE_IMAGE=docker.io/library/node:22-bookworm-slim

# Every dependency, from the lockfile alone: this layer is reused until package*.json change.
FROM ${BASE_IMAGE} AS devdeps
WORKDIR /app
ARG NPM_REGISTRY=
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NPM_CONFIG_CAFILE=/run/secrets/npm_ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=warn ${NPM_REGISTRY:+--registry "$NPM_REGISTRY"} && \
    rm -rf /root/.npm

# What the server needs at run time (pdfkit, qrcode, swagger-ui stay outside the bundle).
FROM devdeps AS deps
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund --offline --loglevel=warn

# dist/bin/ (mock-server.js and its chunks), bundled by esbuild (npm run build).
FROM devdeps AS build
COPY tsconfig*.json ./
# The build script alone: a change to the container test's scripts then rebuilds nothing.
COPY scripts/build.js ./scripts/
COPY bin ./bin
COPY src ./src
RUN npm run build

FROM ${BASE_IMAGE}
ENV NODE_ENV=production MOCK_SERVER_DB=/data/state.json
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY fixtures ./fixtures
COPY scenarios ./scenarios
COPY dashboard ./dashboard
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.MOCK_SERVER_PORT || process.env.PORT || 8080) + '/__admin/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# On 0.0.0.0 the control API (/__admin) is open to anyone who can reach the port: set
# MOCK_SERVER_ADMIN_TOKEN (docker run -e MOCK_SERVER_ADMIN_TOKEN=...) to make it want
# Authorization: Bearer <token>. GET /__admin/health, the HEALTHCHECK above, stays open either way.
CMD ["node", "dist/bin/mock-server.js", "--host", "0.0.0.0"]
