import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import type { DataStore } from '@cds/data';
import { InternalCa } from './internal-ca';

/** A store whose settings table is a Map: all InternalCa reads and writes. */
function settingsStore(): DataStore {
  const settings = new Map<string, string>();
  const repositories = { settings: { get: async (key: string) => settings.get(key) ?? null, set: async (key: string, value: string) => void settings.set(key, value) } };
  return { transaction: async (work: (r: typeof repositories) => Promise<unknown>) => work(repositories) } as unknown as DataStore;
}

const splitPem = (chain: string) => chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

describe('InternalCa', () => {
  const now = new Date('2026-11-26T08:00:00Z');
  const store = settingsStore();
  const key = randomBytes(32);

  it('issues a P-256 leaf for the hostname, signed by the CA, with the leaf-only extensions', async () => {
    const ca = new InternalCa(store, key, () => now);
    const issued = await ca.issue('shop.example.net');
    const [leafPem, caPem, ...rest] = splitPem(issued.pemChain);
    expect(rest).toEqual([]);
    expect(caPem).toBe((await ca.certificatePem()).trim());
    const leaf = new X509Certificate(leafPem as string);
    const authority = new X509Certificate(caPem as string);
    expect(leaf.verify(authority.publicKey)).toBe(true);
    expect(leaf.checkIssued(authority)).toBe(true);
    expect(leaf.subject).toBe('CN=shop.example.net');
    expect(leaf.subjectAltName).toBe('DNS:shop.example.net');
    expect(leaf.checkHost('shop.example.net')).toBe('shop.example.net');
    expect(leaf.ca).toBe(false);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // extended key usage: serverAuth
    expect(leaf.checkPrivateKey(createPrivateKey(issued.keyPem))).toBe(true);
    expect(leaf.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(new Date(leaf.validFrom)).toEqual(issued.notBefore);
    expect(new Date(leaf.validTo)).toEqual(issued.notAfter);
    expect(issued.notAfter.getTime() - now.getTime()).toBe(90 * 24 * 3600_000);
    expect(leaf.serialNumber).toMatch(/^01[0-9A-F]{30}$/);
  });

  it('gives each leaf its own key and serial number, and a second instance signs with the stored CA', async () => {
    const first = await new InternalCa(store, key, () => now).issue('a.example.net');
    const second = await new InternalCa(store, key, () => now).issue('a.example.net');
    const [leafA, caA] = splitPem(first.pemChain).map((pem) => new X509Certificate(pem));
    const [leafB, caB] = splitPem(second.pemChain).map((pem) => new X509Certificate(pem));
    expect(caB?.fingerprint256).toBe(caA?.fingerprint256);
    expect(leafB?.serialNumber).not.toBe(leafA?.serialNumber);
    expect(first.keyPem).not.toBe(second.keyPem);
    expect(leafB?.verify((caA as X509Certificate).publicKey)).toBe(true);
  });
});
