// Whether an address lies in one of a list of CIDR ranges (trusted peers,
// allowed clients). Pure logic: the lists come validated from libs/config.
import ipaddr from 'ipaddr.js';

/** Matches an address against CIDR strings like 10.0.0.0/8 or ::1/128; parse the list once. */
export function cidrMatcher(cidrs: readonly string[]): (address: string) => boolean {
  const ranges = cidrs.map((c) => ipaddr.parseCIDR(c));
  return (address) => {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address);
    } catch {
      return false;
    }
    return ranges.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match([range, bits] as [typeof parsed, number]));
  };
}
