import type { DnsLookups } from './dns-lookups';
import { observeRouting } from './observe-routing';

/** Lookups that answer every name alike and record which kind was asked. */
function lookups(asked: string[]): DnsLookups {
  return {
    txt: () => Promise.resolve({ records: [] }),
    cnameChain: (name) => {
      asked.push(`cname ${name}`);
      return Promise.resolve({ records: ['edge.example.net'], complete: true });
    },
    addresses: (name) => {
      asked.push(`addresses ${name}`);
      return Promise.resolve({ a: { records: ['203.0.113.10'] }, aaaa: { records: [] } });
    },
  };
}

describe('observeRouting', () => {
  const routing = { edgeTarget: 'edge.example.net', edgeAddresses: ['203.0.113.10'], acmeDnsZone: null };

  it('asks for the A and AAAA answers of an apex domain when the deployment has edge addresses (DECISIONS §12)', async () => {
    const asked: string[] = [];
    expect(await observeRouting(lookups(asked), 'customer.com', routing)).toMatchObject({ status: 'passing' });
    expect(asked).toEqual(['addresses customer.com']);
  });

  it('follows the CNAME chain of a subdomain, and of an apex domain when the deployment has none', async () => {
    const asked: string[] = [];
    expect(await observeRouting(lookups(asked), 'www.customer.com', routing)).toMatchObject({ status: 'passing' });
    expect(await observeRouting(lookups(asked), 'customer.com', { ...routing, edgeAddresses: [], acmeDnsZone: null })).toMatchObject({ status: 'passing' });
    expect(asked).toEqual(['cname www.customer.com', 'cname customer.com']);
  });

  it('fails an apex domain whose answer holds another address with address_mismatch', async () => {
    const outcome = await observeRouting(lookups([]), 'customer.com', { ...routing, edgeAddresses: ['198.51.100.1'], acmeDnsZone: null });
    expect(outcome).toMatchObject({ status: 'failing', errorCode: 'address_mismatch', message: expect.stringContaining('203.0.113.10') });
  });
});
