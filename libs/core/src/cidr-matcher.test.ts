import { cidrMatcher } from './cidr-matcher';

describe('cidrMatcher', () => {
  const trusted = cidrMatcher(['127.0.0.0/8', '10.0.0.0/8', 'fc00::/7']);

  it('matches addresses inside the ranges, IPv4-mapped IPv6 as IPv4', () => {
    expect(['127.0.0.1', '10.255.0.3', 'fd12::1', '::ffff:10.1.2.3'].map(trusted)).toEqual([true, true, true, true]);
  });

  it('refuses addresses outside them, of the other family, and text that is no address', () => {
    expect(['192.168.1.1', '::1', '2001:db8::1', 'unknown', ''].map(trusted)).toEqual([false, false, false, false, false]);
  });

  it('matches nothing with an empty list', () => {
    expect(cidrMatcher([])('127.0.0.1')).toBe(false);
  });
});
