// A real API process (split mode, `node services/api/dist/main.js`) warns at
// start when the operator API shares the public port while TRUST_PROXY is false
// and OPERATOR_ALLOWED_CIDRS holds private ranges (the decision itself:
// libs/config/src/exposure-warnings.test.ts); with OPERATOR_PORT set it does not.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createDataStore } from '@cds/data';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { waitForBuild } from '../../support/service-process';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';

const MAIN = join(__dirname, '../../../services/api/dist/main.js');
const START_TIMEOUT_MS = 30_000;

interface LogLine {
  level: string;
  message: string;
}

let db: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  await waitForBuild(MAIN);
  db = await createTestDatabase();
  const store = await createDataStore({ url: db.url });
  await store.migrate();
  await store.close();
  env = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: db.url,
    AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
    OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    // Every address, as in a pod: bound to loopback alone no private peer could connect, and nothing is warned.
    BIND_ADDRESS: '0.0.0.0',
  };
});

afterAll(() => db?.drop());

/** Starts the API with `extra`, waits until it has said it listens, stops it, and gives every line it logged. */
async function logOfStart(extra: Record<string, string>): Promise<LogLine[]> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...env, API_PORT: String(await freePort()), METRICS_PORT: String(await freePort()), ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  // 'close': the process has exited and its output is all read.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    await eventually('the api process to listen', () => {
      if (child.exitCode !== null) throw new Error(`api process exited with ${child.exitCode}:\n${output}`);
      return output.includes('"api listening"');
    }, { timeoutMs: START_TIMEOUT_MS, intervalMs: 100, explain: () => output });
  } finally {
    child.kill('SIGTERM');
    await closed;
  }
  return output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine);
}

const warnings = (lines: LogLine[]) => lines.filter((l) => l.level === 'warn').map((l) => l.message);

it('OPERATOR_PORT unset, TRUST_PROXY false, private ranges allowed: one warning that names what to set', async () => {
  const found = warnings(await logOfStart({})).filter((m) => m.includes('OPERATOR_PORT'));
  expect(found).toHaveLength(1);
  expect(found[0]).toContain('the operator API is served on API_PORT (OPERATOR_PORT unset) while TRUST_PROXY is false and OPERATOR_ALLOWED_CIDRS includes private ranges');
  expect(found[0]).toContain('Set OPERATOR_PORT (8082, as the Helm chart does)');
});

it('OPERATOR_PORT set (as the chart and k8s/base do): no warning', async () => {
  const lines = await logOfStart({ OPERATOR_PORT: String(await freePort()) });
  expect(lines.map((l) => l.message)).toContain('api listening');
  expect(warnings(lines).filter((m) => m.includes('OPERATOR_PORT'))).toEqual([]);
});
