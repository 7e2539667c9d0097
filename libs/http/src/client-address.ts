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
