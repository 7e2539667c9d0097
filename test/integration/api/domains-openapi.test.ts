// GET /v1/openapi.json: an OpenAPI 3.1.0 document that describes every path of
// the interface specification.
import Ajv2020 from 'ajv/dist/2020';
import { startTestApi, type TestApi } from '../../support/api-harness';

// Every (method, path) of the interface specification's endpoint tables, and the operator's domain lookup (DECISIONS §15).
const SPEC_OPERATIONS: Array<[string, string]> = [
  ['get', '/v1/domains'],
  ['post', '/v1/domains'],
  ['get', '/v1/domains/{domain_id}'],
  ['delete', '/v1/domains/{domain_id}'],
  ['post', '/v1/domains/{domain_id}/checks'],
  ['get', '/v1/webhooks'],
  ['post', '/v1/webhooks'],
  ['delete', '/v1/webhooks/{webhook_id}'],
  ['post', '/v1/webhooks/{webhook_id}/rotate'],
  ['get', '/v1/webhooks/{webhook_id}/deliveries'],
  ['post', '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay'],
  ['post', '/v1/webhooks/{webhook_id}/replay'],
  ['get', '/operator/v1/applications'],
  ['post', '/operator/v1/applications'],
  ['get', '/operator/v1/applications/{slug}'],
  ['patch', '/operator/v1/applications/{slug}'],
  ['delete', '/operator/v1/applications/{slug}'],
  ['get', '/operator/v1/applications/{slug}/traffic'],
  ['get', '/operator/v1/applications/{slug}/origins'],
  ['post', '/operator/v1/applications/{slug}/origins'],
  ['post', '/operator/v1/applications/{slug}/origins/{origin_id}/verify'],
  ['post', '/operator/v1/applications/{slug}/origins/{origin_id}/activate'],
  ['post', '/operator/v1/applications/{slug}/origins/{origin_id}/retire'],
  ['delete', '/operator/v1/applications/{slug}/origins/{origin_id}'],
  ['get', '/operator/v1/applications/{slug}/assertion-keys'],
  ['post', '/operator/v1/applications/{slug}/assertion-keys'],
  ['post', '/operator/v1/applications/{slug}/assertion-keys/{key_id}/revoke'],
  ['get', '/operator/v1/applications/{slug}/credentials'],
  ['post', '/operator/v1/applications/{slug}/credentials'],
  ['post', '/operator/v1/applications/{slug}/credentials/{credential_id}/rotate'],
  ['post', '/operator/v1/applications/{slug}/credentials/{credential_id}/revoke'],
  ['delete', '/operator/v1/applications/{slug}/credentials/{credential_id}'],
  ['put', '/operator/v1/token'],
  ['get', '/operator/v1/backup'],
  ['get', '/operator/v1/doctor'],
  ['get', '/operator/v1/domains/{hostname}'],
  ['post', '/operator/v1/certificates/renew'],
];

type JsonObject = Record<string, unknown>;
type Operation = { security?: Array<Record<string, unknown>>; responses?: JsonObject; parameters?: Array<{ name: string; in: string }> };

let api: TestApi;
let doc: JsonObject;

beforeAll(async () => {
  api = await startTestApi();
  const res = await fetch(`${api.url}/v1/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await res.json()) as JsonObject;
});
afterAll(() => api?.close());

const operation = (method: string, path: string) => ((doc.paths as Record<string, Record<string, Operation>>)[path] ?? {})[method];

describe('/v1/openapi.json', () => {
  it('is OpenAPI 3.1.0, version 1.0.0, served without a credential', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect((doc.info as JsonObject).version).toBe('1.0.0');
  });

  it.each(SPEC_OPERATIONS)('describes %s %s', (method, path) => {
    const op = operation(method, path);
    expect(op).toBeDefined();
    expect(Object.keys(op?.responses ?? {}).length).toBeGreaterThan(0);
  });

  it('names the operator scheme OperatorToken and uses it on every operator operation', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, JsonObject> }).securitySchemes;
    expect(schemes.OperatorToken).toBeDefined();
    for (const [method, path] of SPEC_OPERATIONS.filter(([, p]) => p.startsWith('/operator/v1'))) {
      expect(operation(method, path)?.security).toEqual([{ OperatorToken: [] }]);
    }
    for (const [method, path] of SPEC_OPERATIONS.filter(([, p]) => p.startsWith('/v1'))) {
      const security = operation(method, path)?.security ?? [];
      expect(security.length).toBeGreaterThan(0);
      expect(security.some((s) => 'OperatorToken' in s)).toBe(false);
    }
  });

  it('documents the list query, the Idempotency-Key header and the create status codes', () => {
    const listParams = (operation('get', '/v1/domains')?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name).sort();
    expect(listParams).toEqual(['include_deleted', 'limit', 'offset', 'reference', 'status']);
    const createParams = operation('post', '/v1/domains')?.parameters ?? [];
    expect(createParams.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')).toBe(true);
    expect(Object.keys(operation('post', '/v1/domains')?.responses ?? {})).toEqual(expect.arrayContaining(['200', '201', '401', '403', '409', '413', '422', '429']));
    expect(Object.keys(operation('post', '/v1/domains/{domain_id}/checks')?.responses ?? {})).toEqual(expect.arrayContaining(['202', '404', '409', '429']));
  });

  it('describes the metadata rules: the empty string is a value, nested values and a 33rd key are not', () => {
    const body = (operation('post', '/v1/domains') as { requestBody: { content: Record<string, { schema: JsonObject }> } }).requestBody;
    const validate = new Ajv2020({ strict: false }).compile(body.content['application/json']?.schema ?? {});
    const create = (metadata: unknown) => validate({ hostname: 'shop.example.com', reference: 'ws', metadata });
    expect(create({ note: '', plan: 'pro', seats: 3, trial: false, owner: null })).toBe(true);
    expect(create({ ['🔑'.repeat(64)]: '✓'.repeat(512) })).toBe(true);
    expect(create({ note: 'x'.repeat(513) })).toBe(false);
    expect(create({ '': 'v' })).toBe(false);
    expect(create({ nested: { a: 1 } })).toBe(false);
    expect(create(Object.fromEntries(Array.from({ length: 33 }, (_v, i) => [`k${i}`, i])))).toBe(false);
  });

  it('is what the harness checks every answer against', async () => {
    const res = await api.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc);
  });
});
