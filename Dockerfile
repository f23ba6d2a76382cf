# syntax=docker/dockerfile:1
# Node 24 (the target runtime, docs/runtime.md) on Debian 13 "trixie" (glibc 2.41) in both stages: uWebSockets.js
# v20.57's binaries need glibc >= 2.38, so HTTP_ENGINE=auto serves on uWS here (the start log and
# /health/diagnostics say so), and the native addons built in the first stage run on the same glibc in the second.
#
# Build stage: native addons (tree-sitter, hnswlib) compile here; TypeScript 7 (devDependency typescript7) compiles to
# dist/ and type-checks test/ (test/tsconfig.json, no emit), so test/ and vitest.config.ts are copied for the build.
FROM node:24-trixie AS build
WORKDIR /app
# onnxruntime-node's install script would download a GPU build; the CPU binary ships in the package.
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json .npmrc ./
# postinstall patches dependencies whose fix is not released yet (scripts/patches/apply.mjs).
COPY scripts/patches ./scripts/patches
RUN npm install --no-audit --no-fund
COPY tsconfig.json vitest.config.ts ./
COPY src ./src
COPY workers ./workers
COPY bench ./bench
COPY scripts ./scripts
COPY test ./test
RUN npm run build && npm prune --omit=dev

# Runtime stage: compiled JS, production node_modules, models, SQL migrations, dashboard files. The app's files
# belong to root and are read-only to the service's user (the service writes only under DATA_DIR; the Debian 13
# CI stage runs it from a read-only mount); it runs as the non-root user gc.
FROM node:24-trixie-slim
WORKDIR /app
# HOST: the service listens on 127.0.0.1 unless told otherwise; in a container it must take outside connections.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
RUN groupadd --system gc && useradd --system --gid gc --home-dir /app --no-create-home gc && mkdir -p /data && chown gc:gc /data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY src/store/migrations ./src/store/migrations
COPY src/dashboard/static ./src/dashboard/static
COPY models ./models
USER gc
EXPOSE 8080
VOLUME ["/data"]
# No curl in the slim image: Node's fetch asks the liveness route.
HEALTHCHECK --interval=30s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/health/liveness').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
