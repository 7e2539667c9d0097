// pebble-challtestsrv as a programmable DNS server for tests (DNS_SERVERS).
// Started on free loopback ports with its challenge listeners off and no
// default answers unless asked, so a name resolves only to what a test programs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { eventually } from './eventually';
import { freePort } from './free-port';

const BINARY = '/usr/bin/pebble-challtestsrv';

export interface TestDns {
  /** For DNS_SERVERS. */
  server: string;
  /** Base URL of the management API. */
  management: string;
  /** Replaces the A and AAAA answers of `host`. */
  setAddresses(host: string, addresses: string[]): Promise<void>;
  /** Replaces the TXT answers of `host` with `value`. */
  setTxt(host: string, value: string): Promise<void>;
  clearTxt(host: string): Promise<void>;
  setCname(host: string, target: string): Promise<void>;
  clearCname(host: string): Promise<void>;
  /** Adds a CAA `issue` record with this value. */
  addCaa(host: string, issue: string): Promise<void>;
  /** Every query of `host` answers SERVFAIL until clearServfail (its records are kept). */
  setServfail(host: string): Promise<void>;
  clearServfail(host: string): Promise<void>;
  stop(): Promise<void>;
}

export interface TestDnsOptions {
  /** A answer for every name not programmed otherwise; none when absent. */
  defaultIPv4?: string;
}

/** Names are sent lowercase and fully qualified, as challtestsrv matches them. */
const fqdn = (host: string) => `${host.toLowerCase().replace(/\.$/, '')}.`;

export async function startTestDns(opts: TestDnsOptions = {}): Promise<TestDns> {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: apt-get install -y pebble`);
  const [dnsPort, managementPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    BINARY,
    [
      '-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${managementPort}`,
      '-http01', '', '-https01', '', '-tlsalpn01', '',
      '-defaultIPv4', opts.defaultIPv4 ?? '', '-defaultIPv6', '',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const management = `http://127.0.0.1:${managementPort}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${management}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`challtestsrv ${path}: ${res.status} ${await res.text()}`);
  };
  let lastError: unknown = null;
  await eventually('challtestsrv to answer', async () => {
    if (child.exitCode !== null) throw new Error(`challtestsrv exited: ${output}`);
    return post('/clear-a', { host: 'probe.test.' }).then(() => true, (err: unknown) => {
      lastError = err;
      return false;
    });
  }, { timeoutMs: 5_000, intervalMs: 100, explain: () => String(lastError) });
  return {
    server: `127.0.0.1:${dnsPort}`,
    management,
    async setAddresses(host, addresses) {
      const v4 = addresses.filter((a) => !a.includes(':'));
      const v6 = addresses.filter((a) => a.includes(':'));
      await post('/clear-a', { host: fqdn(host) });
      await post('/clear-aaaa', { host: fqdn(host) });
      if (v4.length > 0) await post('/add-a', { host: fqdn(host), addresses: v4 });
      if (v6.length > 0) await post('/add-aaaa', { host: fqdn(host), addresses: v6 });
    },
    async setTxt(host, value) {
      await post('/clear-txt', { host: fqdn(host) });
      await post('/set-txt', { host: fqdn(host), value });
    },
    clearTxt: (host) => post('/clear-txt', { host: fqdn(host) }),
    setCname: (host, target) => post('/set-cname', { host: fqdn(host), target: fqdn(target) }),
    clearCname: (host) => post('/clear-cname', { host: fqdn(host) }),
    addCaa: (host, issue) => post('/add-caa', { host: fqdn(host), policies: [{ tag: 'issue', value: issue }] }),
    setServfail: (host) => post('/set-servfail', { host: fqdn(host) }),
    clearServfail: (host) => post('/clear-servfail', { host: fqdn(host) }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
