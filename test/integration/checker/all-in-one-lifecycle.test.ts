// The same lifecycle in all-in-one mode (CERT_ISSUER=internal, its default):
// the built process (`services/all-in-one/dist/main.js`) over SQLite and the
// in-process bus; the outbox is read from its database once it has stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { ROUTING_KEYS } from '@cds/core';
import { createDataStore } from '@cds/data';
import { connectTestClient, type TestClient } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { SHORT_CONFIRMATION } from '../../support/api-harness';
import { freePort, startCheckerDns, type CheckerDns } from './checker-dns';
import { check, EDGE_TARGET, publishRecords, startOrigin, type DomainView, type TestOrigin } from './checker-stack';

const MAIN = path.join(__dirname, '../../../services/all-in-one/dist/main.js');

let dns: CheckerDns;
let origin: TestOrigin;
let child: ChildProcess;
let dir: string;
let client: TestClient;
let output = '';
let edgeHttps = 0;

async function stopProcess(): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  dns = await startCheckerDns();
  origin = await startOrigin();
  dir = mkdtempSync(path.join(tmpdir(), 'cds-checker-aio-'));
  const [api, metrics, http, https] = [await freePort(), await freePort(), await freePort(), await freePort()];
  edgeHttps = https;
  const token = randomBytes(24).toString('base64url');
  child = spawn('node', [MAIN], {
    cwd: dir,
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME,
      API_PORT: String(api), METRICS_PORT: String(metrics), EDGE_HTTP_PORT: String(http), EDGE_HTTPS_PORT: String(https),
      DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, LOG_LEVEL: 'error', OPERATOR_TOKEN: token,
      EDGE_TARGET, DNS_SERVERS: dns.server, CHECK_SCHEDULE_PENDING: '300ms', CHECK_INTERVAL_LIVE: '300ms', ...SHORT_CONFIRMATION,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await eventually('the all-in-one process to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`all-in-one exited: ${output}`);
    return fetch(`http://127.0.0.1:${metrics}/readyz`).then((r) => r.status === 200, () => false);
  }, { timeoutMs: 60_000, intervalMs: 200, explain: () => output });
  client = await connectTestClient(`http://127.0.0.1:${api}`, token);
});

afterAll(async () => {
  await stopProcess();
  await origin?.close();
  await dns?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** HTTPS to the all-in-one's edge with SNI and Host = hostname, trusting the CA the checker signed with. */
function viaEdge(hostname: string, ca: string): Promise<{ status: number; body: string; issuer: string; assertion?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port: edgeHttps, path: '/', servername: hostname, ca, headers: { host: hostname }, agent: false }, (res) => {
      let body = '';
      const issuer = String((res.socket as TLSSocket).getPeerCertificate().issuer?.CN ?? '');
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, issuer }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function internalCa(): Promise<string> {
  const store = await createDataStore({ url: `sqlite:${path.join(dir, 'db.sqlite')}` });
  try {
    return (await store.run((r) => r.settings.get('internal_ca_certificate'))) as string;
  } finally {
    await store.close();
  }
}

function waitFor(key: string, id: string, until: (d: DomainView) => boolean): Promise<DomainView> {
  let last: unknown = null;
  return eventually(`domain ${id} to reach the expected state`, async () => {
    const answer = await client.request<DomainView>('GET', `/v1/domains/${id}`, { token: key });
    last = answer.body;
    return answer.status === 200 && until(answer.body) && answer.body;
  }, { timeoutMs: 30_000, intervalMs: 150, explain: () => `last ${JSON.stringify(last)}; process output: ${output}` });
}

test('all-in-one: ready with an internal certificate, attention_required, recovered, deleted; four events in order', async () => {
  const { slug, key } = await client.createApplication(undefined, { api_requests_per_minute: 100_000 });
  const origins = `/operator/v1/applications/${slug}/origins`;
  const created = await client.operator<{ id: string }>('POST', origins, { url: origin.url, health_path: '/' });
  expect((await client.operator('POST', `${origins}/${created.body.id}/verify`, {})).status).toBe(200);
  expect((await client.operator('POST', `${origins}/${created.body.id}/activate`, {})).status).toBe(200);

  const registered = await client.request<DomainView>('POST', '/v1/domains', { token: key, body: { hostname: `www.aio-${process.pid}.com`, reference: 'aio' } });
  expect(registered.status).toBe(201);
  const domain = registered.body;
  await publishRecords(dns, domain);
  const ready = await waitFor(key, domain.id, (d) => d.status === 'ready');
  // The edge of the same process serves it with the certificate the checker's internal CA issued.
  const ca = await internalCa();
  const served = await viaEdge(domain.hostname, ca);
  expect(served).toMatchObject({ status: 200, body: 'origin' });
  expect(origin.requests.at(-1)?.host).toBe(domain.hostname);
  expect(origin.requests.at(-1)?.assertion).toMatch(/^ey/);
  await dns.clearTxt(`_custom-domain-challenge.${domain.hostname}`);
  const attention = await waitFor(key, domain.id, (d) => d.status === 'attention_required');
  expect(check(attention, 'ownership').error_code).toBe('txt_record_not_found');
  // attention_required keeps its certificate: HTTPS answers 503 within 5 s.
  await eventually('503 from the edge', async () => (await viaEdge(domain.hostname, ca)).status === 503, { timeoutMs: 5_000, intervalMs: 200 });
  await publishRecords(dns, domain);
  await waitFor(key, domain.id, (d) => d.status === 'ready');
  expect((await client.request('DELETE', `/v1/domains/${domain.id}`, { token: key })).status).toBe(202);
  // Deleted: the fan-out drops it from the edge; no certificate is shown any more.
  await eventually('the edge to refuse the handshake', () => viaEdge(domain.hostname, ca).then(() => false, () => true), { timeoutMs: 5_000 });
  await expect(viaEdge(domain.hostname, ca)).rejects.toThrow();
  await stopProcess();

  const store = await createDataStore({ url: `sqlite:${path.join(dir, 'db.sqlite')}` });
  try {
    const events = (await store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted)))
      .map((row) => row.payload as { type: string; data: { domain: DomainView } })
      .filter((payload) => payload.data.domain.id === domain.id);
    expect(events.map((e) => e.type)).toEqual(['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted']);
    expect(events.map((e) => e.data.domain.status)).toEqual(['ready', 'attention_required', 'ready', 'deleting']);
    for (const event of events) expect(Object.keys(event.data.domain).sort()).toEqual(Object.keys(ready).sort());
    const ca = await store.run((r) => r.settings.get('internal_ca_certificate'));
    expect(ca).toContain('BEGIN CERTIFICATE');
    expect(new X509Certificate(ca as string).ca).toBe(true);
  } finally {
    await store.close();
  }
});
