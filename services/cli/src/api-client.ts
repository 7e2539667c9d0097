import { RequestFailedError } from './cli-errors';

export interface ApiClient {
  /** JSON answer of a 2xx (null for 204); anything else throws RequestFailedError. */
  request<T>(method: string, path: string, opts?: { body?: unknown; query?: Record<string, string | undefined> }): Promise<T>;
}

interface Envelope {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

/** The operator API at `baseUrl`, with the operator token. */
export function apiClient(baseUrl: string, token: string): ApiClient {
  return {
    async request<T>(method: string, path: string, opts: { body?: unknown; query?: Record<string, string | undefined> } = {}) {
      const url = new URL(`${baseUrl}${path}`);
      for (const [name, value] of Object.entries(opts.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      let res: Response;
      try {
        res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      } catch (error) {
        const cause = (error as { cause?: { message?: unknown } }).cause?.message;
        throw new RequestFailedError('unreachable', `cannot reach ${baseUrl}: ${typeof cause === 'string' ? cause : String(error)}`, null);
      }
      const text = await res.text();
      const json = parse(text);
      if (res.ok) return json as T;
      const error = (json as Envelope | null)?.error;
      if (typeof error?.code === 'string' && typeof error.message === 'string') {
        const details = error.details !== null && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : {};
        throw new RequestFailedError(error.code, error.message, res.status, details);
      }
      throw new RequestFailedError(`http_${res.status}`, `${method} ${path} answered ${res.status} ${text.slice(0, 200)}`, res.status);
    },
  };
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
