// The DNS of the demo: pebble-challtestsrv on loopback. The checker asks it
// (DNS_SERVERS), and the customer publishes records into it through its
// management API, as they would at their DNS provider. It answers only what
// was published: no default A or AAAA answers.
import { existsSync } from 'node:fs';
import { freePort, startChild, waitFor, type Child, type UnexpectedExit } from './children';
import { httpCall } from './narrator';

const BINARY = '/usr/bin/pebble-challtestsrv';

export interface DnsServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  readonly address: string;
  /** Base URL of the management API. */
  readonly management: string;
  readonly child: Child;
  /** Publishes a TXT record (replacing any other TXT value of the name); the call is printed. */
  publishTxt(name: string, value: string): Promise<void>;
  /** Publishes a CNAME record; the call is printed. */
  publishCname(name: string, target: string): Promise<void>;
}

/** challtestsrv matches names lowercase and fully qualified. */
export const fqdn = (name: string): string => `${name.toLowerCase().replace(/\.$/, '')}.`;

export async function startDnsServer(onUnexpectedExit: UnexpectedExit): Promise<DnsServer> {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: install the Debian package pebble (make demo does: scripts/demo/install-tools.sh)`);
  const [dnsPort, managementPort] = [await freePort(), await freePort()];
  const child = startChild('DNS server (pebble-challtestsrv)', BINARY, [
    '-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${managementPort}`,
    // Its challenge listeners are not needed (their default ports could collide); no answers unless published.
    '-http01', '', '-https01', '', '-tlsalpn01', '', '-defaultIPv4', '', '-defaultIPv6', '',
  ], { stdio: 'ignore' }, onUnexpectedExit);
  const management = `http://127.0.0.1:${managementPort}`;

  const post = async (path: string, body: unknown, print: boolean) => {
    const text = JSON.stringify(body);
    const response = await fetch(`${management}${path}`, { method: 'POST', body: text });
    if (print) httpCall('POST', path, text, response.status);
    if (!response.ok) throw new Error(`the DNS server's management API answered ${response.status} to ${path}: ${await response.text()}`);
  };
  await waitFor('the DNS server to answer', 10_000, 100, () =>
    child.exit !== null ? Promise.reject(new Error(`pebble-challtestsrv stopped (${child.exit})`))
      : post('/clear-txt', { host: 'probe.demo.' }, false).then(() => true, () => undefined));

  return {
    address: `127.0.0.1:${dnsPort}`,
    management,
    child,
    async publishTxt(name, value) {
      await post('/clear-txt', { host: fqdn(name) }, false);
      await post('/set-txt', { host: fqdn(name), value }, true);
    },
    publishCname: (name, target) => post('/set-cname', { host: fqdn(name), target: fqdn(target) }, true),
  };
}
