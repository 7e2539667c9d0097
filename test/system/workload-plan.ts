// The workload of one system-test run, drawn from the same seed as the faults:
// which application owns each domain, when and through which API replica it
// is created, whether the request carries an Idempotency-Key (and is sent
// twice), how its DNS is published, and whether it is deleted near the end.
// Pure: the runner carries it out.
import { seededRandom } from './seeded-random';

/** How the customer published the domain's records; anything but `correct` keeps it `pending_dns`. */
export const DNS_PUBLICATIONS = ['correct', 'no-txt', 'wrong-txt', 'no-cname', 'wrong-cname'] as const;
export type DnsPublication = (typeof DNS_PUBLICATIONS)[number];
export type WrongPublication = Exclude<DnsPublication, 'correct'>;
const WRONG: readonly WrongPublication[] = ['no-txt', 'wrong-txt', 'no-cname', 'wrong-cname'];

/** What the checks of a wrongly published domain must say. */
export const EXPECTED_CHECKS: Record<WrongPublication, { ownership: string | null; routing: string | null }> = {
  'no-txt': { ownership: 'txt_record_not_found', routing: null },
  'wrong-txt': { ownership: 'txt_record_mismatch', routing: null },
  'no-cname': { ownership: null, routing: 'cname_not_found' },
  'wrong-cname': { ownership: null, routing: 'cname_target_mismatch' },
};

/** `none`: no Idempotency-Key; `key`: one; `key-twice`: one, and the same request is sent again to the other replica. */
export type IdempotencyUse = 'none' | 'key' | 'key-twice';

export interface PlannedDomain {
  index: number;
  /** Index of the owning application. */
  app: number;
  hostname: string;
  reference: string;
  createAtMs: number;
  /** The API replica the create goes to first. */
  api: number;
  idempotency: IdempotencyUse;
  dns: DnsPublication;
  /** When its DELETE is sent, or null when it stays. */
  deleteAtMs: number | null;
  deleteApi: number;
}

export interface WorkloadOptions {
  applications: number;
  domains: number;
  wronglyPublished: number;
  deleted: number;
  apiReplicas: number;
  createOverMs: number;
  deleteFromMs: number;
  deleteOverMs: number;
  /** Share of creates with an Idempotency-Key, and the share of those sent twice. */
  withKey: number;
  keySentTwice: number;
}

export const DEFAULT_WORKLOAD: WorkloadOptions = {
  applications: 3,
  domains: 300,
  wronglyPublished: 30,
  deleted: 100,
  apiReplicas: 2,
  createOverMs: 120_000,
  deleteFromMs: 160_000,
  deleteOverMs: 15_000,
  withKey: 0.5,
  keySentTwice: 0.4,
};

export function workloadPlan(seed: number, opts: WorkloadOptions = DEFAULT_WORKLOAD): PlannedDomain[] {
  if (opts.wronglyPublished > opts.domains || opts.deleted > opts.domains) throw new Error('more wrong or deleted domains than domains');
  // Another stream than the fault schedule's, so changing one does not reshuffle the other.
  const random = seededRandom((seed ^ 0x9e3779b9) >>> 0);
  const indexes = Array.from({ length: opts.domains }, (_, i) => i);
  const wrong = new Map(random.shuffle(indexes).slice(0, opts.wronglyPublished).map((index, n) => [index, WRONG[n % WRONG.length] as WrongPublication]));
  const deleted = random.shuffle(indexes).slice(0, opts.deleted);
  const deleteAt = new Map(deleted.map((index, n) => [index, opts.deleteFromMs + Math.round((n * opts.deleteOverMs) / Math.max(1, opts.deleted))]));
  const tag = seed.toString(36);
  return indexes.map((index) => {
    const app = index % opts.applications;
    const keyed = random.next() < opts.withKey;
    const twice = keyed && random.next() < opts.keySentTwice;
    const hostname = `shop${index}-${tag}.tenant${app}.example.com`;
    return {
      index,
      app,
      hostname,
      reference: `workspace-${index}`,
      createAtMs: Math.round((index * opts.createOverMs) / opts.domains),
      api: random.int(0, opts.apiReplicas - 1),
      idempotency: twice ? 'key-twice' : keyed ? 'key' : 'none',
      dns: wrong.get(index) ?? 'correct',
      deleteAtMs: deleteAt.get(index) ?? null,
      deleteApi: random.int(0, opts.apiReplicas - 1),
    };
  });
}
