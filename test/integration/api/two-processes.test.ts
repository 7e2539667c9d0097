// Two real API processes (split mode, `node services/api/dist/main.js`) over one
// database: a credential's request budget is shared between replicas.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createDataStore } from '@cds/data';
import { connectTestClient, roomInWindow, type Answer, type TestClient } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { stopProcess, waitForBuild } from '../../support/service-process';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';

const MAIN = join(__dirname, '../../../services/api/dist/main.js');
const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';
const START_TIMEOUT_MS = 30_000;

interface ApiProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const [apiPort, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, API_PORT: String(apiPort), METRICS_PORT: String(metricsPort), BIND_ADDRESS: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const url = `http://127.0.0.1:${apiPort}`;
  try {
    await eventually('the api process to answer', async () => {
      if (child.exitCode !== null) throw new Error(`api process exited with ${child.exitCode}:\n${output}`);
      return fetch(`${url}/v1/openapi.json`).then((r) => r.status === 200, () => false); // refused: not listening yet
    }, { timeoutMs: START_TIMEOUT_MS, intervalMs: 200, explain: () => output });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return { child, url, output: () => output };
}

const stop = (proc: ApiProcess) => stopProcess(proc.child, 10_000);

let db: TestDatabase;
const processes: ApiProcess[] = [];
const clients: TestClient[] = [];

beforeAll(async () => {
  await waitForBuild(MAIN);
  db = await createTestDatabase();
  const store = await createDataStore({ url: db.url });
  await store.migrate();
  await store.close();
  const env = {
    DATABASE_URL: db.url,
    AMQP_URL,
    OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
  };
  for (let i = 0; i < 2; i++) {
    const proc = await startApiProcess(env);
    processes.push(proc);
    clients.push(await connectTestClient(proc.url, env.OPERATOR_TOKEN));
  }
});

afterAll(async () => {
  await Promise.all(processes.map(stop));
  await db?.drop();
});

describe('two API processes over one database', () => {
  it('share one request budget per credential: 20 alternating requests under a limit of 10 get exactly 10 non-429 answers', async () => {
    const [first, second] = clients as [TestClient, TestClient];
    const sequential = await first.createApplication(undefined, { api_requests_per_minute: 10 });
    const concurrent = await second.createApplication(undefined, { api_requests_per_minute: 10 });
    // Both bursts must fall in one fixed one-minute window (the processes keep real time: no clock to move).
    await roomInWindow(15);

    const answers: Answer[] = [];
    for (let i = 0; i < 20; i++) answers.push(await (i % 2 ? second : first).request('GET', '/v1/domains', { token: sequential.key }));
    const passed = answers.filter((a) => a.status !== 429);
    expect(passed).toHaveLength(10);
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(200));
    // Each replica sees the other's hits: the remaining budget counts down across both.
    expect(answers.slice(0, 10).map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    for (const refused of answers.slice(10)) {
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    }

    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? second : first).request('GET', '/v1/domains', { token: concurrent.key })),
    );
    expect(burst.filter((a) => a.status !== 429)).toHaveLength(10);
    expect(burst.filter((a) => a.status === 200)).toHaveLength(10);
    for (const proc of processes) expect(proc.child.exitCode).toBeNull();
  });

  it('see an operator token replaced through one process at once in the other', async () => {
    const [first, second] = clients as [TestClient, TestClient];
    const configured = first.operatorToken;
    expect((await second.request('GET', '/operator/v1/applications', { token: configured })).status).toBe(200);
    const replacement = randomBytes(32).toString('base64url');
    const put = await first.request('PUT', '/operator/v1/token', { token: configured, body: { token: replacement } });
    expect(put.status).toBe(204);
    // The very next request to the other process: old token refused, new one accepted.
    const old = await second.request('GET', '/operator/v1/applications', { token: configured });
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('unauthorized');
    expect((await second.request('GET', '/operator/v1/applications', { token: replacement })).status).toBe(200);
  });
});
