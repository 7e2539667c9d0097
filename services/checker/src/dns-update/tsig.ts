// TSIG (RFC 8945): signing a request with the update key and checking the
// server's signed answer. dns-packet has no TSIG, so the record's rdata and the
// MAC input are laid out here; dns-packet encodes the record around that rdata.
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as dnsPacket from 'dns-packet';
import type { SigningKey } from './tsig-key';

/** Seconds of clock difference the server may allow; 300 as RFC 8945 §10 recommends and nsupdate sends. */
export const DEFAULT_FUDGE = 300;
const CLASS_ANY = 255;
const HEADER_BYTES = 12;

/** TSIG error codes (RFC 8945 §4.3, IANA "DNS RCODEs") a server puts in its answer's TSIG record. */
export const TSIG_ERRORS: Readonly<Record<number, string>> = {
  16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 19: 'BADMODE', 20: 'BADNAME', 21: 'BADALG', 22: 'BADTRUNC', 23: 'BADCOOKIE',
};

export function tsigErrorName(code: number): string {
  return code === 0 ? 'NOERROR' : TSIG_ERRORS[code] ?? `TSIG error ${code}`;
}

/** A domain name in canonical wire form (RFC 4034 §6.2): lowercase labels, no compression, ending in the root. */
export function canonicalName(name: string): Buffer {
  const labels = name.toLowerCase().replace(/\.$/, '').split('.').filter((label) => label !== '');
  return Buffer.concat([...labels.flatMap((label) => {
    const bytes = Buffer.from(label, 'ascii');
    if (bytes.length > 63) throw new Error(`the DNS label "${label}" is longer than 63 bytes`);
    return [Buffer.of(bytes.length), bytes];
  }), Buffer.of(0)]);
}

function uint16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(value);
  return bytes;
}

function uint48(value: number): Buffer {
  const bytes = Buffer.alloc(6);
  bytes.writeUIntBE(value, 0, 6);
  return bytes;
}

/** The fields of a TSIG record that the MAC covers besides the message. */
export interface TsigFields {
  /** Seconds since the epoch. */
  timeSigned: number;
  fudge: number;
  error: number;
  other: Buffer;
}

/** The TSIG variables of RFC 8945 §4.3.3 in their wire form, as they follow the message in the MAC input. */
export function tsigVariables(keyName: string, algorithm: string, fields: TsigFields): Buffer {
  const classAndTtl = Buffer.alloc(6);
  classAndTtl.writeUInt16BE(CLASS_ANY, 0);
  classAndTtl.writeUInt32BE(0, 2);
  return Buffer.concat([
    canonicalName(keyName), classAndTtl, canonicalName(algorithm),
    uint48(fields.timeSigned), uint16(fields.fudge), uint16(fields.error), uint16(fields.other.length), fields.other,
  ]);
}

/** The TSIG rdata (RFC 8945 §4.2): algorithm name, time signed, fudge, MAC size, MAC, original ID, error, other len, other data. */
export function tsigRdata(algorithm: string, fields: TsigFields & { mac: Buffer; originalId: number }): Buffer {
  return Buffer.concat([
    canonicalName(algorithm), uint48(fields.timeSigned), uint16(fields.fudge), uint16(fields.mac.length), fields.mac,
    uint16(fields.originalId), uint16(fields.error), uint16(fields.other.length), fields.other,
  ]);
}

function hmac(key: SigningKey, parts: Buffer[]): Buffer {
  const mac = createHmac(key.algorithm.replace('hmac-', ''), key.secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** The TSIG record as it goes on the wire: the key name as owner, class ANY, TTL 0, type TSIG (250). */
function tsigRecord(key: SigningKey, rdata: Buffer): Buffer {
  const packet = dnsPacket.encode({ additionals: [{ name: key.name.toLowerCase(), type: 'TSIG', class: 'ANY', ttl: 0, data: rdata }] });
  return packet.subarray(HEADER_BYTES);
}

export interface SignedMessage {
  /** The message with its TSIG record appended as the last additional record (ARCOUNT one higher). */
  bytes: Buffer;
  /** The request's MAC, which the server's signed answer covers. */
  mac: Buffer;
}

/**
 * Signs an encoded DNS message (its ID as sent, no TSIG yet): the MAC over the
 * message and the TSIG variables, the TSIG record appended and ARCOUNT raised.
 * Pure: the time is the caller's.
 */
export function signMessage(message: Buffer, key: SigningKey, timeSigned: number, fudge = DEFAULT_FUDGE): SignedMessage {
  if (message.length < HEADER_BYTES) throw new Error('a DNS message is at least 12 bytes');
  const fields: TsigFields = { timeSigned: Math.floor(timeSigned), fudge, error: 0, other: Buffer.alloc(0) };
  const mac = hmac(key, [message, tsigVariables(key.name, key.algorithm, fields)]);
  const record = tsigRecord(key, tsigRdata(key.algorithm, { ...fields, mac, originalId: message.readUInt16BE(0) }));
  const bytes = Buffer.concat([message, record]);
  bytes.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { bytes, mac };
}

/** A TSIG record read back from a message. */
export interface ReadTsig extends TsigFields {
  keyName: string;
  algorithm: string;
  mac: Buffer;
  originalId: number;
  /** The message before the TSIG record, ARCOUNT lowered and the original ID put back: what the MAC covers. */
  unsigned: Buffer;
}

function readName(data: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let offset = start;
  for (;;) {
    const length = data[offset];
    if (length === undefined || length > 63) throw new Error('the TSIG algorithm name is malformed');
    offset += 1;
    if (length === 0) return { name: labels.join('.'), end: offset };
    labels.push(data.toString('ascii', offset, offset + length));
    offset += length;
  }
}

/** The TSIG record at the end of `message`, or undefined when its last record is none. Throws on a malformed one. */
export function readTsig(message: Buffer): ReadTsig | undefined {
  if (message.length < HEADER_BYTES) return undefined;
  const count = message.readUInt16BE(10);
  if (count === 0) return undefined;
  const last = dnsPacket.decode(message).additionals?.[count - 1];
  if (!last || last.type !== 'TSIG' || !Buffer.isBuffer(last.data)) return undefined;
  // Where the TSIG record starts: how far the same message decodes with one additional record fewer.
  const unsigned = Buffer.from(message);
  unsigned.writeUInt16BE(count - 1, 10);
  dnsPacket.decode(unsigned);
  const data = last.data;
  const { name: algorithm, end } = readName(data, 0);
  if (data.length < end + 10) throw new Error('the TSIG record is truncated');
  const macSize = data.readUInt16BE(end + 8);
  const after = end + 10 + macSize;
  if (data.length < after + 6) throw new Error('the TSIG record is truncated');
  const otherLength = data.readUInt16BE(after + 4);
  if (data.length < after + 6 + otherLength) throw new Error('the TSIG record is truncated');
  const originalId = data.readUInt16BE(after);
  const body = unsigned.subarray(0, dnsPacket.decode.bytes);
  body.writeUInt16BE(originalId, 0);
  return {
    keyName: last.name.toLowerCase().replace(/\.$/, ''), algorithm: algorithm.toLowerCase(),
    timeSigned: data.readUIntBE(end, 6), fudge: data.readUInt16BE(end + 6), mac: data.subarray(end + 10, after),
    originalId, error: data.readUInt16BE(after + 2), other: data.subarray(after + 6, after + 6 + otherLength), unsigned: body,
  };
}

/** What the TSIG of an answer to a signed request says. */
export type ResponseTsig =
  | { status: 'valid' }
  /** No TSIG record: the server did not sign (a server without the key, or one that ignores TSIG). */
  | { status: 'missing' }
  /** The server's TSIG error (BADSIG, BADKEY, BADTIME, ...); `serverTime` from a BADTIME answer's other data. */
  | { status: 'error'; error: number; errorName: string; serverTime?: number }
  /** Signed, but not with this key, or the MAC does not verify, or outside the fudge. */
  | { status: 'invalid'; problem: string };

/**
 * Checks the TSIG of `response`, the answer to a request signed with `key`
 * whose MAC was `requestMac` (RFC 8945 §5.3, §4.3.1: the request MAC, the
 * answer without its TSIG, the TSIG variables).
 */
export function checkResponseTsig(response: Buffer, key: SigningKey, requestMac: Buffer, nowSeconds: number): ResponseTsig {
  const tsig = readTsig(response);
  if (!tsig) return { status: 'missing' };
  if (tsig.error !== 0) {
    const serverTime = tsig.error === 18 && tsig.other.length === 6 ? tsig.other.readUIntBE(0, 6) : undefined;
    return { status: 'error', error: tsig.error, errorName: tsigErrorName(tsig.error), ...(serverTime === undefined ? {} : { serverTime }) };
  }
  if (tsig.keyName !== key.name.toLowerCase()) return { status: 'invalid', problem: `signed with the key ${tsig.keyName}, not ${key.name}` };
  if (tsig.algorithm.replace(/\.$/, '') !== key.algorithm) return { status: 'invalid', problem: `signed with ${tsig.algorithm}, not ${key.algorithm}` };
  const expected = hmac(key, [uint16(requestMac.length), requestMac, tsig.unsigned, tsigVariables(tsig.keyName, tsig.algorithm, tsig)]);
  if (tsig.mac.length !== expected.length || !timingSafeEqual(tsig.mac, expected)) return { status: 'invalid', problem: 'its TSIG MAC does not verify' };
  if (Math.abs(nowSeconds - tsig.timeSigned) > tsig.fudge) return { status: 'invalid', problem: `signed at ${tsig.timeSigned}, ${Math.round(nowSeconds - tsig.timeSigned)} s from this clock (fudge ${tsig.fudge} s)` };
  return { status: 'valid' };
}
