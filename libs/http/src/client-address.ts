import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

/** The client address as express sees it (socket, or X-Forwarded-For when TRUST_PROXY says so), IPv4-mapped IPv6 unwrapped. */
export function clientAddress(req: Request): string {
  const raw = req.ip ?? req.socket.remoteAddress ?? '';
  try {
    return ipaddr.process(raw).toString();
  } catch {
    return raw;
  }
}

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
