import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The shape the code keeps (docs/architecture.md): services use libraries and
// never one another; only libs/config reads the environment.
const SERVICES = ['api', 'checker', 'webhook-dispatcher', 'edge-proxy', 'cli', 'all-in-one'];
const SERVICE_NAMES = SERVICES.join('|');
const CROSS_SERVICE_MESSAGE = 'A service does not import another service: move what they share into a library under libs/ (only services/all-in-one wires services together).';
const PROCESS_ENV_MESSAGE = 'Only libs/config reads process.env: add the setting to its schema (or a reader there) and pass the value in.';

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly', Buffer: 'readonly' } },
  },
  {
    // Libraries and services import no service, by package name or by a relative path into services/<name>.
    // all-in-one is the one process that starts them all; test/ drives services from outside.
    files: ['libs/**/*.ts', 'services/**/*.ts'],
    ignores: ['services/all-in-one/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: `^@cds/(${SERVICE_NAMES})(/|$)`, message: CROSS_SERVICE_MESSAGE },
          { regex: `^(\\.\\./)+(services/)?(${SERVICE_NAMES})/(src|dist)(/|$)`, message: CROSS_SERVICE_MESSAGE },
        ],
      }],
      'no-restricted-syntax': ['error', { selector: `ImportExpression > Literal[value=/^@cds\\/(${SERVICE_NAMES})(\\/|$)/]`, message: CROSS_SERVICE_MESSAGE }],
    },
  },
  {
    // Configuration is read and validated once, in libs/config. Exempt: libs/config itself, and test/,
    // whose harnesses pick the database (TEST_DATABASE) and hand spawned services their environment.
    files: ['**/*.ts', '**/*.js', '**/*.cjs', '**/*.mjs'],
    ignores: ['libs/config/**', 'test/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: PROCESS_ENV_MESSAGE }],
    },
  },
);
