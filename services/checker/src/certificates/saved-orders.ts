// The order a checker is carrying out for a hostname, kept in acme_orders from
// the moment the CA accepts it until the certificate is stored: a checker
// killed meanwhile (or one that cannot store the certificate) leaves it, and
// the next try for that hostname carries the same order on instead of
// ordering a second certificate. The certificate key is saved with the order,
// sealed bound to the hostname and the order's URL: a key copied to another
// hostname's row, or the row pointed at another order, does not open. An
// order is carried on only at the directory that accepted it (DECISIONS §14).
import { createHash } from 'node:crypto';
import { decryptSecret, encryptSecret, errorMessage, orderKeyId, SEAL_PURPOSES, type DataKeys, type SealLabel } from '@cds/core';
import type { AcmeOrderRow, DataStore } from '@cds/data';

/** A saved order older than this is not carried on (the CA lets orders expire after days; a try comes within minutes). */
export const SAVED_ORDER_MAX_AGE_MS = 24 * 3600_000;

/** What a saved order names: the order, its certificate key and the directory that accepted it (null: saved before that was kept). */
export interface SavedOrder {
  url: string;
  keyPem: string;
  directoryUrl: string | null;
}

/**
 * The configured directory a saved order belongs to, or null. An order saved
 * before directories were kept belongs to the directory on its URL's origin
 * (CAs write order URLs on their directory's host).
 */
export function orderDirectory(saved: Pick<SavedOrder, 'url' | 'directoryUrl'>, configured: readonly string[]): string | null {
  if (saved.directoryUrl !== null) return configured.includes(saved.directoryUrl) ? saved.directoryUrl : null;
  const origin = URL.canParse(saved.url) ? new URL(saved.url).origin : null;
  return configured.find((url) => URL.canParse(url) && new URL(url).origin === origin) ?? null;
}

/** A short name of the certificate a renewal replaces: a saved first order is no renewal's order, and the other way round. */
export const replacedFingerprint = (replacing: string | null): string | null =>
  replacing === null ? null : createHash('sha256').update(replacing).digest('base64url');

/** True when the saved order was placed for the same certificate (`replacing`: the chain a renewal replaces, or null). */
export const orderFor = (row: Pick<AcmeOrderRow, 'replaces'>, replacing: string | null): boolean => row.replaces === replacedFingerprint(replacing);

const sealedAs = (hostname: string, orderUrl: string): SealLabel => ({ purpose: SEAL_PURPOSES.acmeOrderKey, id: orderKeyId(hostname, orderUrl) });

export class SavedOrders {
  constructor(
    private readonly store: DataStore,
    private readonly encryptionKey: DataKeys,
    /** Told when a saved order is dropped instead of carried on, and why. */
    private readonly onDiscarded?: (hostname: string, reason: string) => void,
  ) {}

  /**
   * The order to carry on for the hostname's certificate (`replacing`: the
   * chain a renewal replaces), or null. Orders that expired or are a day old
   * (by the database's clock) are deleted first, whichever their hostname.
   */
  async find(hostname: string, replacing: string | null): Promise<SavedOrder | null> {
    const row = await this.store.run(async (r) => {
      await r.acmeOrders.deleteStale(SAVED_ORDER_MAX_AGE_MS);
      return r.acmeOrders.findCurrent(hostname, SAVED_ORDER_MAX_AGE_MS);
    });
    if (!row || !orderFor(row, replacing)) return null;
    try {
      return { url: row.orderUrl, keyPem: decryptSecret(row.keySealed, this.encryptionKey, sealedAs(hostname, row.orderUrl)), directoryUrl: row.directoryUrl ?? null };
    } catch (err) {
      await this.discard(hostname, errorMessage(err));
      return null;
    }
  }

  async save(hostname: string, replacing: string | null, url: string, keyPem: string, expiresAt: Date | null, directoryUrl: string): Promise<void> {
    const keySealed = encryptSecret(keyPem, this.encryptionKey, sealedAs(hostname, url));
    await this.store.run((r) => r.acmeOrders.save({ hostname, orderUrl: url, keySealed, replaces: replacedFingerprint(replacing), expiresAt, directoryUrl }));
  }

  /** The order is of no use (its certificate was refused, or its key does not open): the next try places a new one. */
  async discard(hostname: string, reason: string): Promise<void> {
    this.onDiscarded?.(hostname, reason);
    await this.forget(hostname);
  }

  /** Once the certificate is stored, nothing is left to carry on. */
  async forget(hostname: string): Promise<void> {
    await this.store.run((r) => r.acmeOrders.delete(hostname));
  }
}
