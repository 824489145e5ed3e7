# rsr-api as a container: built in one stage (better-sqlite3 compiles there), run in a slim one
# as the unprivileged `node` user. README "Containers" says how to use it with compose.yaml.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# npm ci builds the explorer (prepare): its sources come first.
COPY explorer ./explorer
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY demo ./demo
COPY codelists ./codelists
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 LOG_FORMAT=json
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
