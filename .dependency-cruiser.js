/** Layering rules: `npm run lint:deps` fails the build on any of them. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'libs/domain decides and does no I/O: it may import libs/ip and nothing else (no Nest, pg, nats, not even node builtins).',
      severity: 'error',
      from: { path: '^libs/domain/', pathNot: '\\.spec\\.ts$' },
      to: { pathNot: ['^libs/domain/', '^libs/ip/'] },
    },
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'apps-stay-apart',
      comment: 'apps meet only through libs (messaging contracts, the REST contract) and the bus',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'api-http-over-infrastructure',
      comment:
        'inside apps/api, http/ (the REST edge) uses infrastructure/ (pg, the event writer, logging), never the reverse: what infrastructure needs of a request (infrastructure/current-request.ts) lives in infrastructure and http sets it',
      severity: 'error',
      from: { path: '^apps/api/src/infrastructure/' },
      to: { path: '^apps/api/src/http/' },
    },
    {
      name: 'api-allocations-not-to-kubernetes',
      comment:
        'allocations own the port for pod and workload lookups (allocations/pod-lookup.ts); kubernetes implements it and the app module binds it: allocations never import kubernetes',
      severity: 'error',
      from: { path: '^apps/api/src/allocations/' },
      to: { path: '^apps/api/src/kubernetes/' },
    },
    {
      name: 'no-cycles',
      comment: 'type-only imports count: a cycle of types is still a cycle of concepts',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'a module nothing imports is dead code; entry points, specs, chaos scenarios and benches are run, not imported',
      severity: 'error',
      module: {
        pathNot: [
          // dot-files and declarations (as the preset)
          '(^|/)\\.[^/]+\\.(js|cjs|mjs|ts|json)$',
          '\\.d\\.ts$',
          // entry points: webpack's (main.ts, cli-main.ts), vite's (apps/ui/src/main.tsx), and their config
          '^apps/[^/]+/src/(.+/)?(main|cli-main)\\.tsx?$',
          '(^|/)[^/]+\\.config\\.(js|cjs|mjs|mts|ts)$',
          // run by jest, by name
          '\\.spec\\.ts$',
          '^test/chaos/[^/]+\\.chaos\\.ts$',
          '^test/support/global-(setup|teardown)\\.ts$',
          // jest's moduleNameMapper targets, and the CEL realm they load through createRequire
          '^test/support/native/',
          // benches, and the server baseline.bench.ts spawns by its path
          '^bench/[^/]+\\.bench\\.ts$',
          '^bench/baseline/baseline-server\\.ts$',
        ],
        numberOfDependentsLessThan: 1,
      },
      from: {},
    },
    {
      name: 'not-to-dev-dep',
      comment: 'production code (apps/*/src, libs/*/src, specs aside) runs from dependencies only: npm ci --omit=dev must still start it',
      severity: 'error',
      from: { path: '^(apps|libs)/[^/]+/src/', pathNot: '\\.spec\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: 'node_modules/@types/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|coverage)/' },
  },
};
