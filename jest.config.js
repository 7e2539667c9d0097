// Five projects: pure unit tests beside the code, integration tests that talk
// to real PostgreSQL/SQLite/RabbitMQ (run once per database by the Makefile),
// soak tests that run for minutes beside the serial integration runs, the
// demo (`make demo`) run to its end, and the system test of the whole
// split-mode deployment under faults.
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const moduleNameMapper = {
  '^@cds/(config|logging|core|data|messaging|http|diagnostics|metrics|lifecycle|outbound)$': '<rootDir>/libs/$1/src/index.ts',
  '^@cds/(api|checker|webhook-dispatcher|edge-proxy|all-in-one|cli)$': '<rootDir>/services/$1/src/index.ts',
};
const common = { testEnvironment: 'node', transform, moduleNameMapper, rootDir: __dirname };
module.exports = {
  // The one test timeout, a backstop: the waits inside tests (eventually's timeoutMs) say how long each
  // awaited condition may take and fail naming it. 5 min covers the longest integration test with a
  // build still running elsewhere. A global option: jest ignores testTimeout inside a project.
  testTimeout: 300_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/*/src/**/*.test.ts', '<rootDir>/services/*/src/**/*.test.ts', '<rootDir>/clients/*/src/**/*.test.ts', '<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'soak', testMatch: ['<rootDir>/test/soak/**/*.test.ts'] },
    // `make demo DEMO_EXIT=1`, the built demo end to end on its own ports (make test runs it after the integration suites).
    { ...common, displayName: 'demo', testMatch: ['<rootDir>/test/demo/**/*.test.ts'] },
    // The whole deployment under faults (make test-system; make test runs it after the integration suites).
    { ...common, displayName: 'system', testMatch: ['<rootDir>/test/system/**/*.test.ts'] },
  ],
};
