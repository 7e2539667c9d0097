// Certificates issued again before their renewal is due, against a real
// Pebble: `cdctl certificate renew <hostname>` (POST
// /operator/v1/certificates/renew) marks a ready domain's certificate and the
// next check orders a new one while the domain stays ready; a certificate of
// the internal CA, or of an ACME directory no longer configured, is replaced
// from Pebble by itself when CERT_ISSUER is acme. The endpoint's refusals
// follow the contract.
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { InternalCa } from '@cds/checker';
import { encryptSecret, SEAL_PURPOSES } from '@cds/core';
import type { CertificateRow } from '@cds/data';
import { expectError, expectValidationError } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { runCdctl } from '../../support/cdctl-process';
import { waitForBuild } from '../../support/service-process';
import { orderNames } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';

const MAIN = join(__dirname, '../../../services/cli/dist/main.js');
const RETIRED_DIRECTORY = 'https://acme-staging.retired.test/directory';

let stack: AcmeStack;

beforeAll(async () => {
  await waitForBuild(MAIN);
  stack = await startAcmeStack();
});

afterAll(() => stack?.stop());

async function readyDomain(label: string): Promise<DomainView> {
  const domain = await registerDomain(stack.api, stack.app.key, `${label}.reissue-${process.pid}.com`);
  await publishRecords(stack.dns, domain);
  return waitForDomain(stack.api, stack.app.key, domain.id, (d) => d.status === 'ready', 60_000);
}

async function certificateOf(hostname: string): Promise<CertificateRow> {
  const row = await stack.api.store.run((r) => r.certificates.find(hostname));
  if (!row) throw new Error(`no certificate for ${hostname}`);
  return row;
}

const serialOf = (row: CertificateRow) => new X509Certificate(row.pemChain).serialNumber;
const ordersFor = (hostname: string) => stack.proxy.orders().filter((order) => orderNames(order).includes(hostname)).length;

/** Waits until the hostname's certificate is another than `before`; returns it. */
async function replaced(hostname: string, before: CertificateRow): Promise<CertificateRow> {
  let now = before;
  await eventually(`the certificate of ${hostname} is issued again`, async () => {
    now = await certificateOf(hostname);
    return serialOf(now) !== serialOf(before);
  }, { timeoutMs: 60_000, explain: () => stack.checkerLog.slice(-10).join('\n') });
  return now;
}

const cdctl = (args: string[]) => runCdctl([...args, '--url', stack.api.url, '--token', stack.api.operatorToken]);

test('cdctl certificate renew <hostname>: a new certificate from Pebble, the domain stays ready, the mark is cleared', async () => {
  const domain = await readyDomain('renew');
  const first = await certificateOf(domain.hostname);
  expect(first.issuer).toBe('acme');
  expect(ordersFor(domain.hostname)).toBe(1);

  const run = await cdctl(['certificate', 'renew', domain.hostname.toUpperCase()]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toContain('1 certificate marked for re-issue');
  expect(run.stdout).toContain(domain.hostname);

  const renewed = await replaced(domain.hostname, first);
  expect(new X509Certificate(renewed.pemChain).checkHost(domain.hostname)).toBe(domain.hostname);
  expect(renewed).toMatchObject({ issuer: 'acme', directoryUrl: stack.proxy.directoryUrl });
  expect(renewed.renewRequestedAt).toBeUndefined();
  expect(ordersFor(domain.hostname)).toBe(2);
  const seen = await waitForDomain(stack.api, stack.app.key, domain.id, () => true);
  expect(seen.status).toBe('ready');
  // Once stored, the new certificate is not issued again.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(serialOf(await certificateOf(domain.hostname))).toBe(serialOf(renewed));
  expect(ordersFor(domain.hostname)).toBe(2);
});

test('with CERT_ISSUER=acme, an internal certificate and one of a directory no longer configured are replaced from Pebble by themselves', async () => {
  const [internal, retired] = await Promise.all([readyDomain('internal'), readyDomain('retired')]);
  // The certificates a deployment on the internal CA, and one on a directory since removed, left behind.
  const ca = new InternalCa(stack.api.store, stack.api.config.dataEncryptionKey);
  const issued = await ca.issue(internal.hostname);
  const fromInternal: CertificateRow = {
    hostname: internal.hostname, domainId: internal.id, issuer: 'internal', pemChain: issued.pemChain,
    keySealed: encryptSecret(issued.keyPem, stack.api.config.dataEncryptionKey, { purpose: SEAL_PURPOSES.certificateKey, id: internal.hostname }),
    notBefore: issued.notBefore, notAfter: issued.notAfter, createdAt: new Date(),
  };
  const fromRetired: CertificateRow = { ...(await certificateOf(retired.hostname)), directoryUrl: RETIRED_DIRECTORY };
  await stack.api.store.run(async (r) => {
    await r.certificates.save(fromInternal);
    await r.certificates.save(fromRetired);
  });

  const [fromPebble, fromConfigured] = await Promise.all([replaced(internal.hostname, fromInternal), replaced(retired.hostname, fromRetired)]);
  expect(fromPebble).toMatchObject({ issuer: 'acme', directoryUrl: stack.proxy.directoryUrl });
  expect(new X509Certificate(fromPebble.pemChain).issuer).not.toBe(new X509Certificate(fromInternal.pemChain).issuer);
  expect(fromConfigured).toMatchObject({ issuer: 'acme', directoryUrl: stack.proxy.directoryUrl });
  for (const domain of [internal, retired]) {
    expect((await waitForDomain(stack.api, stack.app.key, domain.id, () => true)).status).toBe('ready');
  }
});

test('POST /operator/v1/certificates/renew: --all narrowed by issuer and directory; refusals in the contract\'s shape', async () => {
  const none = await stack.api.operator('POST', '/operator/v1/certificates/renew', { all: true, issuer: 'internal' });
  expect(none.status).toBe(202);
  expect(none.body).toEqual({ marked: 0, hostnames: [] });
  const elsewhere = await stack.api.operator('POST', '/operator/v1/certificates/renew', { all: true, directory_url: RETIRED_DIRECTORY });
  expect(elsewhere.body).toEqual({ marked: 0, hostnames: [] });

  expectError(await stack.api.operator('POST', '/operator/v1/certificates/renew', { hostname: `unknown.reissue-${process.pid}.com` }), 404, 'domain_not_found');
  expectError(await stack.api.operator('POST', '/operator/v1/certificates/renew', { hostname: '192.0.2.1' }), 422, 'ip_literal_not_supported');
  expectValidationError(await stack.api.operator('POST', '/operator/v1/certificates/renew', {}), 'body', '');
  expectValidationError(await stack.api.operator('POST', '/operator/v1/certificates/renew', { all: false }), 'body', 'all');
  expectValidationError(await stack.api.operator('POST', '/operator/v1/certificates/renew', { all: true, issuer: 'letsencrypt' }), 'body', 'issuer');
  expectValidationError(await stack.api.operator('POST', '/operator/v1/certificates/renew', { hostname: 'a.example.com', issuer: 'acme' }), 'body', '');
  expectValidationError(await stack.api.operator('POST', '/operator/v1/certificates/renew', { all: true, extra: 1 }), 'body', 'extra');
  const usage = await cdctl(['certificate', 'renew']);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('--all');

  // Every acme certificate of the configured directory, the hostnames sorted.
  const all = await stack.api.operator('POST', '/operator/v1/certificates/renew', { all: true, issuer: 'acme', directory_url: stack.proxy.directoryUrl });
  expect(all.status).toBe(202);
  const { marked, hostnames } = all.body as { marked: number; hostnames: string[] };
  expect(marked).toBeGreaterThanOrEqual(3);
  expect(hostnames).toEqual([...hostnames].sort());
  const marks = await stack.api.store.run((r) => r.certificates.findMany(hostnames));
  // Marked, or already issued again by a check since.
  expect(marks).toHaveLength(marked);
});
