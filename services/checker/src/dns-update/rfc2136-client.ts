// Writes and removes the ACME DNS-01 challenge TXT records in the delegated
// zone (ACME_DNS_ZONE) with TSIG-signed RFC 2136 updates to its server
// (ACME_DNS_UPDATE_SERVER), and reads them back from that server.
import { randomInt } from 'node:crypto';
import * as dnsPacket from 'dns-packet';
import { DnsUpdateError, updateAnswerError } from './dns-update-error';
import { checkResponseTsig, signMessage, type ResponseTsig } from './tsig';
import type { TsigKey } from '@cds/config';
import { signingKey, type SigningKey } from './tsig-key';
import { addTxtMessage, inZone, normalName, removeTxtMessage, responseCode, txtQueryMessage } from './update-message';
import { serverLabel, tcpExchange, type DnsServer } from './tcp-exchange';

export const DEFAULT_UPDATE_TIMEOUT_MS = 10_000;
const MAX_TTL = 2 ** 31 - 1;

export interface DnsUpdateClientOptions {
  server: DnsServer;
  zone: string;
  /** ACME_DNS_TSIG_KEY. */
  key: TsigKey;
  /** How long one exchange (connect, send, answer) may take. */
  timeoutMs?: number;
  /** Sends one message and resolves with the answer; TCP by default (tests put a fake here). */
  exchange?: (server: DnsServer, message: Buffer, timeoutMs: number) => Promise<Buffer>;
  /** Milliseconds since the epoch, for the TSIG time. */
  now?: () => number;
}

function txtValue(data: unknown): string {
  const strings = Array.isArray(data) ? data : [data];
  return strings.map((part) => (Buffer.isBuffer(part) ? part.toString('utf8') : String(part))).join('');
}

export class DnsUpdateClient {
  private readonly server: DnsServer;
  private readonly zone: string;
  private readonly key: SigningKey;
  private readonly timeoutMs: number;
  private readonly exchange: NonNullable<DnsUpdateClientOptions['exchange']>;
  private readonly now: () => number;

  constructor(opts: DnsUpdateClientOptions) {
    this.server = opts.server;
    this.zone = normalName(opts.zone);
    this.key = signingKey(opts.key);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS;
    this.exchange = opts.exchange ?? tcpExchange;
    this.now = opts.now ?? Date.now;
  }

  /** Adds `value` to the TXT records at `name` (the others stay). */
  async addTxt(name: string, value: string, ttl: number): Promise<void> {
    if (!Number.isInteger(ttl) || ttl < 0 || ttl > MAX_TTL) throw new RangeError(`a TXT record's TTL is a whole number of seconds from 0 to ${MAX_TTL}, not ${ttl}`);
    this.refuseOutsideZone(name);
    const id = randomInt(0, 0x10000);
    await this.update(id, addTxtMessage(id, this.zone, name, value, ttl), `adding the TXT record at ${normalName(name)}`);
  }

  /** Removes the one TXT record at `name` whose value is `value` (others stay; none there is no error). */
  async removeTxt(name: string, value: string): Promise<void> {
    this.refuseOutsideZone(name);
    const id = randomInt(0, 0x10000);
    await this.update(id, removeTxtMessage(id, this.zone, name, value), `removing the TXT record at ${normalName(name)}`);
  }

  /** The TXT values at `name` as the update server has them: asked directly, without recursion; none when the name has none. */
  async authoritativeTxt(name: string): Promise<string[]> {
    this.refuseOutsideZone(name);
    const id = randomInt(0, 0x10000);
    const label = serverLabel(this.server);
    const owner = normalName(name);
    const answer = this.decode(await this.exchange(this.server, txtQueryMessage(id, owner), this.timeoutMs), id, `the TXT query for ${owner}`);
    const rcode = responseCode(answer);
    if (rcode === 'NXDOMAIN') return [];
    if (rcode === 'REFUSED' || rcode === 'NOTAUTH') {
      throw new DnsUpdateError('refused', `the DNS update server ${label} refused the TXT query for ${owner} (${rcode}): it does not serve the zone ${this.zone} to this host; check ACME_DNS_UPDATE_SERVER and ACME_DNS_ZONE`);
    }
    if (rcode !== 'NOERROR') throw new DnsUpdateError('server_failure', `the DNS update server ${label} failed the TXT query for ${owner} (${rcode}); its log says why`);
    if (!answer.flag_aa) {
      throw new DnsUpdateError('refused', `the DNS update server ${label} is not authoritative for ${owner}: point ACME_DNS_UPDATE_SERVER at the primary server of the zone ${this.zone}`);
    }
    return (answer.answers ?? [])
      .filter((record) => record.type === 'TXT' && normalName(record.name) === owner)
      .map((record) => txtValue((record as dnsPacket.TxtAnswer).data));
  }

  private refuseOutsideZone(name: string): void {
    if (!inZone(name, this.zone)) {
      throw new DnsUpdateError('not_zone', `${normalName(name)} is not in the zone ${this.zone} (ACME_DNS_ZONE), so its record was not sent to ${serverLabel(this.server)}: the challenge names must be under the delegated zone`);
    }
  }

  private decode(bytes: Buffer, id: number, what: string): dnsPacket.DecodedPacket {
    const label = serverLabel(this.server);
    let answer: dnsPacket.DecodedPacket;
    try {
      answer = dnsPacket.decode(bytes);
    } catch (err) {
      throw new DnsUpdateError('server_failure', `the DNS update server ${label} sent an answer to ${what} that is not a DNS message (${(err as Error).message})`);
    }
    if (answer.id !== id || answer.type !== 'response') {
      throw new DnsUpdateError('server_failure', `the DNS update server ${label} sent an answer to ${what} that does not match it (ID ${answer.id}, not ${id})`);
    }
    return answer;
  }

  private async update(id: number, message: Buffer, action: string): Promise<void> {
    const signed = signMessage(message, this.key, this.now() / 1000);
    const bytes = await this.exchange(this.server, signed.bytes, this.timeoutMs);
    const answer = this.decode(bytes, id, action);
    const nowSeconds = this.now() / 1000;
    let tsig: ResponseTsig;
    try {
      tsig = checkResponseTsig(bytes, this.key, signed.mac, nowSeconds);
    } catch (err) {
      tsig = { status: 'invalid', problem: (err as Error).message };
    }
    const error = updateAnswerError({ server: serverLabel(this.server), zone: this.zone, keyName: this.key.name, action }, responseCode(answer), tsig, nowSeconds);
    if (error) throw error;
  }
}
