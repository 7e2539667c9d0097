// The service's own HTTP headers, named once: the assertion the edge (and the
// checker's origin probe) adds for origins, and the headers of every webhook
// delivery. Header names are case-insensitive; each is written as it is sent.

/** The signed assertion an origin receives with each forwarded request (DECISIONS §4). */
export const ASSERTION_HEADER = 'x-custom-domain-assertion';

/** The headers the dispatcher sends with each webhook delivery. */
export const WEBHOOK_HEADERS = {
  /** `t=<unix seconds>,v1=<hex HMAC>[,v1=…]` (webhook-signature.ts): the timestamp travels inside it. */
  signature: 'X-Custom-Domain-Signature',
  /** The event's type, e.g. `domain.ready`. */
  event: 'X-Custom-Domain-Event',
  /** The event's id: the same on every attempt, so a receiver can drop duplicates. */
  eventId: 'X-Custom-Domain-Event-Id',
} as const;
