// src/openapi.ts is generated from the API's OpenAPI document: this fails when
// the schemas changed and the committed types were not regenerated.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SCRIPT = path.join(__dirname, '..', 'scripts', 'generate-types.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TYPES_FILE, buildOpenApiDocument } = require(SCRIPT) as { TYPES_FILE: string; buildOpenApiDocument: () => Promise<unknown> };

test('src/openapi.ts matches the document the API builds now (else: npm run generate -w @custom-domain-service/client)', async () => {
  // The document from the API's sources (here, through jest's module mapping); the types from the generator under node.
  const document = await buildOpenApiDocument();
  const types = execFileSync(process.execPath, [SCRIPT, '--stdin'], { input: JSON.stringify(document), encoding: 'utf8' });
  expect(readFileSync(TYPES_FILE, 'utf8')).toBe(types);
});
