// External Account Binding (DECISIONS §14) against a Pebble that registers
// accounts only with it: with a wrong HMAC key the certificate check says
// which binding the CA refused and the checker goes on checking; with the
// right one the account is registered with the binding and the certificate
// issued.
import { randomBytes } from 'node:crypto';
import { startChecker, type Checker } from '@cds/checker';
import { silentLogger } from '@cds/logging';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { check, publishRecords, registerDomain, waitForDomain } from './checker-stack';

const KID = 'kid-1';
const HMAC_KEY = randomBytes(32).toString('base64url');
const WRONG_KEY = randomBytes(32).toString('base64url');

let stack: AcmeStack;
let checker: Checker | null = null;

beforeAll(async () => {
  stack = await startAcmeStack({ cas: [{ eab: { [KID]: HMAC_KEY } }], env: { ACME_EAB_KID_1: KID, ACME_EAB_HMAC_KEY_1: WRONG_KEY } });
});

afterAll(async () => {
  await checker?.stop();
  await stack?.stop();
});

/** The newAccount registrations Pebble answered (not the look-ups of an existing account), with their answer's status. */
function registrations(): Array<{ status: number | undefined; binding: unknown }> {
  return stack.proxy.forwarded
    .filter((f) => f.method === 'POST' && f.path.endsWith('/sign-me-up') && f.payload !== null && f.payload.onlyReturnExisting !== true)
    .map((f) => ({ status: f.answer?.status, binding: f.payload?.externalAccountBinding }));
}

/** The `kid` in the protected header of a binding's JWS. */
const bindingKid = (binding: unknown) =>
  (JSON.parse(Buffer.from(String((binding as { protected: string }).protected), 'base64url').toString('utf8')) as { kid?: string }).kid;

test('a wrong HMAC key: the certificate check names the binding the CA refused, and checks go on', async () => {
  const domain = await registerDomain(stack.api, stack.app.key, `wrong-key.eab-${process.pid}.com`);
  await publishRecords(stack.dns, domain);
  const failed = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => check(d, 'certificate').status === 'failing', 60_000);
  const { message, error_code: code, observed_at: at } = check(failed, 'certificate');
  expect(code).toBe('certificate_issuance_failed');
  expect(message).toContain(`The ACME account at ${stack.proxy.directoryUrl} could not be found or registered with the External Account Binding of key id ${KID} (check its HMAC key): `);
  // The binding was sent, signed for the configured key id, and refused.
  expect(registrations().length).toBeGreaterThanOrEqual(1);
  for (const registration of registrations()) {
    expect(registration.status).not.toBe(201);
    expect(bindingKid(registration.binding)).toBe(KID);
  }
  // No crash: the checker checks the domain again, with the same message.
  const again = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => (check(d, 'certificate').observed_at ?? '') > (at ?? ''), 30_000);
  expect(check(again, 'certificate')).toMatchObject({ status: 'failing', message });
});

test('the right HMAC key: the account is registered with the binding and the certificate issued', async () => {
  await stack.checker.stop();
  const config = { ...stack.api.config, acmeDirectories: [{ url: stack.proxy.directoryUrl, eab: { kid: KID, hmacKey: HMAC_KEY }, caaIdentities: null }] };
  checker = await startChecker({ config, logger: silentLogger, store: stack.api.store, bus: stack.bus, pollIntervalMs: 100, afterCommit: () => stack.relay.kick() });
  const domain = await registerDomain(stack.api, stack.app.key, `right-key.eab-${process.pid}.com`);
  await publishRecords(stack.dns, domain);
  await waitForDomain(stack.api, stack.app.key, domain.id, (d) => d.status === 'ready', 60_000);
  const registered = registrations().filter((r) => r.status === 201);
  expect(registered).toHaveLength(1);
  expect(bindingKid(registered[0]?.binding)).toBe(KID);
  const row = await stack.api.store.run((r) => r.certificates.find(domain.hostname));
  expect(row?.directoryUrl).toBe(stack.proxy.directoryUrl);
});
