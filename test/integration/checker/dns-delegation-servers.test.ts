// The servers of the ACME DNS-01 delegation, as on the internet: the customer's
// zone on challtestsrv publishes `_acme-challenge.<hostname>` CNAME
// `<32 hex>.acme.edge.test`, BIND serves acme.edge.test and takes TSIG-signed
// RFC 2136 updates, and unbound (what Pebble and the checker ask) follows the
// CNAME from one server to the other.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { startBind9, type Bind9 } from '../../support/bind9';
import { startTestDns, type TestDns } from '../../support/challtestsrv';
import { freePort } from '../../support/free-port';
import { startUnbound, type Unbound } from '../../support/unbound';
import { startPebble } from './pebble';

const ZONE = 'acme.edge.test';
const HOSTNAME = 'shop.customer.test';

let challtestsrv: TestDns;
let bind: Bind9;
let unbound: Unbound;
let resolver: dns.Resolver;

beforeAll(async () => {
  [challtestsrv, bind] = await Promise.all([startTestDns(), startBind9({ zone: ZONE })]);
  unbound = await startUnbound({
    forwardZones: [
      { zone: 'customer.test', server: challtestsrv.server },
      { zone: ZONE, server: `${bind.host}:${bind.port}`, authoritative: true },
    ],
  });
  resolver = new dns.Resolver({ timeout: 1_000, tries: 2 });
  resolver.setServers([unbound.server]);
});

afterAll(async () => {
  await unbound?.stop();
  await bind?.stop();
  await challtestsrv?.stop();
});

/** Runs nsupdate (bind9-dnsutils) with `commands` on stdin, signed with `-y algorithm:name:secret`. */
function nsupdate(key: string, commands: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('nsupdate', ['-y', key], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end([`server ${bind.host} ${bind.port}`, `zone ${ZONE}`, ...commands, 'send', ''].join('\n'));
  });
}

const keyArg = (secret = bind.key.secret) => `${bind.key.algorithm}:${bind.key.name}:${secret}`;
const setTxt = (name: string, value: string, secret?: string) =>
  nsupdate(keyArg(secret), [`update delete ${name} TXT`, `update add ${name} 1 TXT "${value}"`]);

test('unbound answers the TXT of _acme-challenge.<hostname> through the CNAME into the BIND zone, updated with the TSIG key', async () => {
  const label = randomBytes(16).toString('hex');
  const target = `${label}.${ZONE}`;
  await challtestsrv.setCname(`_acme-challenge.${HOSTNAME}`, target);

  const first = await setTxt(target, 'token-one');
  expect(first).toEqual({ code: 0, output: '' });
  expect(await resolver.resolveTxt(`_acme-challenge.${HOSTNAME}`)).toEqual([['token-one']]);
  expect(await resolver.resolveCname(`_acme-challenge.${HOSTNAME}`)).toEqual([target]);

  // No caching in unbound: a change is seen at once, removal too.
  expect((await setTxt(target, 'token-two')).code).toBe(0);
  expect(await resolver.resolveTxt(`_acme-challenge.${HOSTNAME}`)).toEqual([['token-two']]);
  expect((await nsupdate(keyArg(), [`update delete ${target} TXT`])).code).toBe(0);
  await expect(resolver.resolveTxt(`_acme-challenge.${HOSTNAME}`)).rejects.toMatchObject({ code: expect.stringMatching(/^(ENODATA|ENOTFOUND)$/) });
});

test('an update signed with a wrong secret, or of another type than TXT, is refused and changes nothing', async () => {
  const target = `${randomBytes(16).toString('hex')}.${ZONE}`;
  const wrong = await setTxt(target, 'forged', randomBytes(32).toString('base64'));
  expect(wrong.code).not.toBe(0);
  expect(wrong.output).toMatch(/NOTAUTH\(BADSIG\)/);
  const notTxt = await nsupdate(keyArg(), [`update add ${target} 1 A 127.0.0.2`]);
  expect(notTxt.code).not.toBe(0);
  expect(notTxt.output).toMatch(/REFUSED/);
  await expect(resolver.resolveTxt(target)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  await expect(resolver.resolve4(target)).rejects.toMatchObject({ code: 'ENOTFOUND' });
});

test('Pebble starts with unbound as its DNS server', async () => {
  // startPebble waits until the ACME directory answers; DNS-01 validation through unbound comes with the checker's tests.
  const pebble = await startPebble({ httpPort: await freePort(), dnsServer: unbound.server });
  await pebble.stop();
});
