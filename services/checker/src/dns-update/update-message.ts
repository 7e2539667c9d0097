// The RFC 2136 UPDATE messages for one challenge TXT record, and the plain
// query that reads the zone's TXT records back. Encoded by dns-packet; the
// one thing it cannot write, class NONE (254, "delete this RR"), is set in the
// encoded bytes afterwards.
import * as dnsPacket from 'dns-packet';

export const OPCODE_UPDATE = 5;
export const CLASS_NONE = 254;
/** A TXT character-string holds at most 255 bytes; longer values are split over several (joined again by readers). */
const TXT_STRING_BYTES = 255;

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];

/** The response code of a decoded answer (the header's four bits; dns-packet's types leave it out). */
export function responseCode(answer: dnsPacket.DecodedPacket): string {
  const code = (answer.flags ?? 0) & 0xf;
  return RCODES[code] ?? `RCODE ${code}`;
}

/** A name as compared here: lowercase, no trailing dot. */
export function normalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** Whether `name` is `zone` or a name under it. */
export function inZone(name: string, zone: string): boolean {
  const n = normalName(name);
  const z = normalName(zone);
  return z === '' || n === z || n.endsWith(`.${z}`);
}

/** A TXT value as character-strings of at most 255 bytes. */
export function txtStrings(value: string): Buffer[] {
  const bytes = Buffer.from(value, 'utf8');
  const strings: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += TXT_STRING_BYTES) strings.push(bytes.subarray(offset, offset + TXT_STRING_BYTES));
  return strings.length > 0 ? strings : [Buffer.alloc(0)];
}

function updateMessage(id: number, zone: string, update: dnsPacket.TxtAnswer): dnsPacket.Packet {
  return {
    id, type: 'query', flags: OPCODE_UPDATE << 11,
    // RFC 2136 §2.3: the zone section is one "question", the zone's name with type SOA.
    questions: [{ name: normalName(zone), type: 'SOA', class: 'IN' }],
    answers: [], // prerequisites: none
    authorities: [update],
    additionals: [],
  };
}

/** RFC 2136 §2.5.1: add `value` to the TXT RRset at `name` (class IN, the record's TTL). */
export function addTxtMessage(id: number, zone: string, name: string, value: string, ttl: number): Buffer {
  return dnsPacket.encode(updateMessage(id, zone, { name: normalName(name), type: 'TXT', class: 'IN', ttl, data: txtStrings(value) }));
}

/** RFC 2136 §2.5.4: delete the one TXT record at `name` whose rdata is `value` (class NONE, TTL 0, the same rdata). */
export function removeTxtMessage(id: number, zone: string, name: string, value: string): Buffer {
  const packet = updateMessage(id, zone, { name: normalName(name), type: 'TXT', class: 'IN', ttl: 0, data: txtStrings(value) });
  const bytes = dnsPacket.encode(packet);
  // dns-packet writes names uncompressed, so the update record starts where the message without it ends;
  // its class follows the owner name and the type.
  const recordStart = dnsPacket.encodingLength({ ...packet, authorities: [] });
  const ownerBytes = dnsPacket.encodingLength({ questions: [{ name: normalName(name), type: 'TXT' }] }) - 12 - 4;
  bytes.writeUInt16BE(CLASS_NONE, recordStart + ownerBytes + 2);
  return bytes;
}

/** A non-recursive TXT query for `name`, for the zone's own server to answer from its data. */
export function txtQueryMessage(id: number, name: string): Buffer {
  return dnsPacket.encode({ id, type: 'query', flags: 0, questions: [{ name: normalName(name), type: 'TXT', class: 'IN' }] });
}
