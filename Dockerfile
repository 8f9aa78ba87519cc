# mock-server as a container, e.g. a CI service container. Not built on the development machine
# (it has no Docker engine); see README "Container".
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY bin ./bin
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production MOCK_SERVER_DB=/data/state.json
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY fixtures ./fixtures
COPY scenarios ./scenarios
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.MOCK_SERVER_PORT || process.env.PORT || 8080) + '/__admin/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# On 0.0.0.0 the control API (/__admin) is open to anyone who can reach the port: set
# MOCK_SERVER_ADMIN_TOKEN (docker run -e MOCK_SERVER_ADMIN_TOKEN=...) to make it want
# Authorization: Bearer <token>. GET /__admin/health, the HEALTHCHECK above, stays open either way.
CMD ["node", "dist/bin/mock-server.js", "--host", "0.0.0.0"]
