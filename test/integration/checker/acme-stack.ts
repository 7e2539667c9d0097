// Everything an ACME test needs, started in order and stopped in reverse: the
// DNS server, Pebble (behind a recording proxy, with ARI when asked; more than
// one CA when asked, in ACME_DIRECTORY_URL's order), the API,
// a bus (in-process, or RabbitMQ in a throwaway vhost) with the outbox relay,
// the real edge answering HTTP-01, a checker, and an application with an
// active origin.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startChecker, type CertificateIssuer, type Checker } from '@cds/checker';
import { outboxSource } from '@cds/data';
import type { Edge, EdgeObserver } from '@cds/edge-proxy';
import { silentLogger, type Logger } from '@cds/logging';
import { connectAmqpBus, InProcessBus, startOutboxRelay, type Bus, type OutboxRelay } from '@cds/messaging';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { startBind9, type Bind9 } from '../../support/bind9';
import { startUnbound, type Unbound } from '../../support/unbound';
import { createVhost, deleteVhost, type TestVhost } from '../messaging/rabbit';
import { startAcmeProxy, startAriResponder, type AcmeProxy, type AriResponder } from './acme-proxy';
import { freePort, startCheckerDns, type CheckerDns } from './checker-dns';
import { activateOrigin, EDGE_TARGET, startOrigin, startTestEdge, type TestOrigin } from './checker-stack';
import { startPebble, type TestPebble } from './pebble';

export interface AcmeStackOptions {
  /** An ARI responder, announced in the directory the checker sees as `renewalInfo`. */
  ari?: boolean;
  /** RabbitMQ in a throwaway vhost instead of the in-process bus. */
  rabbit?: boolean;
  /** CHECK_SCHEDULE_PENDING and CHECK_INTERVAL_LIVE (default 300ms). */
  schedule?: string;
  pollIntervalMs?: number;
  /** What the edge reports as it answers (a test that times its HTTP-01 answers). */
  edgeObserver?: EdgeObserver;
  /** More configuration of the API and the checker (EDGE_ADDRESSES, …). */
  env?: Record<string, string>;
  /** An issuer of the test's own, made once the stack's directory is known. */
  issuer?: (stack: { api: TestApi; directoryUrl: string; pebble: TestPebble; dns: CheckerDns }) => CertificateIssuer;
  /** The CAs, each a Pebble behind its own proxy, in ACME_DIRECTORY_URL's order (default one); `eab`: the MAC keys it requires. */
  cas?: Array<{ eab?: Record<string, string> }>;
  /** The checker's clock. */
  now?: () => Date;
  /**
   * Certificates before cutover (DECISIONS §13): BIND serves `zone` and takes
   * TSIG-signed updates, Unbound is the resolver of Pebble and the checker
   * (the rest of the names from the test's DNS server), and ACME_DNS_* name
   * them; `wrongKey`: ACME_DNS_TSIG_KEY has a secret BIND does not know.
   */
  delegation?: { zone: string; wrongKey?: boolean };
}

/** One CA of the stack: a Pebble and the proxy the checker talks to. */
export interface StackCa {
  pebble: TestPebble;
  proxy: AcmeProxy;
}

export interface AcmeStack {
  dns: CheckerDns;
  pebble: TestPebble;
  /** Records every request to Pebble; its directory is the one the checker uses (the first, with several CAs). */
  proxy: AcmeProxy;
  /** Every CA, in ACME_DIRECTORY_URL's order (the first is `pebble` and `proxy`). */
  cas: StackCa[];
  ari: AriResponder | null;
  api: TestApi;
  bus: Bus;
  relay: OutboxRelay;
  edge: Edge;
  checker: Checker;
  origin: TestOrigin;
  app: { slug: string; key: string };
  /** The checker's latest warnings and errors, oldest first (what a test prints when it times out). */
  checkerLog: string[];
  /** With `delegation`: the zone's server and the resolver. */
  bind: Bind9 | null;
  unbound: Unbound | null;
  /** Closes the edge now (a test that needs HTTP-01 to fail); stop() then leaves it. */
  closeEdge(): Promise<void>;
  stop(): Promise<void>;
}

/** Keeps the latest warnings and errors in `log` (at most 200) and passes everything on to `next`. */
function recordingLogger(log: string[], next: Logger): Logger {
  const keep = (level: string, message: string, meta?: object) => {
    log.push(`${new Date().toISOString()} ${level} ${message} ${JSON.stringify(meta ?? {})}`);
    if (log.length > 200) log.shift();
  };
  return {
    debug: (message, meta) => next.debug(message, meta),
    info: (message, meta) => next.info(message, meta),
    warn: (message, meta) => {
      keep('warn', message, meta);
      next.warn(message, meta);
    },
    error: (message, meta) => {
      keep('error', message, meta);
      next.error(message, meta);
    },
  };
}

export async function startAcmeStack(opts: AcmeStackOptions = {}): Promise<AcmeStack> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const dns = await startCheckerDns();
    stops.push(() => dns.stop());
    let resolver = dns.server;
    let delegationEnv: Record<string, string> = {};
    let bind: Bind9 | null = null;
    let unbound: Unbound | null = null;
    if (opts.delegation) {
      const { zone, wrongKey } = opts.delegation;
      const zoneServer = await startBind9({ zone });
      bind = zoneServer;
      stops.push(() => zoneServer.stop());
      const updateServer = `${zoneServer.host}:${zoneServer.port}`;
      const recursive = await startUnbound({ forwardZones: [{ zone: '.', server: dns.server }, { zone, server: updateServer, authoritative: true }] });
      unbound = recursive;
      stops.push(() => recursive.stop());
      resolver = recursive.server;
      const key = wrongKey ? `${zoneServer.key.name}:${zoneServer.key.algorithm}:${randomBytes(32).toString('base64')}` : zoneServer.keySetting;
      delegationEnv = { ACME_DNS_ZONE: zone, ACME_DNS_UPDATE_SERVER: updateServer, ACME_DNS_TSIG_KEY: key };
    }
    const httpPort = await freePort();
    const cas: StackCa[] = [];
    let ari: AriResponder | null = null;
    for (const [i, ca] of (opts.cas ?? [{}]).entries()) {
      const pebble = await startPebble({ httpPort, dnsServer: resolver, ...(ca.eab ? { externalAccountMACKeys: ca.eab } : {}) });
      stops.push(() => pebble.stop());
      if (i === 0 && opts.ari) {
        const responder = await startAriResponder(pebble.listener);
        stops.push(() => responder.close());
        ari = responder;
      }
      const proxy = await startAcmeProxy(pebble, i === 0 && ari ? { renewalInfo: ari.url } : {});
      stops.push(() => proxy.close());
      cas.push({ pebble, proxy });
    }
    const [{ pebble, proxy }] = cas as [StackCa];
    // One file with every Pebble's listener CA.
    let caBundle = pebble.caBundle;
    if (cas.length > 1) {
      caBundle = join(dirname(pebble.caBundle), 'all-listener-cas.pem');
      writeFileSync(caBundle, cas.map((ca) => readFileSync(ca.pebble.caBundle, 'utf8')).join('\n'));
    }
    const schedule = opts.schedule ?? '300ms';
    const api = await startTestApi({
      EDGE_TARGET, DNS_SERVERS: resolver, CERT_ISSUER: 'acme', ...delegationEnv, ACME_DIRECTORY_URL: cas.map((ca) => ca.proxy.directoryUrl).join(','), ACME_CA_BUNDLE: caBundle,
      EDGE_HTTP_PORT: String(httpPort), CHECK_SCHEDULE_PENDING: schedule, CHECK_INTERVAL_LIVE: schedule, ...opts.env,
    });
    stops.push(() => api.close());
    let bus: Bus;
    if (opts.rabbit) {
      const vhost: TestVhost = await createVhost();
      stops.push(() => deleteVhost(vhost));
      bus = await connectAmqpBus({ url: vhost.url, connectionName: 'acme-stack' });
    } else {
      bus = new InProcessBus();
    }
    stops.push(() => bus.close());
    const relay = startOutboxRelay({ source: outboxSource(api.store), bus, intervalMs: 100 });
    stops.push(() => relay.stop());
    const edge = await startTestEdge(api, httpPort, bus, opts.edgeObserver);
    let edgeOpen = true;
    const closeEdge = async () => {
      if (!edgeOpen) return;
      edgeOpen = false;
      await edge.close(1000);
    };
    stops.push(closeEdge);
    const origin = await startOrigin();
    stops.push(() => origin.close());
    const issuer = opts.issuer?.({ api, directoryUrl: proxy.directoryUrl, pebble, dns });
    const checkerLog: string[] = [];
    const checker = await startChecker({
      config: api.config, logger: recordingLogger(checkerLog, process.env.CHECKER_DEBUG ? console : silentLogger), store: api.store, bus,
      pollIntervalMs: opts.pollIntervalMs ?? 100, afterCommit: () => relay.kick(), ...(issuer ? { issuer } : {}), ...(opts.now ? { now: opts.now } : {}),
    });
    stops.push(() => checker.stop());
    const app = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
    await activateOrigin(api, app.slug, origin.url);
    return { dns, pebble, proxy, cas, ari, api, bus, relay, edge, checker, origin, app, checkerLog, bind, unbound, closeEdge, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
