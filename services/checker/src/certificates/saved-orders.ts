// The order a checker is carrying out for a hostname, kept in the settings
// table from the moment the CA accepts it until the certificate is stored: a
// checker killed meanwhile (or one that cannot store the certificate) leaves
// it, and the next try for that hostname carries the same order on instead of
// ordering a second certificate. The certificate key is sealed with the
// order: a resumed order is finalized, or its certificate downloaded, with it.
import { createHash } from 'node:crypto';
import { decryptSecret, encryptSecret } from '@cds/core';
import type { DataStore } from '@cds/data';

/** A saved order older than this is not carried on (the CA lets orders expire after days; a try comes within minutes). */
export const SAVED_ORDER_MAX_AGE_MS = 24 * 3600_000;

const keyOf = (hostname: string) => `acme_order:${hostname}`;

/** What a saved order names: the order, its certificate key, and the certificate it replaces (a fingerprint, or null). */
export interface SavedOrder {
  url: string;
  keyPem: string;
  replaces: string | null;
  savedAt: number;
}

/** A short name of the certificate a renewal replaces: a saved first order is no renewal's order, and the other way round. */
export const replacedFingerprint = (replacing: string | null): string | null =>
  replacing === null ? null : createHash('sha256').update(replacing).digest('base64url');

/** The saved order when it is for the same certificate (`replacing`) and recent enough; null otherwise. */
export function usableOrder(saved: SavedOrder | null, replacing: string | null, now: number): SavedOrder | null {
  if (!saved || saved.replaces !== replacedFingerprint(replacing)) return null;
  return now - saved.savedAt < SAVED_ORDER_MAX_AGE_MS && now >= saved.savedAt ? saved : null;
}

function parse(text: string): SavedOrder | null {
  try {
    const v = JSON.parse(text) as Partial<SavedOrder>;
    return typeof v.url === 'string' && typeof v.keyPem === 'string' && typeof v.savedAt === 'number' && (typeof v.replaces === 'string' || v.replaces === null)
      ? { url: v.url, keyPem: v.keyPem, replaces: v.replaces, savedAt: v.savedAt }
      : null;
  } catch {
    return null;
  }
}

export class SavedOrders {
  constructor(
    private readonly store: DataStore,
    private readonly encryptionKey: Buffer,
    private readonly now: () => Date,
  ) {}

  /** The order to carry on for the hostname's certificate (`replacing`: the chain a renewal replaces), or null. */
  async find(hostname: string, replacing: string | null): Promise<SavedOrder | null> {
    const sealed = await this.store.run((r) => r.settings.get(keyOf(hostname)));
    if (!sealed) return null;
    let opened: string | null;
    try {
      opened = decryptSecret(sealed, this.encryptionKey);
    } catch {
      opened = null;
    }
    return usableOrder(opened === null ? null : parse(opened), replacing, this.now().getTime());
  }

  async save(hostname: string, replacing: string | null, url: string, keyPem: string): Promise<void> {
    const saved: SavedOrder = { url, keyPem, replaces: replacedFingerprint(replacing), savedAt: this.now().getTime() };
    await this.store.run((r) => r.settings.set(keyOf(hostname), encryptSecret(JSON.stringify(saved), this.encryptionKey)));
  }

  /** Once the certificate is stored, nothing is left to carry on. */
  async forget(hostname: string): Promise<void> {
    await this.store.run((r) => r.settings.delete(keyOf(hostname)));
  }
}
