import { CustomDomainOperatorClient } from './operator-client';
import type { FetchLike } from './transport';

function recordingFetch(status: number, body: unknown): { fetch: FetchLike; sent: Array<{ url: string; init: RequestInit }> } {
  const sent: Array<{ url: string; init: RequestInit }> = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, init });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, sent };
}

test('lookup sends the operator token, the hostname as one path segment and include_deleted when asked', async () => {
  const { fetch, sent } = recordingFetch(200, { hostname: 'xn--bcher-kva.example.com', application: 'acme', recent_runs: [] });
  const operator = new CustomDomainOperatorClient({ baseUrl: 'https://ops.example.com/', operatorToken: 'op-token', fetch });
  await expect(operator.domains.lookup('Bücher.example.com.')).resolves.toMatchObject({ application: 'acme' });
  await operator.domains.lookup('shop.example.com', { includeDeleted: true });
  expect(sent.map((s) => `${s.init.method} ${s.url}`)).toEqual([
    'GET https://ops.example.com/operator/v1/domains/B%C3%BCcher.example.com.',
    'GET https://ops.example.com/operator/v1/domains/shop.example.com?include_deleted=true',
  ]);
  expect((sent[0]!.init.headers as Record<string, string>).authorization).toBe('Bearer op-token');
});

test('an unknown hostname is an ApiError; a missing token is refused at once', async () => {
  const { fetch } = recordingFetch(404, { error: { code: 'domain_not_found', message: 'No live domain has the hostname x.example.com.', details: { hostname: 'x.example.com' } } });
  const operator = new CustomDomainOperatorClient({ baseUrl: 'https://ops.example.com', operatorToken: 't', fetch });
  await expect(operator.domains.lookup('x.example.com')).rejects.toMatchObject({ status: 404, code: 'domain_not_found', details: { hostname: 'x.example.com' } });
  expect(() => new CustomDomainOperatorClient({ baseUrl: 'https://ops.example.com', operatorToken: '' })).toThrow('operatorToken is required');
});
