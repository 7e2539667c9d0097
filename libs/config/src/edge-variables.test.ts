// The edge's connection settings (DECISIONS §5): PROXY protocol on both
// listeners from trusted peers, the caps on open client connections, and the
// slow-client limits.
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';
import { splitEnv } from '../../../test/support/split-env';

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig({ mode: 'split', env: { ...splitEnv, ...env } });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('edge connection variables', () => {
  it.each(['split', 'all-in-one'] as const)('%s: PROXY protocol off, loopback and private peers trusted, 20000 connections', (mode) => {
    expect(loadConfig({ mode, env: splitEnv })).toMatchObject({
      edgeProxyProtocol: false,
      edgeProxyProtocolCidrs: ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
      edgeMaxConnections: 20_000,
      edgeMaxConnectionsPerClient: 256,
      edgeRequestTimeout: 300_000,
      edgeWebsocketIdleTimeout: 600_000,
    });
  });

  it('reads them', () => {
    const config = loadConfig({
      mode: 'split',
      env: { ...splitEnv, EDGE_PROXY_PROTOCOL: 'TRUE', EDGE_PROXY_PROTOCOL_CIDRS: ' 10.2.0.0/16 , 192.0.2.7,2001:DB8::/32', EDGE_MAX_CONNECTIONS: '3' },
    });
    expect(config).toMatchObject({ edgeProxyProtocol: true, edgeProxyProtocolCidrs: ['10.2.0.0/16', '192.0.2.7/32', '2001:db8::/32'], edgeMaxConnections: 3 });
  });

  it('reads the slow-client limits', () => {
    const config = loadConfig({
      mode: 'split',
      env: { ...splitEnv, EDGE_MAX_CONNECTIONS_PER_CLIENT: '8', EDGE_REQUEST_TIMEOUT: '90s', EDGE_WEBSOCKET_IDLE_TIMEOUT: '2m' },
    });
    expect(config).toMatchObject({ edgeMaxConnectionsPerClient: 8, edgeRequestTimeout: 90_000, edgeWebsocketIdleTimeout: 120_000 });
  });

  it('apex domains and redirects (DECISIONS §5, §12): no edge addresses and no public HTTPS port by default', () => {
    expect(loadConfig({ mode: 'split', env: splitEnv })).toMatchObject({ edgeAddresses: [], edgePublicHttpsPort: null });
  });

  it('reads EDGE_ADDRESSES as normalized IPv4 and IPv6 addresses without duplicates, and EDGE_PUBLIC_HTTPS_PORT', () => {
    const config = loadConfig({
      mode: 'split',
      env: { ...splitEnv, EDGE_ADDRESSES: ' 203.0.113.10, 2001:DB8:0:0::10,203.0.113.10 ,2001:db8::10', EDGE_PUBLIC_HTTPS_PORT: '443' },
    });
    expect(config).toMatchObject({ edgeAddresses: ['203.0.113.10', '2001:db8::10'], edgePublicHttpsPort: 443 });
  });

  it('keeps the default ranges when the list is empty', () => {
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, EDGE_PROXY_PROTOCOL_CIDRS: ' ' } }).edgeProxyProtocolCidrs).toHaveLength(6);
  });

  it.each([
    [{ EDGE_PROXY_PROTOCOL: 'yes' }, 'Invalid configuration: EDGE_PROXY_PROTOCOL must be true or false (got "yes")'],
    [{ EDGE_PROXY_PROTOCOL_CIDRS: '10.0.0.0/33' }, 'Invalid configuration: EDGE_PROXY_PROTOCOL_CIDRS must be a comma list of CIDR ranges such as 10.0.0.0/8,fc00::/7 (got "10.0.0.0/33")'],
    [{ EDGE_PROXY_PROTOCOL_CIDRS: 'loopback' }, 'Invalid configuration: EDGE_PROXY_PROTOCOL_CIDRS must be a comma list of CIDR ranges such as 10.0.0.0/8,fc00::/7 (got "loopback")'],
    [{ EDGE_ADDRESSES: '203.0.113.0/24' }, 'Invalid configuration: EDGE_ADDRESSES must be a comma list of IPv4 and IPv6 addresses such as 203.0.113.10,2001:db8::10 (got "203.0.113.0/24")'],
    [{ EDGE_ADDRESSES: '127.1' }, 'Invalid configuration: EDGE_ADDRESSES must be a comma list of IPv4 and IPv6 addresses such as 203.0.113.10,2001:db8::10 (got "127.1")'],
    [{ EDGE_ADDRESSES: 'edge.example.com' }, 'Invalid configuration: EDGE_ADDRESSES must be a comma list of IPv4 and IPv6 addresses such as 203.0.113.10,2001:db8::10 (got "edge.example.com")'],
    [{ EDGE_ADDRESSES: '::ffff:192.0.2.1' }, 'Invalid configuration: EDGE_ADDRESSES must be a comma list of IPv4 and IPv6 addresses such as 203.0.113.10,2001:db8::10 (got "::ffff:192.0.2.1")'],
    [{ EDGE_ADDRESSES: '192.0.2.1,' }, 'Invalid configuration: EDGE_ADDRESSES must be a comma list of IPv4 and IPv6 addresses such as 203.0.113.10,2001:db8::10 (got "192.0.2.1,")'],
    [{ EDGE_PUBLIC_HTTPS_PORT: 'https' }, 'Invalid configuration: EDGE_PUBLIC_HTTPS_PORT must be a port number (got "https")'],
    [{ EDGE_PUBLIC_HTTPS_PORT: '0' }, 'Invalid configuration: EDGE_PUBLIC_HTTPS_PORT must be a port number from 1 to 65535 (got "0")'],
    [{ EDGE_MAX_CONNECTIONS: '0' }, 'Invalid configuration: EDGE_MAX_CONNECTIONS must be a whole number of at least 1 (got "0")'],
    [{ EDGE_MAX_CONNECTIONS: '1e4' }, 'Invalid configuration: EDGE_MAX_CONNECTIONS must be a whole number of at least 1 (got "1e4")'],
    [{ EDGE_MAX_CONNECTIONS_PER_CLIENT: '0' }, 'Invalid configuration: EDGE_MAX_CONNECTIONS_PER_CLIENT must be a whole number of at least 1 (got "0")'],
    [{ EDGE_REQUEST_TIMEOUT: '0s' }, 'Invalid configuration: EDGE_REQUEST_TIMEOUT must be a duration greater than zero, such as 500ms or 30s (got "0s")'],
    [{ EDGE_WEBSOCKET_IDLE_TIMEOUT: 'soon' }, 'Invalid configuration: EDGE_WEBSOCKET_IDLE_TIMEOUT must be a duration such as 500ms, 30s, 5m, 2h or 1d (got "soon")'],
  ])('refuses %j', (env, message) => {
    expect(messageOf(env)).toBe(message);
  });
});
