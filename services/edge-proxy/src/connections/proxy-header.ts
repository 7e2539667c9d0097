// The PROXY protocol header (HAProxy's proxy-protocol.txt, v1 text and v2
// binary) a load balancer puts before a connection's own bytes. Pure: it reads
// a buffer that may hold only the header's beginning, so a caller feeds it
// what has arrived until it says the header is complete or invalid.
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What the bytes received so far are. `source` is null where the header carries no client (v1 UNKNOWN, v2 LOCAL or unspecified addresses): the peer is the client then. */
export type ProxyHeaderRead =
  | { kind: 'partial' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'header'; length: number; source: string | null };

const V1_PREFIX = Buffer.from('PROXY ');
/** v1: the longest line the protocol allows, CRLF included. */
export const V1_MAX_LENGTH = 107;
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V2_FIXED_LENGTH = 16;
/** v2: addresses plus TLVs; balancers send a few hundred bytes at most, and nothing longer is buffered. */
export const V2_MAX_LENGTH = 4096;

const PARTIAL: ProxyHeaderRead = Object.freeze({ kind: 'partial' });

/** Whether `data` begins like `expected`, as far as it goes. */
function beginsLike(data: Buffer, expected: Buffer): boolean {
  const n = Math.min(data.length, expected.length);
  return data.subarray(0, n).equals(expected.subarray(0, n));
}

/** The header at the start of `data`, if one is there or may still come. */
export function readProxyHeader(data: Buffer): ProxyHeaderRead {
  if (data.length === 0) return PARTIAL;
  if (beginsLike(data, V1_PREFIX)) return readV1(data);
  if (beginsLike(data, V2_SIGNATURE)) return readV2(data);
  return { kind: 'invalid', reason: 'no PROXY protocol signature' };
}

const PORT = /^(?:0|[1-9]\d{0,4})$/;

function readV1(data: Buffer): ProxyHeaderRead {
  const end = data.subarray(0, V1_MAX_LENGTH).indexOf('\r\n');
  if (end < 0) return data.length >= V1_MAX_LENGTH ? { kind: 'invalid', reason: 'v1 line too long' } : PARTIAL;
  const length = end + 2;
  const fields = data.toString('latin1', V1_PREFIX.length, end).split(' ');
  // UNKNOWN: the receiver ignores the rest of the line and uses the connection's own addresses.
  if (fields[0] === 'UNKNOWN') return { kind: 'header', length, source: null };
  const [family, source = '', destination = '', sourcePort = '', destinationPort = ''] = fields;
  const isFamily = family === 'TCP4' ? isIPv4 : family === 'TCP6' ? isIPv6 : null;
  if (fields.length !== 5 || isFamily === null) return { kind: 'invalid', reason: 'v1 line malformed' };
  const portsValid = [sourcePort, destinationPort].every((p) => PORT.test(p) && Number(p) <= 65_535);
  if (!isFamily(source) || !isFamily(destination) || !portsValid) return { kind: 'invalid', reason: 'v1 addresses malformed' };
  return { kind: 'header', length, source: normalized(source) };
}

const COMMAND = { local: 0x0, proxy: 0x1 } as const;
const FAMILY = { unspecified: 0x0, inet: 0x1, inet6: 0x2, unix: 0x3 } as const;
/** Bytes of the address block each family needs (source, destination, ports). */
const ADDRESS_LENGTH: Record<number, number> = { [FAMILY.unspecified]: 0, [FAMILY.inet]: 12, [FAMILY.inet6]: 36, [FAMILY.unix]: 216 };
const TRANSPORT = { unspecified: 0x0, stream: 0x1, dgram: 0x2 } as const;
/**
 * The family and transport bytes a PROXY command may carry to the edge, which
 * takes TCP connections: TCP over IPv4 or IPv6, or unspecified (the peer is the
 * client, as v1 UNKNOWN). A datagram's or a UNIX socket's addresses are no TCP
 * client's, and the spec lets a receiver refuse them.
 */
const PROXIED = new Set<number>([
  (FAMILY.unspecified << 4) | TRANSPORT.unspecified,
  (FAMILY.inet << 4) | TRANSPORT.stream,
  (FAMILY.inet6 << 4) | TRANSPORT.stream,
]);

function readV2(data: Buffer): ProxyHeaderRead {
  if (data.length < V2_FIXED_LENGTH) return PARTIAL;
  const versionCommand = data[12] as number;
  const familyTransport = data[13] as number;
  const length = V2_FIXED_LENGTH + data.readUInt16BE(14);
  const command = versionCommand & 0x0f;
  const family = familyTransport >> 4;
  if (versionCommand >> 4 !== 2 || (command !== COMMAND.local && command !== COMMAND.proxy)) return { kind: 'invalid', reason: 'v2 version or command unknown' };
  const addressLength = ADDRESS_LENGTH[family];
  if (addressLength === undefined || (familyTransport & 0x0f) > TRANSPORT.dgram) return { kind: 'invalid', reason: 'v2 family or transport unknown' };
  // LOCAL is exempt: the spec has the receiver ignore its family and use the connection's own addresses.
  if (command === COMMAND.proxy && !PROXIED.has(familyTransport)) return { kind: 'invalid', reason: 'v2 connection not TCP' };
  if (length > V2_MAX_LENGTH) return { kind: 'invalid', reason: 'v2 header too long' };
  if (length - V2_FIXED_LENGTH < addressLength) return { kind: 'invalid', reason: 'v2 length shorter than its addresses' };
  if (data.length < length) return PARTIAL;
  // LOCAL: the balancer's own connection (a health check); TLVs after the addresses are skipped.
  if (command === COMMAND.local) return { kind: 'header', length, source: null };
  if (family === FAMILY.inet) return { kind: 'header', length, source: ipaddr.fromByteArray([...data.subarray(16, 20)]).toString() };
  if (family === FAMILY.inet6) return { kind: 'header', length, source: normalized(ipaddr.fromByteArray([...data.subarray(16, 32)]).toString()) };
  return { kind: 'header', length, source: null }; // unspecified
}

/** One spelling per address: IPv6 compressed and lowercase, IPv4-mapped IPv6 as IPv4. */
function normalized(address: string): string {
  return ipaddr.process(address).toString();
}
