import { routeMatcher } from './route-template';

describe('routeMatcher', () => {
  const match = routeMatcher(['/v1/domains', '/v1/domains/{domain_id}', '/v1/domains/{domain_id}/checks', '/v1/domains/export', '/v1/openapi.json']);

  it('gives the template a path matches, never the raw path', () => {
    expect(match('/v1/domains/0b7c1a5e-1111-4222-8333-944445555666')).toBe('/v1/domains/{domain_id}');
    expect(match('/v1/domains/abc/checks')).toBe('/v1/domains/{domain_id}/checks');
    expect(match('/v1/domains')).toBe('/v1/domains');
    expect(match('/v1/domains/')).toBe('/v1/domains');
  });

  it('prefers a static template over a parameter at the same place', () => {
    expect(match('/v1/domains/export')).toBe('/v1/domains/export');
  });

  it('treats template text literally and refuses other paths', () => {
    expect(match('/v1/openapiXjson')).toBeNull();
    expect(match('/v1/domains/a/b')).toBeNull();
    expect(match('/admin')).toBeNull();
  });
});
