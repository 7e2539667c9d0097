// The API in-process with a checker over the same database, challtestsrv as
// DNS, and helpers to register domains and wait for check outcomes.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { requiredSetting } from '@cds/config';
import { silentLogger } from '@cds/logging';
import { InProcessBus, type Bus } from '@cds/messaging';
import { startChecker, type CertificateIssuer, type Checker } from '@cds/checker';
import { startEdge, type Edge, type EdgeObserver } from '@cds/edge-proxy';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { startCheckerDns, type CheckerDns } from './checker-dns';

export const EDGE_TARGET = 'edge.example.net';

export interface CheckerStack {
  api: TestApi;
  dns: CheckerDns;
  /** The in-process bus the checker publishes on (an edge given it hears `domain.changed`). */
  bus: Bus;
  checker: Checker;
  close(): Promise<void>;
}

export interface CheckerStackOptions {
  /** Overrides the issuer CERT_ISSUER names (a certificate lifetime of the test's choosing). */
  issuer?: (api: TestApi) => CertificateIssuer;
}

export async function startCheckerStack(env: Record<string, string> = {}, opts: CheckerStackOptions = {}): Promise<CheckerStack> {
  const dns = await startCheckerDns();
  const api = await startTestApi({
    EDGE_TARGET,
    DNS_SERVERS: dns.server,
    CERT_ISSUER: 'internal',
    CHECK_SCHEDULE_PENDING: '300ms',
    CHECK_INTERVAL_LIVE: '300ms',
    ...env,
  });
  const bus = new InProcessBus();
  const issuer = opts.issuer?.(api);
  const checker = await startChecker({ config: api.config, logger: silentLogger, store: api.store, bus, pollIntervalMs: 100, ...(issuer ? { issuer } : {}) });
  return {
    api,
    dns,
    bus,
    checker,
    async close() {
      await checker.stop();
      await bus.close();
      await api.close();
      await dns.stop();
    },
  };
}

export interface CheckView {
  type: string;
  status: string;
  error_code: string | null;
  message: string | null;
  observed_at: string | null;
  next_check_at: string | null;
}

export interface DomainView {
  id: string;
  hostname: string;
  status: string;
  checks: CheckView[];
  dns_records: Array<{ name: string; type: string; value: string; purpose: string }>;
  [field: string]: unknown;
}

export function check(domain: DomainView, type: string): CheckView {
  const found = domain.checks.find((c) => c.type === type);
  if (!found) throw new Error(`no ${type} check in ${JSON.stringify(domain)}`);
  return found;
}

export async function registerDomain(api: TestApi, key: string, hostname: string): Promise<DomainView> {
  const created = await api.request<DomainView>('POST', '/v1/domains', { token: key, body: { hostname, reference: `ref-${hostname}` } });
  if (created.status !== 201) throw new Error(`register ${hostname}: ${created.status} ${created.text}`);
  return created.body;
}

/** Publishes the records the API asked for (optionally only some of them). */
export async function publishRecords(dns: CheckerDns, domain: DomainView, which: { txt?: boolean; cname?: boolean } = {}): Promise<void> {
  for (const record of domain.dns_records) {
    if (record.type === 'TXT' && which.txt !== false) await dns.setTxt(record.name, record.value);
    if (record.type === 'CNAME' && which.cname !== false) await dns.setCname(record.name, record.value);
  }
}

/** Polls GET /v1/domains/{id} until `until` holds (fails with the last state after `timeoutMs`). */
export function waitForDomain(api: TestApi, key: string, id: string, until: (d: DomainView) => boolean, timeoutMs = 20_000): Promise<DomainView> {
  let last: DomainView | null = null;
  return eventually(`domain ${id} to reach the expected state`, async () => {
    const answer = await api.request<DomainView>('GET', `/v1/domains/${id}?include_deleted=true`, { token: key });
    last = answer.body;
    return answer.status === 200 && until(last) && last;
  }, { timeoutMs, intervalMs: 100, explain: () => `last: ${JSON.stringify(last)}` });
}

/** Waits until every check has been observed after `since` (ISO), i.e. one full run happened after a change. */
export const observedAfter = (since: string) => (d: DomainView) =>
  d.checks.every((c) => c.status === 'pending' || (c.observed_at !== null && c.observed_at > since));

export interface TestOrigin {
  url: string;
  /** Status answered to every request. */
  answer: number;
  /** Status answered to the health probe (GET /health) instead, when set. */
  probeAnswer: number | null;
  requests: Array<{ host: string | undefined; path: string | undefined; assertion: string | undefined }>;
  /** Replaces the TLS certificate (https origins only). */
  setCertificate(cert: { cert: string; key: string }): void;
  close(): Promise<void>;
}

export async function startOrigin(tls?: { cert: string; key: string }): Promise<TestOrigin> {
  const state: TestOrigin = {
    url: '',
    answer: 200,
    probeAnswer: null,
    requests: [],
    setCertificate: (cert) => (server as https.Server).setSecureContext(cert),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const handler: http.RequestListener = (req, res) => {
    const assertion = req.headers['x-custom-domain-assertion'];
    state.requests.push({ host: req.headers.host, path: req.url, assertion: typeof assertion === 'string' ? assertion : undefined });
    const probed = req.url === '/health' && state.probeAnswer !== null;
    res.writeHead(probed ? (state.probeAnswer as number) : state.answer, { 'content-type': 'text/plain' }).end('origin');
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** Registers, verifies and activates an origin for the application. */
export async function activateOrigin(api: TestApi, slug: string, url: string, healthPath = '/health'): Promise<void> {
  const base = `/operator/v1/applications/${slug}/origins`;
  const created = await api.operator<{ id: string }>('POST', base, { url, health_path: healthPath });
  if (created.status !== 201) throw new Error(`origin: ${created.status} ${created.text}`);
  const verified = await api.operator('POST', `${base}/${created.body.id}/verify`, {});
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.text}`);
  const activated = await api.operator('POST', `${base}/${created.body.id}/activate`, {});
  if (activated.status !== 200) throw new Error(`activate: ${activated.status} ${activated.text}`);
}

/**
 * The real edge over the API's database: its plain-HTTP listener on `httpPort`
 * (EDGE_HTTP_PORT, where Pebble validates HTTP-01), HTTPS on a free port;
 * with `bus`, it hears `domain.changed`.
 */
export function startTestEdge(api: TestApi, httpPort: number, bus?: Bus, observer?: EdgeObserver): Promise<Edge> {
  return startEdge({
    store: api.store,
    logger: silentLogger,
    ...(bus ? { bus } : {}),
    ...(observer ? { observer } : {}),
    traffic: { record() {} },
    httpsPort: 0,
    httpPort,
    bindAddress: '127.0.0.1',
    dataEncryptionKey: api.config.dataEncryptionKey,
    deploymentKey: { kid: api.config.assertionDeploymentKid, secret: requiredSetting(api.config, 'assertionDeploymentKey') },
    originTimeoutMs: 2000,
    // DECISIONS §13: with the zone set, a request to a pending_dns domain asks for its check.
    acmeDnsZone: api.config.acmeDnsZone,
  });
}
