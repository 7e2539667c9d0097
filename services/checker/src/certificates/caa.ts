// CAA (RFC 8659) before ordering: the CAA RRset of the closest name at or
// above the hostname decides. A critical record whose tag is not understood
// here forbids issuance; `issuewild` is ignored (no hostname is a wildcard);
// an `issue` set that names none of the CA's identities forbids issuance, and
// a set without `issue` allows any CA. Without known identities (the
// directory lists no `caaIdentities`), only a set that forbids every CA
// (`issue ";"`) counts.
import type { Resolver } from 'node:dns/promises';

const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

/** A CAA record as node:dns gives it: the flags byte as `critical`, the value under its tag. */
export type CaaRecord = Awaited<ReturnType<Resolver['resolveCaa']>>[number];

export type CaaVerdict = { allowed: true } | { allowed: false; name: string; found: string[] };

/** Property tags understood here: RFC 8659's and the CA/Browser Forum's contact tags. */
const KNOWN_TAGS = new Set(['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone']);
/** The Issuer Critical Flag, the most significant bit of the flags byte. */
const ISSUER_CRITICAL = 0x80;

/** The issuer domain of an `issue` value (`letsencrypt.org; validationmethods=http-01` -> `letsencrypt.org`). */
const issuerDomain = (value: string) => (value.split(';')[0] ?? '').trim().toLowerCase();

/** node:dns's fields beside the property: the flags byte, and `type: 'CAA'` (which Node.js 24 gives and 20 did not). */
const NOT_A_TAG = new Set(['critical', 'type']);

/** Tags match case-insensitively (RFC 8659 §4.1). */
function property(record: CaaRecord): { tag: string; value: string; critical: boolean } | null {
  const entry = Object.entries(record).find(([key]) => !NOT_A_TAG.has(key));
  if (!entry) return null;
  return { tag: entry[0].toLowerCase(), value: String(entry[1]), critical: (record.critical & ISSUER_CRITICAL) !== 0 };
}

/** The decision for a (non-wildcard) hostname whose closest CAA RRset, found at `name`, is `records`. */
export function caaVerdict(name: string, records: readonly CaaRecord[], identities: readonly string[]): CaaVerdict {
  const properties = records.map(property).filter((p) => p !== null);
  const unknownCritical = properties.filter((p) => p.critical && !KNOWN_TAGS.has(p.tag));
  if (unknownCritical.length > 0) return { allowed: false, name, found: unknownCritical.map((p) => `critical ${p.tag} "${p.value}"`) };
  const issue = properties.filter((p) => p.tag === 'issue').map((p) => p.value);
  if (issue.length === 0) return { allowed: true };
  const known = identities.map((id) => id.toLowerCase());
  const permitted = known.length > 0 ? issue.some((value) => known.includes(issuerDomain(value))) : issue.some((value) => issuerDomain(value) !== '');
  return permitted ? { allowed: true } : { allowed: false, name, found: issue.map((value) => `issue "${value}"`) };
}

/** The CAA RRset that decides for the hostname and the name it was found at; null when there is none (any CA may issue). */
export type ClosestCaa = { name: string; records: CaaRecord[] } | null;

export async function closestCaaRecords(resolver: Pick<Resolver, 'resolveCaa'>, hostname: string): Promise<ClosestCaa> {
  const labels = hostname.split('.');
  // Climb to the parent until a CAA RRset exists; the TLD itself is not asked.
  for (let i = 0; i < labels.length - 1; i++) {
    const name = labels.slice(i).join('.');
    let records: CaaRecord[];
    try {
      records = await resolver.resolveCaa(name);
    } catch (err) {
      if (NO_RECORD.has((err as NodeJS.ErrnoException).code ?? '')) continue;
      throw err;
    }
    if (records.length === 0) continue;
    return { name, records };
  }
  return null;
}

/** The decision for `identities` on what closestCaaRecords found. */
export const caaVerdictOn = (closest: ClosestCaa, identities: readonly string[]): CaaVerdict =>
  closest ? caaVerdict(closest.name, closest.records, identities) : { allowed: true };

export async function checkCaa(resolver: Pick<Resolver, 'resolveCaa'>, hostname: string, identities: readonly string[]): Promise<CaaVerdict> {
  return caaVerdictOn(await closestCaaRecords(resolver, hostname), identities);
}
