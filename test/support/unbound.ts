// Unbound (Debian's `unbound`) as the recursive resolver Pebble and the checker
// ask: on a free loopback port (UDP and TCP), sending each configured zone to
// its own server on loopback and following CNAME chains from one zone into
// another, as a resolver on the internet does with delegations.
//
// Per zone: `forward-zone` (the default) for a server that answers anything it
// is asked, like pebble-challtestsrv (its answers carry no AA flag, an SOA of
// challtestsrv.invalid. in the authority section, NOTIMP for SOA queries: not
// an authoritative server), `stub-zone` (`authoritative: true`) for a real
// authoritative server such as BIND with recursion off. Unbound 1.17 resolves
// the delegation chain either way; stub is the faithful one for BIND.
//
// No DNSSEC (iterator module only, no trust anchor), no caching beyond 0 s, so
// a test sees every change on the servers at once. Runs in the foreground (-d)
// as the user running the tests (username "" keeps it from switching to the
// `unbound` user, chroot "" from chrooting to /etc/unbound), logging to stderr.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsDaemon } from './dns-daemon';
import { freePort } from './free-port';

const UNBOUND = '/usr/sbin/unbound';

export interface Unbound {
  host: '127.0.0.1';
  port: number;
  /** host:port for Pebble's -dnsserver and the checker's resolver list */
  server: string;
  stop(): Promise<void>;
}

export interface UnboundZone {
  zone: string;
  server: string /* host:port */;
  /** An authoritative server (recursion off, AA answers): a stub-zone instead of a forward-zone. */
  authoritative?: boolean;
}

/** Unbound answers these special-use names itself (NXDOMAIN) unless told otherwise. */
const DEFAULT_LOCAL_ZONES = ['test', 'invalid', 'onion', 'home.arpa', 'localhost'];
/** A name Unbound answers from its own configuration: the readiness probe. */
const PROBE = 'ready.unbound.invalid';

function address(server: string): string {
  const match = /^(\d+\.\d+\.\d+\.\d+):(\d+)$/.exec(server);
  if (!match) throw new Error(`${server}: expected an IPv4 host:port`);
  return `${match[1]}@${match[2]}`;
}

export async function startUnbound(opts: { forwardZones: UnboundZone[] }): Promise<Unbound> {
  if (!existsSync(UNBOUND)) throw new Error(`${UNBOUND} is missing: scripts/ensure-services.sh installs Debian's unbound`);
  const dir = mkdtempSync(join(tmpdir(), 'cds-unbound-'));
  const port = await freePort();
  const zones = opts.forwardZones.map((z) => ({ ...z, zone: z.zone.toLowerCase().replace(/\.$/, '') }));
  const specialParents = DEFAULT_LOCAL_ZONES.filter((special) =>
    zones.some(({ zone }) => zone === special || zone.endsWith(`.${special}`)));
  const lines = [
    'server:',
    `  interface: 127.0.0.1@${port}`,
    `  port: ${port}`,
    '  do-ip6: no',
    '  do-udp: yes',
    '  do-tcp: yes',
    // The zones' servers are on loopback, which Unbound skips by default.
    '  do-not-query-localhost: no',
    '  access-control: 127.0.0.0/8 allow',
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    `  pidfile: "${join(dir, 'unbound.pid')}"`,
    '  use-syslog: no',
    '  logfile: ""',
    '  verbosity: 1',
    '  num-threads: 1',
    '  module-config: "iterator"',
    // Whole names to the zones' servers: challtestsrv answers NOERROR/no data for empty non-terminals.
    '  qname-minimisation: no',
    '  cache-max-ttl: 0',
    '  cache-max-negative-ttl: 0',
    // A server that was down (not started yet, restarted by a test) is asked again after 1 s.
    '  infra-host-ttl: 1',
    // The special-use parents of the configured zones (test., invalid.) lose their built-in NXDOMAIN.
    ...specialParents.map((special) => `  local-zone: "${special}." nodefault`),
    `  local-zone: "${PROBE}." static`,
    `  local-data: '${PROBE}. 0 IN TXT "ready"'`,
    'remote-control:',
    '  control-enable: no',
    ...zones.flatMap(({ zone, server, authoritative }) => authoritative
      ? ['stub-zone:', `  name: "${zone}."`, `  stub-addr: ${address(server)}`]
      : ['forward-zone:', `  name: "${zone}."`, `  forward-addr: ${address(server)}`]),
    '',
  ];
  const config = join(dir, 'unbound.conf');
  writeFileSync(config, lines.join('\n'));
  const stop = await startDnsDaemon({ name: 'unbound', command: UNBOUND, args: ['-d', '-c', config], dir, port, probe: (resolver) => resolver.resolveTxt(PROBE) });
  return { host: '127.0.0.1', port, server: `127.0.0.1:${port}`, stop };
}
