// Settings that are valid but leave a door open behind a load balancer: the
// services log these once at start. Pure: each takes the validated
// configuration and gives the line to log, or null.
import ipaddr from 'ipaddr.js';
import type { Config } from './config.types';
import { LOOPBACK_AND_PRIVATE_RANGES, PRIVATE_RANGES, VARIABLES } from './config-variables';
import { parseCidrList } from './network-parsers';

const PRIVATE = parseCidrList(PRIVATE_RANGES);
const DEFAULT_PEERS = parseCidrList(LOOPBACK_AND_PRIVATE_RANGES);

/** Whether two CIDR ranges share an address: one holds the other's first address. */
function overlaps(a: string, b: string): boolean {
  const [first, firstBits] = ipaddr.parseCIDR(a);
  const [second, secondBits] = ipaddr.parseCIDR(b);
  if (first.kind() !== second.kind()) return false;
  return first.match([second, secondBits] as [typeof first, number]) || second.match([first, firstBits] as [typeof second, number]);
}

/** Bound to loopback only (the all-in-one default), no private peer can connect at all. */
function loopbackOnly(bindAddress: string): boolean {
  if (bindAddress.toLowerCase() === 'localhost') return true;
  return ipaddr.isValid(bindAddress) && ipaddr.process(bindAddress).range() === 'loopback';
}

/**
 * The operator API on the public API port, client addresses taken from the
 * socket and private ranges allowed: behind a load balancer or an ingress
 * every request comes from the proxy's private address, so the allowlist
 * lets the whole internet through to the token check.
 */
export function operatorExposureWarning(
  config: Pick<Config, 'operatorApiEnabled' | 'operatorPort' | 'trustProxy' | 'operatorAllowedCidrs' | 'bindAddress'>,
): string | null {
  if (!config.operatorApiEnabled || config.operatorPort !== null || loopbackOnly(config.bindAddress)) return null;
  // express trusts no proxy with `false` or a hop count of 0.
  if (config.trustProxy !== false && config.trustProxy !== 0) return null;
  if (!config.operatorAllowedCidrs.some((cidr) => PRIVATE.some((range) => overlaps(cidr, range)))) return null;
  const v = (key: keyof typeof VARIABLES) => VARIABLES[key].name;
  return (
    `the operator API is served on ${v('apiPort')} (${v('operatorPort')} unset) while ${v('trustProxy')} is false and ${v('operatorAllowedCidrs')} includes private ranges: ` +
    `behind a load balancer or ingress every client arrives from a private address and passes the allowlist. ` +
    `Set ${v('operatorPort')} (8082, as the Helm chart does) and keep that port internal, or set ${v('trustProxy')} to the proxy's addresses, or narrow ${v('operatorAllowedCidrs')}`
  );
}

/**
 * PROXY protocol on with the default trusted peers: any host in loopback or a
 * private range may send a header and claim any client address.
 */
export function proxyProtocolPeersWarning(config: Pick<Config, 'edgeProxyProtocol' | 'edgeProxyProtocolCidrs'>): string | null {
  if (!config.edgeProxyProtocol) return null;
  const peers = new Set(config.edgeProxyProtocolCidrs);
  if (peers.size !== DEFAULT_PEERS.length || !DEFAULT_PEERS.every((cidr) => peers.has(cidr))) return null;
  const v = (key: keyof typeof VARIABLES) => VARIABLES[key].name;
  return (
    `${v('edgeProxyProtocol')} is true and ${v('edgeProxyProtocolCidrs')} is its default (loopback and every private range): any host there may send a header and claim any client address. ` +
    `Set ${v('edgeProxyProtocolCidrs')} to the ranges the load balancer connects from`
  );
}
