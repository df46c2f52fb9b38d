# One image for every part of ipledger, each by its command:
#   API (default)   node dist/api/main.js
#   watcher         node dist/watcher/main.js
#   CLI             ipledger <command>            (dist/cli.js)
#   CNI plugin      dist/cni/ipledger-ipam        (a single executable: no Node.js on the nodes)
#   node installer  node dist/cni/install-cni.js  (the ipledger-cni DaemonSet: plugin, token, conflist)
# The embedded PostgreSQL of `npm start` is not in it: the image always runs with DATABASE_URL.

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# sources are not here yet: skip `prepare` (the build), run it below
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json webpack.config.js ./
COPY scripts ./scripts
COPY apps ./apps
COPY libs ./libs
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# production dependencies only; optional ones are the embedded PostgreSQL binaries
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY migrations ./migrations
COPY --from=build /src/dist ./dist
RUN ln -s /app/dist/cli.js /usr/local/bin/ipledger \
  && groupadd --system --gid 10001 ipledger \
  && useradd --system --uid 10001 --gid ipledger --home-dir /app --shell /usr/sbin/nologin ipledger
USER 10001:10001
EXPOSE 8080
# /healthz of the API on PORT (8080 by default; the watcher's is 8081: give it PORT)
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/api/main.js"]
