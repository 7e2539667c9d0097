// The certificate orders Pebble saw, read from what the recording ACME proxy
// forwarded (test/integration/checker/acme-proxy.ts): each newOrder Pebble
// accepted, for which hostname, and how it ended. An order object is known by
// its `finalize` URL, which every answer carrying it repeats (newOrder, the
// order itself, finalize); its authorizations are known by their URLs.
// Pure: works on the recorded requests and answers.
import type { AcmeOrder, OrderOutcome } from './invariants';

export interface RecordedExchange {
  method: string;
  path: string;
  payload: Record<string, unknown> | null;
  answer?: { status: number; body: string };
}

interface OrderBody {
  status?: unknown;
  challenges?: unknown;
  finalize?: unknown;
  authorizations?: unknown;
  identifiers?: unknown;
}

const parse = (body: string): OrderBody | null => {
  try {
    const value = JSON.parse(body) as unknown;
    return value !== null && typeof value === 'object' ? (value as OrderBody) : null;
  } catch {
    return null;
  }
};

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
};

export function classifyOrders(exchanges: readonly RecordedExchange[]): AcmeOrder[] {
  const orders: Array<{ hostname: string; finalize: string; authorizations: string[]; first: number }> = [];
  exchanges.forEach((x, index) => {
    const identifiers = x.payload?.identifiers;
    if (x.method !== 'POST' || !Array.isArray(identifiers) || x.answer?.status !== 201) return;
    const body = parse(x.answer.body);
    if (!body || typeof body.finalize !== 'string') return;
    const hostname = String((identifiers[0] as { value?: unknown } | undefined)?.value ?? '');
    const authorizations = Array.isArray(body.authorizations) ? body.authorizations.filter((a): a is string => typeof a === 'string').map(pathOf) : [];
    orders.push({ hostname, finalize: body.finalize, authorizations, first: index });
  });
  // Every status an answer gave for each order (by finalize URL) and authorization (by path), and the last
  // exchange that concerned each: the index in the proxy's list is the order in which requests arrived.
  const orderStatuses = new Map<string, Set<string>>();
  const authzStatuses = new Map<string, Set<string>>();
  const lastSeen = new Map<string, number>();
  // A challenge answers at its own URL (the client polls it after answering it): its status counts for its authorization.
  const authzOfChallenge = new Map<string, string>();
  const add = (map: Map<string, Set<string>>, key: string, status: string) => map.set(key, (map.get(key) ?? new Set()).add(status));
  exchanges.forEach((x, index) => {
    const authz = authzOfChallenge.get(x.path) ?? x.path;
    lastSeen.set(authz, index);
    if (!x.answer || x.answer.status >= 400) return;
    const body = parse(x.answer.body);
    if (!body || typeof body.status !== 'string') return;
    if (typeof body.finalize === 'string') {
      add(orderStatuses, body.finalize, body.status);
      lastSeen.set(body.finalize, index);
      return;
    }
    if (Array.isArray(body.challenges)) {
      for (const c of body.challenges as Array<{ url?: unknown }>) if (typeof c.url === 'string') authzOfChallenge.set(pathOf(c.url), x.path);
    }
    add(authzStatuses, authz, body.status);
  });
  const sharedBy = new Map<string, number>();
  for (const o of orders) for (const a of o.authorizations) sharedBy.set(a, (sharedBy.get(a) ?? 0) + 1);
  return orders.map((o): AcmeOrder => {
    const seen = orderStatuses.get(o.finalize) ?? new Set<string>();
    const authzInvalid = o.authorizations.some((a) => authzStatuses.get(a)?.has('invalid') || authzStatuses.get(a)?.has('deactivated'));
    const outcome: OrderOutcome = seen.has('valid') ? 'valid' : seen.has('invalid') || authzInvalid ? 'invalid' : 'unfinished';
    // An authorization the CA reused for a later order of the name tells nothing about when this one ended.
    const own = o.authorizations.filter((a) => (sharedBy.get(a) ?? 0) === 1);
    const last = Math.max(o.first, lastSeen.get(o.finalize) ?? o.first, ...own.map((a) => lastSeen.get(a) ?? o.first));
    return { hostname: o.hostname, outcome, span: { first: o.first, last } };
  });
}
