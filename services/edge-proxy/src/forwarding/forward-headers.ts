// Which headers cross the edge. Pure functions: the forwarding engine applies them.
import { ASSERTION_HEADER } from '@cds/core';

export type HeaderMap = Record<string, string | string[]>;

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1, and HTTP/2's connection-specific ones,
 * which Node refuses on an HTTP/2 response) and the ones the proxy speaks
 * itself; never forwarded.
 */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect',
  'http2-settings',
]);

/** A Connection header that only says keep-alive or close. */
const PLAIN_CONNECTION = /^\s*(?:keep-alive|close)\s*$/i;

/**
 * What the edge states itself, and what origins or their frameworks may take
 * for a client address or the URL asked for: any value a client sent is
 * dropped, never appended to.
 */
const EDGE_STATED = new Set([
  'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'forwarded', 'x-real-ip', ASSERTION_HEADER,
  'true-client-ip', 'cf-connecting-ip', 'x-original-url', 'x-rewrite-url',
]);

/** Names listed in the Connection header(s), which are hop-by-hop for this message too. */
function connectionListed(connection: string | string[] | undefined): Set<string> | null {
  if (connection === undefined) return null;
  const names = new Set<string>();
  for (const value of Array.isArray(connection) ? connection : [connection]) {
    for (const name of value.split(',')) {
      const trimmed = name.trim().toLowerCase();
      if (trimmed) names.add(trimmed);
    }
  }
  return names;
}

function append(headers: HeaderMap, name: string, value: string): void {
  const existing = headers[name];
  if (existing === undefined) headers[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else headers[name] = [existing, value];
}

/** The client address as the origin gets it: an IPv4-mapped IPv6 address as plain IPv4; `unknown` when there is none. */
export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress || 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** `for=` of RFC 7239: IPv6 quoted in brackets. */
function forwardedFor(address: string): string {
  return address.includes(':') ? `"[${address}]"` : address;
}

export interface ForwardContext {
  clientAddress: string;
  /** The Host header as the client sent it (port included). */
  host: string;
  proto: 'https' | 'http';
  /** The signed assertion; omitted only where no assertion applies. */
  assertion?: string;
}

/**
 * The request headers for the origin, from Node's `rawHeaders` (names as sent,
 * repeated headers kept): Host kept, hop-by-hop and edge-stated ones dropped,
 * X-Forwarded-For/-Proto/-Host, Forwarded, X-Real-IP and the assertion set from
 * what the edge saw. An HTTP/2 request's pseudo-headers are dropped (its
 * `:authority` is `ctx.host`) and its cookie fields joined into one header,
 * as RFC 9113 §8.2.3 asks when it goes on over HTTP/1.1.
 */
export function originRequestHeaders(rawHeaders: readonly string[], ctx: ForwardContext): HeaderMap {
  const headers: HeaderMap = {};
  let connection: string[] | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).length === 10 && (rawHeaders[i] as string).toLowerCase() === 'connection') (connection ??= []).push(rawHeaders[i + 1] as string);
  }
  const listed = connectionListed(connection);
  let http2 = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    if (name.charCodeAt(0) === 58 /* ':' */) {
      http2 = true;
      continue;
    }
    if (HOP_BY_HOP.has(name) || EDGE_STATED.has(name) || listed?.has(name)) continue;
    if (name === 'host') {
      if (headers.host === undefined) headers.host = rawHeaders[i + 1] as string;
      continue;
    }
    if (http2 && name === 'cookie' && headers.cookie !== undefined) {
      headers.cookie = `${headers.cookie as string}; ${rawHeaders[i + 1] as string}`;
      continue;
    }
    append(headers, name, rawHeaders[i + 1] as string);
  }
  headers.host ??= ctx.host;
  headers['x-forwarded-for'] = ctx.clientAddress;
  headers['x-forwarded-proto'] = ctx.proto;
  headers['x-forwarded-host'] = ctx.host;
  headers['x-real-ip'] = ctx.clientAddress;
  headers.forwarded = `for=${forwardedFor(ctx.clientAddress)};host="${ctx.host.replace(/["\\]/g, '')}";proto=${ctx.proto}`;
  if (ctx.assertion !== undefined) headers[ASSERTION_HEADER] = ctx.assertion;
  return headers;
}

/**
 * The origin's raw response headers (name, value, name, value… as undici reads
 * them) as the flat list Node's writeHead takes, without hop-by-hop ones. Bytes
 * are read as latin1, which Node writes back unchanged.
 */
export function clientResponseHeaderList(raw: readonly (Buffer | string)[]): string[] {
  const out: string[] = [];
  let listed: Set<string> | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1');
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) {
      if (lower === 'connection') {
        // Names that are not hop-by-hop already ("Connection: keep-alive", the usual value, names nothing new).
        const value = raw[i + 1]!.toString('latin1');
        if (!PLAIN_CONNECTION.test(value)) for (const named of connectionListed(value) ?? []) if (!HOP_BY_HOP.has(named)) (listed ??= new Set()).add(named);
      }
      continue;
    }
    out.push(name, raw[i + 1]!.toString('latin1'));
  }
  if (listed === null) return out;
  // Rare: the origin named other headers in Connection; they are hop-by-hop too.
  const kept: string[] = [];
  for (let i = 0; i < out.length; i += 2) if (!listed.has(out[i]!.toLowerCase())) kept.push(out[i]!, out[i + 1]!);
  return kept;
}

/** The only upgrade the edge proxies (the engine sets `upgrade`/`connection` itself). */
export function isWebSocketUpgrade(upgrade: string | undefined): boolean {
  return upgrade !== undefined && upgrade.toLowerCase() === 'websocket';
}
