import { dnsRecords } from './dns-records';

describe('dnsRecords', () => {
  const token = 'ab'.repeat(32);
  const records = dnsRecords('shop.example.com', token, 'edge.localhost');

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
