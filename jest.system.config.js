/**
 * System tests: whole processes and the machine around them — SIGTERM and supervised restarts,
 * killed workers, a Redis that does not answer, 20,000-row batches, query plans after a bulk load,
 * pages in a real browser. Slow by nature; run after the e2e layer (`npm run test:system`).
 * Same global setup as the e2e layer: a database and a Redis key prefix of the run's own.
 */
const e2e = require('./jest.e2e.config.js');

module.exports = {
  ...e2e,
  roots: ['<rootDir>/test/system'],
  testRegex: '\\.system-spec\\.ts$',
  testTimeout: 120000,
};
