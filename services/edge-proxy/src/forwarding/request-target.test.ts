import { climbsAboveRoot, originFormTarget } from './request-target';

describe('originFormTarget', () => {
  it.each([
    ['/a/b?c=d', 'shop.example.com', '/a/b?c=d'],
    ['http://shop.example.com/a/b?c=d', 'shop.example.com', '/a/b?c=d'],
    ['https://Shop.Example.com:8443/x', 'shop.example.com', '/x'],
    ['http://shop.example.com', 'shop.example.com:443', '/'],
    ['http://shop.example.com?q=1', 'shop.example.com', '/?q=1'],
  ])('forwards %p with Host %p as %p', (url, host, expected) => expect(originFormTarget(url, host)).toBe(expected));

  it.each([
    ['http://other.example.com/a', 'shop.example.com'],
    ['http://user@shop.example.com/a', 'shop.example.com'],
    ['http:///a', 'shop.example.com'],
    ['ftp://shop.example.com/a', 'shop.example.com'],
    ['*', 'shop.example.com'],
    ['shop.example.com:443', 'shop.example.com'],
    ['http://shop.example.com/../etc', 'shop.example.com'],
  ])('refuses %p with Host %p', (url, host) => expect(originFormTarget(url, host)).toBeNull());
});

describe('climbsAboveRoot', () => {
  it.each([
    '/..', '/../x', '/a/../..', '/a/../../b', '/%2e%2e/x', '/%2E%2E/x', '/.%2e/x', '/%2e./x', '/a/%2E%2e/%2e%2e',
    '/a/..%2f..', '/a\\..\\..', '/a%5c..%5c..', '/./..', '/a//../..',
  ])('%p climbs', (path) => expect(climbsAboveRoot(path)).toBe(true));

  it.each([
    '/', '/a/b', '/a/../b', '/a/b/../../c', '/a/./b', '/..a/b', '/a..b/', '/.well-known/x', '/%2e%2ex', '/a?x=/../..', '/a/..?q=..',
  ])('%p stays', (path) => expect(climbsAboveRoot(path)).toBe(false));
});
