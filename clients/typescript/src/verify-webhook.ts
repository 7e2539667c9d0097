// Checks a delivery's `X-Custom-Domain-Signature` (DECISIONS §3):
// `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each `v1` the HMAC-SHA256 of
// `<t>.<raw body>` keyed by one subscription secret (several after a rotation).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './resources';

/** The service's WEBHOOK_HEADERS.signature (libs/core header-names), written out: this package stands alone. */
export const SIGNATURE_HEADER = 'x-custom-domain-signature';
/** The contract's tolerance between `t` and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationReason =
  | 'no_secrets'
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'invalid_body';

/** Why a delivery was refused; `reason` is for code, the message for people. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Node's `req.headers`, a fetch `Headers`, or any header record (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest accepted difference between `t` and now, either way (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (tests pass a fixed one). */
  now?: () => Date;
}

interface ParsedSignature {
  timestamp: number;
  signatures: Buffer[];
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(',');
  }
  return undefined;
}

function parseSignature(header: string): ParsedSignature {
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2) as [string, string?];
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    // A v1 that is not 64 hex digits can match nothing; later schemes are ignored.
    else if (key === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null) throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} has no t=<unix seconds>`);
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} has no v1 signature`);
  return { timestamp, signatures };
}

function expectedSignature(secret: string, timestamp: number, body: Buffer): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(body).digest();
}

/**
 * Verifies a delivery and returns its event. `rawBody` must be the body exactly
 * as received (before any JSON parsing). `secrets`: every secret the receiver
 * holds for the subscription; any one matching any `v1` is enough.
 * Throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((secret) => secret.length > 0);
  if (keys.length === 0) throw new WebhookVerificationError('no_secrets', 'No webhook secret to verify with');
  const header = headerValue(headers, SIGNATURE_HEADER);
  if (!header) throw new WebhookVerificationError('missing_signature', `The ${SIGNATURE_HEADER} header is missing`);
  const { timestamp, signatures } = parseSignature(header);

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `Signature timestamp ${timestamp} is more than ${tolerance} s from now (${nowSeconds})`);
  }

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  // Every pair is compared, in constant time, so the time taken tells nothing about which one matched.
  let matched = false;
  for (const key of keys) {
    const expected = expectedSignature(key, timestamp, body);
    for (const signature of signatures) if (timingSafeEqual(expected, signature)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'No v1 signature matches the body with any of the secrets');

  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The signed body is not JSON');
  }
}
