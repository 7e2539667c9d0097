// CERT_ISSUER=acme with ACME_DIRECTORY_URL's directories (DECISIONS §14): an
// order goes to the first directory not set aside that the hostname's CAA
// records allow; a directory that fails at the CA's side (DirectoryFailure) is
// set aside for 10 minutes and the same check tries the next one. A failure
// the customer's DNS or CAA records cause is not tried elsewhere. A saved
// order is carried on at its own directory first, and a renewal goes first to
// the directory that issued the certificate. The order budget, the failed
// validations of a hostname and the saved orders are the database's, shared
// by every directory. With one directory, this is that directory's issuer.
import { Resolver } from 'node:dns/promises';
import type { AcmeDirectorySettings } from '@cds/config';
import type { RenewalWindow } from '@cds/core';
import { AcmeIssuer, type AcmeIssuerOptions } from './acme-issuer';
import { AcmeBudgetWait } from './acme-order-budget';
import { caaVerdictOn, closestCaaRecords, type CaaVerdict } from './caa';
import { directoryOrder } from './directory-order';
import { DirectorySetAside } from './directory-set-aside';
import { DirectoryFailure, IssuanceError, type CertificateIssuer, type IssuedCertificate } from './issuer';
import { orderDirectory, SavedOrders, type SavedOrder } from './saved-orders';

export interface FallbackAcmeIssuerOptions extends Omit<AcmeIssuerOptions, 'directoryUrl' | 'eab' | 'caaIdentities' | 'retryServerErrors'> {
  /** ACME_DIRECTORY_URL in order of preference, each with its numbered settings. */
  directories: readonly AcmeDirectorySettings[];
  /** Told when a directory is set aside, until when, and why. */
  onDirectorySetAside?: (failure: DirectoryFailure, until: Date) => void;
  /** Told when an order was tried at a directory (not when the order budget held it back), and whether it issued. */
  onDirectoryOrder?: (directoryUrl: string, issued: boolean) => void;
}

type CaaRefusal = Extract<CaaVerdict, { allowed: false }>;

export class FallbackAcmeIssuer implements CertificateIssuer {
  readonly kind = 'acme' as const;
  /** Which directories are set aside, for the metrics. */
  readonly setAside = new DirectorySetAside();
  private readonly issuers: ReadonlyMap<string, AcmeIssuer>;
  private readonly urls: readonly string[];
  private readonly savedOrders: SavedOrders;
  private readonly resolver = new Resolver({ timeout: 3000, tries: 2 });
  private readonly now: () => Date;

  constructor(private readonly opts: FallbackAcmeIssuerOptions) {
    if (opts.directories.length === 0) throw new Error('FallbackAcmeIssuer needs at least one ACME directory');
    this.now = opts.now ?? (() => new Date());
    this.urls = opts.directories.map((d) => d.url);
    // With another directory to try, a CA's 5xx or 429 is not waited out for a minute.
    const retryServerErrors = opts.directories.length === 1;
    this.issuers = new Map(opts.directories.map((d) => [d.url, new AcmeIssuer({ ...opts, directoryUrl: d.url, eab: d.eab, caaIdentities: d.caaIdentities, retryServerErrors })]));
    this.savedOrders = new SavedOrders(opts.store, opts.encryptionKey, (hostname, reason) => opts.onOrderDiscarded?.(hostname, reason));
    if (opts.dnsServers.length > 0) this.resolver.setServers([...opts.dnsServers]);
  }

  /** The configured directories, in order of preference. */
  get directoryUrls(): readonly string[] {
    return this.urls;
  }

  /** Throws AcmeBudgetWait as AcmeIssuer does; with every directory failed, the last failure (or all of them). */
  async issue(hostname: string, replacing: string | null, applicationId: string, issuedBy: string | null = null, dns01At: string | null = null): Promise<IssuedCertificate> {
    const caa = await closestCaaRecords(this.resolver, hostname);
    const saved = await this.savedOrders.find(hostname, replacing);
    const savedAt = saved ? orderDirectory(saved, this.urls) : null;
    const now = this.now();
    const failures: DirectoryFailure[] = [];
    const refusals: CaaRefusal[] = [];
    for (const url of directoryOrder(this.urls, [savedAt, issuedBy], (u) => this.setAside.isSetAside(u, now))) {
      const issuer = this.issuers.get(url) as AcmeIssuer;
      try {
        const verdict = caaVerdictOn(caa, await issuer.caaIdentities());
        if (!verdict.allowed) {
          refusals.push(verdict);
          continue;
        }
        return await this.orderAt(issuer, hostname, replacing, applicationId, url === savedAt ? saved : null, dns01At);
      } catch (err) {
        if (!(err instanceof DirectoryFailure)) throw err;
        this.opts.onDirectorySetAside?.(err, this.setAside.setAside(url, this.now()));
        failures.push(err);
      }
    }
    throw this.nothingIssued(hostname, failures, refusals);
  }

  /** One order tried at a directory, told to onDirectoryOrder unless the order budget held it back (nothing was tried). */
  private async orderAt(issuer: AcmeIssuer, hostname: string, replacing: string | null, applicationId: string, saved: SavedOrder | null, dns01At: string | null): Promise<IssuedCertificate> {
    try {
      const issued = await issuer.order(hostname, replacing, applicationId, saved, dns01At);
      this.opts.onDirectoryOrder?.(issuer.directoryUrl, true);
      return issued;
    } catch (err) {
      if (!(err instanceof AcmeBudgetWait)) this.opts.onDirectoryOrder?.(issuer.directoryUrl, false);
      throw err;
    }
  }

  /** What the check says when no directory issued. */
  private nothingIssued(hostname: string, failures: DirectoryFailure[], refusals: CaaRefusal[]): IssuanceError {
    const [only] = failures;
    if (failures.length === 1 && only) return only;
    if (failures.length > 1) {
      return new IssuanceError('certificate_issuance_failed', `No ACME directory issued a certificate for ${hostname}: ${failures.map((f) => f.message).join('; ')}`);
    }
    const [refusal] = refusals;
    if (!refusal) return new IssuanceError('certificate_issuance_failed', `No ACME directory could be asked for ${hostname}.`);
    const who = this.urls.length === 1 ? 'this CA' : 'any of the configured CAs';
    return new IssuanceError('caa_forbids_issuance', `The CAA records of ${refusal.name} (${refusal.found.join(', ')}) do not allow ${who} to issue.`);
  }

  /** The window of the directory that issued the certificate (the first directory for one issued before that was kept). */
  renewalWindow(pemChain: string, issuedBy: string | null = null): Promise<RenewalWindow | null> {
    const issuer = (issuedBy && this.issuers.get(issuedBy)) || (this.issuers.get(this.urls[0] as string) as AcmeIssuer);
    return issuer.renewalWindow(pemChain);
  }

  async certificateStored(hostname: string): Promise<void> {
    await this.savedOrders.forget(hostname);
  }
}
