// Sealed values are bound to their row: one copied into another row (by hand,
// or by someone with write access to the database) does not open there. The
// edge treats that as the row's fault: that hostname or application is
// refused, every other one is served, and the edge does not report its
// database unreachable.
import { decodeProtectedHeader } from 'jose';
import { encryptSecret, generateAssertionKey } from '@cds/core';
import type { CertificateRow } from '@cds/data';
import { silentLogger, type Logger } from '@cds/logging';
import { DATA_KEY, startEdgeFixture, type EdgeFixture } from './edge-fixture';

let f: EdgeFixture;
const errors: string[] = [];
const warnings: string[] = [];
const logger: Logger = {
  ...silentLogger,
  warn: (message, meta) => warnings.push(`${message} ${JSON.stringify(meta ?? {})}`),
  error: (message, meta) => errors.push(`${message} ${JSON.stringify(meta ?? {})}`),
};
/** The edge says so (and flips /readyz's report) whenever it takes its database for unreachable. */
const unreachableReports = () => warnings.filter((w) => w.startsWith('control plane unreachable'));

beforeAll(async () => {
  f = await startEdgeFixture({ logger });
});

afterAll(() => f?.close());

const certificateOf = async (hostname: string) => (await f.store.run((r) => r.certificates.find(hostname))) as CertificateRow;

test("a certificate key copied into another hostname's row does not open there: that name gets no certificate, the others are served", async () => {
  const app = await f.addApplication();
  const [source, target] = [await f.addDomain(app.id), await f.addDomain(app.id)];
  const [sourceRow, targetRow] = [await certificateOf(source.hostname), await certificateOf(target.hostname)];
  await f.store.run((r) => r.certificates.save({ ...targetRow, keySealed: sourceRow.keySealed }));

  await expect(f.get(target.hostname)).rejects.toThrow();
  expect((await f.get(source.hostname)).status).toBe(200);
  expect(f.edge.controlPlane().reachable).toBe(true);
  expect(unreachableReports()).toEqual([]);
  expect(errors).toContainEqual(expect.stringContaining(
    `"error":"The sealed certificate-key ${target.hostname} does not open: altered, copied from another row, or sealed with another key."`,
  ));
  // Still refused on the next handshake, and still served for the right name.
  await expect(f.get(target.hostname)).rejects.toThrow();
  expect((await f.get(source.hostname)).status).toBe(200);
});

test("an assertion key copied into another application's row does not open there: that application's requests fail, the others' are signed with their key", async () => {
  const [owner, other] = [await f.addApplication(), await f.addApplication()];
  const [ownerDomain, otherDomain] = [await f.addDomain(owner.id), await f.addDomain(other.id)];
  const [ownerKey, otherKey] = [generateAssertionKey(), generateAssertionKey()];
  const sealed = encryptSecret(ownerKey.secret, DATA_KEY, { purpose: 'assertion-key', id: ownerKey.kid });
  await f.store.run(async (r) => {
    await r.assertionKeys.insert({ kid: ownerKey.kid, applicationId: owner.id, secretSealed: sealed, createdAt: new Date(), revokedAt: null });
    // The other application's row holds the owner's sealed secret under its own kid.
    await r.assertionKeys.insert({ kid: otherKey.kid, applicationId: other.id, secretSealed: sealed, createdAt: new Date(), revokedAt: null });
  });

  const reachedOrigin = f.origin.requests.length;
  expect((await f.get(otherDomain.hostname)).status).toBe(503);
  expect(f.origin.requests.length).toBe(reachedOrigin);
  const served = await f.get(ownerDomain.hostname);
  expect(served.status).toBe(200);
  expect(decodeProtectedHeader(f.origin.requests.at(-1)?.headers['x-custom-domain-assertion'] as string).kid).toBe(ownerKey.kid);
  expect(f.edge.controlPlane().reachable).toBe(true);
  expect(unreachableReports()).toEqual([]);
  expect(errors).toContainEqual(expect.stringContaining(`The sealed assertion-key ${otherKey.kid} does not open`));
});
