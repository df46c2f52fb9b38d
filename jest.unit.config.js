/** The quick tier (npm run test:unit): the specs that need no server, process or network, so no global setup. */
const base = require('./jest.config');

module.exports = {
  ...base,
  globalSetup: undefined,
  globalTeardown: undefined,
  // integration specs (a server, a process, root or the network) are named *.int.spec.ts
  testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$'],
};
