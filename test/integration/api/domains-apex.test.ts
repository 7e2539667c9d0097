// Apex domains and redirect_to at registration (DECISIONS §12): with
// EDGE_ADDRESSES set, a registrable domain is accepted and asked for one A or
// AAAA record per edge address; without it, apex_not_supported as before.
// redirect_to must name another live domain of the same application. Every
// answer is checked against /v1/openapi.json by the test client.
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';

const UNLIMITED = { api_requests_per_minute: 100_000, live_domains: 1000 };
const EDGE_ADDRESSES = '203.0.113.10, 2001:DB8::10,198.51.100.7,203.0.113.10';

let api: TestApi;
let plain: TestApi;
let key: string;
let otherKey: string;

beforeAll(async () => {
  [api, plain] = await Promise.all([startTestApi({ EDGE_ADDRESSES }), startTestApi()]);
  key = (await api.createApplication(undefined, UNLIMITED)).key;
  otherKey = (await api.createApplication(undefined, UNLIMITED)).key;
});
afterAll(async () => {
  await api?.close();
  await plain?.close();
});

const create = (body: unknown, token = key, on: TestApi = api) => on.request('POST', '/v1/domains', { token, body });

describe('apex domains', () => {
  it('accepts a registrable domain: the ownership TXT, then one A per IPv4 and one AAAA per IPv6 edge address, each with its help', async () => {
    const res = await create({ hostname: 'Customer-Apex.COM.', reference: 'ws_1' });
    expect(res.status).toBe(201);
    expect(res.body.hostname).toBe('customer-apex.com');
    const records = res.body.dns_records as Array<{ name: string; type: string; value: string; purpose: string; help: string }>;
    expect(records.map(({ help: _help, ...rest }) => rest)).toEqual([
      { name: '_custom-domain-challenge.customer-apex.com', type: 'TXT', value: expect.stringMatching(/^custom-domain-verify=[0-9a-f]{64}$/), purpose: 'ownership' },
      { name: 'customer-apex.com', type: 'A', value: '203.0.113.10', purpose: 'routing' },
      { name: 'customer-apex.com', type: 'A', value: '198.51.100.7', purpose: 'routing' },
      { name: 'customer-apex.com', type: 'AAAA', value: '2001:db8::10', purpose: 'routing' },
    ]);
    for (const record of records.slice(1)) expect(record.help).toContain(`Publish an ${record.type} record named customer-apex.com with the value ${record.value} `);
    // The same records on every read.
    expect((await api.request('GET', `/v1/domains/${res.body.id as string}`, { token: key })).body.dns_records).toEqual(records);
  });

  it('keeps the CNAME record for a subdomain', async () => {
    const res = await create({ hostname: 'www.customer-apex.com', reference: 'ws_1' });
    expect(res.status).toBe(201);
    expect(res.body.dns_records[1]).toMatchObject({ type: 'CNAME', value: 'edge.example.net', purpose: 'routing' });
    expect(res.body.dns_records).toHaveLength(2);
  });

  it('still refuses a public suffix and the edge\'s own domain', async () => {
    expectError(await create({ hostname: 'co.uk', reference: 'ws' }), 422, 'invalid_hostname');
    expectError(await create({ hostname: 'example.net', reference: 'ws' }), 422, 'invalid_hostname');
  });

  it('without EDGE_ADDRESSES, answers apex_not_supported exactly as before', async () => {
    const app = await plain.createApplication(undefined, UNLIMITED);
    const res = await create({ hostname: 'customer-apex.com', reference: 'ws' }, app.key, plain);
    const details = expectError(res, 422, 'apex_not_supported');
    expect(details).toEqual({ field: 'hostname' });
    expect(res.body.error.message).toBe('The hostname "customer-apex.com" is an apex (registrable) domain, which cannot carry a CNAME record; register a subdomain such as www.customer-apex.com.');
  });
});

describe('redirect_to', () => {
  it('is null when unset, and names the target when it is a live domain of the same application', async () => {
    const target = await create({ hostname: 'www.redirect-one.com', reference: 'ws_2' });
    expect(target.status).toBe(201);
    expect(target.body.redirect_to).toBeNull();
    const apex = await create({ hostname: 'redirect-one.com', reference: 'ws_2', redirect_to: 'WWW.Redirect-One.com.' });
    expect(apex.status).toBe(201);
    expect(apex.body.redirect_to).toBe('www.redirect-one.com');
    expect((await api.request('GET', `/v1/domains/${apex.body.id as string}`, { token: key })).body.redirect_to).toBe('www.redirect-one.com');
    expect((await create({ hostname: 'shop.redirect-one.com', reference: 'ws_2', redirect_to: null })).body.redirect_to).toBeNull();
  });

  it('refuses a target of another application, an unknown, a deleted or an invalid name, and the domain itself with 422 validation_error on redirect_to', async () => {
    const foreign = await create({ hostname: 'www.redirect-two.com', reference: 'ws_3' }, otherKey);
    expect(foreign.status).toBe(201);
    const gone = await create({ hostname: 'old.redirect-two.com', reference: 'ws_3' });
    expect((await api.request('DELETE', `/v1/domains/${gone.body.id as string}`, { token: key })).status).toBe(202);
    for (const redirectTo of ['www.redirect-two.com', 'nowhere.redirect-two.com', 'old.redirect-two.com', 'not a name', 'redirect-two.com']) {
      const res = await create({ hostname: 'redirect-two.com', reference: 'ws_3', redirect_to: redirectTo });
      const [issue] = expectValidationError(res, 'body', 'redirect_to');
      expect(issue?.field).toBe('redirect_to');
      expect(res.body.error.details.field).toBe('redirect_to');
    }
    // The foreign answer says nothing more than the unknown one.
    const [foreignIssue] = expectValidationError(await create({ hostname: 'redirect-two.com', reference: 'ws_3', redirect_to: 'www.redirect-two.com' }), 'body', 'redirect_to');
    expect(foreignIssue?.message).toBe('redirect_to: no live domain of this application has the hostname www.redirect-two.com.');
    expectValidationError(await create({ hostname: 'redirect-two.com', reference: 'ws_3', redirect_to: 42 }), 'body', 'redirect_to');
    // Nothing was registered by the refusals.
    expect((await api.request('GET', '/v1/domains?reference=ws_3', { token: key })).body.items).toHaveLength(0);
  });
});
