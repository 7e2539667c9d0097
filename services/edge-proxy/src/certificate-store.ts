// TLS by SNI: one secure context per hostname, built from the certificate the
// checker stored, cached and refreshed like routes. A name without a usable
// certificate gets no context: the handshake is refused, and no default
// certificate is ever shown.
import tls from 'node:tls';
import { decryptSecret } from '@cds/core';
import type { DataStore } from '@cds/data';
import { RefreshingCache } from './refreshing-cache';

/** A certificate, or none for the name (cached too, so unknown names do not reach the database each time). */
export type CertificateEntry = { context: tls.SecureContext; domainId: string; notAfter: number } | { context: null };

const NONE: CertificateEntry = Object.freeze({ context: null });

export interface CertificateStoreOptions {
  store: DataStore;
  dataEncryptionKey: Buffer;
  softTtlMs?: number;
  hardTtlMs?: number;
  max?: number;
  now?: () => number;
  onLoad?: (ok: boolean, error?: unknown) => void;
}

export function createCertificateStore(opts: CertificateStoreOptions): RefreshingCache<CertificateEntry> {
  const now = opts.now ?? Date.now;
  return new RefreshingCache<CertificateEntry>({
    load: async (hostname) => {
      const row = await opts.store.run((r) => r.certificates.find(hostname));
      if (!row || row.notAfter.getTime() <= now()) return NONE;
      const key = decryptSecret(row.keySealed, opts.dataEncryptionKey);
      return { context: tls.createSecureContext({ cert: row.pemChain, key }), domainId: row.domainId, notAfter: row.notAfter.getTime() };
    },
    // A renewal or removal arrives by the fan-out; the TTLs bound what a lost message costs.
    softTtlMs: opts.softTtlMs ?? 30_000,
    hardTtlMs: opts.hardTtlMs ?? 60_000,
    // A certificate issued while "none" was cached is found within 4 s without the fan-out.
    ttlFor: (entry) => (entry.context === null ? { softTtlMs: 1_000, hardTtlMs: 4_000 } : undefined),
    max: opts.max ?? 20_000,
    now,
    onLoad: opts.onLoad,
  });
}

/** SNI names are DNS names: lowercase them and drop one trailing dot; anything else is not a name we serve. */
export function sniName(servername: string): string | null {
  const name = servername.toLowerCase().replace(/\.$/, '');
  return /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/.test(name) ? name : null;
}
