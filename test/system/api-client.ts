// The system test's client of the two API replicas: every request and its
// answer (or the lack of one) is recorded with its time, for the invariant on
// the API's 5xx answers.
import type { ApiAnswer } from './invariants';

const REQUEST_TIMEOUT_MS = 15_000;

export interface Reply<T = unknown> {
  /** 0 when no answer came. */
  status: number;
  headers: Headers | null;
  body: T;
  text: string;
  error?: string;
}

export interface CallOptions {
  token: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export class ApiClients {
  readonly answers: ApiAnswer[] = [];

  constructor(readonly urls: readonly string[], private readonly clock: () => number) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async call<T = any>(replica: number, method: string, path: string, opts: CallOptions): Promise<Reply<T>> {
    const url = this.urls[replica % this.urls.length] as string;
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token}`, ...(opts.headers ?? {}) };
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const atMs = this.clock();
    const what = `${method} ${path.split('?')[0]} via api-${(replica % this.urls.length) + 1}`;
    try {
      const res = await fetch(`${url}${path}`, { method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const text = await res.text();
      const parsed = res.headers.get('content-type')?.startsWith('application/json') && text ? JSON.parse(text) : text;
      this.answers.push({ atMs, status: res.status, what: res.status >= 500 ? `${what}: ${text.slice(0, 200)}` : what });
      return { status: res.status, headers: res.headers, body: parsed as T, text };
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const error = `${cause?.code ?? ''} ${cause?.message ?? (err instanceof Error ? err.message : String(err))}`.trim();
      this.answers.push({ atMs, status: 0, what: `${what}: ${error}` });
      return { status: 0, headers: null, body: null as T, text: '', error };
    }
  }
}
