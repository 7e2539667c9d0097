// The client address of a connection to the edge: the one a PROXY protocol
// header carried when the connection came through a load balancer, else the
// peer's address.
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { clientAddress } from '../forwarding/forward-headers';

interface Carried {
  readonly address: string;
}

/** By socket: the raw one the header came on, and each wrapper of it once asked. */
const carriedBySocket = new WeakMap<object, Carried>();
/**
 * By the connection's endpoints, while the raw socket is open: Node wraps it
 * (a TLS socket, an HTTP/2 request's proxy of that) in objects that share its
 * addresses and ports, not its identity.
 */
const carriedByEndpoints = new Map<string, Carried>();

function endpointsOf(socket: net.Socket): string {
  return `${socket.localAddress} ${socket.localPort} ${socket.remoteAddress} ${socket.remotePort}`;
}

/** Records the client address a PROXY protocol header carried for this raw socket. */
export function recordCarriedAddress(socket: net.Socket, address: string): void {
  const carried: Carried = { address };
  const endpoints = endpointsOf(socket);
  carriedBySocket.set(socket, carried);
  carriedByEndpoints.set(endpoints, carried);
  socket.once('close', () => {
    if (carriedByEndpoints.get(endpoints) === carried) carriedByEndpoints.delete(endpoints);
  });
}

/**
 * The address a PROXY protocol header carried, else the peer's address, an
 * IPv4-mapped IPv6 address as IPv4. For an HTTP/2 request `req.socket` is
 * Node's proxy of the TLS socket, which passes property reads through to it.
 */
export function clientAddressOf(socket: net.Socket | Duplex): string {
  const known = carriedBySocket.get(socket);
  if (known !== undefined) return known.address;
  const s = socket as net.Socket;
  // Empty unless connections came with a PROXY header: then no lookup is made.
  if (carriedByEndpoints.size > 0) {
    const carried = carriedByEndpoints.get(endpointsOf(s));
    if (carried !== undefined) {
      carriedBySocket.set(socket, carried);
      return carried.address;
    }
  }
  return clientAddress(s.remoteAddress);
}
