/**
 * End-to-end tests against the real PostgreSQL and Redis. Global setup creates a database and a
 * Redis key prefix for this run only (migrations applied once); global teardown removes both.
 * The swagger plugin runs here as in `nest build`, so the generated document matches.
 */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testRegex: '\\.e2e-spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        astTransformers: { before: ['<rootDir>/test/support/swagger-plugin-transformer.js'] },
      },
    ],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
