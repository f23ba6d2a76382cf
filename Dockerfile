# syntax=docker/dockerfile:1
# Build stage: native addons (tree-sitter, hnswlib) compile here; TypeScript 7 (devDependency typescript7) compiles to
# dist/ and type-checks test/ (test/tsconfig.json, no emit), so test/ and vitest.config.ts are copied for the build.
FROM node:20-bookworm AS build
WORKDIR /app
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

# Runtime stage: compiled JS, production node_modules, models, SQL migrations; runs as a non-root user.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
RUN groupadd --system gc && useradd --system --gid gc --home /app gc && mkdir -p /data && chown gc:gc /data
COPY --from=build --chown=gc:gc /app/package.json ./
COPY --from=build --chown=gc:gc /app/node_modules ./node_modules
COPY --from=build --chown=gc:gc /app/dist ./dist
COPY --chown=gc:gc src/store/migrations ./src/store/migrations
COPY --chown=gc:gc src/dashboard/static ./src/dashboard/static
COPY --chown=gc:gc models ./models
USER gc
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health/liveness').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
