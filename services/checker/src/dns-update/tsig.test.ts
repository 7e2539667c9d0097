import { createHmac } from 'node:crypto';
import * as dnsPacket from 'dns-packet';
import { canonicalName, checkResponseTsig, readTsig, signMessage, tsigRdata } from './tsig';
import { parseTsigKey } from '@cds/config';
import { signingKey, type SigningKey } from './tsig-key';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg==';

/**
 * Messages nsupdate 9.18 sent (captured on the wire): `update add
 * _acme-challenge.shop.acme.edge.test. 60 TXT "abc"` in zone acme.edge.test
 * with `-y hmac-sha256:cds-test:SECRET`, and `update delete ... TXT "abc"`
 * with `-y hmac-sha512:Cds-Test.:SECRET`.
 */
const NSUPDATE_ADD = Buffer.from(
  'f0b3280000010000000100010461636d650465646765047465737400000600010f5f61636d652d6368616c6c656e67650473686f700461636d650465646765047465737400001000010000003c000403616263086364732d746573740000fa00ff00000000003d0b686d61632d7368613235360000006b0acfb3012c0020089d618768e5d7bdde4efd9eaa0403e28cf8182feb1935beb7d24f754a8576adf0b300000000',
  'hex');
const NSUPDATE_REMOVE = Buffer.from(
  '11f7280000010000000100010461636d650465646765047465737400000600010f5f61636d652d6368616c6c656e67650473686f700461636d650465646765047465737400001000fe00000000000403616263086364732d746573740000fa00ff00000000005d0b686d61632d7368613531320000006b0acfba012c0040bee55d3b57ad434452ee8ffb63afd1f3a9ad24fc80fe86d07201f2247d160ce9f2c406e149c94ee0a35a800598aa7e64edaa802b7c80e6cd3be6307316f8109d11f700000000',
  'hex');

/** The message as it was before signing: up to the TSIG record, ARCOUNT one lower. */
function unsignedPart(signed: Buffer): Buffer {
  const tsig = readTsig(signed);
  if (!tsig) throw new Error('no TSIG');
  return tsig.unsigned;
}

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u48 = (n: number) => { const b = Buffer.alloc(6); b.writeUIntBE(n, 0, 6); return b; };

describe('signMessage', () => {
  it('signs exactly as nsupdate does (hmac-sha256, and hmac-sha512 with a mixed-case key name)', () => {
    for (const [signed, setting] of [[NSUPDATE_ADD, `cds-test:hmac-sha256:${SECRET}`], [NSUPDATE_REMOVE, `Cds-Test.:hmac-sha512:${SECRET}`]] as const) {
      const time = readTsig(signed)?.timeSigned ?? 0;
      const ours = signMessage(unsignedPart(signed), signingKey(parseTsigKey(setting)), time, 300);
      expect(ours.bytes.toString('hex')).toBe(signed.toString('hex'));
      expect(ours.mac).toEqual(readTsig(signed)?.mac);
    }
  });

  it('MACs the message and the TSIG variables in their documented layout, and appends the record with ARCOUNT + 1', () => {
    const key: SigningKey = { name: 'Update.Key', algorithm: 'hmac-sha384', secret: Buffer.alloc(48, 3) };
    const message = dnsPacket.encode({ id: 0x1234, type: 'query', flags: 5 << 11, questions: [{ name: 'acme.example', type: 'SOA', class: 'IN' }] });
    const time = 1_700_000_000;
    const { bytes, mac } = signMessage(message, key, time + 0.9, 300);

    // RFC 8945 §4.3.3, written out: key name (canonical), class ANY, TTL 0, algorithm, time (48 bits), fudge, error, other len.
    const keyName = Buffer.from('\x06update\x03key\x00', 'latin1');
    const algorithm = Buffer.from('\x0bhmac-sha384\x00', 'latin1');
    const variables = Buffer.concat([keyName, u16(255), Buffer.alloc(4), algorithm, u48(time), u16(300), u16(0), u16(0)]);
    const expected = createHmac('sha384', key.secret).update(message).update(variables).digest();
    expect(mac).toEqual(expected);

    // The record: owner key name, type 250, class ANY, TTL 0, rdlength, then the rdata of §4.2.
    const rdata = Buffer.concat([algorithm, u48(time), u16(300), u16(48), expected, u16(0x1234), u16(0), u16(0)]);
    const record = Buffer.concat([keyName, u16(250), u16(255), Buffer.alloc(4), u16(rdata.length), rdata]);
    const header = Buffer.from(message.subarray(0, 12));
    header.writeUInt16BE(1, 10);
    expect(bytes).toEqual(Buffer.concat([header, message.subarray(12), record]));
    expect(dnsPacket.decode(bytes).additionals).toEqual([expect.objectContaining({ name: 'update.key', type: 'TSIG', class: 'ANY', ttl: 0, data: rdata })]);
  });

  it('adds after the records already in the additional section', () => {
    const key = signingKey(parseTsigKey(`cds-test:hmac-sha256:${SECRET}`));
    const message = dnsPacket.encode({ id: 7, type: 'query', questions: [{ name: 'a.test', type: 'TXT' }], additionals: [{ name: '.', type: 'OPT', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] });
    const { bytes } = signMessage(message, key, 1_700_000_000);
    expect(bytes.readUInt16BE(10)).toBe(2);
    expect(dnsPacket.decode(bytes).additionals?.map((record) => record.type)).toEqual(['OPT', 'TSIG']);
    expect(readTsig(bytes)?.unsigned).toEqual(message);
  });
});

describe('canonicalName', () => {
  it('lowercases, ends in the root and refuses long labels', () => {
    expect(canonicalName('A.b.')).toEqual(Buffer.from([1, 97, 1, 98, 0]));
    expect(canonicalName('.')).toEqual(Buffer.from([0]));
    expect(() => canonicalName(`${'a'.repeat(64)}.test`)).toThrow('longer than 63');
  });
});

describe('checkResponseTsig', () => {
  const key = signingKey(parseTsigKey(`cds-test:hmac-sha256:${SECRET}`));
  const now = 1_700_000_000;
  const request = signMessage(dnsPacket.encode({ id: 0xbeef, type: 'query', flags: 5 << 11, questions: [{ name: 'acme.edge.test', type: 'SOA' }] }), key, now);

  /** An answer as the server signs it (§4.3.1: request MAC with its size, the answer, the TSIG variables). */
  function answer(opts: { rcode?: number; error?: number; other?: Buffer; time?: number; sign?: boolean; keyName?: string; secret?: Buffer; id?: number } = {}): Buffer {
    const body = dnsPacket.encode({ id: 0xbeef, type: 'response', flags: (5 << 11) | (opts.rcode ?? 0), questions: [{ name: 'acme.edge.test', type: 'SOA' }] });
    const time = opts.time ?? now;
    const other = opts.other ?? Buffer.alloc(0);
    const error = opts.error ?? 0;
    const keyName = opts.keyName ?? 'cds-test';
    const algorithm = Buffer.from('\x0bhmac-sha256\x00', 'latin1');
    const variables = Buffer.concat([canonicalName(keyName), u16(255), Buffer.alloc(4), algorithm, u48(time), u16(300), u16(error), u16(other.length), other]);
    const mac = opts.sign === false ? Buffer.alloc(0)
      : createHmac('sha256', opts.secret ?? key.secret).update(u16(request.mac.length)).update(request.mac).update(body).update(variables).digest();
    const rdata = tsigRdata('hmac-sha256', { timeSigned: time, fudge: 300, mac, originalId: 0xbeef, error, other });
    const signed = dnsPacket.encode({ ...dnsPacket.decode(body), additionals: [{ name: keyName, type: 'TSIG', class: 'ANY', ttl: 0, data: rdata }] });
    if (opts.id !== undefined) signed.writeUInt16BE(opts.id, 0);
    return signed;
  }

  it('accepts an answer signed with the key over the request MAC', () => {
    expect(checkResponseTsig(answer(), key, request.mac, now + 10)).toEqual({ status: 'valid' });
    // The MAC covers the original ID, not the one in the header (a forwarder may change it).
    expect(checkResponseTsig(answer({ id: 1 }), key, request.mac, now)).toEqual({ status: 'valid' });
  });

  it('reports no TSIG, a TSIG error, and a signature that does not hold', () => {
    const unsigned = dnsPacket.encode({ id: 0xbeef, type: 'response', flags: 5 << 11, questions: [{ name: 'acme.edge.test', type: 'SOA' }] });
    expect(checkResponseTsig(unsigned, key, request.mac, now)).toEqual({ status: 'missing' });
    expect(checkResponseTsig(answer({ rcode: 9, error: 16, sign: false }), key, request.mac, now)).toEqual({ status: 'error', error: 16, errorName: 'BADSIG' });
    expect(checkResponseTsig(answer({ rcode: 9, error: 17, sign: false }), key, request.mac, now)).toEqual({ status: 'error', error: 17, errorName: 'BADKEY' });
    expect(checkResponseTsig(answer({ rcode: 9, error: 18, other: u48(now + 4000) }), key, request.mac, now)).toEqual({ status: 'error', error: 18, errorName: 'BADTIME', serverTime: now + 4000 });
    expect(checkResponseTsig(answer({ secret: Buffer.alloc(32) }), key, request.mac, now)).toEqual({ status: 'invalid', problem: 'its TSIG MAC does not verify' });
    expect(checkResponseTsig(answer(), key, Buffer.alloc(32), now)).toEqual({ status: 'invalid', problem: 'its TSIG MAC does not verify' });
    expect(checkResponseTsig(answer({ keyName: 'other' }), key, request.mac, now)).toEqual({ status: 'invalid', problem: 'signed with the key other, not cds-test' });
    expect(checkResponseTsig(answer(), key, request.mac, now + 301)).toMatchObject({ status: 'invalid', problem: expect.stringContaining('fudge 300 s') });
    const tampered = answer();
    tampered.writeUInt8(tampered.readUInt8(3) ^ 0x05, 3);
    expect(checkResponseTsig(tampered, key, request.mac, now)).toMatchObject({ status: 'invalid' });
  });
});
