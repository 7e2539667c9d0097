import type { CertificateRow, RecentRun } from '@cds/data';
import { leafIdentity, toCertificateResource, toCheckRunResource, toDomainLookupResource } from './domain-lookup.mapper';

// Made with openssl (serial 0x0a1b2c3d4e5f60718293); `openssl x509 -noout -serial -fingerprint -sha256` gives the values below.
const LEAF = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBgTCCASegAwIBAgIKChssPU5fYHGCkzAKBggqhkjOPQQDAjAbMRkwFwYDVQQD',
  'DBBzaG9wLmV4YW1wbGUuY29tMB4XDTI2MTEyODAxNTMxMloXDTI3MDIyNjAxNTMx',
  'MlowGzEZMBcGA1UEAwwQc2hvcC5leGFtcGxlLmNvbTBZMBMGByqGSM49AgEGCCqG',
  'SM49AwEHA0IABDFf8Pz2Inn2/Icds/e+x7FMPPmK3XIv0z2PFB15qltcBxoymybp',
  'KQRyoZRdfUrTg4Lqj4HxbiQ+fUpqboy5dTKjUzBRMB0GA1UdDgQWBBSIMSz80Rnx',
  'rpsqpB2VstXmTyXvNTAfBgNVHSMEGDAWgBSIMSz80RnxrpsqpB2VstXmTyXvNTAP',
  'BgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQCyCX+w9g0nbbsIeJAG',
  'pCOaqgQy5eUZPYDHyj+Bb6jtFwIgeROyzXIFb1ta8NVDdnrD2JaoaTE9h0+PXCUy',
  'RDYztwE=',
  '-----END CERTIFICATE-----',
].join('\n');
const OTHER = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBaDCCAQ6gAwIBAgIBBzAKBggqhkjOPQQDAjATMREwDwYDVQQDDAhPdGhlciBD',
  'QTAeFw0yNjExMjgwMTUzMTRaFw0yNzAyMjYwMTUzMTRaMBMxETAPBgNVBAMMCE90',
  'aGVyIENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEkkBiZ9hymyqUWrf4toEb',
  '8KhTriHQhMZ4VRSHb1lh9UQeVa0eVXXDSkZqgi2kRhK9E93GITT+v9oykcEUvxTl',
  'V6NTMFEwHQYDVR0OBBYEFFjfBKUo5A07PXuqNETmu0/WlM5MMB8GA1UdIwQYMBaA',
  'FFjfBKUo5A07PXuqNETmu0/WlM5MMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0E',
  'AwIDSAAwRQIhAJFXzX2uNZPNu2/b7hORXNnHXevDkdMmF6yiQG7dym2lAiA3DdVN',
  'jiOm411uT5kvAynnIuSrUW1DNyor6L80PTmV9Q==',
  '-----END CERTIFICATE-----',
].join('\n');
const LEAF_SERIAL = '0a1b2c3d4e5f60718293';
const LEAF_SHA256 = 'c228900406a2acefd3bbc40832bfbb835e50ccfac49f8eacf6f9b9a177b6e856';

const DIRECTORY = 'https://acme.example.net/directory';

function aCertificate(overrides: Partial<CertificateRow> = {}): CertificateRow {
  return {
    hostname: 'shop.example.com', domainId: 'd1', issuer: 'acme', pemChain: `${LEAF}\n${OTHER}\n`, keySealed: 'sealed',
    notBefore: new Date('2026-01-01T00:00:00.000Z'), notAfter: new Date('2026-04-01T00:00:00.000Z'), createdAt: new Date('2026-01-01T00:00:05.000Z'),
    ...overrides,
  };
}

describe('leafIdentity', () => {
  it("reads the first certificate of the chain: its serial and the SHA-256 of its DER, lowercase hex", () => {
    expect(leafIdentity(`${LEAF}\n${OTHER}\n`)).toEqual({ serial: LEAF_SERIAL, fingerprintSha256: LEAF_SHA256 });
    expect(leafIdentity(OTHER)?.serial).toBe('07');
  });

  it('is null for a chain it cannot read', () => {
    expect(leafIdentity('not a certificate')).toBeNull();
  });
});

describe('toCertificateResource', () => {
  it('names the ACME directory of an acme certificate and renews after two thirds of its lifetime', () => {
    expect(toCertificateResource(aCertificate(), DIRECTORY)).toEqual({
      issuer: 'acme',
      directory_url: DIRECTORY,
      serial: LEAF_SERIAL,
      not_before: '2026-01-01T00:00:00.000Z',
      not_after: '2026-04-01T00:00:00.000Z',
      renewal_after: '2026-03-02T00:00:00.000Z', // 90 days: after 60
      fingerprint_sha256: LEAF_SHA256,
    });
  });

  it('names the directory that issued it when the row keeps one', () => {
    const other = 'https://acme.zerossl.com/v2/DV90';
    expect(toCertificateResource(aCertificate({ directoryUrl: other }), DIRECTORY).directory_url).toBe(other);
    expect(toCertificateResource(aCertificate({ directoryUrl: null }), DIRECTORY).directory_url).toBe(DIRECTORY);
  });

  it('has no directory for an internal certificate, whatever its lifetime', () => {
    const sixDays = aCertificate({ issuer: 'internal', notBefore: new Date('2026-01-01T00:00:00.000Z'), notAfter: new Date('2026-01-07T00:00:00.000Z') });
    expect(toCertificateResource(sixDays, DIRECTORY)).toMatchObject({ issuer: 'internal', directory_url: null, renewal_after: '2026-01-05T00:00:00.000Z' });
  });

  it('keeps the dates of a chain it cannot read, without serial and fingerprint', () => {
    expect(toCertificateResource(aCertificate({ pemChain: 'garbage' }), DIRECTORY)).toMatchObject({ serial: null, fingerprint_sha256: null, not_after: '2026-04-01T00:00:00.000Z' });
  });
});

describe('toCheckRunResource and toDomainLookupResource', () => {
  const run: RecentRun = {
    slot: 3,
    startedAt: new Date('2026-05-01T10:00:00.123Z'),
    durationMs: 842,
    trigger: 'confirm',
    statusBefore: 'ready',
    statusAfter: 'ready',
    checks: [
      { type: 'ownership', status: 'passing', errorCode: null, message: null },
      { type: 'routing', status: 'failing', errorCode: 'cname_not_found', message: 'No CNAME.' },
      { type: 'certificate', status: 'passing', errorCode: null, message: 'Valid until 2026-08-01.' },
      { type: 'origin', status: 'passing', errorCode: null, message: null },
    ],
  };

  it('writes a run as the contract does, without its slot', () => {
    expect(toCheckRunResource(run)).toEqual({
      started_at: '2026-05-01T10:00:00.123Z',
      duration_ms: 842,
      trigger: 'confirm',
      checks: [
        { type: 'ownership', status: 'passing', error_code: null, message: null },
        { type: 'routing', status: 'failing', error_code: 'cname_not_found', message: 'No CNAME.' },
        { type: 'certificate', status: 'passing', error_code: null, message: 'Valid until 2026-08-01.' },
        { type: 'origin', status: 'passing', error_code: null, message: null },
      ],
      status_before: 'ready',
      status_after: 'ready',
    });
  });

  it('adds the slug, the certificate and the runs, in the order given, to the domain resource', () => {
    const domain = {
      id: 'd1', hostname: 'shop.example.com', reference: 'ws', status: 'ready' as const, dns_records: [], checks: [], metadata: {}, redirect_to: null,
      created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', deleted_at: null,
    };
    const older = { ...run, startedAt: new Date('2026-05-01T09:59:30.000Z'), trigger: 'schedule' as const };
    const resource = toDomainLookupResource(domain, 'acme', null, [run, older]);
    expect(Object.keys(resource)).toEqual([...Object.keys(domain), 'application', 'certificate', 'recent_runs']);
    expect(resource).toMatchObject({ ...domain, application: 'acme', certificate: null });
    expect(resource.recent_runs.map((r) => r.trigger)).toEqual(['confirm', 'schedule']);
  });
});
