// CERT_ISSUER=acme: RFC 8555 orders to one directory through acme-client
// (fallback-acme-issuer.ts tries the directories of ACME_DIRECTORY_URL in
// turn). The account key and certificate keys (ECDSA P-256) are sealed with
// DATA_ENCRYPTION_KEY; the one account key has an account at each directory.
// HTTP-01 answers live in the database, where every edge reads them. Each
// order takes a slot of the hourly order budget first (acme-order-budget.ts).
// What fails at the CA's side is thrown as DirectoryFailure.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { Resolver } from 'node:dns/promises';
import { rootCertificates } from 'node:tls';
import * as acme from 'acme-client';
import { LRUCache } from 'lru-cache';
import { ACME_ORDER_KINDS, errorMessage, decryptSecret, encryptSecret, failureCountsAgainstHostname, SEAL_PURPOSES, type AcmeBudgetLimits, type DataKeys } from '@cds/core';
import type { ExternalAccountBinding } from '@cds/config';
import type { DataStore } from '@cds/data';
import { checkCaa } from './caa';
import { caaIdentitiesOf } from './caa-identities';
import { orderCertificate, resumableOrder, type Dns01Answer } from './acme-order';
import type { DnsChallengeWriter } from './dns-challenge-writer';
import { AcmeOrderBudget } from './acme-order-budget';
import { AcmeUnavailable, boundAcmeRequests, CA_FAILURES } from './acme-transport';
import { certificateMismatch } from './certificate-match';
import { DirectoryFailure, IssuanceError, type CertificateIssuer, type IssuedCertificate } from './issuer';
import type { RenewalWindow } from '@cds/core';
import { ariCertId } from './renewal';
import { orderDirectory, SavedOrders, type SavedOrder } from './saved-orders';

export const ACME_SETTINGS = { accountKeySealed: 'acme_account_key_sealed' } as const;

/** Let's Encrypt's published limit: 5 failed validations per hostname per hour. */
export const FAILED_VALIDATIONS_PER_HOUR = 5;
const HOUR_SECONDS = 3600;
/**
 * Each request to the CA: one that gets no answer fails the order (retried at
 * a later check) instead of holding the certificate lane for good.
 */
export const ACME_REQUEST_TIMEOUT_MS = 30_000;

export interface AcmeIssuerOptions {
  store: DataStore;
  /** The sealing key first, then any others that open (DATA_ENCRYPTION_KEYS). */
  encryptionKey: DataKeys;
  directoryUrl: string;
  email: string | null;
  /** PEM file of extra CAs trusted for the directory (ACME_CA_BUNDLE). */
  caBundle: string | null;
  /** DNS_SERVERS, for the CAA lookups. */
  dnsServers: readonly string[];
  /** ACME_ORDERS_PER_HOUR and ACME_ORDERS_PER_APPLICATION_PER_HOUR: the orders each clock hour may see. */
  orderBudget: AcmeBudgetLimits;
  /** Told when the CA refused a renewal's `replaces` and the order went ahead without it. */
  onReplacesRefused?: (hostname: string, err: unknown) => void;
  /** Told when an order an earlier try placed is carried on instead of a new one (its state at the CA). */
  onOrderResumed?: (hostname: string, status: string) => void;
  /** Told when a saved order is dropped instead of carried on (its key does not open, or its certificate was refused), and why. */
  onOrderDiscarded?: (hostname: string, reason: string) => void;
  /** Told when a renewal window could not be fetched; the certificate goes by the 30-day rule until the next try. */
  onRenewalInfoFailed?: (certId: string, err: unknown) => void;
  now?: () => Date;
  /** ACME_EAB_KID_<n> and ACME_EAB_HMAC_KEY_<n>: the account is registered with External Account Binding. */
  eab?: ExternalAccountBinding | null;
  /** ACME_CAA_IDENTITY_<n>; null or absent: the directory's `caaIdentities`, else its host's well-known identity. */
  caaIdentities?: readonly string[] | null;
  /** False: a 5xx or 429 answer fails the order at once (another directory is there to try) instead of being asked again. */
  retryServerErrors?: boolean;
  /** ACME_DNS_ZONE and its update server: writes the DNS-01 challenges of delegated hostnames (DECISIONS §13). */
  dnsChallenges?: DnsChallengeWriter | null;
}

interface Directory {
  meta?: { caaIdentities?: string[] };
  /** RFC 9773: present when the CA offers ACME Renewal Information. */
  renewalInfo?: string;
}

/** How long an ARI answer is reused when it names no Retry-After (RFC 9773 suggests polling a few times a day). */
const ARI_DEFAULT_TTL_MS = 6 * 3600_000;
/**
 * The window is fetched inside a domain's check: a CA whose ARI does not
 * answer costs that check this long at most, and the next try for the same
 * certificate waits ARI_RETRY_AFTER_FAILURE_MS, so other checks do not wait.
 */
export const ARI_REQUEST_TIMEOUT_MS = 10_000;
const ARI_RETRY_AFTER_FAILURE_MS = 10 * 60_000;

/** Certificates whose window is kept at most; beyond, the least recently checked is dropped and fetched again when next needed. */
const ARI_CACHED_WINDOWS = 100_000;

export class AcmeIssuer implements CertificateIssuer {
  readonly kind = 'acme' as const;
  private readonly now: () => Date;
  private readonly budget: AcmeOrderBudget;
  private readonly savedOrders: SavedOrders;
  private readonly resolver = new Resolver({ timeout: 3000, tries: 2 });
  private client: Promise<acme.Client> | null = null;
  private directory: Promise<Directory> | null = null;
  /**
   * Windows by ARI certificate id, each kept for its Retry-After (an answer
   * being fetched has no expiry, so checks asking meanwhile share the request).
   * Bounded: certificates replaced by renewals fall out.
   */
  private readonly windows = new LRUCache<string, Promise<RenewalWindow | null>>({ max: ARI_CACHED_WINDOWS });

  constructor(private readonly opts: AcmeIssuerOptions) {
    this.now = opts.now ?? (() => new Date());
    this.budget = new AcmeOrderBudget(opts.store, opts.orderBudget, this.now);
    this.savedOrders = new SavedOrders(opts.store, opts.encryptionKey, (hostname, reason) => opts.onOrderDiscarded?.(hostname, reason));
    if (opts.dnsServers.length > 0) this.resolver.setServers([...opts.dnsServers]);
    // acme-client talks through one axios instance: the timeout and the bundle apply to it alone.
    boundAcmeRequests(acme.axios, ACME_REQUEST_TIMEOUT_MS, opts.retryServerErrors ?? true);
    if (opts.caBundle) acme.axios.defaults.httpsAgent = new https.Agent({ ca: [...rootCertificates, readFileSync(opts.caBundle, 'utf8')] });
  }

  get directoryUrl(): string {
    return this.opts.directoryUrl;
  }

  /** Throws AcmeBudgetWait, before anything is sent to the CA, when the order budget has no slot for it this hour. */
  async issue(hostname: string, replacing: string | null, applicationId: string, _issuedBy: string | null = null, dns01At: string | null = null): Promise<IssuedCertificate> {
    const caa = await checkCaa(this.resolver, hostname, await this.caaIdentities());
    if (!caa.allowed) {
      throw new IssuanceError('caa_forbids_issuance', `The CAA records of ${caa.name} (${caa.found.join(', ')}) do not allow this CA to issue.`);
    }
    // An order an earlier try placed and did not see stored (its checker killed, the database away) is carried on:
    // a second order would have the CA issue the hostname a second certificate.
    const saved = await this.savedOrders.find(hostname, replacing);
    return this.order(hostname, replacing, applicationId, saved && orderDirectory(saved, [this.directoryUrl]) ? saved : null, dns01At);
  }

  /**
   * The order after CAA allowed it: `saved` is an order this directory
   * accepted for the same certificate (carried on instead of a new one).
   * Throws AcmeBudgetWait as `issue` does, and DirectoryFailure when the CA
   * fails at its side. `dns01At`: answered by DNS-01 there (DECISIONS §13).
   */
  async order(hostname: string, replacing: string | null, applicationId: string, saved: SavedOrder | null, dns01At: string | null = null): Promise<IssuedCertificate> {
    await this.checkFailedValidations(hostname);
    const dns01 = dns01At === null ? null : this.dns01Answer(dns01At);
    // A zone that will not take the record is found before an order or a budget slot is spent on it.
    if (dns01) await this.opts.dnsChallenges?.probe(dns01.name);
    const client = await this.account();
    const resumed = saved ? await resumableOrder(client, saved.url) : null;
    const keyPem = resumed && saved ? saved.keyPem : (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
    const [, csr] = await acme.crypto.createCsr({ commonName: hostname, altNames: [hostname] }, keyPem);
    // The slot is taken last, just before the order goes: nothing that fails earlier spends one. A resumed order has its slot.
    if (!resumed) await this.budget.reserve(applicationId, replacing ? ACME_ORDER_KINDS.renewal : ACME_ORDER_KINDS.first);
    const { store } = this.opts;
    try {
      const request = {
        hostname, csr, replaces: await this.replaces(replacing),
        saveChallenge: (token: string, keyAuthorization: string) => store.run((r) => r.acmeChallenges.save({ token, hostname, keyAuthorization, createdAt: this.now() })),
        removeChallenge: (token: string) => store.run((r) => r.acmeChallenges.delete(token)),
        onReplacesRefused: (err: unknown) => this.opts.onReplacesRefused?.(hostname, err),
        dns01,
      };
      if (resumed) this.opts.onOrderResumed?.(hostname, resumed.status);
      const chain = await orderCertificate(client, request, resumed, (order) =>
        this.savedOrders.save(hostname, replacing, order.url, keyPem, order.expires ? new Date(order.expires) : null, this.directoryUrl));
      // A resumed order is only as good as the saved row it came from: nothing but this hostname's certificate for this key is stored.
      const mismatch = certificateMismatch(chain, hostname, keyPem);
      if (mismatch) {
        await this.savedOrders.discard(hostname, mismatch);
        throw new Error(`${mismatch}; the order is discarded and the next try places a new one`);
      }
      const info = acme.crypto.readCertificateInfo(chain);
      return { pemChain: chain, keyPem, notBefore: info.notBefore, notAfter: info.notAfter, directoryUrl: this.directoryUrl };
    } catch (err) {
      const message = errorMessage(err);
      const said = `The ACME order for ${hostname} failed: ${message}`;
      // The CA's own failure (down, 5xx, rate limit, account refused) was no validation of the hostname.
      if (err instanceof AcmeUnavailable || err instanceof DirectoryFailure) throw new DirectoryFailure(this.directoryUrl, err.reason, said);
      // A validation that got only our own edge's "unavailable" answer says nothing about the hostname either.
      if (failureCountsAgainstHostname(message, hostname)) await store.run((r) => r.rateCounters.hit(`acme:failed:${hostname}`, HOUR_SECONDS, this.now()));
      throw new IssuanceError('certificate_issuance_failed', said);
    }
  }

  private dns01Answer(name: string): Dns01Answer {
    const writer = this.opts.dnsChallenges;
    if (!writer) throw new IssuanceError('certificate_issuance_failed', `The challenge of ${name} is delegated, but ACME_DNS_ZONE is not set on this checker.`);
    return { name, writer };
  }

  /** The certificate is in the database: its order need not be carried on any more. */
  async certificateStored(hostname: string): Promise<void> {
    await this.savedOrders.forget(hostname);
  }

  /** RFC 9773: a renewal names the certificate it replaces, when the CA offers ARI. */
  private async replaces(replacing: string | null): Promise<string | null> {
    return replacing && (await this.fetchDirectory()).renewalInfo ? ariCertId(replacing) : null;
  }

  /** Refuses before ordering when the hostname had too many failed orders this hour (counted before the budget: such a refusal takes no slot). */
  private async checkFailedValidations(hostname: string): Promise<void> {
    const failed = await this.opts.store.run((r) => r.rateCounters.peek(`acme:failed:${hostname}`, HOUR_SECONDS, this.now()));
    if (failed.count >= FAILED_VALIDATIONS_PER_HOUR) {
      throw new IssuanceError('certificate_issuance_failed', `${failed.count} failed validations for ${hostname} this hour; the next order waits until ${failed.resetAt.toISOString()}.`);
    }
  }

  /**
   * The CA's suggested renewal window (RFC 9773) when its directory offers
   * `renewalInfo`; reused for the Retry-After. When it cannot be fetched:
   * null (the 30-day rule), and no new try for ARI_RETRY_AFTER_FAILURE_MS.
   */
  async renewalWindow(pemChain: string): Promise<RenewalWindow | null> {
    const base = (await this.fetchDirectory()).renewalInfo;
    const certId = base ? ariCertId(pemChain) : null;
    if (!base || !certId) return null;
    const cached = this.windows.get(certId);
    if (cached) return cached;
    const window: Promise<RenewalWindow | null> = this.fetchWindow(`${base.replace(/\/$/, '')}/${certId}`).then(
      (answer) => {
        this.windows.set(certId, window, { ttl: answer.reuseMs });
        return answer.window;
      },
      (err: unknown) => {
        this.opts.onRenewalInfoFailed?.(certId, err);
        this.windows.set(certId, window, { ttl: ARI_RETRY_AFTER_FAILURE_MS });
        return null;
      },
    );
    this.windows.set(certId, window);
    return window;
  }

  /** The window the CA suggests, and how long to reuse it (its Retry-After). */
  private async fetchWindow(url: string): Promise<{ window: RenewalWindow | null; reuseMs: number }> {
    const res = await acme.axios.get<{ suggestedWindow?: { start?: string; end?: string } }>(url, { timeout: ARI_REQUEST_TIMEOUT_MS });
    const start = Date.parse(res.data.suggestedWindow?.start ?? '');
    const end = Date.parse(res.data.suggestedWindow?.end ?? '');
    const window = Number.isFinite(start) && Number.isFinite(end) ? { start: new Date(start), end: new Date(end) } : null;
    const retryAfter = Number(res.headers['retry-after']);
    return { window, reuseMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : ARI_DEFAULT_TTL_MS };
  }

  /** The directory document, fetched once; a CA that does not answer with it fails with DirectoryFailure. */
  private fetchDirectory(): Promise<Directory> {
    this.directory ??= acme.axios.get<Directory>(this.opts.directoryUrl).then(
      (res) => res.data,
      (err: unknown) => {
        this.directory = null;
        if (err instanceof AcmeUnavailable) throw new DirectoryFailure(this.directoryUrl, err.reason, `The ACME directory ${this.directoryUrl} could not be read: ${err.message}`);
        throw err;
      },
    );
    return this.directory;
  }

  /** The CA's issuer domains for CAA (caa-identities.ts): the directory is read only when none is configured. */
  async caaIdentities(): Promise<readonly string[]> {
    const configured = this.opts.caaIdentities ?? null;
    if (configured) return configured;
    return caaIdentitiesOf(this.directoryUrl, null, (await this.fetchDirectory()).meta?.caaIdentities ?? null);
  }

  /**
   * The client, its account found or registered once: orders that start together wait for the same lookup.
   * A CA that refuses the account (or its External Account Binding) fails with DirectoryFailure.
   */
  private account(): Promise<acme.Client> {
    this.client ??= this.loadAccount().catch((err: unknown) => {
      this.client = null;
      throw err;
    });
    return this.client;
  }

  /** The CA refused the account, or did not answer: what the check says. */
  private accountFailure(err: unknown): DirectoryFailure {
    const { eab } = this.opts;
    const binding = eab ? ` with the External Account Binding of key id ${eab.kid} (check its HMAC key)` : '';
    const reason = err instanceof AcmeUnavailable ? err.reason : CA_FAILURES.account;
    return new DirectoryFailure(this.directoryUrl, reason, `The ACME account at ${this.directoryUrl} could not be found or registered${binding}: ${errorMessage(err)}`);
  }

  private async loadAccount(): Promise<acme.Client> {
    const { store, encryptionKey } = this.opts;
    const sealedAs = { purpose: SEAL_PURPOSES.setting, id: ACME_SETTINGS.accountKeySealed };
    const sealed = await store.run((r) => r.settings.get(ACME_SETTINGS.accountKeySealed));
    let accountKey = sealed ? decryptSecret(sealed, encryptionKey, sealedAs) : null;
    if (!accountKey) {
      const created = (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
      // The first checker to store a key wins; the others use it.
      accountKey = await store.transaction(async (r) => {
        const stored = await r.settings.get(ACME_SETTINGS.accountKeySealed);
        if (stored) return decryptSecret(stored, encryptionKey, sealedAs);
        await r.settings.set(ACME_SETTINGS.accountKeySealed, encryptSecret(created, encryptionKey, sealedAs));
        return created;
      });
    }
    const { eab } = this.opts;
    const client = new acme.Client({
      directoryUrl: this.opts.directoryUrl, accountKey, backoffAttempts: 5, backoffMin: 500, backoffMax: 5000,
      ...(eab ? { externalAccountBinding: { kid: eab.kid, hmacKey: eab.hmacKey } } : {}),
    });
    await findOrRegisterAccount(client, this.opts.email).catch((err: unknown) => {
      throw this.accountFailure(err);
    });
    return client;
  }
}

/**
 * The key is shared by every checker: another one (or an earlier start) may
 * have registered it, so the existing account is asked for first. Sending the
 * registration for a known account would be an empty update, which CAs refuse.
 */
async function findOrRegisterAccount(client: acme.Client, email: string | null): Promise<void> {
  try {
    await client.createAccount({ onlyReturnExisting: true });
  } catch {
    await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
  }
}
