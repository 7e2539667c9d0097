// The four split-mode services started while PostgreSQL and RabbitMQ cannot be
// reached: none exits; each is alive (/healthz 200) and not ready (/readyz 503)
// while it keeps trying. Once the database answers, the API and the edge are
// ready (neither needs the broker); the checker and the dispatcher, which work
// from the broker, become ready once it answers too. The outage is a loopback
// forwarder the services connect through, started late: the machine's
// PostgreSQL and RabbitMQ, which other suites use, are never touched.
import { createDataStore } from '@cds/data';
import { eventually } from '../../support/eventually';
import { createTcpForwarder, type TcpForwarder } from '../../support/tcp-forwarder';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createVhost, deleteVhost, type TestVhost } from '../messaging/rabbit';
import { assertRunning, deploymentSecrets, spawnSplitProcess, SPLIT_SERVICES, waitForServiceBuilds, type SplitProcess } from './split-process';

let db: TestDatabase;
let vhost: TestVhost;
let database: TcpForwarder;
let broker: TcpForwarder;
const processes: SplitProcess[] = [];

/** The URL of `url`'s database through the forwarder. */
function through(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
}

beforeAll(async () => {
  await waitForServiceBuilds();
  db = await createTestDatabase('postgres');
  const store = await createDataStore({ url: db.url });
  await store.migrate();
  await store.close();
  vhost = await createVhost();
  database = await createTcpForwarder(5432, { started: false });
  broker = await createTcpForwarder(5672, { started: false });
});

afterAll(async () => {
  await Promise.all(processes.map((proc) => proc.stop()));
  await database?.stop();
  await broker?.stop();
  if (vhost) await deleteVhost(vhost);
  await db?.drop();
});

const byName = (name: string): SplitProcess => processes.find((proc) => proc.name === name) as SplitProcess;
const explain = () => processes.map((proc) => `--- ${proc.name}\n${proc.output().slice(-2_000)}`).join('\n');

it('keeps every service running and not ready until its dependencies answer, then ready', async () => {
  const env = {
    ...deploymentSecrets(),
    DATABASE_URL: through(db.url, database.port),
    AMQP_URL: `amqp://guest:guest@127.0.0.1:${broker.port}/${encodeURIComponent(vhost.name)}`,
  };
  for (const name of SPLIT_SERVICES) processes.push(await spawnSplitProcess(name, env));

  // Neither PostgreSQL nor RabbitMQ: alive, not ready, trying again (two tries logged each).
  await eventually('every service to say it waits for the database, twice', () => {
    processes.forEach(assertRunning);
    return processes.every((proc) => proc.output().split('waiting for the database').length > 2);
  }, { timeoutMs: 60_000, intervalMs: 200, explain });
  for (const proc of processes) {
    expect([proc.name, await proc.ops('/healthz'), await proc.ops('/readyz')]).toEqual([proc.name, 200, 503]);
  }
  // They try the forwarder's port, which refuses them.
  for (const proc of processes) expect(proc.output()).toContain(`ECONNREFUSED 127.0.0.1:${database.port}`);

  // PostgreSQL is back, RabbitMQ is not: the API and the edge become ready.
  await database.start();
  await eventually('the api and the edge to be ready', async () => {
    processes.forEach(assertRunning);
    return (await byName('api').ops('/readyz')) === 200 && (await byName('edge-proxy').ops('/readyz')) === 200;
  }, { timeoutMs: 60_000, intervalMs: 200, explain });
  const openapi = await fetch(`${byName('api').url}/v1/openapi.json`);
  expect(openapi.status).toBe(200);
  await eventually('the checker and the dispatcher to have started without the broker', () =>
    ['checker', 'webhook-dispatcher'].every((name) => byName(name).output().includes('cannot reach the message broker yet')), { timeoutMs: 30_000, explain });
  for (const name of ['checker', 'webhook-dispatcher']) expect([name, await byName(name).ops('/readyz')]).toEqual([name, 503]);

  // RabbitMQ is back: every service is ready.
  await broker.start();
  await eventually('every service to be ready', async () => {
    processes.forEach(assertRunning);
    const statuses = await Promise.all(processes.map((proc) => proc.ops('/readyz')));
    return statuses.every((status) => status === 200);
  }, { timeoutMs: 60_000, intervalMs: 250, explain });
});
