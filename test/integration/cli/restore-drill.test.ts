// scripts/restore-drill.sh against the local PostgreSQL (backups are PostgreSQL
// only, so this file uses it whatever TEST_DATABASE says): a dump from
// GET /operator/v1/backup of a running API, or pg_dump of a database, restored
// into a scratch database that `cdctl doctor` must pass; a broken dump or a
// failing doctor exits non-zero.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { startDnsResponder, type DnsResponder } from '../../support/dns-responder';
import { createTestDatabase, withClient, type TestDatabase } from '../../support/test-database';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/restore-drill.sh');
const SCRATCH_SERVER = 'postgres://postgres@127.0.0.1:5432/test';
const EDGE_TARGET = 'edge.example.net';
const HOSTNAMES = ['one.drill.example.com', 'two.drill.example.com', 'three.drill.example.com'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let db: TestDatabase;
let api: TestApi;
let dns: DnsResponder;
let scratch: string | null = null;

/** The drill with only these variables (and PATH): the doctor's settings of an all-in-one deployment. */
function drill(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, '--scratch-server', SCRATCH_SERVER, ...args], {
      env: {
        PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        CDCTL: `${process.execPath} ${path.join(ROOT, 'services/cli/bin/cdctl.js')}`,
        CERT_ISSUER: 'internal',
        DNS_SERVERS: dns.server,
        EDGE_TARGET,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Names of the scratch databases the drills left on the server. */
async function scratchDatabases(): Promise<string[]> {
  return withClient(SCRATCH_SERVER, async (c) => (await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'cds_restore_drill_%'")).rows.map((r) => r.datname));
}

beforeAll(async () => {
  db = await createTestDatabase('postgres');
  api = await startTestApi({ OPERATOR_BACKUP: 'true', EDGE_TARGET }, { url: db.url });
  dns = await startDnsResponder({ [EDGE_TARGET]: '192.0.2.7' });
  const app = await api.createApplication();
  for (const hostname of HOSTNAMES) {
    const created = await api.request('POST', '/v1/domains', { token: app.key, body: { hostname, reference: 'drill' } });
    expect(created.status).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  if (scratch) {
    const name = scratch;
    await withClient(SCRATCH_SERVER, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  }
  await api?.close();
  await db?.drop();
  await dns?.close();
});

describe('scripts/restore-drill.sh', () => {
  it('restores GET /operator/v1/backup of a running API into a scratch database the doctor passes, with every domain', async () => {
    const before = await scratchDatabases();
    const run = await drill(['--from-api', api.url, '--keep'], { OPERATOR_TOKEN: api.operatorToken });
    expect(run.stderr).not.toContain('FAILED');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^migrations\s+ok\s/m);
    expect(run.stdout).toMatch(/^database\s+ok\s/m);
    expect(run.stdout).toContain('  domains 3\n');
    expect(run.stdout).toContain('restore drill: passed');

    const kept = (await scratchDatabases()).filter((name) => !before.includes(name));
    expect(kept).toHaveLength(1);
    scratch = kept[0] ?? null;
    const url = new URL(SCRATCH_SERVER);
    url.pathname = `/${scratch}`;
    const hostnames = await withClient(url.toString(), async (c) => (await c.query<{ hostname: string }>('SELECT hostname FROM domains ORDER BY hostname')).rows.map((r) => r.hostname));
    expect(hostnames).toEqual([...HOSTNAMES].sort());
  }, 120_000);

  it('restores a pg_dump of the database and drops its scratch database afterwards', async () => {
    const before = await scratchDatabases();
    const run = await drill(['--from-database', db.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  domains 3\n');
    expect(await scratchDatabases()).toEqual(before);
  }, 120_000);

  it('exits 1 when the doctor fails on the restored database (here: the broker is unreachable)', async () => {
    const before = await scratchDatabases();
    const run = await drill(['--from-database', db.url], { AMQP_URL: 'amqp://guest:guest@127.0.0.1:1/' });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^broker\s+fail\s/m);
    expect(run.stderr).toContain('restore drill: FAILED: cdctl doctor exited 1');
    expect(await scratchDatabases()).toEqual(before);
  }, 120_000);

  it('exits 1 on a dump pg_restore cannot read, before creating any database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'restore-drill-'));
    const file = path.join(dir, 'broken.dump');
    writeFileSync(file, 'PGDMP but not really');
    try {
      const before = await scratchDatabases();
      const run = await drill(['--dump', file]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`restore drill: FAILED: pg_restore cannot read ${file}`);
      expect(await scratchDatabases()).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
