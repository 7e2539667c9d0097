import { createHmac } from 'node:crypto';
import * as dnsPacket from 'dns-packet';
import { DnsUpdateError } from './dns-update-error';
import { DnsUpdateClient } from './rfc2136-client';
import { canonicalName, readTsig, tsigRdata } from './tsig';
import { parseTsigKey } from '@cds/config';
import { signingKey } from './tsig-key';
import type { DnsServer } from './tcp-exchange';
import { addTxtMessage, removeTxtMessage } from './update-message';

const ZONE = 'acme.edge.test';
const NAME = '_acme-challenge.shop.acme.edge.test';
const key = parseTsigKey(`cds-test:hmac-sha256:${Buffer.alloc(32, 5).toString('base64')}`);
const NOW_MS = 1_700_000_000_000;
const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u48 = (n: number) => { const b = Buffer.alloc(6); b.writeUIntBE(n, 0, 6); return b; };

interface Reply { rcode?: number; tsigError?: number; sign?: boolean; aa?: boolean; answers?: dnsPacket.Answer[]; id?: number }

/** The server's answer to `request`: its zone section echoed, the reply's code, signed with the key over the request's MAC unless told not to. */
function serverAnswer(request: Buffer, reply: Reply): Buffer {
  const asked = dnsPacket.decode(request);
  const flags = (request.readUInt16BE(2) & 0x7800) | (reply.aa ? dnsPacket.AUTHORITATIVE_ANSWER : 0) | (reply.rcode ?? 0);
  const body = dnsPacket.encode({ id: reply.id ?? asked.id, type: 'response', flags, questions: asked.questions, answers: reply.answers ?? [] });
  const requestTsig = readTsig(request);
  if (!requestTsig) return body;
  const error = reply.tsigError ?? 0;
  const time = Math.floor(NOW_MS / 1000);
  const variables = Buffer.concat([canonicalName(key.name), u16(255), Buffer.alloc(4), canonicalName(key.algorithm), u48(time), u16(300), u16(error), u16(0)]);
  const mac = reply.sign === false ? Buffer.alloc(0)
    : createHmac('sha256', signingKey(key).secret).update(u16(requestTsig.mac.length)).update(requestTsig.mac).update(body).update(variables).digest();
  const rdata = tsigRdata(key.algorithm, { timeSigned: time, fudge: 300, mac, originalId: asked.id ?? 0, error, other: Buffer.alloc(0) });
  return dnsPacket.encode({ ...dnsPacket.decode(body), additionals: [{ name: key.name, type: 'TSIG', class: 'ANY', ttl: 0, data: rdata }] });
}

function clientAnswering(reply: Reply | ((request: Buffer) => Buffer)) {
  const sent: Buffer[] = [];
  const exchange = async (_server: DnsServer, message: Buffer) => {
    sent.push(message);
    return typeof reply === 'function' ? reply(message) : serverAnswer(message, reply);
  };
  const client = new DnsUpdateClient({ server: { host: '127.0.0.1', port: 5353 }, zone: `${ZONE}.`, key, exchange, now: () => NOW_MS });
  return { client, sent };
}

async function failure(promise: Promise<unknown>): Promise<DnsUpdateError> {
  const outcome = await promise.then(() => undefined, (err: unknown) => err);
  if (!(outcome instanceof DnsUpdateError)) throw new Error(`expected a DnsUpdateError, got ${String(outcome)}`);
  return outcome;
}

describe('DnsUpdateClient updates', () => {
  it('sends the add and remove messages signed with the key, and resolves on a signed NOERROR', async () => {
    const { client, sent } = clientAnswering({});
    await client.addTxt(NAME, 'token-value', 60);
    await client.removeTxt(`${NAME.toUpperCase()}.`, 'token-value');
    expect(sent).toHaveLength(2);
    const [add, remove] = sent.map((message) => readTsig(message));
    expect(add?.unsigned).toEqual(addTxtMessage(add?.originalId ?? -1, ZONE, NAME, 'token-value', 60));
    expect(remove?.unsigned).toEqual(removeTxtMessage(remove?.originalId ?? -1, ZONE, NAME, 'token-value'));
    expect(add).toMatchObject({ keyName: 'cds-test', algorithm: 'hmac-sha256', timeSigned: NOW_MS / 1000, fudge: 300, error: 0 });
  });

  it('refuses a name outside the zone before sending anything', async () => {
    const { client, sent } = clientAnswering({});
    const error = await failure(client.addTxt('_acme-challenge.shop.example.com', 'v', 60));
    expect(error).toMatchObject({ reason: 'not_zone', message: '_acme-challenge.shop.example.com is not in the zone acme.edge.test (ACME_DNS_ZONE), so its record was not sent to 127.0.0.1:5353: the challenge names must be under the delegated zone' });
    await expect(client.removeTxt('x.notacme.edge.test', 'v')).rejects.toMatchObject({ reason: 'not_zone' });
    await expect(client.authoritativeTxt('edge.test')).rejects.toMatchObject({ reason: 'not_zone' });
    expect(sent).toHaveLength(0);
  });

  it('refuses a TTL that is not a whole number of seconds', async () => {
    const { client, sent } = clientAnswering({});
    await expect(client.addTxt(NAME, 'v', -1)).rejects.toThrow(RangeError);
    await expect(client.addTxt(NAME, 'v', 1.5)).rejects.toThrow(RangeError);
    expect(sent).toHaveLength(0);
  });

  it('turns the answer into the error it means', async () => {
    const cases: Array<[Reply, string, string]> = [
      [{ rcode: 9, tsigError: 16, sign: false }, 'tsig_refused', 'the DNS update server 127.0.0.1:5353 refused the TSIG key cds-test (BADSIG): ACME_DNS_TSIG_KEY does not match the key the zone acme.edge.test accepts'],
      [{ rcode: 9, tsigError: 17, sign: false }, 'tsig_refused', '(BADKEY)'],
      [{ rcode: 9, tsigError: 18 }, 'tsig_refused', '(BADTIME)'],
      [{ rcode: 9 }, 'refused', '(NOTAUTH)'],
      [{ rcode: 5 }, 'refused', '(REFUSED)'],
      [{ rcode: 10 }, 'not_zone', 'NOTZONE'],
      [{ rcode: 2 }, 'server_failure', '(SERVFAIL)'],
      [{ sign: false }, 'server_failure', 'does not verify'],
      [{ id: 1 }, 'server_failure', 'does not match it'],
    ];
    for (const [reply, reason, message] of cases) {
      const error = await failure(clientAnswering(reply).client.addTxt(NAME, 'v', 60));
      expect({ reason: error.reason, message: error.message }).toEqual({ reason, message: expect.stringContaining(message) });
    }
    const unsigned = await failure(clientAnswering((request) => serverAnswer(Buffer.from(addTxtMessage(dnsPacket.decode(request).id ?? 0, ZONE, NAME, 'v', 60)), {})).client.addTxt(NAME, 'v', 60));
    expect(unsigned).toMatchObject({ reason: 'server_failure', message: expect.stringContaining('without a TSIG signature') });
    const garbage = await failure(clientAnswering(() => Buffer.from([1, 2, 3])).client.addTxt(NAME, 'v', 60));
    expect(garbage).toMatchObject({ reason: 'server_failure', message: expect.stringContaining('not a DNS message') });
  });

  it('passes on an unreachable server', async () => {
    const unreachable = new DnsUpdateError('unreachable', 'down');
    const client = new DnsUpdateClient({ server: { host: '127.0.0.1', port: 5353 }, zone: ZONE, key, exchange: () => Promise.reject(unreachable) });
    await expect(client.addTxt(NAME, 'v', 60)).rejects.toBe(unreachable);
  });
});

describe('DnsUpdateClient.authoritativeTxt', () => {
  const txt = (name: string, ...strings: string[]): dnsPacket.Answer => ({ name, type: 'TXT', class: 'IN', ttl: 60, data: strings.map((s) => Buffer.from(s)) });

  it('asks without recursion and TSIG, and gives each record of the name, its strings joined', async () => {
    const { client, sent } = clientAnswering({ aa: true, answers: [txt(NAME, 'one'), txt(NAME, 'tw', 'o'), txt(`other.${ZONE}`, 'x')] });
    expect(await client.authoritativeTxt(`${NAME}.`)).toEqual(['one', 'two']);
    const query = dnsPacket.decode(sent[0] as Buffer);
    expect(query).toMatchObject({ opcode: 'QUERY', flag_rd: false, questions: [{ name: NAME, type: 'TXT' }], additionals: [] });
  });

  it('gives none for NXDOMAIN and an empty answer; refuses a server that is not authoritative', async () => {
    expect(await clientAnswering({ aa: true, rcode: 3 }).client.authoritativeTxt(NAME)).toEqual([]);
    expect(await clientAnswering({ aa: true }).client.authoritativeTxt(NAME)).toEqual([]);
    await expect(clientAnswering({ aa: false, answers: [txt(NAME, 'cached')] }).client.authoritativeTxt(NAME)).rejects.toMatchObject({ reason: 'refused', message: expect.stringContaining('is not authoritative') });
    await expect(clientAnswering({ rcode: 5 }).client.authoritativeTxt(NAME)).rejects.toMatchObject({ reason: 'refused', message: expect.stringContaining('(REFUSED)') });
    await expect(clientAnswering({ rcode: 2 }).client.authoritativeTxt(NAME)).rejects.toMatchObject({ reason: 'server_failure' });
  });
});
