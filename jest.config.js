/** Tests run in band: integration suites share one Postgres and NATS, each in its own database. */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  moduleNameMapper: {
    '^@kubernetes/client-node$': '<rootDir>/test/support/native/kubernetes-client-node.js',
    '^@ipledger/(ip|domain|event-store|projections|messaging)$': '<rootDir>/libs/$1/src',
    '^@ipledger/(ip|domain|event-store|projections|messaging)/(.*)$': '<rootDir>/libs/$1/src/$2',
  },
  testTimeout: 60000,
};
