/** Unit tests: beside the code, no database or Redis; and the lint rules' own tests (test/lint). */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test/lint'],
  testRegex: '\\.spec\\.ts$',
  // Source trees the lint tests cruise, not tests.
  testPathIgnorePatterns: ['/node_modules/', '/test/lint/fixtures/'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
};
