// The ACME order a checker is carrying out for a hostname, kept until its
// certificate is stored (migration 1795843500000). Ages are compared with the
// database's clock, which every checker shares, never with a process's.

export interface AcmeOrderRow {
  hostname: string;
  orderUrl: string;
  /** The certificate key, sealed for SEAL_PURPOSES.acmeOrderKey and orderKeyId(hostname, orderUrl). */
  keySealed: string;
  /** Short name of the certificate a renewal replaces; null for a first certificate. */
  replaces: string | null;
  /** When it was saved, by the database's clock. */
  savedAt: Date;
  /** When the CA lets the order expire, as it said; null when it did not say. */
  expiresAt: Date | null;
  /** The ACME directory that accepted it (migration 1795844000000); null or absent for orders saved before it was kept. */
  directoryUrl?: string | null;
}

export interface AcmeOrdersRepository {
  /** Saves the hostname's order in place of any earlier one; `saved_at` is the database's clock. */
  save(order: Omit<AcmeOrderRow, 'savedAt'>): Promise<void>;
  /** The hostname's order while it is younger than `maxAgeMs` and has not expired, by the database's clock; null otherwise. */
  findCurrent(hostname: string, maxAgeMs: number): Promise<AcmeOrderRow | null>;
  /** Removes every order that has expired or is `maxAgeMs` old, by the database's clock; returns how many. */
  deleteStale(maxAgeMs: number): Promise<number>;
  /** Removes the hostname's order (no-op when there is none). */
  delete(hostname: string): Promise<void>;
}
