// One delivery attempt: the signed POST, at most 64 KiB of the answer read,
// no redirect followed, the whole attempt bounded by WEBHOOK_TIMEOUT.
import type https from 'node:https';
import type { Readable } from 'node:stream';
import axios, { type AxiosInstance } from 'axios';
import {
  answerOutcome,
  errorMessage,
  parseWebhookUrl,
  refusedAddress,
  WEBHOOK_HEADERS,
  WEBHOOK_MAX_RESPONSE_BYTES,
  WEBHOOK_USER_AGENT,
  webhookSignatureHeader,
} from '@cds/core';
import { RefusedAddressError, type TargetPolicy } from './guarded-agent';

export interface OutgoingDelivery {
  url: string;
  eventId: string;
  eventType: string;
  /** The exact body: what is signed is what is sent. */
  payload: string;
  /** Newest first. */
  secrets: string[];
}

export interface AttemptOutcome {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
}

export interface SendOptions {
  client: AxiosInstance;
  policy: TargetPolicy;
  timeoutMs: number;
  now: () => Date;
}

/**
 * The client every attempt uses: the guarded agent, no redirects, no proxy
 * (an environment proxy would connect for us, past the address check), the
 * answer as a stream so that only its first 64 KiB are read, any status
 * returned rather than thrown, and the body sent as the exact bytes signed.
 */
export function deliveryClient(agent: https.Agent): AxiosInstance {
  return axios.create({
    httpsAgent: agent,
    maxRedirects: 0,
    proxy: false,
    decompress: false,
    responseType: 'stream',
    validateStatus: () => true,
    transformRequest: [],
    transformResponse: [],
  });
}

/** Reads and drops at most `limit` bytes, then lets go of the stream. */
async function drainAtMost(stream: Readable, limit: number): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of stream) {
      read += (chunk as Buffer).length;
      if (read >= limit) break;
    }
  } finally {
    if (!stream.readableEnded) stream.destroy();
  }
}

/** The address a network error names (Node's errors carry it; axios wraps them as `cause`). */
function addressIn(err: unknown): string | null {
  for (const candidate of [err, (err as { cause?: unknown } | null)?.cause]) {
    const address = (candidate as { address?: unknown } | null)?.address;
    if (typeof address === 'string' && address !== '') return address;
  }
  return null;
}

/**
 * The attempt's error: the timeout, the refused address, or the error's text
 * led by its code, with the URL's `host` where the text named the address it
 * resolved to (the history shows the application its receiver's host, not the
 * deployment's addresses).
 */
function attemptError(err: unknown, timedOut: boolean, timeoutMs: number, host: string): string {
  if (timedOut) return `no answer within ${timeoutMs} ms`;
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (cause instanceof RefusedAddressError) return cause.message;
  const address = addressIn(err);
  const message = address === null ? errorMessage(err) : errorMessage(err).split(address).join(host);
  const code = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

export async function sendDelivery(delivery: OutgoingDelivery, opts: SendOptions): Promise<AttemptOutcome> {
  // An IP literal is never looked up, so the guarded lookup does not see it: check it here.
  const parsed = parseWebhookUrl(delivery.url);
  if (!parsed.ok) return { delivered: false, statusCode: null, error: `invalid webhook URL: ${parsed.problem.reason}` };
  if (parsed.ipLiteral !== null) {
    const problem = refusedAddress([parsed.ipLiteral], opts.policy.allowPrivateCidrs);
    if (problem) return { delivered: false, statusCode: null, error: new RefusedAddressError(parsed.hostname, problem).message };
  }

  const timestamp = Math.floor(opts.now().getTime() / 1000);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  let statusCode: number | null = null;
  try {
    const response = await opts.client.post<Readable>(parsed.url.href, Buffer.from(delivery.payload, 'utf8'), {
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        [WEBHOOK_HEADERS.signature]: webhookSignatureHeader(delivery.secrets, timestamp, delivery.payload),
        [WEBHOOK_HEADERS.event]: delivery.eventType,
        [WEBHOOK_HEADERS.eventId]: delivery.eventId,
      },
      signal: controller.signal,
    });
    statusCode = response.status;
    // The answer counts from its status line; the body is read (up to the limit) only to keep the connection reusable.
    await drainAtMost(response.data, WEBHOOK_MAX_RESPONSE_BYTES).catch(() => undefined);
    const outcome = answerOutcome(statusCode);
    return { delivered: outcome.delivered, statusCode, error: outcome.delivered ? null : outcome.error };
  } catch (err) {
    return { delivered: false, statusCode, error: attemptError(err, timedOut, opts.timeoutMs, parsed.hostname) };
  } finally {
    clearTimeout(timer);
  }
}
