import { readdirSync } from 'node:fs';
import { URL } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The shape the code keeps (docs/architecture.md): services use libraries and
// never one another, libraries import only libraries of a lower layer and no
// service; only libs/config reads the environment.
const SERVICES = ['api', 'checker', 'webhook-dispatcher', 'edge-proxy', 'cli', 'all-in-one'];
// Bottom first ("Library layers" in docs/architecture.md); the tsconfig references follow these arrows.
const LIB_LAYERS = [
  ['core', 'logging'],
  ['config', 'data', 'messaging', 'outbound'],
  ['diagnostics', 'http', 'lifecycle', 'metrics'],
];
const CROSS_SERVICE_MESSAGE = 'A service does not import another service: move what they share into a library under libs/ (only services/all-in-one wires services together).';
const LIB_IMPORTS_SERVICE_MESSAGE = 'A library imports no service: services use libraries, never the other way round; move the shared code into a library.';
const PROCESS_ENV_MESSAGE = 'Only libs/config reads process.env: add the setting to its schema (or a reader there) and pass the value in.';

/**
 * Rules refusing imports of our packages: each group names packages under one folder (`libs` or `services`)
 * and the message given. Caught by package name (deep paths too), by a relative path into the
 * package's src/ or dist/, and as a dynamic import(). One block per file set: ESLint replaces, not
 * merges, a rule's options set again by a later block.
 */
function refuseImports(groups) {
  const names = (packages) => packages.join('|');
  return {
    'no-restricted-imports': ['error', {
      patterns: groups.flatMap(({ folder, packages, message }) => [
        { regex: `^@cds/(${names(packages)})(/|$)`, message },
        { regex: `^(\\.\\./)+(${folder}/)?(${names(packages)})/(src|dist)(/|$)`, message },
      ]),
    }],
    'no-restricted-syntax': ['error', ...groups.map(({ packages, message }) => ({
      selector: `ImportExpression > Literal[value=/^@cds\\/(${names(packages)})(\\/|$)/]`,
      message,
    }))],
  };
}

// A library left out of the layers would go unchecked: name it here first.
const unlayered = readdirSync(new URL('libs/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !LIB_LAYERS.flat().includes(entry.name)).map((entry) => entry.name);
if (unlayered.length > 0) throw new Error(`eslint.config.mjs: put ${unlayered.map((lib) => `libs/${lib}`).join(', ')} in a layer of LIB_LAYERS`);

/** One block per library: no service, and no library of its own layer or above. */
const libraryBoundaries = LIB_LAYERS.flatMap((layer, level) => layer.map((lib) => {
  const lower = LIB_LAYERS.slice(0, level).flat();
  const refused = LIB_LAYERS.slice(level).flat().filter((other) => other !== lib);
  const may = lower.length > 0 ? lower.map((name) => `@cds/${name}`).join(', ') : 'none of our libraries';
  return {
    files: [`libs/${lib}/**/*.ts`],
    rules: refuseImports([
      { folder: 'services', packages: SERVICES, message: LIB_IMPORTS_SERVICE_MESSAGE },
      { folder: 'libs', packages: refused, message: `A library imports only libraries of a lower layer (docs/architecture.md, "Library layers"): libs/${lib} may import ${may}.` },
    ]),
  };
}));

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
    // A service imports no other service. all-in-one is the one process that starts them all;
    // test/ drives services from outside.
    files: ['services/**/*.ts'],
    ignores: ['services/all-in-one/**'],
    rules: refuseImports([{ folder: 'services', packages: SERVICES, message: CROSS_SERVICE_MESSAGE }]),
  },
  ...libraryBoundaries,
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
