// A real edge over a real database: certificates from the checker's internal
// CA, a loopback origin that records what reached it (and echoes WebSockets),
// and an HTTPS client that sets SNI and Host independently.
import { randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { WebSocketServer } from 'ws';
import { InternalCa } from '@cds/checker';
import type { DomainStatus, Limits } from '@cds/core';
import { createDataStore, type DataStore, type DomainRow } from '@cds/data';
import { startEdge, type Edge, type EdgeOptions } from '@cds/edge-proxy';
import { silentLogger } from '@cds/logging';
import { InProcessBus } from '@cds/messaging';
import { TestClock } from '../../support/test-clock';
import { aDomain, anApplication, checksFor, openMigratedStore, type MigratedStore } from '../data/data-fixtures';
import { saveCertificate, seedApplication } from './served-domain';

export const DEPLOYMENT_KEY = { kid: 'deployment', secret: randomBytes(32).toString('base64url') };
export const DATA_KEY = randomBytes(32);

export interface OriginRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/**
 * An origin on loopback: records requests; `/bytes/<n>` answers n bytes; `/slow/<ms>` waits; `/reset` cuts the connection;
 * `/cut/<n>` and `/cut-chunked/<n>` send the headers (of a 2n-byte answer, or a chunked one) and n bytes, then reset the
 * connection (TCP RST); `/ws` echoes WebSocket messages.
 */
export interface RecordingOrigin {
  url: string;
  requests: OriginRequest[];
  /** How many requests for `path` (and with Host `hostname`, when given) reached the origin. */
  saw(path: string, hostname?: string): number;
  /** The last request for `path` (and with Host `hostname`, when given) that reached the origin; throws when none did. */
  lastAt(path: string, hostname?: string): OriginRequest;
  /** WebSocket connections open at the origin now. */
  openWebSockets(): number;
  /** Requests the origin has begun and not yet finished answering (or seen cut). */
  inFlight(): number;
  close(): Promise<void>;
}

export async function startRecordingOrigin(): Promise<RecordingOrigin> {
  const requests: OriginRequest[] = [];
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight += 1;
    res.on('close', () => { inFlight -= 1; });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      requests.push({ method: req.method ?? '', url, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString() });
      const bytes = /^\/bytes\/(\d+)$/.exec(url);
      const slow = /^\/slow\/(\d+)$/.exec(url);
      if (url === '/reset') return void req.socket.destroy();
      const cut = /^\/(cut|cut-chunked)\/(\d+)$/.exec(url);
      if (cut) {
        const half = Number(cut[2]);
        res.writeHead(200, { 'content-type': 'application/octet-stream', ...(cut[1] === 'cut' ? { 'content-length': 2 * half } : {}) });
        // The reset comes once the first half has left: the edge has started its answer.
        res.write(Buffer.alloc(half, 'c'), () => setTimeout(() => req.socket.resetAndDestroy(), 50));
        return;
      }
      if (bytes) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(Number(bytes[1]), 'x'));
      if (slow) return void setTimeout(() => res.writeHead(200).end('slow'), Number(slow[1]));
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive', 'keep-alive': 'timeout=77', 'x-origin': 'yes' }).end(`origin ${url}`);
    });
  });
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (socket, req) => {
    requests.push({ method: 'GET', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body: '' });
    socket.on('message', (data, isBinary) => socket.send(isBinary ? data : `echo: ${data.toString()}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    saw: (path, hostname) => requests.filter((r) => r.url === path && (hostname === undefined || r.headers.host === hostname)).length,
    lastAt(path, hostname) {
      const request = requests.findLast((r) => r.url === path && (hostname === undefined || r.headers.host === hostname));
      if (!request) throw new Error(`no request for ${path}${hostname ? ` to ${hostname}` : ''} reached the origin`);
      return request;
    },
    openWebSockets: () => wss.clients.size,
    inFlight: () => inFlight,
    close: () => new Promise<void>((resolve) => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface EdgeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  certificate: PeerCertificate;
}

export interface EdgeFixture {
  store: DataStore;
  db: MigratedStore;
  bus: InProcessBus;
  edge: Edge;
  origin: RecordingOrigin;
  caPem: string;
  ca: InternalCa;
  traffic: Array<{ applicationId: string; bytes: number }>;
  /** The clock of the edge's proxied-request limits: a test starts a fresh window instead of waiting for one. */
  clock: TestClock;
  /** An application (free limits unless overridden) with the recording origin active. */
  addApplication(limits?: Partial<Limits>): Promise<{ id: string; slug: string }>;
  /** A domain in `status` with (by default) a certificate from the internal CA. */
  addDomain(applicationId: string, opts?: { status?: DomainStatus; certificate?: boolean; hostname?: string }): Promise<DomainRow>;
  /** HTTPS to the edge with SNI `servername` and Host `host` (default: the same name). */
  get(servername: string, path?: string, opts?: { host?: string; headers?: Record<string, string | string[]>; method?: string; body?: string }): Promise<EdgeAnswer>;
  /** Plain HTTP to the edge's HTTP port. */
  plain(host: string, path?: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

export interface EdgeFixtureOptions {
  /** The store the edge uses, built on the fixture's own (which seeds the data); the same store by default. */
  edgeStore?: (store: DataStore) => DataStore;
  /** The change feed reads on a read-only store of its own, one connection, as edge-service gives it (built on it when a function). */
  ownFeedStore?: boolean | ((feed: DataStore) => DataStore);
}

export async function startEdgeFixture(overrides: Partial<EdgeOptions> = {}, opts: EdgeFixtureOptions = {}): Promise<EdgeFixture> {
  const db = await openMigratedStore();
  const store = db.store;
  const ca = new InternalCa(store, DATA_KEY);
  const caPem = await ca.certificatePem();
  const origin = await startRecordingOrigin();
  const bus = new InProcessBus();
  const traffic: EdgeFixture['traffic'] = [];
  const clock = new TestClock();
  const feedStore = opts.ownFeedStore ? await createDataStore({ url: db.db.url, readOnly: true, poolSize: 1 }) : null;
  const edge = await startEdge({
    store: opts.edgeStore ? opts.edgeStore(store) : store,
    ...(feedStore ? { feedStore: typeof opts.ownFeedStore === 'function' ? opts.ownFeedStore(feedStore) : feedStore } : {}),
    logger: silentLogger,
    bus,
    traffic: { record: (applicationId, bytes) => traffic.push({ applicationId, bytes }) },
    httpsPort: 0,
    httpPort: 0,
    bindAddress: '127.0.0.1',
    dataEncryptionKey: DATA_KEY,
    deploymentKey: DEPLOYMENT_KEY,
    originTimeoutMs: 1_500,
    limiterNow: clock.epochMs,
    ...overrides,
  });
  const agent = new https.Agent({ keepAlive: false });

  const fixture: EdgeFixture = {
    store, db, bus, edge, origin, caPem, ca, traffic, clock,
    async addApplication(limits = {}) {
      const app = anApplication();
      app.limits = { ...app.limits, ...limits };
      await seedApplication(store, origin.url, app);
      return { id: app.id, slug: app.slug };
    },
    async addDomain(applicationId, opts = {}) {
      const domain = aDomain(applicationId, { status: opts.status ?? 'ready', reference: `ws-${randomBytes(3).toString('hex')}`, ...(opts.hostname ? { hostname: opts.hostname } : {}) });
      await store.transaction((r) => r.domains.insert(domain, checksFor(domain.id)));
      if (opts.certificate !== false) await saveCertificate(store, ca, DATA_KEY, domain);
      return domain;
    },
    get(servername, path = '/', opts = {}) {
      return new Promise((resolve, reject) => {
        const req = https.request({
          host: '127.0.0.1', port: edge.httpsPort, path, method: opts.method ?? 'GET', servername, ca: caPem, agent,
          headers: { host: opts.host ?? servername, ...opts.headers },
        }, (res) => {
          const chunks: Buffer[] = [];
          const certificate = (res.socket as TLSSocket).getPeerCertificate();
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), certificate }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(opts.body);
      });
    },
    plain(host, path = '/') {
      return new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: edge.httpPort, path, headers: { host }, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end();
      });
    },
    async close() {
      await edge.close(1_000);
      await feedStore?.close();
      await bus.close();
      await origin.close();
      agent.destroy();
      await db.close();
    },
  };
  return fixture;
}

/** A store whose units of work wait while the gate is held: the edge's database reads, stopped at a chosen moment. */
export interface GatedStore {
  store: DataStore;
  hold(): void;
  release(): void;
  /** Units of work waiting at the gate now. */
  readonly waiting: number;
}

export function gatedStore(inner: DataStore): GatedStore {
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  let waiting = 0;
  const pass = async () => {
    while (gate) {
      waiting += 1;
      try {
        await gate;
      } finally {
        waiting -= 1;
      }
    }
  };
  const store: DataStore = {
    get kind() {
      return inner.kind;
    },
    transaction: async (fn) => {
      await pass();
      return inner.transaction(fn);
    },
    run: async (fn) => {
      await pass();
      return inner.run(fn);
    },
    migrate: () => inner.migrate(),
    pendingMigrations: () => inner.pendingMigrations(),
    pendingIndexes: () => inner.pendingIndexes(),
    revertLastMigration: () => inner.revertLastMigration(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return {
    store,
    hold() {
      gate ??= new Promise<void>((resolve) => { open = resolve; });
    },
    release() {
      gate = null;
      open();
    },
    get waiting() {
      return waiting;
    },
  };
}
