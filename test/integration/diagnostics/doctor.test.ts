// The doctor against real databases (TEST_DATABASE), a real RabbitMQ (own
// vhost), a local DNS server and local ACME directories.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import amqp from 'amqplib';
import { encryptSecret, ROUTING_KEYS } from '@cds/core';
import { createDataStore, type DataStore } from '@cds/data';
import { runDoctor, type DoctorConfig, type DoctorReport, type CheckResult } from '@cds/diagnostics';
import { startDnsResponder, type DnsResponder } from '../../support/dns-responder';
import { eventually } from '../../support/eventually';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createThrowawayCa, type ThrowawayCa } from '../../support/throwaway-ca';
import { createVhost, deleteVhost, type TestVhost } from '../messaging/rabbit';

const EDGE_TARGET = 'edge.example.net';
const DATA_KEY = randomBytes(32);
const CHECK_ORDER = [
  'database', 'migrations', 'clock_skew', 'outbox_backlog', 'certificate_expiry', 'webhook_backlog', 'sealed_values',
  'broker', 'queue:checker', 'queue:webhook-dispatcher', 'acme_directory', 'dns_resolvers', 'edge_target',
];
const DIRECTORY = { newNonce: 'x/new-nonce', newAccount: 'x/new-account', newOrder: 'x/new-order', revokeCert: 'x/revoke', keyChange: 'x/key-change' };

let db: TestDatabase;
let store: DataStore;
let vhost: TestVhost;
let dns: DnsResponder;
let acme: http.Server;
let acmeUrl: string;

function directoryHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.url === '/directory') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(DIRECTORY));
  else if (req.url === '/not-acme') res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}');
  else res.writeHead(503).end('down');
}

async function listenOn(server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** `acmeDirectoryUrl`: ACME_DIRECTORY_URL's directories, one or a list. */
function config(overrides: Partial<Omit<DoctorConfig, 'acmeDirectories'>> & { acmeDirectoryUrl?: string | string[] } = {}): DoctorConfig {
  const { acmeDirectoryUrl = `${acmeUrl}/directory`, ...rest } = overrides;
  const acmeDirectories = [acmeDirectoryUrl].flat().map((url) => ({ url, eab: null, caaIdentities: null }));
  return { certIssuer: 'acme', acmeDirectories, acmeCaBundle: null, dnsServers: [dns.server], edgeTarget: EDGE_TARGET, dataEncryptionKeys: [DATA_KEY], ...rest };
}

function check(report: DoctorReport, name: string): CheckResult {
  const found = report.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check ${name} in ${JSON.stringify(report)}`);
  return found;
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createDataStore({ url: db.url });
  await store.migrate();
  vhost = await createVhost();
  dns = await startDnsResponder({ [EDGE_TARGET]: '192.0.2.7' });
  acme = http.createServer(directoryHandler);
  acmeUrl = `http://127.0.0.1:${await listenOn(acme)}`;
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
  if (vhost) await deleteVhost(vhost);
  await dns?.close();
  await new Promise((resolve) => acme?.close(resolve));
});

describe('runDoctor', () => {
  it('with the broker up: every check, in a fixed order, and an ok or degraded verdict', async () => {
    const report = await runDoctor({ config: config(), store, amqpUrl: vhost.url });
    expect(report.checks.map((c) => c.name)).toEqual(CHECK_ORDER);
    for (const c of report.checks) {
      expect(c).toEqual({ name: expect.any(String), status: expect.stringMatching(/^(ok|warn|fail)$/), message: expect.any(String), duration_ms: expect.any(Number) });
      expect(Number.isInteger(c.duration_ms) && c.duration_ms >= 0).toBe(true);
    }
    expect(['ok', 'degraded']).toContain(report.status);
    expect(check(report, 'database')).toMatchObject({ status: 'ok', message: `${db.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} answered` });
    expect(check(report, 'migrations')).toMatchObject({ status: 'ok', message: 'the schema is current' });
    expect(check(report, 'clock_skew').status).toBe('ok');
    expect(check(report, 'outbox_backlog')).toMatchObject({ status: 'ok', message: 'every event has been published' });
    expect(check(report, 'broker')).toMatchObject({ status: 'ok', message: expect.stringContaining(`amqp://127.0.0.1:5672/${vhost.name}`) });
    expect(check(report, 'broker').message).not.toContain('guest');
    // A fresh vhost: no bus has declared the services' queues yet.
    expect(check(report, 'queue:checker')).toMatchObject({ status: 'warn', message: expect.stringContaining('does not exist yet') });
    expect(check(report, 'acme_directory')).toMatchObject({ status: 'ok', message: `${acmeUrl}/directory answered with an ACME directory` });
    expect(check(report, 'dns_resolvers')).toMatchObject({ status: 'ok', message: `${dns.server} answered` });
    expect(check(report, 'edge_target')).toMatchObject({ status: 'ok', message: `${EDGE_TARGET} resolves to 192.0.2.7` });

    const certificates = await store.run((r) => r.diagnostics.certificatesExpiringBefore(new Date(Date.now() + 14 * 86_400_000)));
    expect(check(report, 'certificate_expiry')).toEqual(
      certificates === null
        ? expect.objectContaining({ status: 'warn', message: 'certificate store not present in this version' })
        : expect.objectContaining({ status: certificates === 0 ? 'ok' : 'warn' }),
    );
    expect(check(report, 'webhook_backlog').status).toBe('ok');
    expect(check(report, 'sealed_values').status).toBe('ok');
  });

  it('sealed values: ok when a configured key opens them, fail naming the kind when none does, warn without keys', async () => {
    const key = 'doctor_probe_sealed';
    await store.run((r) => r.settings.set(key, encryptSecret('a private key', DATA_KEY, { purpose: 'setting', id: key })));
    try {
      const other = randomBytes(32);
      let report = await runDoctor({ config: config({ dataEncryptionKeys: [other, DATA_KEY] }), store });
      expect(check(report, 'sealed_values')).toMatchObject({ status: 'ok', message: expect.stringMatching(/open all \d+ sampled values; 1 sealed with an older key/) });
      report = await runDoctor({ config: config({ dataEncryptionKeys: [other] }), store });
      expect(check(report, 'sealed_values')).toMatchObject({ status: 'fail', message: expect.stringContaining('no configured data encryption key opens settings (1 of 1 sampled)') });
      expect(report.status).toBe('failing');
      report = await runDoctor({ config: config({ dataEncryptionKeys: null }), store });
      expect(check(report, 'sealed_values')).toMatchObject({ status: 'warn', message: expect.stringContaining('not set here') });
    } finally {
      await store.run((r) => r.settings.delete(key));
    }
  });

  it('queues: warn without consumers or past 1000 waiting, ok otherwise', async () => {
    const conn = await amqp.connect(vhost.url);
    try {
      const ch = await conn.createChannel();
      await ch.assertQueue('checker', { durable: true });
      await ch.assertQueue('webhook-dispatcher', { durable: true });
      await ch.consume('checker', () => undefined, { noAck: true });
      let report = await runDoctor({ config: config(), store, amqpUrl: vhost.url });
      expect(check(report, 'queue:checker')).toMatchObject({ status: 'ok', message: '1 consumer(s), 0 message(s) waiting' });
      expect(check(report, 'queue:webhook-dispatcher')).toMatchObject({ status: 'warn', message: expect.stringContaining('no webhook-dispatcher service is consuming') });

      // A consumer that holds one message unacknowledged while 1001 wait behind it.
      const slow = await conn.createChannel();
      await slow.prefetch(1);
      await slow.consume('webhook-dispatcher', () => undefined, { noAck: false });
      const confirm = await conn.createConfirmChannel();
      for (let i = 0; i < 1002; i++) confirm.sendToQueue('webhook-dispatcher', Buffer.from(String(i)));
      await confirm.waitForConfirms();
      report = await eventually('the doctor to see 1001 messages waiting', async () => {
        const seen = await runDoctor({ config: config(), store, amqpUrl: vhost.url });
        return check(seen, 'queue:webhook-dispatcher').message.startsWith('1 consumer(s), 1001') && seen;
      }, { timeoutMs: 10_000 });
      expect(check(report, 'queue:webhook-dispatcher')).toMatchObject({ status: 'warn', message: expect.stringContaining('1001 message(s) waiting: more than 1000') });
      expect(report.status).not.toBe('failing');
    } finally {
      await conn.close();
    }
  });

  it('with a wrong AMQP_URL port: the broker and queue checks fail and the verdict is failing', async () => {
    const report = await runDoctor({ config: config(), store, amqpUrl: 'amqp://guest:guest@127.0.0.1:1' });
    expect(report.status).toBe('failing');
    expect(check(report, 'broker')).toMatchObject({ status: 'fail', message: expect.stringContaining('ECONNREFUSED') });
    expect(check(report, 'queue:checker')).toMatchObject({ status: 'fail', message: expect.stringContaining('broker unreachable') });
    expect(check(report, 'database').status).toBe('ok');
  });

  it('without AMQP_URL: the in-process bus needs no broker', async () => {
    const report = await runDoctor({ config: config(), store });
    expect(check(report, 'broker')).toMatchObject({ status: 'ok', message: expect.stringContaining('in-process bus') });
    expect(check(report, 'queue:webhook-dispatcher')).toMatchObject({ status: 'ok', message: expect.stringContaining('in-process bus') });
  });

  it('DNS: a resolver that never answers fails; an answer without the edge target is ok for the resolver and a warning for EDGE_TARGET', async () => {
    const silent = await startDnsResponder({}, { silent: true });
    const empty = await startDnsResponder({});
    try {
      let report = await runDoctor({ config: config({ dnsServers: [silent.server] }), store });
      expect(check(report, 'dns_resolvers')).toMatchObject({ status: 'fail', message: `${silent.server}: no answer within 2 s` });
      expect(check(report, 'edge_target').status).toBe('warn');
      expect(report.status).toBe('failing');

      report = await runDoctor({ config: config({ dnsServers: [empty.server] }), store });
      expect(check(report, 'dns_resolvers')).toMatchObject({ status: 'ok', message: `${empty.server} answered (NXDOMAIN)` });
      expect(check(report, 'edge_target')).toMatchObject({ status: 'warn', message: expect.stringContaining(`EDGE_TARGET ${EDGE_TARGET} does not resolve`) });

      report = await runDoctor({ config: config({ dnsServers: [empty.server, silent.server] }), store });
      expect(check(report, 'dns_resolvers').status).toBe('warn');
    } finally {
      await silent.close();
      await empty.close();
    }
  });

  it('ACME directory: checked only with CERT_ISSUER=acme; errors fail; https honours ACME_CA_BUNDLE', async () => {
    let report = await runDoctor({ config: config({ certIssuer: 'internal', acmeDirectoryUrl: 'http://127.0.0.1:1/directory' }), store });
    expect(check(report, 'acme_directory')).toMatchObject({ status: 'ok', message: 'not used: CERT_ISSUER=internal' });
    report = await runDoctor({ config: config({ acmeDirectoryUrl: `${acmeUrl}/down` }), store });
    expect(check(report, 'acme_directory')).toMatchObject({ status: 'fail', message: `${acmeUrl}/down answered HTTP 503` });
    report = await runDoctor({ config: config({ acmeDirectoryUrl: `${acmeUrl}/not-acme` }), store });
    expect(check(report, 'acme_directory')).toMatchObject({ status: 'fail', message: expect.stringContaining('is not an ACME directory') });
    // Several directories: each is asked; one down is a warning while another answers, all down a failure.
    report = await runDoctor({ config: config({ acmeDirectoryUrl: [`${acmeUrl}/down`, `${acmeUrl}/directory`] }), store });
    expect(check(report, 'acme_directory')).toMatchObject({
      status: 'warn', message: `${acmeUrl}/down answered HTTP 503; ${acmeUrl}/directory answered with an ACME directory`,
    });
    report = await runDoctor({ config: config({ acmeDirectoryUrl: [`${acmeUrl}/down`, `${acmeUrl}/not-acme`] }), store });
    expect(check(report, 'acme_directory')).toMatchObject({ status: 'fail', message: expect.stringContaining(`${acmeUrl}/down answered HTTP 503; `) });

    const ca: ThrowawayCa = createThrowawayCa('Doctor test CA');
    const server = https.createServer({ cert: ca.leaf.cert, key: ca.leaf.key }, directoryHandler);
    try {
      const url = `https://127.0.0.1:${await listenOn(server)}/directory`;
      report = await runDoctor({ config: config({ acmeDirectoryUrl: url }), store });
      expect(check(report, 'acme_directory')).toMatchObject({ status: 'fail', message: expect.stringContaining('did not answer') });
      report = await runDoctor({ config: config({ acmeDirectoryUrl: url, acmeCaBundle: ca.caFile }), store });
      expect(check(report, 'acme_directory')).toMatchObject({ status: 'ok', message: `${url} answered with an ACME directory` });
    } finally {
      await new Promise((resolve) => server.close(resolve));
      ca.remove();
    }
  });

  it('outbox backlog: warn past a minute, fail past ten; a clock far from the database fails', async () => {
    await store.run((r) => r.outbox.add(ROUTING_KEYS.domainChanged, { domain_id: '3f1d8f4e-0000-4000-8000-0000000000d1', hostname: 'doctor.example.com', application_id: '3f1d8f4e-0000-4000-8000-0000000000d2', change: 'status' }));
    const later = (ms: number) => () => new Date(Date.now() + ms);

    let report = await runDoctor({ config: config(), store, now: later(2 * 60_000) });
    expect(check(report, 'outbox_backlog')).toMatchObject({ status: 'warn', message: expect.stringContaining('the oldest unpublished event is') });
    expect(check(report, 'clock_skew')).toMatchObject({ status: 'fail', message: expect.stringContaining('behind this host') });
    expect(report.status).toBe('failing');

    report = await runDoctor({ config: config(), store, now: later(11 * 60_000) });
    expect(check(report, 'outbox_backlog')).toMatchObject({ status: 'fail', message: expect.stringContaining('not reaching the broker') });

    report = await runDoctor({ config: config(), store, now: later(5000) });
    expect(check(report, 'clock_skew')).toMatchObject({ status: 'warn', message: expect.stringContaining('behind this host') });
  });

  it('an unmigrated database: migrations fail and say what to run', async () => {
    const bare = await createTestDatabase();
    const bareStore = await createDataStore({ url: bare.url });
    try {
      const report = await runDoctor({ config: config(), store: bareStore });
      expect(check(report, 'database').status).toBe('ok');
      expect(check(report, 'migrations')).toMatchObject({ status: 'fail', message: expect.stringContaining('run `cdctl migrate`') });
      expect(report.status).toBe('failing');
    } finally {
      await bareStore.close();
      await bare.drop();
    }
  });
});
