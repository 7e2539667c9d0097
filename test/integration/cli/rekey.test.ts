// A data encryption key rotation as an operator runs it: values sealed under
// key A (a certificate's private key, the internal CA key, the ACME account
// key, a saved order's key, a webhook secret, an assertion key, one in the
// oldest format), the services given DATA_ENCRYPTION_KEYS=B,A, then the built
// `cdctl rekey` in a child process; afterwards B alone opens everything and an
// edge holding only B serves the domain. On TEST_DATABASE.
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import https from 'node:https';
import { join } from 'node:path';
import { ACME_SETTINGS, INTERNAL_CA_SETTINGS } from '@cds/checker';
import { dataKeyId, decryptSecret, encryptSecret, generateAssertionKey, orderKeyId, SEAL_PURPOSES } from '@cds/core';
import { SEALED_KINDS, type SealedValue } from '@cds/data';
import { startEdge, type Edge } from '@cds/edge-proxy';
import { silentLogger } from '@cds/logging';
import { InProcessBus } from '@cds/messaging';
import { eventually } from '../../support/eventually';
import { runCdctl, type CdctlRun } from '../../support/cdctl-process';
import { waitForBuild } from '../../support/service-process';
import { DATA_KEY as KEY_A, DEPLOYMENT_KEY, startEdgeFixture, type EdgeFixture } from '../edge/edge-fixture';

const MAIN = join(__dirname, '../../../services/cli/dist/main.js');
const KEY_B = randomBytes(32);
const KEYS_B_A = `${KEY_B.toString('base64')},${KEY_A.toString('base64')}`;

type Run = CdctlRun;

const cdctl = (args: string[], env: Record<string, string>): Promise<Run> => runCdctl(args, env);

function expectExit(run: Run, code: number): void {
  if (run.code !== code) throw new Error(`expected exit ${code}, got ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

/** A value as sealed before labels and key ids: `v1.<iv>.<tag>.<ciphertext>`. */
function sealV1(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

interface RekeyJson {
  counts: Array<{ kind: string; resealed: number; current: number; unopened: number; changed: number }>;
  failures: string[];
}

let f: EdgeFixture;
let env: Record<string, string>;

async function allSealed(): Promise<SealedValue[]> {
  const values: SealedValue[] = [];
  for (const kind of SEALED_KINDS) values.push(...(await f.store.run((r) => r.sealedValues.page(kind, null, 1000))));
  return values;
}

function get(edge: Edge, hostname: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: edge.httpsPort, path: '/', servername: hostname, ca: f.caPem, agent: false, headers: { host: hostname } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  await waitForBuild(MAIN);
  // The services already run with B first: what they seal from now on, B seals; A still opens the rest.
  f = await startEdgeFixture({ dataEncryptionKey: [KEY_B, KEY_A] });
  env = { DATABASE_URL: f.db.db.url, DATA_ENCRYPTION_KEYS: KEYS_B_A, AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672' };
});

afterAll(() => f?.close());

test('cdctl rekey reseals every value with the first key; B alone then opens them and the edge serves on', async () => {
  const app = await f.addApplication();
  const domain = await f.addDomain(app.id); // its certificate key and the internal CA key: sealed with A
  const subscriptionId = randomUUID();
  const secretId = randomUUID();
  const now = new Date();
  const assertion = generateAssertionKey();
  const accountKeyLabel = { purpose: SEAL_PURPOSES.setting, id: ACME_SETTINGS.accountKeySealed };
  const orderUrl = `https://ca.example/order/${domain.hostname}`;
  await f.store.run(async (r) => {
    await r.webhookSubscriptions.insert(
      { id: subscriptionId, applicationId: app.id, url: 'https://hooks.example.com/in', events: ['domain.ready'], status: 'active', createdAt: now, updatedAt: now, revokedAt: null },
      { id: secretId, subscriptionId, secretSealed: encryptSecret('whsec_rotate_me', KEY_A, { purpose: SEAL_PURPOSES.webhookSecret, id: secretId }), createdAt: now, expiresAt: null },
    );
    await r.assertionKeys.insert({ kid: assertion.kid, applicationId: app.id, secretSealed: encryptSecret(assertion.secret, KEY_A, { purpose: SEAL_PURPOSES.assertionKey, id: assertion.kid }), createdAt: now, revokedAt: null });
    // The ACME account key in the oldest format: no label, no key id.
    await r.settings.set(ACME_SETTINGS.accountKeySealed, sealV1('ACCOUNT KEY', KEY_A));
    await r.acmeOrders.save({
      hostname: domain.hostname, orderUrl, replaces: null, expiresAt: null,
      keySealed: encryptSecret('ORDER KEY', KEY_A, { purpose: SEAL_PURPOSES.acmeOrderKey, id: orderKeyId(domain.hostname, orderUrl) }),
    });
  });
  expect(await get(f.edge, domain.hostname)).toBe(200);
  const before = await allSealed();
  expect(new Set(before.map((value) => value.kind))).toEqual(new Set(SEALED_KINDS));
  expect(before.filter((value) => value.kind === 'settings').map((value) => value.rowId).sort()).toEqual([ACME_SETTINGS.accountKeySealed, INTERNAL_CA_SETTINGS.keySealed].sort());

  // One value per transaction: every kind is read in several pages.
  const run = await cdctl(['rekey', '--json', '--batch', '1'], env);
  expectExit(run, 0);
  const result = JSON.parse(run.stdout) as RekeyJson;
  expect(result.failures).toEqual([]);
  expect(Object.fromEntries(result.counts.map((count) => [count.kind, count.resealed]))).toEqual({
    assertion_keys: 1, webhook_secrets: 1, certificates: 1, acme_orders: 1, settings: 2,
  });

  // Every value now names B and opens with B alone, bound to its row.
  const after = await allSealed();
  expect(after).toHaveLength(before.length);
  for (const value of after) {
    expect(value.sealed.split('.').slice(0, 2)).toEqual(['v3', dataKeyId(KEY_B)]);
    expect(decryptSecret(value.sealed, KEY_B, value.label)).toBe(decryptSecret(before.find((b) => b.kind === value.kind && b.rowId === value.rowId)?.sealed as string, KEY_A, value.label));
    expect(() => decryptSecret(value.sealed, KEY_A, value.label)).toThrow(/not configured/);
  }
  expect(decryptSecret(after.find((value) => value.rowId === ACME_SETTINGS.accountKeySealed)?.sealed as string, KEY_B, accountKeyLabel)).toBe('ACCOUNT KEY');

  // The running edge picks the resealed certificate up and serves on; a new edge with B alone serves too.
  await eventually('the edge to serve after the rekey', async () => (await get(f.edge, domain.hostname)) === 200);
  const onlyB = await startEdge({
    store: f.store, logger: silentLogger, bus: new InProcessBus(), traffic: { record: () => undefined },
    httpsPort: 0, httpPort: 0, bindAddress: '127.0.0.1', dataEncryptionKey: KEY_B, deploymentKey: DEPLOYMENT_KEY, originTimeoutMs: 1_500,
  });
  try {
    expect(await get(onlyB, domain.hostname)).toBe(200);
  } finally {
    await onlyB.close(1_000);
  }

  // Idempotent: a second run writes nothing.
  const again = await cdctl(['rekey', '--json'], env);
  expectExit(again, 0);
  const second = JSON.parse(again.stdout) as RekeyJson;
  expect(second.counts.every((count) => count.resealed === 0 && count.unopened === 0)).toBe(true);
  expect(second.counts.reduce((sum, count) => sum + count.current, 0)).toBe(after.length);

  // The doctor with B alone: every sampled value opens.
  const doctor = await cdctl(['doctor', '--json'], { ...env, DATA_ENCRYPTION_KEYS: KEY_B.toString('base64'), AMQP_URL: '', CERT_ISSUER: 'internal', DNS_SERVERS: '127.0.0.1:1' });
  const sealedCheck = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; message: string }> }).checks.find((c) => c.name === 'sealed_values');
  expect(sealedCheck).toMatchObject({ status: 'ok', message: expect.stringContaining('open all') });
});

test('a value no configured key opens: named by table and row, left as it is, exit 1; the others are still resealed', async () => {
  const stray = 'stray_sealed';
  const foreign = encryptSecret('lost', randomBytes(32), { purpose: SEAL_PURPOSES.setting, id: stray });
  await f.store.run((r) => r.settings.set(stray, foreign));
  const app = await f.addApplication();
  await f.addDomain(app.id); // sealed with A
  try {
    const run = await cdctl(['rekey'], env);
    expectExit(run, 1);
    expect(run.stdout).toMatch(new RegExp(`not opened: settings ${stray}: The sealed setting ${stray} was sealed with data encryption key [0-9a-f]{8}, which is not configured\\.`));
    expect(run.stdout).toMatch(/certificates\s+1\s+\d+\s+0\s+0/);
    expect(run.stderr).toContain('1 sealed value(s) open with no configured key; they were left as they are');
    expect(await f.store.run((r) => r.settings.get(stray))).toBe(foreign);

    const doctor = await cdctl(['doctor', '--json'], { ...env, AMQP_URL: '', CERT_ISSUER: 'internal', DNS_SERVERS: '127.0.0.1:1' });
    const sealedCheck = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; message: string }> }).checks.find((c) => c.name === 'sealed_values');
    expect(sealedCheck).toMatchObject({ status: 'fail', message: expect.stringContaining('opens settings (1 of 3 sampled)') });
  } finally {
    await f.store.run((r) => r.settings.delete(stray));
  }
});

test('DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEYS together, or a bad batch size, are refused before anything is read', async () => {
  const run = await cdctl(['rekey'], { ...env, DATA_ENCRYPTION_KEY: KEY_A.toString('base64') });
  expectExit(run, 2);
  expect(run.stderr).toContain('DATA_ENCRYPTION_KEY is set together with DATA_ENCRYPTION_KEYS');
  const batch = await cdctl(['rekey', '--batch', '0'], env);
  expectExit(batch, 2);
  expect(batch.stderr).toContain('must be an integer from 1 to 10000');
});
