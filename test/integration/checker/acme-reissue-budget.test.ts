// Re-issues are paced by the ACME order budget, against a real Pebble: with
// room for one more order this hour, `cdctl certificate renew --all`'s
// request re-issues one certificate and the other keeps serving, still
// marked, until the next hour gives it a slot.
import { X509Certificate } from 'node:crypto';
import type { CertificateRow } from '@cds/data';
import { eventually } from '../../support/eventually';
import { TestClock } from '../../support/test-clock';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';

// The checker's clock: the test starts a fresh clock hour instead of waiting for one.
const clock = new TestClock();
let stack: AcmeStack;

beforeAll(async () => {
  clock.startWindow(3600);
  stack = await startAcmeStack({ now: clock.now, env: { ACME_ORDERS_PER_HOUR: '3', ACME_ORDERS_PER_APPLICATION_PER_HOUR: '3' } });
});

afterAll(() => stack?.stop());

async function readyDomain(label: string): Promise<DomainView> {
  const domain = await registerDomain(stack.api, stack.app.key, `${label}.reissue-budget-${process.pid}.com`);
  await publishRecords(stack.dns, domain);
  return waitForDomain(stack.api, stack.app.key, domain.id, (d) => d.status === 'ready', 60_000);
}

const certificateOf = async (hostname: string): Promise<CertificateRow> => {
  const row = await stack.api.store.run((r) => r.certificates.find(hostname));
  if (!row) throw new Error(`no certificate for ${hostname}`);
  return row;
};
const serialOf = (row: CertificateRow) => new X509Certificate(row.pemChain).serialNumber;

test('beyond the hour\'s budget the marked certificates wait, serving, for the next hour', async () => {
  const domains = await Promise.all([readyDomain('one'), readyDomain('two')]);
  const before = await Promise.all(domains.map((d) => certificateOf(d.hostname)));
  expect(stack.proxy.orders()).toHaveLength(2);

  const marked = await stack.api.operator('POST', '/operator/v1/certificates/renew', { all: true });
  expect(marked.status).toBe(202);
  expect((marked.body as { marked: number }).marked).toBe(2);

  // One slot left this hour: one certificate is issued again.
  const changed = async () => (await Promise.all(domains.map((d) => certificateOf(d.hostname)))).filter((row, i) => serialOf(row) !== serialOf(before[i] as CertificateRow));
  await eventually('one certificate is issued again', async () => (await changed()).length === 1, { timeoutMs: 60_000, explain: () => stack.checkerLog.slice(-10).join('\n') });
  // The other waits for budget while its domain is checked again and again, still marked and serving.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(await changed()).toHaveLength(1);
  expect(stack.proxy.orders()).toHaveLength(3);
  const waiting = (await Promise.all(domains.map((d) => certificateOf(d.hostname)))).filter((row) => row.renewRequestedAt);
  expect(waiting).toHaveLength(1);
  for (const domain of domains) expect((await waitForDomain(stack.api, stack.app.key, domain.id, () => true)).status).toBe('ready');

  // The next hour has room: the one waiting is issued again too, and its mark cleared.
  clock.startWindow(3600);
  await eventually('both certificates are issued again', async () => (await changed()).length === 2, { timeoutMs: 60_000, explain: () => stack.checkerLog.slice(-10).join('\n') });
  // Every order of the new hour is for the certificate that waited (one, unless an order failed and was placed again).
  const laterOrders = stack.proxy.orders().slice(3);
  expect(laterOrders.length).toBeGreaterThanOrEqual(1);
  expect(laterOrders.every((order) => order.identifiers.every((id) => id.value === waiting[0]?.hostname))).toBe(true);
  expect((await Promise.all(domains.map((d) => certificateOf(d.hostname)))).filter((row) => row.renewRequestedAt)).toHaveLength(0);
});
