// The invariants of the system test, evaluated on what the run recorded. Pure:
// each takes plain observations and says whether it holds, with a one-line
// summary for the table and the problems that break it.
import { EXPECTED_CHECKS, type DnsPublication } from './workload-plan';

export interface InvariantResult {
  name: string;
  ok: boolean;
  /** One line for the table: the figures behind the verdict. */
  summary: string;
  /** What breaks it (empty when it holds); the first ones are printed. */
  problems: string[];
}

const result = (name: string, summary: string, problems: string[]): InvariantResult => ({ name, ok: problems.length === 0, summary, problems });
const pct = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(2)} %`);

// ---------------------------------------------------------------- domains

export interface ObservedCheck {
  type: string;
  status: string;
  error_code: string | null;
}

export interface ObservedDomain {
  hostname: string;
  dns: DnsPublication;
  deleted: boolean;
  /** The status the API reports (with include_deleted), or null when it does not know the domain. */
  status: string | null;
  checks: ObservedCheck[];
  /** Per edge: null when an HTTPS request over a fresh connection got the origin's 200 with a certificate chaining to Pebble's root; else what went wrong. */
  edges: Array<string | null>;
}

export function evaluateDomains(domains: readonly ObservedDomain[]): InvariantResult {
  const problems: string[] = [];
  let ready = 0;
  let pending = 0;
  let deleted = 0;
  for (const d of domains) {
    if (d.deleted) {
      if (d.status !== 'deleting') problems.push(`${d.hostname}: deleted, but its status is ${d.status}`);
      else deleted += 1;
      continue;
    }
    if (d.dns === 'correct') {
      const edgeProblems = d.edges.map((p, i) => (p === null ? null : `edge ${i + 1}: ${p}`)).filter((p): p is string => p !== null);
      if (d.status !== 'ready') problems.push(`${d.hostname}: published correctly, status ${d.status} (${describeChecks(d.checks)})`);
      else if (edgeProblems.length > 0) problems.push(`${d.hostname}: ready, but ${edgeProblems.join('; ')}`);
      else ready += 1;
      continue;
    }
    const expected = EXPECTED_CHECKS[d.dns];
    const wrong: string[] = [];
    if (d.status !== 'pending_dns') wrong.push(`status ${d.status}`);
    for (const type of ['ownership', 'routing'] as const) {
      const check = d.checks.find((c) => c.type === type);
      const want = expected[type];
      if (want === null && check?.status !== 'passing') wrong.push(`${type} ${check?.status ?? 'missing'} ${check?.error_code ?? ''}, expected passing`.trim());
      if (want !== null && (check?.status !== 'failing' || check.error_code !== want)) wrong.push(`${type} ${check?.status ?? 'missing'} ${check?.error_code ?? ''}, expected failing ${want}`);
    }
    if (wrong.length > 0) problems.push(`${d.hostname} (${d.dns}): ${wrong.join('; ')}`);
    else pending += 1;
  }
  const correct = domains.filter((d) => !d.deleted && d.dns === 'correct').length;
  const wrongly = domains.filter((d) => !d.deleted && d.dns !== 'correct').length;
  return result(
    'domains: published ones ready on every edge, the others pending_dns with the right codes',
    `${ready}/${correct} ready and served by all edges with Pebble's chain; ${pending}/${wrongly} pending_dns with the expected codes; ${deleted} deleted`,
    problems,
  );
}

function describeChecks(checks: readonly ObservedCheck[]): string {
  return checks.map((c) => `${c.type} ${c.status}${c.error_code ? ` ${c.error_code}` : ''}`).join(', ');
}

// ---------------------------------------------------------------- webhooks

export interface EmittedEvent {
  id: string;
  application: string;
}

export interface Subscription {
  application: string;
  /** The receiver (one per application) its URL points at. */
  receiver: string;
}

export interface ReceivedDelivery {
  receiver: string;
  eventId: string;
  /** The signature verified against the subscription's secret (stripe's verifier) within the tolerance. */
  verified: boolean;
  /** The status the receiver answered. */
  status: number;
  /** The event's type and its domain's hostname, read from a verified body. */
  type?: string;
  hostname?: string;
}

export interface WebhookFigures {
  result: InvariantResult;
  duplicates: Record<string, number>;
}

export function evaluateWebhooks(events: readonly EmittedEvent[], subscriptions: readonly Subscription[], received: readonly ReceivedDelivery[]): WebhookFigures {
  const problems: string[] = [];
  const owner = new Map(events.map((e) => [e.id, e.application]));
  const duplicates: Record<string, number> = {};
  const parts: string[] = [];
  const unsigned = received.filter((r) => !r.verified);
  for (const r of unsigned.slice(0, 20)) problems.push(`${r.receiver}: event ${r.eventId} arrived with a signature that does not verify`);
  if (unsigned.length > 20) problems.push(`… ${unsigned.length - 20} more deliveries whose signature does not verify`);
  for (const sub of subscriptions) {
    const expected = new Set(events.filter((e) => e.application === sub.application).map((e) => e.id));
    const accepted = received.filter((r) => r.receiver === sub.receiver && r.verified && r.status >= 200 && r.status < 300);
    const got = new Set(accepted.map((r) => r.eventId));
    const missing = [...expected].filter((id) => !got.has(id));
    const foreign = [...got].filter((id) => owner.get(id) !== sub.application);
    if (missing.length > 0) problems.push(`${sub.receiver}: ${missing.length} of ${expected.size} events never accepted (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''})`);
    for (const id of foreign.slice(0, 10)) problems.push(`${sub.receiver}: received event ${id}, which ${owner.has(id) ? `belongs to ${owner.get(id)}` : 'no application emitted'}`);
    duplicates[sub.receiver] = accepted.length - got.size;
    parts.push(`${sub.receiver} ${got.size - foreign.length}/${expected.size} (+${accepted.length - got.size} dup)`);
  }
  const total = Object.values(duplicates).reduce((a, b) => a + b, 0);
  return {
    result: result(
      'webhooks: every event of its application at least once, no other, every signature valid',
      `${parts.join('; ')}; ${received.length} requests, ${unsigned.length} unverified, ${total} duplicates`,
      problems,
    ),
    duplicates,
  };
}

// ---------------------------------------------------------------- recovery

export interface RecoveryState {
  unpublishedOutbox: number;
  setAsideOutbox: number;
  /** Every dead-letter queue of the vhost with its message count. */
  deadLetterQueues: Array<{ queue: string; messages: number }>;
  pendingDeliveries: number;
}

export function evaluateRecovery(state: RecoveryState): InvariantResult {
  const problems: string[] = [];
  if (state.unpublishedOutbox > 0) problems.push(`${state.unpublishedOutbox} outbox rows still unpublished`);
  if (state.setAsideOutbox > 0) problems.push(`${state.setAsideOutbox} outbox rows set aside (refused by the message catalog)`);
  for (const q of state.deadLetterQueues) if (q.messages > 0) problems.push(`dead-letter queue ${q.queue} holds ${q.messages} messages`);
  if (state.deadLetterQueues.length === 0) problems.push('no dead-letter queue found: the services never declared their queues');
  if (state.pendingDeliveries > 0) problems.push(`${state.pendingDeliveries} webhook deliveries still pending`);
  const dead = state.deadLetterQueues.reduce((a, q) => a + q.messages, 0);
  return result(
    'recovery: no outbox row unpublished, dead-letter queues empty',
    `${state.unpublishedOutbox} unpublished, ${state.setAsideOutbox} set aside, ${dead} dead letters in ${state.deadLetterQueues.length} queues, ${state.pendingDeliveries} deliveries pending`,
    problems,
  );
}

// ---------------------------------------------------------------- ACME orders

export type OrderOutcome = 'valid' | 'invalid' | 'unfinished';

export interface AcmeOrder {
  hostname: string;
  outcome: OrderOutcome;
  /** The first and last exchange with the CA that concerned the order, in the order they reached it. */
  span?: { first: number; last: number };
}

/**
 * One certificate order per hostname, plus one more for each order that failed
 * (invalid, or never finished: its checker was killed); and never two orders
 * of one hostname under way at once.
 */
export function evaluateOrders(orders: readonly AcmeOrder[], hostnames: readonly string[]): InvariantResult {
  const problems: string[] = [];
  const byHost = new Map<string, AcmeOrder[]>();
  for (const o of orders) byHost.set(o.hostname, [...(byHost.get(o.hostname) ?? []), o]);
  let reordered = 0;
  for (const [hostname, list] of byHost) {
    const valid = list.filter((o) => o.outcome === 'valid').length;
    const failed = list.length - valid;
    if (valid > 1) problems.push(`${hostname}: ${valid} certificates issued (${list.length} orders)`);
    else if (list.length > 1 + failed) problems.push(`${hostname}: ${list.length} orders with only ${failed} failed`);
    if (list.length > 1) reordered += 1;
    const spans = list.map((o) => o.span).filter((x): x is { first: number; last: number } => x !== undefined).sort((a, b) => a.first - b.first);
    for (let i = 1; i < spans.length; i++) {
      const [before, after] = [spans[i - 1], spans[i]] as [{ last: number }, { first: number }];
      if (after.first < before.last) problems.push(`${hostname}: a second order was placed while the first was still under way`);
    }
  }
  const unknown = [...byHost.keys()].filter((h) => !hostnames.includes(h));
  for (const h of unknown) problems.push(`an order for ${h}, which the run never registered`);
  const count = (outcome: OrderOutcome) => orders.filter((o) => o.outcome === outcome).length;
  return result(
    'ACME: no hostname ordered twice unless an order failed',
    `${orders.length} orders for ${byHost.size} hostnames: ${count('valid')} valid, ${count('invalid')} invalid, ${count('unfinished')} unfinished; ${reordered} hostnames ordered again`,
    problems,
  );
}

// ---------------------------------------------------------------- availability

export interface RequestSample {
  /** When it was sent, ms after the workload started. */
  atMs: number;
  ok: boolean;
  /** What went wrong, for the failures. */
  problem?: string;
}

export interface TimeWindow {
  fromMs: number;
  toMs: number;
}

export interface AvailabilityFigures {
  result: InvariantResult;
  outside: { sent: number; ok: number };
  inPostgresWindow: { sent: number; ok: number };
}

const inside = (w: TimeWindow, atMs: number) => atMs >= w.fromMs && atMs <= w.toMs;

export function evaluateAvailability(samples: readonly RequestSample[], faults: TimeWindow, postgres: TimeWindow, threshold = 0.995): AvailabilityFigures {
  const during = samples.filter((s) => inside(faults, s.atMs));
  const outside = during.filter((s) => !inside(postgres, s.atMs));
  const inPg = during.filter((s) => inside(postgres, s.atMs));
  const okOutside = outside.filter((s) => s.ok).length;
  const okPg = inPg.filter((s) => s.ok).length;
  const problems: string[] = [];
  if (outside.length === 0) problems.push('no request was sent to a ready domain while faults were landing');
  else if (okOutside / outside.length < threshold) {
    problems.push(`${outside.length - okOutside} of ${outside.length} requests failed (${pct(outside.length - okOutside, outside.length)}), more than ${((1 - threshold) * 100).toFixed(1)} %`);
    const reasons = new Map<string, number>();
    for (const s of outside) if (!s.ok) reasons.set(s.problem ?? 'unknown', (reasons.get(s.problem ?? 'unknown') ?? 0) + 1);
    for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 10)) problems.push(`${n} × ${reason}`);
  }
  return {
    result: result(
      `availability: ≥ ${(threshold * 100).toFixed(1)} % of requests to ready domains succeed while faults land (PostgreSQL restart apart)`,
      `${okOutside}/${outside.length} ok (${pct(okOutside, outside.length)}); in the PostgreSQL window ${okPg}/${inPg.length} (${pct(okPg, inPg.length)})`,
      problems,
    ),
    outside: { sent: outside.length, ok: okOutside },
    inPostgresWindow: { sent: inPg.length, ok: okPg },
  };
}

// ---------------------------------------------------------------- API answers

export interface ApiAnswer {
  atMs: number;
  /** The HTTP status; 0 when no answer came (connection refused or cut). */
  status: number;
  what: string;
}

/** No 5xx but 503, and 503 only while PostgreSQL was down (the window includes the pool's reconnection). */
export function evaluateApiAnswers(answers: readonly ApiAnswer[], postgres: TimeWindow): InvariantResult {
  const problems: string[] = [];
  const fivexx = answers.filter((a) => a.status >= 500);
  const other = fivexx.filter((a) => a.status !== 503);
  const unavailableOutside = fivexx.filter((a) => a.status === 503 && !inside(postgres, a.atMs));
  for (const a of other.slice(0, 10)) problems.push(`${a.status} at ${(a.atMs / 1000).toFixed(1)} s: ${a.what}`);
  if (other.length > 10) problems.push(`… ${other.length - 10} more`);
  for (const a of unavailableOutside.slice(0, 10)) problems.push(`503 outside the PostgreSQL window at ${(a.atMs / 1000).toFixed(1)} s: ${a.what}`);
  const inPg = answers.filter((a) => inside(postgres, a.atMs));
  const unanswered = answers.filter((a) => a.status === 0).length;
  return result(
    'API: no 5xx other than 503, and 503 only while PostgreSQL was down',
    `${answers.length} requests, ${fivexx.length} 5xx (${other.length} not 503), ${inPg.filter((a) => a.status === 503).length} × 503 of ${inPg.length} in the PostgreSQL window, ${unanswered} without an answer (killed replica)`,
    problems,
  );
}

// ---------------------------------------------------------------- processes

export interface ProcessExit {
  name: string;
  pid: number;
  /** The test's own kill -9. */
  killedByTest: boolean;
  /** It had answered /readyz 200 before it exited (a start that fails while a dependency is down is not a crash). */
  wasReady: boolean;
  code: number | null;
  signal: string | null;
  atMs: number;
}

export function evaluateProcesses(exits: readonly ProcessExit[]): InvariantResult {
  const crashes = exits.filter((e) => !e.killedByTest && e.wasReady);
  const failedStarts = exits.filter((e) => !e.killedByTest && !e.wasReady);
  return result(
    'processes: no service process died but by the test\'s kill -9',
    `${exits.filter((e) => e.killedByTest).length} killed by the test, ${crashes.length} crashed, ${failedStarts.length} starts refused while a dependency was down`,
    crashes.map((e) => `${e.name} (pid ${e.pid}) exited at ${(e.atMs / 1000).toFixed(1)} s with ${e.signal ?? `code ${e.code}`}`),
  );
}

// ---------------------------------------------------------------- live domains (DECISIONS §11)

/** An event as the outbox holds it: its type, its domain's hostname, and its `created_at` in ms after the start. */
export interface DomainEventRecord {
  id: string;
  type: string;
  hostname: string;
  atMs: number;
}

/** A SERVFAIL burst as it was carried out: which names, from when to when (ms after the start). */
export interface ServfailHit {
  hostname: string;
  names: string;
  fromMs: number;
  toMs: number;
  /** The scheduled domain it stood in for, that one not being ready in time. */
  insteadOf?: string;
}

/** A burst the run did not carry out, and why (no target domain was ready in time). */
export interface SkippedFault {
  hostname: string;
  reason: string;
}

/** The origin that answered 503 to its health probes: when, how many probes, and the domains of its application ready then. */
export interface OriginOutage {
  application: string;
  fromMs: number;
  toMs: number;
  probesAnswered503: number;
  readyDomains: readonly string[];
}

/** A domain broken on purpose: when its TXT record was removed and published again (null: not done; `skipped` says why). */
export interface BreakRecord {
  hostname: string;
  removedAtMs: number | null;
  republishedAtMs: number | null;
  skipped?: string;
  /** The scheduled domain it stood in for, that one not being ready in time. */
  insteadOf?: string;
}

/** What the run's sampler of the domain_checks rows saw of one domain. */
export interface SampledDomain {
  /** The longest streak of failed runs of one of its checks while the domain was ready (0: none seen). */
  maxFailedRuns: number;
  /** The checks seen with a streak. */
  failedChecks: readonly string[];
  /** When the sampler first saw the domain attention_required (ms after the start); null: never. */
  attentionAtMs: number | null;
}

export interface LiveDomainsInput {
  domains: readonly ObservedDomain[];
  events: readonly DomainEventRecord[];
  servfails: readonly ServfailHit[];
  servfailsSkipped: readonly SkippedFault[];
  /** Null when the run's schedule had no failing origin. */
  origin: OriginOutage | null;
  breaks: readonly BreakRecord[];
  sampled: Readonly<Record<string, SampledDomain>>;
  /** Whether the sampler could read the failed-run streaks (false: the columns are missing, only statuses were sampled). */
  streaksSampled: boolean;
  graceMs: number;
}

/**
 * A run may stamp an event with its start, a moment before the lookup that
 * saw the removed record: an event this close before the removal is the
 * removal's.
 */
export const EVENT_CLOCK_SLACK_MS = 2_000;
const ATTENTION = 'domain.attention_required';
const RECOVERED = 'domain.recovered';
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const span = (values: readonly number[]) => {
  if (values.length === 0) return 'n/a';
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  return lo === hi ? secs(lo) : `${(lo / 1000).toFixed(1)}–${secs(hi)}`;
};

/** The removal time of each domain broken on purpose that was really broken. */
function removals(breaks: readonly BreakRecord[]): Map<string, number> {
  return new Map(breaks.filter((b) => b.removedAtMs !== null).map((b) => [b.hostname, b.removedAtMs as number]));
}

/** Whether an attention_required event (or status seen) at `atMs` is the doing of a break of `hostname`. */
function fromBreak(removed: ReadonlyMap<string, number>, hostname: string, atMs: number): boolean {
  const at = removed.get(hostname);
  return at !== undefined && atMs >= at - EVENT_CLOCK_SLACK_MS;
}

/**
 * DECISIONS §11: a ready domain leaves ready only on a confirmed failure. No
 * domain gets a domain.attention_required event (nor is seen
 * attention_required) but the ones broken on purpose, after their break;
 * every domain hit by a SERVFAIL burst or the failing origin is ready at the
 * end. The faults must really have been carried out, and (when the streaks
 * can be read) the checker must have seen some of them fail.
 */
export function evaluateLiveDomains(input: LiveDomainsInput): InvariantResult {
  const problems: string[] = [];
  const removed = removals(input.breaks);
  const servfailOf = new Map(input.servfails.map((h) => [h.hostname, h]));
  const underOrigin = new Set(input.origin?.readyDomains ?? []);
  const context = (hostname: string): string => {
    const parts: string[] = [];
    const h = servfailOf.get(hostname);
    if (h) parts.push(`SERVFAIL (${h.names}) ${secs(h.fromMs)}–${secs(h.toMs)}`);
    if (input.origin && underOrigin.has(hostname)) parts.push(`origin of ${input.origin.application} 503 ${secs(input.origin.fromMs)}–${secs(input.origin.toMs)}`);
    return parts.length > 0 ? parts.join(', ') : 'no fault of the test on it but the deployment\'s';
  };
  const leftReady = new Set<string>();
  const stray = input.events.filter((e) => e.type === ATTENTION && !fromBreak(removed, e.hostname, e.atMs));
  for (const e of stray.slice(0, 20)) problems.push(`${e.hostname}: ${ATTENTION} at ${secs(e.atMs)} (${context(e.hostname)})`);
  if (stray.length > 20) problems.push(`… ${stray.length - 20} more ${ATTENTION} events`);
  for (const e of stray) leftReady.add(e.hostname);
  for (const [hostname, seen] of Object.entries(input.sampled)) {
    if (seen.attentionAtMs === null || fromBreak(removed, hostname, seen.attentionAtMs) || leftReady.has(hostname)) continue;
    leftReady.add(hostname);
    problems.push(`${hostname}: seen attention_required at ${secs(seen.attentionAtMs)} without an event (${context(hostname)})`);
  }
  const status = new Map(input.domains.map((d) => [d.hostname, d]));
  const hitHosts = new Set([...servfailOf.keys(), ...underOrigin]);
  for (const hostname of hitHosts) {
    const d = status.get(hostname);
    if (!d || d.deleted || d.status === 'ready') continue;
    leftReady.add(hostname);
    problems.push(`${hostname}: ${context(hostname)}; status ${d.status} at the end`);
  }
  for (const h of input.servfails) {
    if (h.toMs - h.fromMs >= input.graceMs) problems.push(`${h.hostname}: the test's SERVFAIL lasted ${secs(h.toMs - h.fromMs)}, not shorter than the grace ${secs(input.graceMs)}`);
  }
  if (input.origin && input.origin.toMs - input.origin.fromMs >= input.graceMs) problems.push(`origin of ${input.origin.application}: the test's 503 lasted ${secs(input.origin.toMs - input.origin.fromMs)}, not shorter than the grace ${secs(input.graceMs)}`);
  if (input.servfails.length === 0 && input.servfailsSkipped.length > 0) problems.push(`no SERVFAIL burst was carried out (${input.servfailsSkipped.length} skipped: ${input.servfailsSkipped[0]?.reason})`);

  const seenFailing = (hosts: Iterable<string>) => [...hosts].filter((h) => (input.sampled[h]?.maxFailedRuns ?? 0) > 0);
  const servfailSeen = seenFailing(servfailOf.keys());
  const originSeen = seenFailing(underOrigin);
  const longest = (hosts: readonly string[]) => Math.max(0, ...hosts.map((h) => input.sampled[h]?.maxFailedRuns ?? 0));
  if (input.streaksSampled && input.servfails.length > 0 && servfailSeen.length === 0) {
    problems.push(`the checker recorded no failed run of any of the ${input.servfails.length} SERVFAIL'd domains: the fault never reached it`);
  }
  const seen = (hosts: readonly string[], of: number) => (input.streaksSampled ? `${hosts.length}/${of} seen failing by the checker, up to ${longest(hosts)} failed runs in a row` : 'streaks not readable');
  const durations = input.servfails.map((h) => h.toMs - h.fromMs);
  const byNames = (names: string) => input.servfails.filter((h) => h.names === names).length;
  const standIns = input.servfails.filter((h) => h.insteadOf !== undefined).length;
  const servfailPart = `${input.servfails.length} hostnames SERVFAIL'd ${span(durations)} (TXT ${byNames('txt')}, CNAME ${byNames('cname')}, both ${byNames('both')}${standIns > 0 ? `; ${standIns} standing in for one not ready yet` : ''}; ${seen(servfailSeen, input.servfails.length)}${input.servfailsSkipped.length > 0 ? `; ${input.servfailsSkipped.length} skipped, no domain ready` : ''}), ${[...servfailOf.keys()].filter((h) => leftReady.has(h)).length} left ready`;
  const originPart = input.origin
    ? `origin of ${input.origin.application} 503 for ${secs(input.origin.toMs - input.origin.fromMs)} (${input.origin.probesAnswered503} probes; ${seen(originSeen, underOrigin.size)}), ${[...underOrigin].filter((h) => leftReady.has(h)).length}/${underOrigin.size} left ready`
    : 'no failing origin';
  return result(
    'live domains: no ready domain leaves ready on a transient fault (SERVFAIL, origin 503, the deployment\'s own)',
    `${servfailPart}; ${originPart}; ${stray.length} ${ATTENTION} events but for the domains broken on purpose`,
    problems,
  );
}

export interface BreaksInput {
  breaks: readonly BreakRecord[];
  events: readonly DomainEventRecord[];
  /** The ids of the events some receiver accepted (2xx, signature verified). */
  accepted: ReadonlySet<string>;
  domains: readonly ObservedDomain[];
  sampled: Readonly<Record<string, SampledDomain>>;
  streaksSampled: boolean;
}

/**
 * A conclusive failure still takes a domain out of ready once confirmed, and
 * it comes back: each domain whose TXT record was removed got a
 * domain.attention_required event after the removal, then a domain.recovered
 * after the record was published again, both accepted by its receiver, and is
 * ready at the end.
 */
export function evaluateBreaks(input: BreaksInput): InvariantResult {
  const problems: string[] = [];
  const done = input.breaks.filter((b) => b.removedAtMs !== null);
  const skipped = input.breaks.filter((b) => b.removedAtMs === null);
  if (input.breaks.length > 0 && done.length === 0) problems.push(`no domain was broken: ${skipped.map((b) => `${b.hostname} ${b.skipped ?? 'skipped'}`).join('; ')}`);
  const toAttention: number[] = [];
  const toRecovered: number[] = [];
  let attention = 0;
  let recovered = 0;
  let delivered = 0;
  const status = new Map(input.domains.map((d) => [d.hostname, d.status]));
  for (const b of done) {
    const removedAt = b.removedAtMs as number;
    const mine = input.events.filter((e) => e.hostname === b.hostname && e.atMs >= removedAt - EVENT_CLOCK_SLACK_MS).sort((x, y) => x.atMs - y.atMs);
    const left = mine.find((e) => e.type === ATTENTION);
    if (!left) {
      problems.push(`${b.hostname}: TXT record removed at ${secs(removedAt)}, no ${ATTENTION} followed`);
      continue;
    }
    attention += 1;
    toAttention.push(Math.max(0, left.atMs - removedAt));
    const back = mine.find((e) => e.type === RECOVERED && e.atMs >= left.atMs);
    if (!back) problems.push(`${b.hostname}: ${ATTENTION} at ${secs(left.atMs)}, no ${RECOVERED} after its TXT record was published again${b.republishedAtMs === null ? ' (it never was)' : ` at ${secs(b.republishedAtMs)}`}`);
    else {
      recovered += 1;
      if (b.republishedAtMs !== null) toRecovered.push(Math.max(0, back.atMs - b.republishedAtMs));
    }
    const pair = [left, ...(back ? [back] : [])];
    const missing = pair.filter((e) => !input.accepted.has(e.id));
    if (missing.length > 0) problems.push(`${b.hostname}: ${missing.map((e) => `${e.type} ${e.id}`).join(', ')} never accepted by its receiver`);
    else if (back) delivered += 1;
    const end = status.get(b.hostname);
    if (end !== 'ready') problems.push(`${b.hostname}: status ${end ?? 'unknown'} at the end, after its TXT record was published again`);
  }
  const streaks = input.streaksSampled
    ? `; up to ${Math.max(0, ...done.map((b) => input.sampled[b.hostname]?.maxFailedRuns ?? 0))} failed runs seen while still ready`
    : '';
  return result(
    'conclusive failures: a removed TXT record takes the domain out of ready once confirmed, and it recovers',
    `${done.length} broken conclusively (TXT removed)${skipped.length > 0 ? `, ${skipped.length} skipped (no domain ready)` : ''}: ${attention}/${done.length} attention_required (${span(toAttention)} after the removal${streaks}), ${recovered}/${done.length} recovered (${span(toRecovered)} after the record was back), ${delivered}/${done.length} with both events accepted by the receiver`,
    problems,
  );
}

// ---------------------------------------------------------------- table

/** A plain-text table: a header row, a rule, the rows; columns padded to their widest cell. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(line)].join('\n');
}

export function invariantTable(results: readonly InvariantResult[]): string {
  return formatTable(['invariant', 'verdict', 'figures'], results.map((r) => [r.name, r.ok ? 'PASS' : 'FAIL', r.summary]));
}
