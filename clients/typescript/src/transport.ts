// One request to the API: the credential, JSON in and out, the contract's
// errors as ApiError, and 429s retried after their Retry-After.
import { apiErrorOf } from './api-error';
import { retryAfterSeconds } from './retry-after';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Where the API listens and how requests are retried; each client adds its credential. */
export interface ConnectionOptions {
  /** Where the API listens, e.g. `https://domains.example.com` (no `/v1`). */
  baseUrl: string;
  /** How many times a 429 is retried after its `Retry-After` before the ApiError is thrown (default 2). */
  maxRetries?: number;
  /** A 429 asking for a longer wait than this is thrown at once (default 60 s). */
  maxRetryAfterSeconds?: number;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  /** How the client waits before a retry (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

export interface ClientOptions extends ConnectionOptions {
  /** An application credential, `cd_…`. */
  apiKey: string;
}

export type QueryValue = string | number | boolean | undefined;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: FetchLike;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetries: number;
  private readonly maxRetryAfterSeconds: number;

  /** `bearer`: the credential sent as `Authorization: Bearer …`; `bearerName` names it in the error when it is missing. */
  constructor(options: ConnectionOptions, private readonly bearer: string, bearerName: string) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!bearer) throw new TypeError(`${bearerName} is required`);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.sleep = options.sleep ?? realSleep;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS;
  }

  /** The parsed JSON answer of a 2xx; an ApiError otherwise. A 429 is sent again, unchanged (same Idempotency-Key), after Retry-After. */
  async request<T>(spec: RequestSpec): Promise<T> {
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.bearer}`, ...spec.headers };
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    for (let retries = 0; ; retries += 1) {
      const answer = await this.fetch(url, { method: spec.method, headers, body });
      const text = await answer.text();
      if (answer.ok) return (text === '' ? undefined : JSON.parse(text)) as T;
      const retryAfter = retryAfterSeconds(answer.headers.get('retry-after'));
      const error = apiErrorOf(answer.status, text, retryAfter);
      if (answer.status !== 429 || retryAfter === null || retries >= this.maxRetries || retryAfter > this.maxRetryAfterSeconds) throw error;
      await this.sleep(retryAfter * 1000);
    }
  }

  private url(path: string, query: Record<string, QueryValue> = {}): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const search = params.toString();
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
  }
}
