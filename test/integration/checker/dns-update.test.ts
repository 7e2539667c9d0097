// The DNS-01 challenge records written into the delegated zone of a real BIND 9
// by TSIG-signed RFC 2136 updates, read back from it, and removed one by one;
// a wrong key, a name outside the zone and a dead server fail as the operator
// needs to hear it.
import { randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { createServer, type Server, type Socket } from 'node:net';
import { parseTsigKey } from '@cds/config';
import { DnsUpdateClient, DnsUpdateError } from '@cds/checker';
import { startBind9, type Bind9 } from '../../support/bind9';
import { freePort } from '../../support/free-port';

const ZONE = 'acme.edge.test';
let bind: Bind9;
let client: DnsUpdateClient;
let resolver: dns.Resolver;

beforeAll(async () => {
  bind = await startBind9({ zone: ZONE });
  client = new DnsUpdateClient({ server: { host: bind.host, port: bind.port }, zone: ZONE, key: parseTsigKey(bind.keySetting), timeoutMs: 3000 });
  resolver = new dns.Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`${bind.host}:${bind.port}`]);
});

afterAll(async () => {
  await bind?.stop();
});

/** A challenge value as ACME makes it: base64url of a SHA-256 digest (43 characters). */
const challengeValue = () => randomBytes(32).toString('base64url');
const challengeName = (label: string) => `_acme-challenge.${label}-${randomBytes(4).toString('hex')}.${ZONE}`;
const resolvedTxt = (name: string) => resolver.resolveTxt(name).then((records) => records.map((chunks) => chunks.join('')), () => []);

/** A TCP listener that counts connections and never answers. */
async function silentServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  return { server, port: (server.address() as { port: number }).port, connections: () => sockets.length };
}

async function closeServer(server: Server): Promise<void> {
  server.close();
  await new Promise<void>((resolve) => setImmediate(resolve));
}

test('an added value is served by the zone; a second coexists; removing one leaves exactly the other', async () => {
  const name = challengeName('shop');
  const first = challengeValue();
  const second = challengeValue();
  expect(await client.authoritativeTxt(name)).toEqual([]);

  await client.addTxt(name, first, 60);
  expect(await client.authoritativeTxt(name)).toEqual([first]);
  expect(await resolvedTxt(name)).toEqual([first]);

  await client.addTxt(name, second, 60);
  expect((await client.authoritativeTxt(name)).sort()).toEqual([first, second].sort());
  expect((await resolvedTxt(name)).sort()).toEqual([first, second].sort());

  await client.removeTxt(name, first);
  expect(await client.authoritativeTxt(name)).toEqual([second]);
  expect(await resolvedTxt(name)).toEqual([second]);

  await client.removeTxt(name, second);
  expect(await client.authoritativeTxt(name)).toEqual([]);
  // Removing a value that is not there is no error (a retried cleanup).
  await expect(client.removeTxt(name, second)).resolves.toBeUndefined();
});

test('a value of more than 255 bytes goes in several strings and reads back whole', async () => {
  const name = challengeName('long');
  const value = 'v'.repeat(300);
  await client.addTxt(name, value, 60);
  expect(await client.authoritativeTxt(name)).toEqual([value]);
  await client.removeTxt(name, value);
  expect(await client.authoritativeTxt(name)).toEqual([]);
});

test('a wrong secret is refused as the TSIG key, naming it, and writes nothing', async () => {
  const name = challengeName('wrong-key');
  const key = parseTsigKey(`${bind.key.name}:${bind.key.algorithm}:${randomBytes(32).toString('base64')}`);
  const wrong = new DnsUpdateClient({ server: { host: bind.host, port: bind.port }, zone: ZONE, key, timeoutMs: 3000 });
  const error = await wrong.addTxt(name, challengeValue(), 60).then(() => undefined, (err: unknown) => err);
  expect(error).toBeInstanceOf(DnsUpdateError);
  expect(error).toMatchObject({ reason: 'tsig_refused' });
  expect((error as Error).message).toContain(`TSIG key ${bind.key.name} (BADSIG)`);
  expect((error as Error).message).toContain(`${bind.host}:${bind.port}`);
  expect((error as Error).message).toContain('ACME_DNS_TSIG_KEY');
  expect(await client.authoritativeTxt(name)).toEqual([]);
});

test('a key the server does not know is refused as BADKEY', async () => {
  const key = parseTsigKey(`other-key:hmac-sha256:${randomBytes(32).toString('base64')}`);
  const unknown = new DnsUpdateClient({ server: { host: bind.host, port: bind.port }, zone: ZONE, key, timeoutMs: 3000 });
  await expect(unknown.addTxt(challengeName('unknown-key'), challengeValue(), 60)).rejects.toMatchObject({ reason: 'tsig_refused', message: expect.stringContaining('TSIG key other-key (BADKEY)') });
});

test('a clock an hour off is refused as BADTIME, saying by how much', async () => {
  const skewed = new DnsUpdateClient({ server: { host: bind.host, port: bind.port }, zone: ZONE, key: parseTsigKey(bind.keySetting), timeoutMs: 3000, now: () => Date.now() - 3_600_000 });
  const name = challengeName('skewed');
  await expect(skewed.addTxt(name, challengeValue(), 60)).rejects.toMatchObject({ reason: 'tsig_refused', message: expect.stringMatching(/TSIG key cds-test \(BADTIME\): this host's clock and the server's differ by (?:3599|36\d\d) s/) });
  expect(await client.authoritativeTxt(name)).toEqual([]);
});

test('a name outside the zone is refused before anything is sent', async () => {
  const silent = await silentServer();
  try {
    const outside = new DnsUpdateClient({ server: { host: '127.0.0.1', port: silent.port }, zone: ZONE, key: parseTsigKey(bind.keySetting), timeoutMs: 3000 });
    await expect(outside.addTxt('_acme-challenge.shop.example.com', challengeValue(), 60)).rejects.toMatchObject({ reason: 'not_zone', message: expect.stringContaining('not in the zone acme.edge.test') });
    await expect(outside.removeTxt(`_acme-challenge.shop.not${ZONE}`, challengeValue())).rejects.toMatchObject({ reason: 'not_zone' });
    await expect(outside.authoritativeTxt('_acme-challenge.shop.example.com')).rejects.toMatchObject({ reason: 'not_zone' });
    expect(silent.connections()).toBe(0);
  } finally {
    await closeServer(silent.server);
  }
});

test('a server that is down or silent is unreachable within the timeout', async () => {
  const key = parseTsigKey(bind.keySetting);
  const down = new DnsUpdateClient({ server: { host: '127.0.0.1', port: await freePort() }, zone: ZONE, key, timeoutMs: 2000 });
  await expect(down.addTxt(challengeName('down'), challengeValue(), 60)).rejects.toMatchObject({ reason: 'unreachable', message: expect.stringContaining('ECONNREFUSED') });

  const silent = await silentServer();
  try {
    const quiet = new DnsUpdateClient({ server: { host: '127.0.0.1', port: silent.port }, zone: ZONE, key, timeoutMs: 1000 });
    const started = Date.now();
    await expect(quiet.addTxt(challengeName('silent'), challengeValue(), 60)).rejects.toMatchObject({ reason: 'unreachable', message: expect.stringContaining('did not answer within 1000 ms') });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(silent.connections()).toBe(1);
  } finally {
    await closeServer(silent.server);
  }
});
