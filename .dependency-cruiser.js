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
      name: 'no-cycles',
      comment: 'type-only imports count: a cycle of types is still a cycle of concepts',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|coverage)/' },
  },
};
