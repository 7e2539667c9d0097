import * as dnsPacket from 'dns-packet';
import { addTxtMessage, CLASS_NONE, inZone, normalName, removeTxtMessage, responseCode, txtQueryMessage, txtStrings } from './update-message';

const ZONE = 'acme.edge.test';
const NAME = '_acme-challenge.shop.acme.edge.test';
/** The zone section and update record nsupdate 9.18 sends for `update add NAME. 60 TXT "abc"` / `update delete NAME. TXT "abc"` (after the header). */
const ZONE_SECTION = '0461636d650465646765047465737400' + '0006' + '0001';
const OWNER = '0f5f61636d652d6368616c6c656e67650473686f700461636d650465646765047465737400';
const NSUPDATE_ADD = 'f0b32800000100000001' + '0000' + ZONE_SECTION + OWNER + '0010' + '0001' + '0000003c' + '0004' + '03616263';
const NSUPDATE_REMOVE = '11f72800000100000001' + '0000' + ZONE_SECTION + OWNER + '0010' + '00fe' + '00000000' + '0004' + '03616263';

/** The raw class and TTL of the one update record, and its rdata. */
function updateRecord(message: Buffer): { klass: number; ttl: number; rdata: Buffer } {
  const decoded = dnsPacket.decode(message);
  const start = dnsPacket.encodingLength({ ...decoded, authorities: [] });
  const afterName = start + OWNER.length / 2;
  const rdlength = message.readUInt16BE(afterName + 8);
  return { klass: message.readUInt16BE(afterName + 2), ttl: message.readUInt32BE(afterName + 4), rdata: message.subarray(afterName + 10, afterName + 10 + rdlength) };
}

describe('addTxtMessage', () => {
  it('is the UPDATE nsupdate sends: zone section SOA, no prerequisites, the record with class IN and its TTL', () => {
    const message = addTxtMessage(0xf0b3, ZONE, NAME, 'abc', 60);
    expect(message.toString('hex')).toBe(NSUPDATE_ADD);
    const decoded = dnsPacket.decode(message);
    expect(decoded).toMatchObject({ id: 0xf0b3, type: 'query', opcode: 'UPDATE', questions: [{ name: ZONE, type: 'SOA', class: 'IN' }], answers: [], additionals: [] });
    expect(decoded.authorities).toEqual([expect.objectContaining({ name: NAME, type: 'TXT', class: 'IN', ttl: 60, data: [Buffer.from('abc')] })]);
  });

  it('takes names in any case, with or without the trailing dot', () => {
    expect(addTxtMessage(0xf0b3, 'ACME.edge.test.', `${NAME.toUpperCase()}.`, 'abc', 60).toString('hex')).toBe(NSUPDATE_ADD);
  });
});

describe('removeTxtMessage', () => {
  it('deletes the one record: class NONE, TTL 0, the same rdata as the add (as nsupdate sends it)', () => {
    const message = removeTxtMessage(0x11f7, ZONE, NAME, 'abc');
    expect(message.toString('hex')).toBe(NSUPDATE_REMOVE);
    const removed = updateRecord(message);
    expect(removed).toMatchObject({ klass: CLASS_NONE, ttl: 0 });
    expect(removed.rdata).toEqual(updateRecord(addTxtMessage(1, ZONE, NAME, 'abc', 60)).rdata);
    const long = 'x'.repeat(600);
    expect(updateRecord(removeTxtMessage(2, ZONE, NAME, long))).toEqual({ klass: CLASS_NONE, ttl: 0, rdata: updateRecord(addTxtMessage(3, ZONE, NAME, long, 60)).rdata });
  });
});

describe('txtStrings', () => {
  it('splits a value into character-strings of at most 255 bytes', () => {
    expect(txtStrings('abc')).toEqual([Buffer.from('abc')]);
    expect(txtStrings('')).toEqual([Buffer.alloc(0)]);
    expect(txtStrings('y'.repeat(600)).map((s) => s.length)).toEqual([255, 255, 90]);
  });
});

describe('inZone', () => {
  it('is the zone itself and names under it, in any case, with or without the trailing dot', () => {
    expect(inZone(NAME, ZONE)).toBe(true);
    expect(inZone('ACME.EDGE.TEST.', 'acme.edge.test')).toBe(true);
    expect(inZone('_acme-challenge.a.acme.edge.test.', 'Acme.Edge.Test.')).toBe(true);
    expect(inZone('_acme-challenge.shop.example.com', ZONE)).toBe(false);
    expect(inZone('notacme.edge.test', ZONE)).toBe(false);
    expect(inZone('edge.test', ZONE)).toBe(false);
    expect(normalName(' A.B. ')).toBe('a.b');
  });
});

describe('txtQueryMessage and responseCode', () => {
  it('asks for TXT without recursion', () => {
    const decoded = dnsPacket.decode(txtQueryMessage(9, `${NAME}.`));
    expect(decoded).toMatchObject({ id: 9, opcode: 'QUERY', flag_rd: false, questions: [{ name: NAME, type: 'TXT', class: 'IN' }] });
  });

  it('reads the response code from the header', () => {
    const withCode = (rcode: number) => dnsPacket.decode(dnsPacket.encode({ id: 1, type: 'response', flags: (5 << 11) | rcode }));
    expect([0, 2, 3, 5, 9, 10, 15].map((rcode) => responseCode(withCode(rcode)))).toEqual(['NOERROR', 'SERVFAIL', 'NXDOMAIN', 'REFUSED', 'NOTAUTH', 'NOTZONE', 'RCODE 15']);
  });
});
