// BIND 9 (Debian's `bind9`, /usr/sbin/named) as the authoritative server of the
// ACME DNS-01 delegation zone: a primary zone taking TSIG-signed RFC 2136 updates
// of TXT records anywhere in it, on a free loopback port (UDP and TCP), with its
// configuration, zone file, journal and key files in a temporary directory.
//
// named runs in the foreground (-g, every log line on stderr, kept for error
// messages) as the user running the tests, root or not: -u only applies when
// started as root and is not given, so the files it writes (journal,
// managed-keys, session key, pid file) stay in the temporary directory that
// user owns. Debian's AppArmor profile for named would confine it to /etc/bind
// and /var/cache/bind, but these machines run without AppArmor; where it is
// enforced, `aa-complain /usr/sbin/named` lets named use a temporary directory.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsDaemon } from './dns-daemon';
import { freePort } from './free-port';

const NAMED = '/usr/sbin/named';

export interface TsigKey { name: string; algorithm: 'hmac-sha256' | 'hmac-sha512'; secret: string /* base64 */ }

export interface Bind9 {
  host: '127.0.0.1';
  port: number;
  zone: string;
  key: TsigKey;
  /** name:algorithm:secret, the ACME_DNS_TSIG_KEY format */
  keySetting: string;
  stop(): Promise<void>;
}

/** Keeps the end of named's output: it logs every zone update. */

export async function startBind9(opts: { zone: string; key?: TsigKey /* default: a fresh random hmac-sha256 key named `cds-test` */ }): Promise<Bind9> {
  if (!existsSync(NAMED)) throw new Error(`${NAMED} is missing: scripts/ensure-services.sh installs Debian's bind9`);
  const zone = opts.zone.toLowerCase().replace(/\.$/, '');
  const key: TsigKey = opts.key ?? { name: 'cds-test', algorithm: 'hmac-sha256', secret: randomBytes(32).toString('base64') };
  if (!/^[a-z0-9][a-z0-9.-]*$/i.test(key.name)) throw new Error(`TSIG key name ${key.name} is not a plain DNS name`);
  const dir = mkdtempSync(join(tmpdir(), 'cds-bind9-'));
  const port = await freePort();
  const zoneFile = join(dir, `${zone}.db`);
  // Short TTLs and a negative-caching TTL of 1 s: resolvers in front see updates at once.
  writeFileSync(zoneFile, [
    '$TTL 1',
    `@ IN SOA ns.${zone}. hostmaster.${zone}. 1 60 60 600 1`,
    `@ IN NS ns.${zone}.`,
    'ns IN A 127.0.0.1',
    '',
  ].join('\n'));
  writeFileSync(join(dir, 'named.conf'), [
    `key "${key.name}" { algorithm ${key.algorithm}; secret "${key.secret}"; };`,
    'options {',
    `  directory "${dir}";`,
    `  pid-file "${join(dir, 'named.pid')}";`,
    `  session-keyfile "${join(dir, 'session.key')}";`,
    `  managed-keys-directory "${dir}";`,
    `  listen-on port ${port} { 127.0.0.1; };`,
    '  listen-on-v6 { none; };',
    '  recursion no;',
    '  dnssec-validation no;',
    '  notify no;',
    '};',
    // No rndc control channel (it would listen on 127.0.0.1:953 and need /etc/bind/rndc.key).
    'controls { };',
    `zone "${zone}" {`,
    '  type primary;',
    `  file "${zoneFile}";`,
    `  update-policy { grant "${key.name}" zonesub TXT; };`,
    '};',
    '',
  ].join('\n'));
  const stop = await startDnsDaemon({ name: 'named', command: NAMED, args: ['-g', '-4', '-n', '1', '-c', join(dir, 'named.conf')], dir, port, probe: (resolver) => resolver.resolveSoa(zone) });
  return {
    host: '127.0.0.1',
    port,
    zone,
    key,
    keySetting: `${key.name}:${key.algorithm}:${key.secret}`,
    stop,
  };
}
