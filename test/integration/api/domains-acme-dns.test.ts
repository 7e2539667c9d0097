// The third DNS record (DECISIONS §13): with ACME_DNS_ZONE and its two
// companions set, each domain's records end with the CNAME that delegates its
// ACME DNS-01 challenge to that zone, unique to the domain and the same on
// every read; without them, two records exactly as before. Every answer is
// checked against /v1/openapi.json by the test client.
import { randomBytes } from 'node:crypto';
import { startTestApi, type TestApi } from '../../support/api-harness';

const UNLIMITED = { api_requests_per_minute: 100_000, live_domains: 1000 };
const ZONE = 'acme.edge.example.net';
const DELEGATION = {
  ACME_DNS_ZONE: ZONE,
  ACME_DNS_UPDATE_SERVER: '127.0.0.1:5353',
  ACME_DNS_TSIG_KEY: `cds-acme:hmac-sha256:${randomBytes(32).toString('base64')}`,
};

interface Record {
  name: string;
  type: string;
  value: string;
  purpose: string;
  help: string;
}

let api: TestApi;
let plain: TestApi;

beforeAll(async () => {
  [api, plain] = await Promise.all([startTestApi(DELEGATION), startTestApi()]);
});
afterAll(async () => {
  await api?.close();
  await plain?.close();
});

it('adds _acme-challenge CNAME → <32 hex>.<ACME_DNS_ZONE> after the other two, the same on every read and for no other domain', async () => {
  const { key } = await api.createApplication(undefined, UNLIMITED);
  const created = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'shop.customer-moving.com', reference: 'ws_1' } });
  expect(created.status).toBe(201);
  const records = created.body.dns_records as Record[];
  expect(records.map((record) => record.purpose)).toEqual(['ownership', 'routing', 'certificate']);
  expect(records[2]).toMatchObject({ name: '_acme-challenge.shop.customer-moving.com', type: 'CNAME', value: expect.stringMatching(/^[0-9a-f]{32}\.acme\.edge\.example\.net$/) });
  expect(records[2]!.help).toContain(`Publish a CNAME record named _acme-challenge.shop.customer-moving.com with the value ${records[2]!.value} `);

  const id = created.body.id as string;
  expect((await api.request('GET', `/v1/domains/${id}`, { token: key })).body.dns_records).toEqual(records);
  const listed = (await api.request('GET', '/v1/domains', { token: key })).body.items as Array<{ id: string; dns_records: Record[] }>;
  expect(listed.find((domain) => domain.id === id)?.dns_records).toEqual(records);
  const looked = await api.request('GET', '/operator/v1/domains/shop.customer-moving.com', { token: api.operatorToken });
  expect(looked.body.dns_records).toEqual(records);

  const other = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'www.customer-moving.com', reference: 'ws_1' } });
  expect((other.body.dns_records as Record[])[2]!.value).not.toBe(records[2]!.value);
});

it('without the three variables, two records exactly as before', async () => {
  const { key } = await plain.createApplication(undefined, UNLIMITED);
  const created = await plain.request('POST', '/v1/domains', { token: key, body: { hostname: 'shop.customer-staying.com', reference: 'ws_1' } });
  expect(created.status).toBe(201);
  expect((created.body.dns_records as Record[]).map((record) => record.purpose)).toEqual(['ownership', 'routing']);
});
