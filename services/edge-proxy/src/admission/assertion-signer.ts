// The X-Custom-Domain-Assertion the edge adds to every forwarded request
// (DECISIONS §4). Tokens are cached per domain for under a minute; the
// application's signing key is read again when the change feed sees one of its
// keys issued or revoked (or, while the feed has stalled, after 1.5 to 2 s;
// and at EDGE_CACHE_MAX_AGE whatever the feed says), and a cached token is
// only used while its key is still the one that signs, so a revoked key stops
// being used on every edge within 2 s.
import { LRUCache } from 'lru-cache';
import { decryptSecret, SEAL_PURPOSES, selectSigningKey, signAssertion, type DataKeys } from '@cds/core';
import type { DataStore } from '@cds/data';
import { RefreshingCache } from '../caches/refreshing-cache';
import type { DomainRoute } from '../caches/route-table';

export interface SigningKey {
  kid: string;
  secret: string;
}

interface CachedToken {
  token: string;
  kid: string;
  reference: string;
  signedAt: number;
}

/** Under a minute, as the contract asks; the token itself is valid for 300 s. */
export const TOKEN_REUSE_MS = 50_000;

export interface AssertionSignerOptions {
  store: DataStore;
  dataEncryptionKey: DataKeys;
  deploymentKey: SigningKey;
  now?: () => number;
  /** The change feed's last read (see RefreshingCache). */
  freshSince?: () => number;
  /** EDGE_CACHE_MAX_AGE (see RefreshingCache). */
  maxAgeMs?: number;
  onLoad?: (ok: boolean, error?: unknown) => void;
  /** Each database read. */
  onRead?: () => void;
}

export class AssertionSigner {
  private readonly keys: RefreshingCache<SigningKey>;
  private readonly tokens = new LRUCache<string, CachedToken>({ max: 100_000 });
  private readonly now: () => number;

  constructor(opts: AssertionSignerOptions) {
    this.now = opts.now ?? Date.now;
    this.keys = new RefreshingCache<SigningKey>({
      load: async (applicationId) => {
        opts.onRead?.();
        const rows = await opts.store.run((r) => r.assertionKeys.list(applicationId));
        const key = selectSigningKey(rows, opts.deploymentKey);
        return 'secretSealed' in key ? { kid: key.kid, secret: decryptSecret(key.secretSealed, opts.dataEncryptionKey, { purpose: SEAL_PURPOSES.assertionKey, id: key.kid }) } : key;
      },
      // Revocation must reach every edge within 2 s: the feed's period (1 s) leaves entries younger than 1.5 s;
      // when it stalls, reload in the background after 1.5 s and wait for it after 2 s.
      softTtlMs: 1_500,
      hardTtlMs: 2_000,
      max: 50_000,
      now: this.now,
      freshSince: opts.freshSince,
      maxAgeMs: opts.maxAgeMs,
      onLoad: opts.onLoad,
    });
  }

  /** The cached token when it can be used as is (no promise on the hot path). */
  peek(route: DomainRoute): string | undefined {
    const key = this.keys.peek(route.application.id);
    if (!key) return undefined;
    const cached = this.tokens.get(route.domainId);
    if (cached && cached.kid === key.kid && cached.reference === route.reference && this.now() - cached.signedAt < TOKEN_REUSE_MS) return cached.token;
    return undefined;
  }

  async assertionFor(route: DomainRoute): Promise<string> {
    const ready = this.peek(route);
    if (ready !== undefined) return ready;
    const key = await this.keys.get(route.application.id);
    const signedAt = this.now();
    const token = await signAssertion({
      kid: key.kid,
      secret: key.secret,
      slug: route.application.slug,
      domainId: route.domainId,
      hostname: route.hostname,
      reference: route.reference,
      now: new Date(signedAt),
    });
    this.tokens.set(route.domainId, { token, kid: key.kid, reference: route.reference, signedAt });
    return token;
  }

  /** One of the application's keys was issued or revoked: its signing key is read again. */
  keysChanged(applicationId: string): void {
    this.keys.invalidate(applicationId);
  }

  /** A domain left: its token goes too. */
  forget(domainId: string): void {
    this.tokens.delete(domainId);
  }

  /** Every key is read again, and no token is reused. */
  clear(): void {
    this.keys.clear();
    this.tokens.clear();
  }
}
