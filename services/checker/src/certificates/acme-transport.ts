// The HTTP under acme-client. Its axios instance has no timeout, so a CA that
// stops answering would hold an order (and the certificate lane) for good; and
// its retry interceptor, given an error without a response (a timeout, a
// refused connection), retries a refused connection five times 5 to 25 s
// apart and then fails with a TypeError that names nothing. Here such errors
// leave the adapter as typed errors, which the interceptor passes on as they
// are: the order fails at once, saying what happened, and a later check (or
// the next directory, DECISIONS §14) tries again within the hourly limits.
// An answer in which the CA says that it failed (5xx, `rateLimited`,
// `serverInternal`) leaves acme-client as a typed error too, once its retries
// are spent, so that the issuer can tell the CA's failures from the
// customer's.
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';

/** Why a CA failed at its side. */
export const CA_FAILURES = { unreachable: 'unreachable', serverError: 'server_error', rateLimited: 'rate_limited', account: 'account' } as const;
export type CaFailure = (typeof CA_FAILURES)[keyof typeof CA_FAILURES];

/** A request the CA did not answer, or answered saying that it failed: nothing the customer can change. */
export class AcmeUnavailable extends Error {
  constructor(
    readonly reason: CaFailure,
    message: string,
  ) {
    super(message);
    this.name = 'AcmeUnavailable';
  }
}

const PROBLEM_PREFIX = 'urn:ietf:params:acme:error:';

/** The reason an answer says the CA failed at its side; null for any other answer. */
export function caFailureOf(status: number, problemType: unknown): CaFailure | null {
  if (problemType === `${PROBLEM_PREFIX}rateLimited` || status === 429) return CA_FAILURES.rateLimited;
  if (problemType === `${PROBLEM_PREFIX}serverInternal` || status >= 500) return CA_FAILURES.serverError;
  return null;
}

function failedAnswer(response: AxiosResponse): AcmeUnavailable | null {
  const data = response.data as { type?: unknown; detail?: unknown } | string | undefined;
  const problem = typeof data === 'object' && data !== null ? data : {};
  const reason = caFailureOf(response.status, problem.type);
  if (!reason) return null;
  const detail = typeof problem.detail === 'string' ? problem.detail : typeof data === 'string' ? data.slice(0, 200) : '';
  const { method = 'get', url = '' } = response.config;
  return new AcmeUnavailable(reason, `${method.toUpperCase()} ${url}: HTTP ${response.status}${detail ? ` ${detail}` : ''}`.trim());
}

/** Instances already bound: every issuer shares acme-client's one instance. */
const bound = new WeakSet<AxiosInstance>();

/**
 * Bounds every request of acme-client's instance by `timeoutMs` and types
 * the CA's failures (AcmeUnavailable). `retryServerErrors` false: a 5xx or
 * 429 answer fails at once instead of being asked again for up to a minute
 * (another directory is there to try).
 */
export function boundAcmeRequests(instance: AxiosInstance, timeoutMs: number, retryServerErrors = true): void {
  instance.defaults.timeout = timeoutMs;
  const settings = (instance.defaults as { acmeSettings?: { retryMaxAttempts?: number } }).acmeSettings;
  if (settings && !retryServerErrors) settings.retryMaxAttempts = 0;
  if (bound.has(instance)) return;
  bound.add(instance);
  const http = axios.getAdapter('http');
  instance.defaults.adapter = async (config) => {
    try {
      return await http(config);
    } catch (err) {
      // An answer, whatever its status, goes on to acme-client's own handling.
      if (!axios.isAxiosError(err) || err.response) throw err;
      throw new AcmeUnavailable(CA_FAILURES.unreachable, `${(config.method ?? 'get').toUpperCase()} ${config.url ?? ''}: ${err.message}`);
    }
  };
  // After acme-client's retry interceptor (registered when it loaded): what it gives up on.
  instance.interceptors.response.use(
    (response) => {
      const failed = failedAnswer(response);
      if (failed) throw failed;
      return response;
    },
    (err: unknown) => {
      const failed = axios.isAxiosError(err) && err.response ? failedAnswer(err.response) : null;
      throw failed ?? err;
    },
  );
}
