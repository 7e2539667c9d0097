// EDGE_CACHE_MAX_AGE: the longest an edge serves a cache entry without reading
// it again, whatever its change feed says.
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';
import { splitEnv } from '../../../test/support/split-env';

describe('EDGE_CACHE_MAX_AGE', () => {
  it.each(['split', 'all-in-one'] as const)('%s: 5 minutes by default', (mode) => {
    expect(loadConfig({ mode, env: splitEnv }).edgeCacheMaxAge).toBe(300_000);
  });

  it('reads a duration', () => {
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, EDGE_CACHE_MAX_AGE: '90s' } }).edgeCacheMaxAge).toBe(90_000);
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, EDGE_CACHE_MAX_AGE: '1s' } }).edgeCacheMaxAge).toBe(1_000);
  });

  it.each([
    ['500ms', 'Invalid configuration: EDGE_CACHE_MAX_AGE must be a duration of at least 1s, such as 30s or 5m (got "500ms")'],
    ['0s', 'Invalid configuration: EDGE_CACHE_MAX_AGE must be a duration greater than zero, such as 500ms or 30s (got "0s")'],
    ['soon', 'Invalid configuration: EDGE_CACHE_MAX_AGE must be a duration such as 500ms, 30s, 5m, 2h or 1d (got "soon")'],
  ])('refuses %s', (value, message) => {
    const load = () => loadConfig({ mode: 'split', env: { ...splitEnv, EDGE_CACHE_MAX_AGE: value } });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
  });
});
