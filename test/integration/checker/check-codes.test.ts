// The check error codes of DECISIONS §2, each from a DNS, origin or
// certificate state the test builds, seen through GET /v1/domains/{id}. The
// codes of ACME orders (caa_forbids_issuance, certificate_issuance_failed)
// come from acme-e2e and acme-order-cap, against a real Pebble.
import { createHmac, X509Certificate } from 'node:crypto';
import { requiredSetting } from '@cds/config';
import { encryptSecret } from '@cds/core';
import { INTERNAL_CA_SETTINGS, startChecker } from '@cds/checker';
import { silentLogger } from '@cds/logging';
import { InProcessBus } from '@cds/messaging';
import { createThrowawayCa, type ThrowawayCa } from '../../support/throwaway-ca';
import {
  activateOrigin, check, EDGE_TARGET, observedAfter, publishRecords, registerDomain, startCheckerStack, startOrigin, waitForDomain,
  type CheckerStack, type DomainView, type TestOrigin,
} from './checker-stack';

let stack: CheckerStack;
let ca: ThrowawayCa;
let otherCa: ThrowawayCa;
let n = 0;
const host = (label: string) => `${label}-${++n}.shop-${process.pid}.com`;

const failingWith = (type: string, code: string) => (d: DomainView) => check(d, type).status === 'failing' && check(d, type).error_code === code;

beforeAll(async () => {
  ca = createThrowawayCa('Origin CA');
  otherCa = createThrowawayCa('Unknown CA');
  stack = await startCheckerStack({ ORIGIN_CA_BUNDLE: ca.caFile });
});

afterAll(async () => {
  await stack?.close();
  ca?.remove();
  otherCa?.remove();
});

describe('check error codes', () => {
  test('a stored internal CA that cannot be unsealed with DATA_ENCRYPTION_KEY stops a checker from starting', async () => {
    // The CA is loaded when a checker starts (the running one holds it already): a broken setup fails the start,
    // not the first order. certificate_issuance_failed itself comes from ACME orders (acme-e2e, acme-order-cap).
    const { api } = stack;
    const stored = await api.store.run(async (r) => [await r.settings.get(INTERNAL_CA_SETTINGS.certificate), await r.settings.get(INTERNAL_CA_SETTINGS.keySealed)]);
    expect(stored).toEqual([expect.stringContaining('BEGIN CERTIFICATE'), expect.any(String)]);
    const [certificate, keySealed] = stored as [string, string];
    await api.store.run(async (r) => {
      await r.settings.set(INTERNAL_CA_SETTINGS.certificate, ca.caPem);
      await r.settings.set(INTERNAL_CA_SETTINGS.keySealed, encryptSecret('not a key', Buffer.alloc(32, 7), { purpose: 'setting', id: INTERNAL_CA_SETTINGS.keySealed }));
    });
    const bus = new InProcessBus();
    try {
      await expect(startChecker({ config: api.config, logger: silentLogger, store: api.store, bus })).rejects.toThrow(
        /^The sealed setting internal_ca_key_sealed was sealed with data encryption key [0-9a-f]{8}, which is not configured\.$/,
      );
    } finally {
      await api.store.run(async (r) => {
        await r.settings.set(INTERNAL_CA_SETTINGS.certificate, certificate);
        await r.settings.set(INTERNAL_CA_SETTINGS.keySealed, keySealed);
      });
      await bus.close();
    }
  });

  test('txt_record_not_found, cname_not_found, no_active_origin; the certificate waits', async () => {
    const { api } = stack;
    const { key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
    const domain = await registerDomain(api, key, host('bare'));
    const seen = await waitForDomain(api, key, domain.id, (d) => check(d, 'ownership').status === 'failing');
    expect(check(seen, 'ownership')).toEqual({
      type: 'ownership', status: 'failing', error_code: 'txt_record_not_found', message: expect.stringContaining(`_custom-domain-challenge.${domain.hostname}`),
      observed_at: expect.any(String), next_check_at: expect.any(String),
    });
    expect(check(seen, 'routing')).toMatchObject({ status: 'failing', error_code: 'cname_not_found' });
    expect(check(seen, 'origin')).toMatchObject({ status: 'failing', error_code: 'no_active_origin' });
    expect(check(seen, 'certificate')).toEqual({
      type: 'certificate', status: 'pending', error_code: null, message: expect.stringMatching(/ownership and routing/), observed_at: null, next_check_at: null,
    });
    expect(seen.status).toBe('pending_dns');
    expect(Date.parse(check(seen, 'ownership').next_check_at as string)).toBeGreaterThan(Date.parse(check(seen, 'ownership').observed_at as string));
  });

  test('txt_record_mismatch and cname_target_mismatch say what was found', async () => {
    const { api, dns } = stack;
    const { key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
    const domain = await registerDomain(api, key, host('wrong'));
    await dns.setTxt(`_custom-domain-challenge.${domain.hostname}`, 'custom-domain-verify=0000');
    await dns.setCname(domain.hostname, 'Other.Example.NET');
    const seen = await waitForDomain(api, key, domain.id, failingWith('ownership', 'txt_record_mismatch'));
    expect(check(seen, 'ownership').message).toContain('"custom-domain-verify=0000"');
    expect(check(seen, 'routing')).toMatchObject({ status: 'failing', error_code: 'cname_target_mismatch' });
    expect(check(seen, 'routing').message).toContain(`CNAME points to other.example.net, expected ${EDGE_TARGET}`);
  });

  test('routing follows a CNAME chain case-insensitively, up to 8 hops', async () => {
    const { api, dns } = stack;
    const { key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
    // The records exist before the domains: the first check runs as soon as a domain is created.
    const [chainedName, longName] = [host('chain'), host('long')];
    await dns.setCname(chainedName, `hop1.${chainedName}`);
    await dns.setCname(`hop1.${chainedName}`, EDGE_TARGET.toUpperCase());
    for (let hop = 0; hop < 9; hop++) await dns.setCname(hop === 0 ? longName : `h${hop}.${longName}`, `h${hop + 1}.${longName}`);
    await dns.setCname(`h9.${longName}`, EDGE_TARGET);
    const chained = await registerDomain(api, key, chainedName);
    const long = await registerDomain(api, key, longName);
    const passing = await waitForDomain(api, key, chained.id, (d) => check(d, 'routing').status !== 'pending');
    expect(check(passing, 'routing')).toMatchObject({ status: 'passing', error_code: null, message: null, next_check_at: null });
    const failing = await waitForDomain(api, key, long.id, (d) => check(d, 'routing').status !== 'pending');
    expect(check(failing, 'routing')).toMatchObject({ status: 'failing', error_code: 'cname_target_mismatch', message: expect.stringContaining('8 hops') });
  });

  test('the CNAME chain boundary: exactly 8 hops reach the edge target; 9 hops are longer than 8', async () => {
    const { api, dns } = stack;
    const { key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
    // `hops` CNAME records: name -> n1 -> ... -> n<hops-1> -> EDGE_TARGET.
    const chain = async (name: string, hops: number) => {
      const names = [name, ...Array.from({ length: hops - 1 }, (_, i) => `n${i + 1}.${name}`)];
      for (const [i, from] of names.entries()) await dns.setCname(from, names[i + 1] ?? EDGE_TARGET);
    };
    const [eightName, nineName] = [host('eight'), host('nine')];
    await chain(eightName, 8);
    await chain(nineName, 9);
    const eight = await registerDomain(api, key, eightName);
    const nine = await registerDomain(api, key, nineName);
    const passing = await waitForDomain(api, key, eight.id, (d) => check(d, 'routing').status !== 'pending');
    expect(check(passing, 'routing')).toMatchObject({ status: 'passing', error_code: null, message: null });
    const failing = await waitForDomain(api, key, nine.id, (d) => check(d, 'routing').status !== 'pending');
    expect(check(failing, 'routing')).toMatchObject({
      status: 'failing', error_code: 'cname_target_mismatch',
      message: `The CNAME chain of ${nineName} is longer than 8 hops without reaching ${EDGE_TARGET}.`,
    });
  });

  test('certificate_expired: an expired certificate while ownership fails', async () => {
    const { api } = stack;
    const { key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
    const domain = await registerDomain(api, key, host('expired'));
    const past = new Date(Date.now() - 3600_000);
    await api.store.run((r) => r.certificates.save({
      hostname: domain.hostname, domainId: domain.id, issuer: 'internal', pemChain: ca.leaf.cert, keySealed: 'sealed',
      notBefore: new Date(past.getTime() - 86_400_000), notAfter: past, createdAt: past,
    }));
    const seen = await waitForDomain(api, key, domain.id, failingWith('certificate', 'certificate_expired'));
    expect(check(seen, 'certificate').message).toContain(past.toISOString());
  });

  describe('a ready domain and its origin', () => {
    let origin: TestOrigin;
    let domain: DomainView;
    let key: string;
    let slug: string;

    beforeAll(async () => {
      origin = await startOrigin(ca.leaf);
      ({ slug, key } = await stack.api.createApplication(undefined, { api_requests_per_minute: 100_000 }));
      await activateOrigin(stack.api, slug, origin.url, '/health');
    });
    afterAll(() => origin.close());

    test('all four checks pass: an internal certificate for the hostname, a probe with Host and a fresh assertion', async () => {
      const { api, dns } = stack;
      domain = await registerDomain(api, key, host('ready'));
      await publishRecords(dns, domain);
      const seen = await waitForDomain(api, key, domain.id, (d) => d.status === 'ready');
      for (const c of seen.checks) expect(c).toMatchObject({ status: 'passing', error_code: null, message: null, observed_at: expect.any(String), next_check_at: null });

      const stored = await api.store.run((r) => r.certificates.find(domain.hostname));
      const [leafPem, caPem] = (stored?.pemChain ?? '').split(/(?<=-----END CERTIFICATE-----)\s*/).filter(Boolean);
      const leaf = new X509Certificate(leafPem as string);
      const internalCa = new X509Certificate(caPem as string);
      expect(leaf.checkHost(domain.hostname)).toBe(domain.hostname);
      expect(leaf.verify(internalCa.publicKey)).toBe(true);
      expect(leaf.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      expect(stored?.keySealed).not.toContain('PRIVATE KEY');

      const probe = origin.requests.find((req) => req.host === domain.hostname);
      expect(probe?.path).toBe('/health');
      const [header, claims, signature] = (probe?.assertion ?? '').split('.');
      const expected = createHmac('sha256', requiredSetting(api.config, 'assertionDeploymentKey')).update(`${header}.${claims}`).digest('base64url');
      expect(signature).toBe(expected);
      const decode = (part: string | undefined) => JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      expect(decode(header)).toMatchObject({ alg: 'HS256', kid: api.config.assertionDeploymentKid });
      const payload = decode(claims);
      expect(payload).toMatchObject({ iss: 'custom-domain-service', aud: slug });
      expect(Number(payload.exp) - Number(payload.iat)).toBe(300);
      expect(payload).toMatchObject({ sub: domain.id, hostname: domain.hostname, reference: `ref-${domain.hostname}` });
    });

    test('origin_error_status: the origin answers 503', async () => {
      origin.answer = 503;
      const seen = await waitForDomain(stack.api, key, domain.id, failingWith('origin', 'origin_error_status'));
      expect(check(seen, 'origin').message).toContain('503');
      expect(seen.status).toBe('attention_required');
      origin.answer = 200;
    });

    test('origin_tls_error: the origin shows a certificate from an untrusted CA', async () => {
      origin.setCertificate(otherCa.leaf);
      await waitForDomain(stack.api, key, domain.id, failingWith('origin', 'origin_tls_error'));
    });

    test('origin_unreachable: nothing listens any more', async () => {
      await origin.close();
      const seen = await waitForDomain(stack.api, key, domain.id, failingWith('origin', 'origin_unreachable'));
      expect(check(seen, 'origin').message).toContain(new URL(origin.url).host);
      expect(observedAfter(seen.created_at as string)(seen)).toBe(true);
    });
  });
});
