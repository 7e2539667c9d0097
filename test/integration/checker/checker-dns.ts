// pebble-challtestsrv as the DNS the checker asks: TXT and CNAME records a
// test programs, on free loopback ports, with the challenge listeners off.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

// Every name answers A 127.0.0.1 and no AAAA, so Pebble validates over IPv4 loopback.
const BINARY = '/usr/bin/pebble-challtestsrv';

export interface CheckerDns {
  /** For DNS_SERVERS. */
  server: string;
  management: string;
  setTxt(host: string, value: string): Promise<void>;
  clearTxt(host: string): Promise<void>;
  setCname(host: string, target: string): Promise<void>;
  clearCname(host: string): Promise<void>;
  /** Adds a CAA `issue` record with this value. */
  addCaa(host: string, issue: string): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** challtestsrv matches names lowercase and fully qualified. */
const fqdn = (host: string) => `${host.toLowerCase().replace(/\.$/, '')}.`;

export async function startCheckerDns(): Promise<CheckerDns> {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: apt-get install -y pebble`);
  const [dnsPort, managementPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    BINARY,
    ['-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${managementPort}`, '-http01', '', '-https01', '', '-tlsalpn01', '', '-defaultIPv6', ''],
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
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`challtestsrv exited: ${output}`);
    try {
      await post('/clear-txt', { host: 'probe.test.' });
      break;
    } catch (err) {
      if (tries > 50) throw err;
      await sleep(100);
    }
  }
  return {
    server: `127.0.0.1:${dnsPort}`,
    management,
    setTxt: async (host, value) => {
      await post('/clear-txt', { host: fqdn(host) });
      await post('/set-txt', { host: fqdn(host), value });
    },
    clearTxt: (host) => post('/clear-txt', { host: fqdn(host) }),
    setCname: (host, target) => post('/set-cname', { host: fqdn(host), target: fqdn(target) }),
    clearCname: (host) => post('/clear-cname', { host: fqdn(host) }),
    addCaa: (host, issue) => post('/add-caa', { host: fqdn(host), policies: [{ tag: 'issue', value: issue }] }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
