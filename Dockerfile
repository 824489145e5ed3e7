# rsr-api as a container: built in one stage (better-sqlite3 compiles there, the explorer and the
# TypeScript are built there), run in a slim one as the unprivileged `node` user, from the compiled
# build only: no tsx, no pino-pretty, no dev packages, only the font files the PDF reports embed
# (scripts/prune-production.mjs). README "Containers" says how to use it with compose.yaml.
#
# The build stage is Node 24.18: better-sqlite3 12 compiled against the headers of Node 24.19 or
# later aborts when a statement is garbage-collected (nodejs/node#65446); compiled against 24.18's
# (as its prebuilt modules were), it runs on every 24.x, so the run stage follows the newest 24.
FROM node:24.18.1-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# npm ci builds the explorer (prepare, scripts/build-explorer.mjs): its sources come first.
COPY scripts ./scripts
COPY explorer ./explorer
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY demo ./demo
COPY codelists ./codelists
RUN npm run build && node scripts/prune-production.mjs

FROM node:24-bookworm-slim
# WORKERS=1: one process per container, scaled with replicas (and the smallest memory per
# container); an operator who gives a container several CPUs sets WORKERS (docs/operations.md).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 LOG_FORMAT=json WORKERS=1 MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/codelists ./codelists
# The embedded database (DATABASE_URL=sqlite:/app/data/rsr.sqlite), when no PostgreSQL is given.
RUN mkdir /app/data && chown node:node /app/data
USER node
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/rsr-api.mjs"]
CMD ["serve"]
