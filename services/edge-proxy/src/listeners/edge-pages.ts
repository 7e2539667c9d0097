// The answers the edge gives itself (DECISIONS §5): plain text that says which.
import type { EdgeResponse } from './client-messages';

/** Seconds a client should wait before asking again for a domain that is not ready. */
export const NOT_READY_RETRY_AFTER_SECONDS = 60;

export const PAGES = {
  badRequest: { status: 400, text: 'Bad request: a Host header naming the site is required.\n' },
  badTarget: { status: 400, text: 'Bad request: the request target names another host than Host, or climbs above the site\'s root.\n' },
  unknownHostname: { status: 404, text: 'Unknown hostname: no site is configured for this name.\n' },
  misdirected: { status: 421, text: 'Misdirected request: the Host header does not match the TLS server name.\n' },
  pendingDns: { status: 503, text: 'This domain is not ready yet: its DNS records, certificate or origin are still being checked.\n' },
  attentionRequired: { status: 503, text: 'This domain is temporarily unavailable: a check is failing and its owner has been told.\n' },
  suspended: { status: 503, text: 'Service suspended: the application behind this domain is suspended by its operator.\n' },
  noOrigin: { status: 502, text: 'The application has no active origin.\n' },
  redirectTargetGone: { status: 503, text: 'This domain redirects to a domain that is gone: its redirect target was deleted.\n' },
  unavailable: { status: 503, text: 'Temporarily unavailable: the edge cannot look this name up right now.\n' },
  rateLimited: { status: 429, text: 'Too many requests for this application; retry later.\n' },
  unsupportedTransferEncoding: { status: 501, text: 'Not implemented: a request body is accepted with no transfer coding or with chunked alone.\n' },
} as const;

export type Page = (typeof PAGES)[keyof typeof PAGES];

export function sendPage(res: EdgeResponse, page: Page, headers: Record<string, string | number> = {}): void {
  res.writeHead(page.status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(page.text), ...headers });
  res.end(page.text);
}

/** `https://<host>[:port]<target>`: the port is left out when it is 443 (EDGE_PUBLIC_HTTPS_PORT). */
export function httpsLocation(host: string, port: number, target: string): string {
  return `https://${host}${port === 443 ? '' : `:${port}`}${target.startsWith('/') ? target : '/'}`;
}

/** The name in a Host header: lowercased, port and one trailing dot removed; null when absent or empty. */
export function hostName(host: string | undefined): string | null {
  if (!host) return null;
  const lower = host.toLowerCase();
  const name = lower.startsWith('[') ? lower.slice(0, lower.indexOf(']') + 1) : lower.replace(/:\d*$/, '');
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  return trimmed === '' ? null : trimmed;
}
