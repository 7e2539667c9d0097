// The start-up warnings about settings that open a door behind a load balancer,
// from configurations loadConfig produces.
import { operatorExposureWarning, proxyProtocolPeersWarning } from './exposure-warnings';
import { loadConfig } from './load-config';
import { splitEnv } from '../../../test/support/split-env';

const split = (env: Record<string, string> = {}) => loadConfig({ mode: 'split', env: { ...splitEnv, ...env } });

describe('operatorExposureWarning', () => {
  it('warns in split mode by default, naming what to set', () => {
    const warning = operatorExposureWarning(split());
    expect(warning).toContain('the operator API is served on API_PORT (OPERATOR_PORT unset) while TRUST_PROXY is false and OPERATOR_ALLOWED_CIDRS includes private ranges');
    expect(warning).toContain('Set OPERATOR_PORT (8082, as the Helm chart does)');
    expect(warning).toContain('set TRUST_PROXY');
    expect(warning).not.toContain('\n');
  });

  it.each([
    ['one private range', '10.1.0.0/16'],
    ['a range that holds a private one', '0.0.0.0/0'],
    ['a single private address', '192.168.4.2'],
    ['an IPv6 unique-local range', 'fd00:1::/64'],
  ])('warns when the allowlist holds %s', (_what, cidrs) => {
    expect(operatorExposureWarning(split({ OPERATOR_ALLOWED_CIDRS: cidrs }))).not.toBeNull();
  });

  it.each([
    ['OPERATOR_PORT is set', { OPERATOR_PORT: '8082' }],
    ['the operator API is off', { OPERATOR_API_ENABLED: 'false' }],
    ['TRUST_PROXY names the proxies', { TRUST_PROXY: '10.0.0.0/8' }],
    ['TRUST_PROXY is a hop count', { TRUST_PROXY: '1' }],
    ['the allowlist holds loopback and public ranges only', { OPERATOR_ALLOWED_CIDRS: '127.0.0.0/8,::1/128,198.51.100.0/24,2001:db8::/32' }],
    ['the API listens on loopback only', { BIND_ADDRESS: '127.0.0.1' }],
    ['the API listens on IPv6 loopback only', { BIND_ADDRESS: '::1' }],
  ])('is silent when %s', (_what, env) => {
    expect(operatorExposureWarning(split(env))).toBeNull();
  });

  it('treats a hop count of 0 as no trusted proxy', () => {
    expect(operatorExposureWarning(split({ TRUST_PROXY: '0' }))).not.toBeNull();
  });

  it('is silent in the all-in-one default (bound to loopback), and warns once it listens on every address', () => {
    expect(operatorExposureWarning(loadConfig({ mode: 'all-in-one', env: splitEnv }))).toBeNull();
    expect(operatorExposureWarning(loadConfig({ mode: 'all-in-one', env: { ...splitEnv, BIND_ADDRESS: '0.0.0.0' } }))).not.toBeNull();
  });
});

describe('proxyProtocolPeersWarning', () => {
  it('warns when PROXY protocol is on and the trusted peers are the default, naming what to set', () => {
    const warning = proxyProtocolPeersWarning(split({ EDGE_PROXY_PROTOCOL: 'true' }));
    expect(warning).toBe(
      'EDGE_PROXY_PROTOCOL is true and EDGE_PROXY_PROTOCOL_CIDRS is its default (loopback and every private range): any host there may send a header and claim any client address. ' +
        'Set EDGE_PROXY_PROTOCOL_CIDRS to the ranges the load balancer connects from',
    );
  });

  it('warns as well when the default is spelled out, in any order', () => {
    const cidrs = 'fc00::/7,192.168.0.0/16,172.16.0.0/12,10.0.0.0/8,::1,127.0.0.0/8';
    expect(proxyProtocolPeersWarning(split({ EDGE_PROXY_PROTOCOL: 'true', EDGE_PROXY_PROTOCOL_CIDRS: cidrs }))).not.toBeNull();
  });

  it.each([
    ['PROXY protocol is off', {}],
    ['the balancer ranges are named', { EDGE_PROXY_PROTOCOL: 'true', EDGE_PROXY_PROTOCOL_CIDRS: '10.20.0.0/16' }],
    ['the default less one range', { EDGE_PROXY_PROTOCOL: 'true', EDGE_PROXY_PROTOCOL_CIDRS: '127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16' }],
  ])('is silent when %s', (_what, env) => {
    expect(proxyProtocolPeersWarning(split(env))).toBeNull();
  });
});
