// What a new connection to either edge listener passes before its server sees
// it: the cap on open connections of the edge, then, behind a load balancer,
// the PROXY protocol header that says who the client is, then the cap on open
// connections of that client.
import type net from 'node:net';
import { cidrMatcher } from '@cds/core';
import { clientAddress } from '../forwarding/forward-headers';
import { recordCarriedAddress } from './client-address';
import { readProxyHeader } from './proxy-header';

export const CONNECTION_REFUSALS = {
  /** The edge had `maxConnections` open. */
  maxConnections: 'max_connections',
  /** The client address had `maxConnectionsPerClient` open. */
  maxConnectionsPerClient: 'max_connections_per_client',
  /** PROXY protocol: a peer outside the trusted ranges. */
  untrustedPeer: 'untrusted_peer',
  /** PROXY protocol: no valid header, or none in time. */
  proxyHeader: 'proxy_header',
} as const;
export type ConnectionRefusal = (typeof CONNECTION_REFUSALS)[keyof typeof CONNECTION_REFUSALS];

/** How long a load balancer has to send the PROXY header (DECISIONS §5: "a few seconds"). */
export const PROXY_HEADER_TIMEOUT_MS = 5_000;

export interface ProxyProtocolOptions {
  /** The peers that may send the header (EDGE_PROXY_PROTOCOL_CIDRS). */
  trustedCidrs: readonly string[];
  /** Default PROXY_HEADER_TIMEOUT_MS. */
  headerTimeoutMs?: number;
}

/** Open client connections of one edge when nothing else is said (EDGE_MAX_CONNECTIONS' default). */
export const DEFAULT_MAX_CONNECTIONS = 20_000;
/** Open connections of one client address when nothing else is said (EDGE_MAX_CONNECTIONS_PER_CLIENT's default). */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 256;

export interface ConnectionGateOptions {
  /** Open client connections across every guarded server (EDGE_MAX_CONNECTIONS). */
  maxConnections: number;
  /** Open connections of one client address (EDGE_MAX_CONNECTIONS_PER_CLIENT; default DEFAULT_MAX_CONNECTIONS_PER_CLIENT). */
  maxConnectionsPerClient?: number;
  /** Set: every connection starts with a PROXY protocol header (EDGE_PROXY_PROTOCOL). */
  proxyProtocol: ProxyProtocolOptions | null;
  onRefused(reason: ConnectionRefusal): void;
}

type ConnectionHandler = (socket: net.Socket) => void;

export class ConnectionGate {
  /** Connections open now on the guarded servers, those still awaiting their PROXY header included. */
  private open = 0;
  /** Connections open now by client address, counted once the address is known (after the PROXY header). */
  private readonly byClient = new Map<string, number>();
  private readonly proxy: { trusted: (address: string) => boolean; headerTimeoutMs: number } | null;

  constructor(private readonly opts: ConnectionGateOptions) {
    const proxy = opts.proxyProtocol;
    this.proxy = proxy ? { trusted: cidrMatcher(proxy.trustedCidrs), headerTimeoutMs: proxy.headerTimeoutMs ?? PROXY_HEADER_TIMEOUT_MS } : null;
  }

  /**
   * Puts the gate before `server`'s own handling of new connections (the HTTP
   * or TLS server's 'connection' listeners, called once the gate lets a socket
   * through). The server keeps listening and closing as before. A 'connection'
   * listener added later runs before the gate.
   */
  guard(server: net.Server): void {
    const handlers = server.listeners('connection') as ConnectionHandler[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: net.Socket) => {
      this.admit(socket, () => {
        for (const handler of handlers) handler.call(server, socket);
      });
    });
  }

  private admit(socket: net.Socket, handOver: () => void): void {
    if (this.open >= this.opts.maxConnections) return this.refuse(socket, CONNECTION_REFUSALS.maxConnections);
    this.open += 1;
    socket.once('close', () => {
      this.open -= 1;
    });
    if (this.proxy === null) return this.admitClient(socket, clientAddress(socket.remoteAddress), handOver);
    if (!this.proxy.trusted(socket.remoteAddress ?? '')) return this.refuse(socket, CONNECTION_REFUSALS.untrustedPeer);
    this.awaitProxyHeader(socket, this.proxy.headerTimeoutMs, handOver);
  }

  /** One client may not take the whole edge: past its own cap its connection is closed, others are served. */
  private admitClient(socket: net.Socket, address: string, handOver: () => void): void {
    const open = this.byClient.get(address) ?? 0;
    if (open >= (this.opts.maxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT)) {
      return this.refuse(socket, CONNECTION_REFUSALS.maxConnectionsPerClient);
    }
    this.byClient.set(address, open + 1);
    socket.once('close', () => {
      const left = (this.byClient.get(address) ?? 1) - 1;
      if (left > 0) this.byClient.set(address, left);
      else this.byClient.delete(address);
    });
    handOver();
  }

  /** Reads the header off the raw socket, puts back what came after it, and hands the socket over. */
  private awaitProxyHeader(socket: net.Socket, timeoutMs: number, handOver: () => void): void {
    let received: Buffer = Buffer.alloc(0);
    const stop = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', stop);
    };
    const fail = () => {
      stop();
      this.refuse(socket, CONNECTION_REFUSALS.proxyHeader);
    };
    const onData = (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const read = readProxyHeader(received);
      if (read.kind === 'partial') return;
      if (read.kind === 'invalid') return fail();
      stop();
      // Paused, the bytes put back stay buffered until the server's own reader takes them: the TLS
      // server reads them off the paused socket; the HTTP server reads through 'data', so it resumes.
      socket.pause();
      if (received.length > read.length) socket.unshift(received.subarray(read.length));
      if (read.source !== null) recordCarriedAddress(socket, read.source);
      // A LOCAL header (the balancer's own health check) carries no client: the peer is the client.
      this.admitClient(socket, read.source ?? clientAddress(socket.remoteAddress), handOver);
      if (!socket.destroyed && socket.listenerCount('data') > 0) socket.resume();
    };
    // A peer that resets before its header was read: nothing to hand over.
    const onError = () => {
      stop();
      socket.destroy();
    };
    const timer = setTimeout(fail, timeoutMs);
    timer.unref();
    socket.on('data', onData);
    socket.on('error', onError);
    socket.once('close', stop);
  }

  private refuse(socket: net.Socket, reason: ConnectionRefusal): void {
    socket.destroy();
    this.opts.onRefused(reason);
  }
}
