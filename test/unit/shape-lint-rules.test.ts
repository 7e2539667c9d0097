// The lint rules that keep the code's shape (eslint.config.mjs) fire where
// they should and only there: no service imports another service, a library
// imports no service and only libraries of a lower layer, and only
// libs/config reads process.env.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

interface Snippet {
  /** Where the snippet pretends to live (the file need not exist). */
  filePath: string;
  code: string;
}

interface Finding {
  ruleId: string | null;
  message: string;
}

// ESLint loads eslint.config.mjs with a dynamic import, which jest's module
// sandbox refuses; a plain node process runs ESLint's Node API instead.
const LINT_SNIPPETS = `
const { ESLint } = require('eslint');
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', async () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const findings = [];
  for (const { filePath, code } of JSON.parse(input)) {
    const [result] = await eslint.lintText(code, { filePath });
    findings.push(result.messages.map(({ ruleId, message }) => ({ ruleId, message })));
  }
  process.stdout.write(JSON.stringify(findings));
});
`;

function lint(snippets: Snippet[]): Finding[][] {
  const output = execFileSync(process.execPath, ['-e', LINT_SNIPPETS], { cwd: ROOT, input: JSON.stringify(snippets), encoding: 'utf8' });
  return JSON.parse(output) as Finding[][];
}

const CROSS_SERVICE = /A service does not import another service/;
const LIB_IMPORTS_SERVICE = /A library imports no service/;
const LIB_LAYER = /A library imports only libraries of a lower layer \(docs\/architecture\.md, "Library layers"\)/;
const PROCESS_ENV = /Only libs\/config reads process\.env/;

describe('shape lint rules', () => {
  // [what, snippet, the rule and message expected, or null for a clean snippet]
  const cases: Array<[string, Snippet, [string, RegExp] | null]> = [
    ['a service importing another by package name', { filePath: 'services/checker/src/snippet.ts', code: "export { createApp } from '@cds/api';\n" }, ['no-restricted-imports', CROSS_SERVICE]],
    ['a service importing a file deep in another', { filePath: 'services/checker/src/snippet.ts', code: "export { startDispatcher } from '@cds/webhook-dispatcher/src/dispatcher';\n" }, ['no-restricted-imports', CROSS_SERVICE]],
    ['a service importing another by relative path', { filePath: 'services/webhook-dispatcher/src/sub/snippet.ts', code: "export { startEdgeService } from '../../../edge-proxy/src/edge-service';\n" }, ['no-restricted-imports', CROSS_SERVICE]],
    ['a service importing another lazily', { filePath: 'services/cli/src/snippet.ts', code: "export const load = () => import('@cds/checker');\n" }, ['no-restricted-syntax', CROSS_SERVICE]],
    ['a library importing a service', { filePath: 'libs/diagnostics/src/snippet.ts', code: "export { createApp } from '@cds/api';\n" }, ['no-restricted-imports', LIB_IMPORTS_SERVICE]],
    ['a library importing a service by relative path', { filePath: 'libs/http/src/snippet.ts', code: "export { createApp } from '../../../services/api/src/app';\n" }, ['no-restricted-imports', LIB_IMPORTS_SERVICE]],
    ['libs/core importing a library', { filePath: 'libs/core/src/snippet.ts', code: "export { createDataStore } from '@cds/data';\n" }, ['no-restricted-imports', /libs\/core may import none of our libraries/]],
    ['a library importing a higher one', { filePath: 'libs/data/src/snippet.ts', code: "import type { RouteSpec } from '@cds/http';\nexport type Spec = RouteSpec;\n" }, ['no-restricted-imports', LIB_LAYER]],
    ['a library importing one of its own layer', { filePath: 'libs/metrics/src/snippet.ts', code: "export { onShutdown } from '@cds/lifecycle';\n" }, ['no-restricted-imports', LIB_LAYER]],
    ['a library importing a file deep in a higher one', { filePath: 'libs/messaging/src/snippet.ts', code: "export { runDoctor } from '@cds/diagnostics/src/doctor';\n" }, ['no-restricted-imports', LIB_LAYER]],
    ['a library importing a higher one by relative path', { filePath: 'libs/config/src/snippet.ts', code: "export { createDataStore } from '../../data/src';\n" }, ['no-restricted-imports', LIB_LAYER]],
    ['a library importing a higher one lazily', { filePath: 'libs/logging/src/snippet.ts', code: "export const load = () => import('@cds/config');\n" }, ['no-restricted-syntax', LIB_LAYER]],
    ['a library importing lower ones', { filePath: 'libs/lifecycle/src/snippet.ts', code: "export { AppError } from '@cds/core';\nexport { createDataStore } from '@cds/data';\n" }, null],
    ['libs/core importing its own files', { filePath: 'libs/core/src/snippet.ts', code: "export { AppError } from './errors';\n" }, null],
    ['all-in-one wiring the services', { filePath: 'services/all-in-one/src/snippet.ts', code: "export { createApp } from '@cds/api';\n" }, null],
    ['a service importing a library', { filePath: 'services/checker/src/snippet.ts', code: "export { probeOrigin } from '@cds/outbound';\n" }, null],
    ['a service importing its own files', { filePath: 'services/api/src/operator/snippet.ts', code: "export { createApp } from '../app';\n" }, null],
    ['a service reading process.env', { filePath: 'services/edge-proxy/src/snippet.ts', code: 'export const port = process.env.EDGE_PORT;\n' }, ['no-restricted-properties', PROCESS_ENV]],
    ['a library destructuring the environment', { filePath: 'libs/messaging/src/snippet.ts', code: 'const { env } = process;\nexport const url = env.AMQP_URL;\n' }, ['no-restricted-properties', PROCESS_ENV]],
    ['a script reading process.env', { filePath: 'scripts/snippet.js', code: 'module.exports = process.env.HOME;\n' }, ['no-restricted-properties', PROCESS_ENV]],
    ['libs/config reading process.env', { filePath: 'libs/config/src/snippet.ts', code: 'export const env = process.env;\n' }, null],
    ['a test harness reading process.env', { filePath: 'test/support/snippet.ts', code: 'export const database = process.env.TEST_DATABASE;\n' }, null],
  ];

  let findings: Finding[][];
  beforeAll(() => {
    findings = lint(cases.map(([, snippet]) => snippet));
  });

  it.each(cases.map(([name, , expected], index) => [name, expected, index] as const))('%s', (_name, expected, index) => {
    const found = findings[index];
    if (expected === null) expect(found).toEqual([]);
    else expect(found).toEqual([{ ruleId: expected[0], message: expect.stringMatching(expected[1]) }]);
  });
});
