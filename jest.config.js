// Three projects: pure unit tests beside the code, integration tests that talk
// to real PostgreSQL/SQLite/RabbitMQ (run once per database by the Makefile),
// and soak tests that run for minutes beside the serial integration runs.
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const moduleNameMapper = {
  '^@cds/(config|logging|core|data|messaging|http|diagnostics|metrics)$': '<rootDir>/libs/$1/src/index.ts',
  '^@cds/(api|checker|webhook-dispatcher|edge-proxy|all-in-one|cli)$': '<rootDir>/services/$1/src/index.ts',
};
const common = { testEnvironment: 'node', transform, moduleNameMapper, rootDir: __dirname };
module.exports = {
  // testTimeout is a global option: jest ignores it inside a project.
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/*/src/**/*.test.ts', '<rootDir>/services/*/src/**/*.test.ts', '<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'soak', testMatch: ['<rootDir>/test/soak/**/*.test.ts'] },
  ],
};
