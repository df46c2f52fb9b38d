/** The chaos suite (npm run test:chaos): real processes taken down under load; slow, so apart from npm test. */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/chaos/**/*.chaos.ts'],
  testTimeout: 300000,
};
