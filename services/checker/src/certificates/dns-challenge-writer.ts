// DECISIONS §13: the DNS-01 challenge of a domain whose `_acme-challenge`
// CNAME points into ACME_DNS_ZONE is written there as a TXT record by a
// TSIG-signed update, read back from the zone's own server before the CA is
// told to look, and removed after the order.
import { setTimeout as sleep } from 'node:timers/promises';
import { DnsUpdateError, type DnsUpdateClient } from '../dns-update';
import { IssuanceError } from './issuer';

/** What the writer needs of the update client (a fake in unit tests). */
export type DnsUpdates = Pick<DnsUpdateClient, 'addTxt' | 'removeTxt' | 'authoritativeTxt'>;

export interface DnsChallengeWriterOptions {
  /** The TXT record's TTL: short, as resolvers may cache a record that changes with every order. */
  ttlSeconds?: number;
  /** How long the zone's server may take to answer the new record. */
  visibleWithinMs?: number;
  pollMs?: number;
}

/** The value written by the probe: TXT values are base64url digests, so no challenge ever has it. */
const PROBE_VALUE = 'cds-update-probe';

export class DnsChallengeWriter {
  private readonly ttlSeconds: number;
  private readonly visibleWithinMs: number;
  private readonly pollMs: number;

  constructor(private readonly updates: DnsUpdates, opts: DnsChallengeWriterOptions = {}) {
    this.ttlSeconds = opts.ttlSeconds ?? 60;
    this.visibleWithinMs = opts.visibleWithinMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 250;
  }

  /**
   * A signed update that changes nothing (the removal of a value nobody
   * wrote), before any order or budget slot is spent: a wrong key, a zone
   * that refuses updates or an unreachable server is said by the check at once.
   */
  async probe(name: string): Promise<void> {
    await this.said(() => this.updates.removeTxt(name, PROBE_VALUE));
  }

  /** Writes `value` at `name` and resolves once the zone's server answers it. */
  async publish(name: string, value: string): Promise<void> {
    await this.said(() => this.updates.addTxt(name, value, this.ttlSeconds));
    const deadline = Date.now() + this.visibleWithinMs;
    for (;;) {
      if ((await this.said(() => this.updates.authoritativeTxt(name))).includes(value)) return;
      if (Date.now() >= deadline) throw new IssuanceError('certificate_issuance_failed', `The DNS-01 record at ${name} was written but its zone's server did not answer it within ${Math.round(this.visibleWithinMs / 1000)} s.`);
      await sleep(this.pollMs);
    }
  }

  async remove(name: string, value: string): Promise<void> {
    await this.said(() => this.updates.removeTxt(name, value));
  }

  /** A refused or failed update becomes the certificate check's message. */
  private async said<T>(update: () => Promise<T>): Promise<T> {
    try {
      return await update();
    } catch (err) {
      if (err instanceof DnsUpdateError) throw new IssuanceError('certificate_issuance_failed', `The DNS-01 challenge could not be written: ${err.message}.`);
      throw err;
    }
  }
}
