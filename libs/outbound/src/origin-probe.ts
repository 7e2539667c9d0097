// One GET to an origin's health path, as the operator's verify and the
// checker's origin check send it, over plain node:http(s).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { rootCertificates } from 'node:tls';

/** Verify and checker probes wait this long for the answer's headers (DECISIONS §1, ORIGIN_TIMEOUT). */
export const ORIGIN_PROBE_TIMEOUT_MS = 10_000;

const USER_AGENT = 'custom-domain-service-probe/1';

export const PROBE_FAILURE = {
  connectionRefused: 'connection_refused',
  dnsError: 'dns_error',
  timeout: 'timeout',
  tlsError: 'tls_error',
  connectionError: 'connection_error',
  errorStatus: 'error_status',
} as const;
export type ProbeFailureReason = (typeof PROBE_FAILURE)[keyof typeof PROBE_FAILURE];

export interface OriginProbeRequest {
  /** The origin's base URL (http or https); a path in it prefixes `path`. */
  url: string;
  /** Starts with '/'. */
  path: string;
  /** The Host header to send (the origin's own host for verify, the customer's hostname for the check). */
  hostHeader: string;
  /** Extra request headers, e.g. the assertion. */
  headers?: Record<string, string>;
  timeoutMs: number;
  /** CAs trusted for https; node's defaults when absent. */
  ca?: readonly string[];
}

export type OriginProbeResult =
  | { ok: true; statusCode: number; durationMs: number }
  | { ok: false; reason: ProbeFailureReason; message: string; statusCode?: number; durationMs: number };

type Outcome = { ok: true; statusCode: number } | { ok: false; reason: ProbeFailureReason; message: string; statusCode?: number };

/** Node's default CAs plus those of a PEM file (ORIGIN_CA_BUNDLE); node's defaults alone without a file. */
export function trustedCasWithBundle(bundlePath: string | null): string[] | undefined {
  return bundlePath ? [...rootCertificates, readFileSync(bundlePath, 'utf8')] : undefined;
}

/** The URL the probe asks: the origin URL's path (trailing slashes dropped) followed by `path`. */
export function probeTarget(url: string, path: string): URL {
  const target = new URL(url);
  const prefix = target.pathname.replace(/\/+$/, '');
  return new URL(`${target.protocol}//${target.host}${prefix}${path}`);
}

function classify(err: NodeJS.ErrnoException, target: URL, tcpConnected: boolean, tlsDone: boolean): Outcome {
  const where = target.host;
  if (err.code === 'ECONNREFUSED') return { ok: false, reason: PROBE_FAILURE.connectionRefused, message: `connection refused by ${where}` };
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return { ok: false, reason: PROBE_FAILURE.dnsError, message: `${target.hostname} does not resolve` };
  // A failure between the TCP connection and the end of the handshake is the TLS layer's.
  if (target.protocol === 'https:' && tcpConnected && !tlsDone) {
    return { ok: false, reason: PROBE_FAILURE.tlsError, message: `TLS handshake with ${where} failed: ${err.message}` };
  }
  return { ok: false, reason: PROBE_FAILURE.connectionError, message: `connection to ${where} failed: ${err.message}` };
}

/**
 * GET <url><path> with the given Host. Any answer below 500 passes; redirects are
 * not followed (a 3xx passes). Only the status line and headers are awaited.
 */
export function probeOrigin(probe: OriginProbeRequest): Promise<OriginProbeResult> {
  const started = Date.now();
  const target = probeTarget(probe.url, probe.path);
  const secure = target.protocol === 'https:';
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const extra = Object.fromEntries(Object.entries(probe.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'host'));
  const options: https.RequestOptions = {
    method: 'GET',
    host: hostname,
    port: Number(target.port) || (secure ? 443 : 80),
    path: `${target.pathname}${target.search}`,
    agent: false,
    headers: { 'user-agent': USER_AGENT, ...extra, host: probe.hostHeader },
  };
  if (secure) {
    // The certificate must name the origin, whatever Host says (node would otherwise take SNI from Host).
    options.servername = isIP(hostname) ? '' : hostname;
    if (probe.ca) options.ca = [...probe.ca];
  }

  return new Promise((resolve) => {
    let settled = false;
    let tcpConnected = false;
    let tlsDone = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve({ ...outcome, durationMs: Date.now() - started });
    };
    const request = (secure ? https : http).request(options, (res) => {
      res.on('error', () => undefined); // the body is not wanted: destroying the request aborts it
      const statusCode = res.statusCode ?? 0;
      finish(statusCode < 500 ? { ok: true, statusCode } : { ok: false, reason: PROBE_FAILURE.errorStatus, message: `the origin answered ${statusCode}`, statusCode });
    });
    request.on('socket', (socket: Socket) => {
      socket.once('connect', () => { tcpConnected = true; });
      socket.once('secureConnect', () => { tlsDone = true; });
    });
    request.on('error', (err: NodeJS.ErrnoException) => finish(classify(err, target, tcpConnected, tlsDone)));
    const timer = setTimeout(() => {
      finish({ ok: false, reason: PROBE_FAILURE.timeout, message: `no answer from ${target.host} within ${probe.timeoutMs / 1000} s` });
    }, probe.timeoutMs);
    request.end();
  });
}
