/**
 * Medium tests: services and repositories on the real PostgreSQL (and Redis), without HTTP and
 * without worker processes — business rules, exact about what was stored, fast. Same global setup
 * as the e2e layer: a database (migrations applied once) and a Redis key prefix of the run's own.
 */
const e2e = require('./jest.e2e.config.js');

module.exports = {
  ...e2e,
  roots: ['<rootDir>/test/medium'],
  testRegex: '\\.medium-spec\\.ts$',
};
