// A real ACME server for tests: pebble on free loopback ports with its own
// listener certificate (from a throwaway CA given to the client as
// ACME_CA_BUNDLE), validating HTTP-01 on `httpPort` and resolving names
// through challtestsrv. Every order is validated anew (no authorization reuse).
// With `externalAccountMACKeys`, new accounts need External Account Binding.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { eventually } from '../../support/eventually';
import { createThrowawayCa } from '../../support/throwaway-ca';
import { freePort } from './checker-dns';

const BINARY = '/usr/bin/pebble';

export interface TestPebble {
  directoryUrl: string;
  /** For ACME_CA_BUNDLE. */
  caBundle: string;
  /** The listener's certificate and key (for 127.0.0.1 and localhost, from the ACME_CA_BUNDLE CA), for servers beside Pebble. */
  listener: { cert: string; key: string; ca: string };
  /** GET on the management listener (`/roots/0`, `/intermediates/0`). */
  management(path: string): Promise<string>;
  stop(): Promise<void>;
}

function get(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode} ${body}`))));
    }).on('error', reject);
  });
}

export interface PebbleOptions {
  httpPort: number;
  dnsServer: string;
  /** Key id -> base64url HMAC key: accounts are registered only with External Account Binding by one of them. */
  externalAccountMACKeys?: Record<string, string>;
}

export async function startPebble(opts: PebbleOptions): Promise<TestPebble> {
  const ca = createThrowawayCa('Pebble listener CA');
  const dir = join(ca.caFile, '..');
  writeFileSync(join(dir, 'leaf.cert.pem'), ca.leaf.cert);
  writeFileSync(join(dir, 'leaf.key.pem'), ca.leaf.key);
  const [port, managementPort, tlsPort] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${port}`,
      managementListenAddress: `127.0.0.1:${managementPort}`,
      certificate: join(dir, 'leaf.cert.pem'),
      privateKey: join(dir, 'leaf.key.pem'),
      httpPort: opts.httpPort,
      tlsPort,
      ocspResponderURL: '',
      externalAccountBindingRequired: opts.externalAccountMACKeys !== undefined,
      ...(opts.externalAccountMACKeys ? { externalAccountMACKeys: opts.externalAccountMACKeys } : {}),
    },
  }));
  // PEBBLE_AUTHZREUSE=0 still reuses a valid authorization for about one order
  // in a hundred (2.4.0 makes a new one only when rand.Intn(100) > 0): a test
  // whose order must be validated deactivates the earlier authorizations.
  const child: ChildProcess = spawn(BINARY, ['-config', join(dir, 'pebble.json'), '-dnsserver', opts.dnsServer], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const directoryUrl = `https://127.0.0.1:${port}/dir`;
  let lastError: unknown = null;
  await eventually('pebble to answer', async () => {
    if (child.exitCode !== null) throw new Error(`pebble exited: ${output}`);
    return get(directoryUrl, ca.caPem).then(() => true, (err: unknown) => {
      lastError = err;
      return false;
    });
  }, { timeoutMs: 10_000, intervalMs: 100, explain: () => `${String(lastError)} ${output}` });
  return {
    directoryUrl,
    caBundle: ca.caFile,
    listener: { cert: ca.leaf.cert, key: ca.leaf.key, ca: ca.caPem },
    management: (path) => get(`https://127.0.0.1:${managementPort}${path}`, ca.caPem),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }
      ca.remove();
    },
  };
}
