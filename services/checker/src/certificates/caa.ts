// CAA (RFC 8659) before ordering: the CAA RRset of the closest name at or
// above the hostname decides; an `issue` set that names none of the CA's
// identities forbids issuance. Without known identities (the directory lists
// no `caaIdentities`), only a set that forbids every CA (`issue ";"`) counts.
import type { Resolver } from 'node:dns/promises';

const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

export type CaaVerdict = { allowed: true } | { allowed: false; name: string; values: string[] };

/** The issuer domain of an `issue` value (`letsencrypt.org; validationmethods=http-01` -> `letsencrypt.org`). */
const issuerDomain = (value: string) => (value.split(';')[0] ?? '').trim().toLowerCase();

export async function checkCaa(resolver: Resolver, hostname: string, identities: readonly string[]): Promise<CaaVerdict> {
  const labels = hostname.split('.');
  // Climb to the parent until a CAA RRset exists; the TLD itself is not asked.
  for (let i = 0; i < labels.length - 1; i++) {
    const name = labels.slice(i).join('.');
    let records: Awaited<ReturnType<Resolver['resolveCaa']>>;
    try {
      records = await resolver.resolveCaa(name);
    } catch (err) {
      if (NO_RECORD.has((err as NodeJS.ErrnoException).code ?? '')) continue;
      throw err;
    }
    if (records.length === 0) continue;
    const issue = records.filter((r) => r.issue !== undefined).map((r) => r.issue as string);
    if (issue.length === 0) return { allowed: true };
    const known = identities.map((id) => id.toLowerCase());
    const permitted = known.length > 0 ? issue.some((value) => known.includes(issuerDomain(value))) : issue.some((value) => issuerDomain(value) !== '');
    return permitted ? { allowed: true } : { allowed: false, name, values: issue };
  }
  return { allowed: true };
}
