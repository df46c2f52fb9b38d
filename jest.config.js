/** Tests run in band: integration suites share one Postgres and NATS, each in its own database and stream. */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  moduleNameMapper: {
    '^@kubernetes/client-node$': '<rootDir>/test/support/native/kubernetes-client-node.js',
    '^@apidevtools/swagger-parser$': '<rootDir>/test/support/native/swagger-parser.js',
    '^@fastify/static$': '<rootDir>/test/support/native/fastify-static.js',
    '^@marcbachmann/cel-js$': '<rootDir>/test/support/native/cel-js.js',
    '^@ipledger/(ip|domain|event-store|projections|messaging|runtime|kube)$': '<rootDir>/libs/$1/src',
    '^@ipledger/(ip|domain|event-store|projections|messaging|runtime|kube)/(.*)$': '<rootDir>/libs/$1/src/$2',
  },
  testTimeout: 60000,
  // a child process a failed suite leaves behind must not keep the run (and CI) waiting after teardown
  forceExit: true,
  // an embedded PostgreSQL and a private nats-server for the run (unless TEST_DATABASE_URL / TEST_NATS_URL)
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
