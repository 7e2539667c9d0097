// GET /operator/v1/backup (DECISIONS.md §4): off → 404; SQLite → 409; on
// PostgreSQL a pg_dump stream that pg_restore accepts, one at a time across
// processes, and a dump failing midway aborts the transfer.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { boundPort, closeServer, listen } from '@cds/lifecycle';
import { createLogger } from '@cds/logging';
import { createApp } from '@cds/api';
import { connectTestClient, expectError, startTestApi, type TestApi, type TestClient } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { createTestDatabase } from '../../support/test-database';

const run = promisify(execFile);
const BACKUP = '/operator/v1/backup';
const FILE_NAME = /^attachment; filename="custom-domains-\d{8}T\d{6}Z\.dump"$/;
const onPostgres = (process.env.TEST_DATABASE ?? 'sqlite') === 'postgres';

interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** false when the transfer was cut before the end of the chunked body. */
  complete: boolean;
}

/** Starts a backup request and resolves at its answer's head; the body is left unread (paused). */
function startBackup(url: string, token: string): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}${BACKUP}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.pause();
      resolve({ req, res });
    });
    req.on('error', reject);
  });
}

function readAll(res: http.IncomingMessage): Promise<Download> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete });
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', done);
    res.on('error', done); // "aborted": the server cut the body
    res.resume();
  });
}

async function download(url: string, token: string): Promise<Download> {
  return readAll((await startBackup(url, token)).res);
}

async function queryRows(url: string, sql: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ v: string }>(sql)).rows.map((row) => row.v).sort();
  } finally {
    await client.end();
  }
}

describe('backup switched off', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  it('answers 404 not_found, after authentication', async () => {
    expectError(await api.operator('GET', BACKUP), 404, 'not_found');
    expectError(await api.request('GET', BACKUP), 401, 'unauthorized');
  });
});

if (!onPostgres) {
  describe('backup on SQLite', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi({ OPERATOR_BACKUP: 'true' });
    });
    afterAll(() => api?.close());

    it('answers 409 backup_unavailable', async () => {
      const details = expectError(await api.operator('GET', BACKUP), 409, 'backup_unavailable');
      expect(details).toEqual({});
    });
  });
}

if (onPostgres) {
  describe('backup on PostgreSQL', () => {
    let api: TestApi;
    let work: string;

    beforeAll(async () => {
      api = await startTestApi({ OPERATOR_BACKUP: 'true' });
      work = mkdtempSync(join(tmpdir(), 'cds-backup-'));
    });
    afterAll(async () => {
      await api?.close();
      rmSync(work, { recursive: true, force: true });
    });

    it('is documented as a binary download', () => {
      const op = (api.contract.document.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>)[BACKUP]?.get;
      expect(op?.responses['200']?.content?.['application/octet-stream']?.schema).toEqual({ type: 'string', format: 'binary' });
      expect(op?.responses['200']?.content?.['application/json']).toBeUndefined();
      expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['401', '403', '404', '409', '429', '503']));
    });

    it('streams a custom-format dump that pg_restore loads into a fresh database with the same data', async () => {
      const first = await api.createApplication();
      const second = await api.createApplication();
      for (const [key, hostname] of [[first.key, 'shop.backup-one.com'], [second.key, 'store.backup-two.org']] as const) {
        const created = await api.request('POST', '/v1/domains', { token: key, body: { hostname, reference: `ws-${hostname}` } });
        expect(created.status).toBe(201);
      }

      const dump = await download(api.url, api.operatorToken);
      expect(dump.status).toBe(200);
      expect(dump.complete).toBe(true);
      expect(dump.headers['content-type']).toBe('application/octet-stream');
      expect(dump.headers['content-disposition']).toMatch(FILE_NAME);
      expect(dump.body.subarray(0, 5).toString('latin1')).toBe('PGDMP'); // custom-format magic

      const file = join(work, 'backup.dump');
      writeFileSync(file, dump.body);
      const fresh = await createTestDatabase('postgres');
      try {
        await run('pg_restore', ['--no-owner', '--exit-on-error', '-d', fresh.url, file]);
        const source = api.config.databaseUrl;
        for (const sql of [
          'SELECT slug AS v FROM applications',
          'SELECT hostname || \'|\' || reference || \'|\' || challenge_token AS v FROM domains',
          'SELECT key_hash AS v FROM credentials',
        ]) {
          const restored = await queryRows(fresh.url, sql);
          expect(restored.length).toBeGreaterThan(0);
          expect(restored).toEqual(await queryRows(source, sql));
        }
        expect(await queryRows(fresh.url, 'SELECT slug AS v FROM applications')).toEqual(expect.arrayContaining([first.slug, second.slug]));
      } finally {
        await fresh.drop();
      }
    });

    it('runs one at a time: 429 with Retry-After while a dump streams, from this replica and from another', async () => {
      // Enough incompressible data that the dump outlasts the socket buffers while the reader pauses.
      const big = await startTestApi({ OPERATOR_BACKUP: 'true' });
      let replica: TestApi | null = null;
      let slow: { req: http.ClientRequest; res: http.IncomingMessage } | null = null;
      try {
        const client = new Client({ connectionString: big.config.databaseUrl });
        await client.connect();
        await client.query('CREATE TABLE filler (id integer PRIMARY KEY, bytes bytea NOT NULL)');
        await client.query(`INSERT INTO filler SELECT g, decode(string_agg(md5(random()::text || g || i), ''), 'hex')
                            FROM generate_series(1, 1000) AS g, generate_series(1, 1000) AS i GROUP BY g`);
        await client.end();
        replica = await startTestApi({ OPERATOR_BACKUP: 'true' }, { url: big.config.databaseUrl });

        slow = await startBackup(big.url, big.operatorToken);
        // The lock is taken before the answer starts: with the 200 in hand, the dump holds it.
        expect(slow.res.statusCode).toBe(200);
        for (const target of [big, replica] as TestClient[]) {
          const busy = await target.operator('GET', BACKUP);
          expectError(busy, 429, 'rate_limited');
          expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        }

        const finished = await readAll(slow.res);
        slow = null;
        expect(finished.complete).toBe(true);
        expect(finished.body.length).toBeGreaterThan(15_000_000);

        // The lock is free again: the other replica may start one (abandoned at once, which stops its pg_dump).
        const next = await startBackup(replica.url, replica.operatorToken);
        expect(next.res.statusCode).toBe(200);
        next.req.destroy();
      } finally {
        slow?.req.destroy();
        await replica?.close();
        await big.close();
      }
    });

    describe('when pg_dump fails', () => {
      let logged: string;
      let server: http.Server;
      let client: TestClient;

      /** An API whose pg_dump is `script`; log lines are kept in `logged`. */
      async function apiWithPgDump(script: string | null): Promise<void> {
        let pgDump = join(work, 'missing-pg_dump');
        if (script !== null) {
          pgDump = join(work, `pg_dump-${Math.random().toString(36).slice(2)}`);
          writeFileSync(pgDump, `#!/bin/sh\n${script}\n`);
          chmodSync(pgDump, 0o755);
        }
        const stream = new PassThrough();
        logged = '';
        stream.on('data', (chunk: Buffer) => { logged += chunk.toString('utf8'); });
        const logger = createLogger({ service: 'backup-test', level: 'warn', stream });
        server = await listen(createApp({ config: api.config, logger, store: api.store, pgDump }), 0, '127.0.0.1');
        client = await connectTestClient(`http://127.0.0.1:${boundPort(server)}`, api.operatorToken);
      }
      afterEach(() => closeServer(server));

      it('midway: the client sees an aborted transfer, not a complete file, and the log has pg_dump\'s stderr', async () => {
        await apiWithPgDump(`printf 'PGDMP-partial'\nsleep 0.3\necho 'pg_dump: error: query failed: server closed the connection' >&2\nexit 1`);
        const dump = await download(client.url, api.operatorToken);
        expect(dump.status).toBe(200);
        expect(dump.headers['transfer-encoding']).toBe('chunked');
        expect(dump.body.toString('latin1')).toBe('PGDMP-partial');
        expect(dump.complete).toBe(false);
        await eventually('the log line of the failed dump', () => logged.includes('pg_dump failed while streaming'), { timeoutMs: 5000 });
        expect(logged).toContain('server closed the connection');
      });

      it('before its first byte: 503 service_unavailable, and the lock is released', async () => {
        await apiWithPgDump(`echo 'pg_dump: error: connection to server failed' >&2\nexit 1`);
        const answer = await client.operator('GET', BACKUP);
        expectError(answer, 503, 'service_unavailable');
        expect(answer.body.error.message).toContain('pg_dump exited with status 1');
        expect(logged).toContain('connection to server failed');
        expectError(await client.operator('GET', BACKUP), 503, 'service_unavailable'); // not 429: nothing is left running
      });

      it('when it cannot be run at all: 503 service_unavailable', async () => {
        await apiWithPgDump(null);
        const answer = await client.operator('GET', BACKUP);
        expectError(answer, 503, 'service_unavailable');
        expect(answer.body.error.message).toContain('could not be run');
      });
    });
  });
}
