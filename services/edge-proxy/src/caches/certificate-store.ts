// TLS by SNI: one secure context per hostname, built from the certificate the
// checker stored, cached like routes (dropped by the change feed and the
// fan-out; while the feed runs, read again only at EDGE_CACHE_MAX_AGE or when
// it expires). A name without a usable certificate gets no context: the
// handshake is refused, and no default certificate is ever shown.
import tls from 'node:tls';
import { decryptSecret, SEAL_PURPOSES, SecretBoxError, type DataKeys } from '@cds/core';
import type { DataStore } from '@cds/data';
import { RefreshingCache } from './refreshing-cache';

/** A certificate, or none for the name (remembered apart for at most 2 s, or known at once for a name no live domain has). */
export type CertificateEntry = { context: tls.SecureContext; domainId: string; notAfter: number } | { context: null };

const NONE: CertificateEntry = Object.freeze({ context: null });

export interface CertificateStoreOptions {
  store: DataStore;
  dataEncryptionKey: DataKeys;
  softTtlMs?: number;
  hardTtlMs?: number;
  max?: number;
  maxUnknown?: number;
  now?: () => number;
  /** The change feed's last read (see RefreshingCache). */
  freshSince?: () => number;
  /** True when the name certainly has no live domain, hence no certificate shown. */
  certainlyUnknown?: (hostname: string) => boolean;
  /** EDGE_CACHE_MAX_AGE and the budget for misses (see RefreshingCache). */
  maxAgeMs?: number;
  missBudget?: { take(key: string): boolean };
  onLoad?: (ok: boolean, error?: unknown) => void;
  /** Each database read. */
  onRead?: () => void;
  /** Told when a hostname's stored key does not open (altered, or copied from another row): it gets no certificate. */
  onUnreadable?: (hostname: string, err: SecretBoxError) => void;
}

export function createCertificateStore(opts: CertificateStoreOptions): RefreshingCache<CertificateEntry> {
  const now = opts.now ?? Date.now;
  return new RefreshingCache<CertificateEntry>({
    load: async (hostname) => {
      opts.onRead?.();
      const row = await opts.store.run((r) => r.certificates.find(hostname));
      if (!row || row.notAfter.getTime() <= now()) return NONE;
      let key: string;
      try {
        key = decryptSecret(row.keySealed, opts.dataEncryptionKey, { purpose: SEAL_PURPOSES.certificateKey, id: row.hostname });
      } catch (err) {
        // The row's fault, not the database's: the name is refused like one without a certificate, and the others are served.
        if (!(err instanceof SecretBoxError)) throw err;
        opts.onUnreadable?.(hostname, err);
        return NONE;
      }
      return { context: tls.createSecureContext({ cert: row.pemChain, key }), domainId: row.domainId, notAfter: row.notAfter.getTime() };
    },
    // Without the feed: a renewal or removal still arrives by the fan-out; the TTLs bound what a lost message costs.
    softTtlMs: opts.softTtlMs ?? 30_000,
    hardTtlMs: opts.hardTtlMs ?? 60_000,
    // An expired certificate is read again (the renewal, or none) even while the feed says nothing changed.
    expiresAt: (entry) => (entry.context === null ? Infinity : entry.notAfter),
    max: opts.max ?? 20_000,
    now,
    freshSince: opts.freshSince,
    maxAgeMs: opts.maxAgeMs,
    missBudget: opts.missBudget,
    absent: { value: NONE, max: opts.maxUnknown ?? 100_000, certain: opts.certainlyUnknown },
    onLoad: opts.onLoad,
  });
}

/** SNI names are DNS names: lowercase them and drop one trailing dot; anything else is not a name we serve. */
export function sniName(servername: string): string | null {
  const name = servername.toLowerCase().replace(/\.$/, '');
  return /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/.test(name) ? name : null;
}
