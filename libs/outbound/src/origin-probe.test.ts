import { probeTarget } from './origin-probe';

describe('probeTarget', () => {
  it.each([
    ['http://10.0.0.5:8080', '/', 'http://10.0.0.5:8080/'],
    ['http://10.0.0.5:8080/', '/health', 'http://10.0.0.5:8080/health'],
    ['https://origin.internal/app/', '/health?deep=1', 'https://origin.internal/app/health?deep=1'],
    ['https://origin.internal/app', '/', 'https://origin.internal/app/'],
    ['http://[::1]:81//', '/ready', 'http://[::1]:81/ready'],
    ['https://origin.internal:443', '/', 'https://origin.internal/'],
  ])('%s + %s = %s', (url, path, expected) => {
    expect(probeTarget(url, path).href).toBe(expected);
  });

  it("gives the origin's host with its port only when not the default", () => {
    expect(probeTarget('http://origin.internal:80', '/').host).toBe('origin.internal');
    expect(probeTarget('https://origin.internal:8443', '/').host).toBe('origin.internal:8443');
  });
});
