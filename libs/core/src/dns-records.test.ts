import { acmeDelegationTarget, dnsRecords } from './dns-records';

describe('dnsRecords', () => {
  const token = 'ab'.repeat(32);
  const records = dnsRecords('shop.example.com', token, { edgeTarget: 'edge.localhost', edgeAddresses: [], acmeDnsZone: null });

  it('returns the ownership TXT record, then the routing CNAME record', () => {
    expect(records.map(({ help: _help, ...rest }) => rest)).toEqual([
      { name: '_custom-domain-challenge.shop.example.com', type: 'TXT', value: `custom-domain-verify=${token}`, purpose: 'ownership' },
      { name: 'shop.example.com', type: 'CNAME', value: 'edge.localhost', purpose: 'routing' },
    ]);
  });

  it.each([0, 1])('record %i: help names its type, name and value in one sentence', (i) => {
    const record = records[i]!;
    expect(record.help).toContain(record.type);
    expect(record.help).toContain(`named ${record.name} `);
    expect(record.help).toContain(`value ${record.value} `);
    expect(record.help.trim().match(/\.(\s|$)/g)).toHaveLength(1);
  });
});

describe('dnsRecords of an apex domain (DECISIONS §12)', () => {
  const token = 'cd'.repeat(32);
  const routing = { edgeTarget: 'edge.localhost', edgeAddresses: ['2001:db8::10', '203.0.113.10', '203.0.113.11'], acmeDnsZone: null };
  const records = dnsRecords('customer.com', token, routing);

  it('returns the ownership TXT record, then one A per IPv4 and one AAAA per IPv6 edge address', () => {
    expect(records.map(({ help: _help, ...rest }) => rest)).toEqual([
      { name: '_custom-domain-challenge.customer.com', type: 'TXT', value: `custom-domain-verify=${token}`, purpose: 'ownership' },
      { name: 'customer.com', type: 'A', value: '203.0.113.10', purpose: 'routing' },
      { name: 'customer.com', type: 'A', value: '203.0.113.11', purpose: 'routing' },
      { name: 'customer.com', type: 'AAAA', value: '2001:db8::10', purpose: 'routing' },
    ]);
  });

  it.each([1, 2, 3])('record %i: help names its type, name and value in one sentence', (i) => {
    const record = records[i]!;
    expect(record.help).toContain(`${record.type} record`);
    expect(record.help).toContain(`named ${record.name} `);
    expect(record.help).toContain(`value ${record.value} `);
    expect(record.help.trim().match(/\.(\s|$)/g)).toHaveLength(1);
  });

  it('keeps the CNAME for a subdomain, and for an apex when the deployment has no edge addresses', () => {
    expect(dnsRecords('www.customer.com', token, routing)[1]).toMatchObject({ type: 'CNAME', value: 'edge.localhost' });
    expect(dnsRecords('customer.com', token, { edgeTarget: 'edge.localhost', edgeAddresses: [], acmeDnsZone: null })[1]).toMatchObject({ type: 'CNAME' });
  });
});

describe('dnsRecords with ACME_DNS_ZONE (DECISIONS §13)', () => {
  const token = 'ef'.repeat(32);
  const zone = 'acme.edge.example.net';
  const records = dnsRecords('shop.example.com', token, { edgeTarget: 'edge.localhost', edgeAddresses: ['203.0.113.10'], acmeDnsZone: zone });

  it('adds a third record, after the other two: _acme-challenge CNAME to 32 hex in the zone', () => {
    expect(records.map((record) => record.purpose)).toEqual(['ownership', 'routing', 'certificate']);
    expect(records[2]).toMatchObject({ name: '_acme-challenge.shop.example.com', type: 'CNAME', value: acmeDelegationTarget(token, zone) });
    expect(records[2]!.value).toMatch(/^[0-9a-f]{32}\.acme\.edge\.example\.net$/);
  });

  it('comes last after the address records of an apex domain too', () => {
    expect(dnsRecords('customer.com', token, { edgeTarget: 'edge.localhost', edgeAddresses: ['203.0.113.10'], acmeDnsZone: zone }).map((r) => r.purpose)).toEqual(['ownership', 'routing', 'certificate']);
  });

  it("is the domain's own and the same for its life: derived from its challenge token alone", () => {
    expect(acmeDelegationTarget(token, zone)).toBe(acmeDelegationTarget(token, zone));
    expect(acmeDelegationTarget('01'.repeat(32), zone)).not.toBe(acmeDelegationTarget(token, zone));
    expect(dnsRecords('other.example.com', token, { edgeTarget: 'e', edgeAddresses: [], acmeDnsZone: zone })[2]!.value).toBe(records[2]!.value);
  });

  it('help names its type, name and value in one sentence', () => {
    const record = records[2]!;
    expect(record.help).toContain('CNAME record');
    expect(record.help).toContain(`named ${record.name} `);
    expect(record.help).toContain(`value ${record.value} `);
    expect(record.help.trim().match(/\.(\s|$)/g)).toHaveLength(1);
  });
});
