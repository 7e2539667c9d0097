// A fetch that prints each call it makes (narrator.httpCall): the typed client
// and the operator calls go through it, so every request shows as it is sent.
import type { FetchLike } from '@custom-domain-service/client';
import { httpCall } from './narrator';

/** Prints `METHOD /path body → status` for every call; paths are shown without the base URL. */
export const printedFetch: FetchLike = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(input);
  const body = typeof init.body === 'string' ? init.body : undefined;
  httpCall(init.method ?? 'GET', `${url.pathname}${url.search}`, body, response.status);
  return response;
};

/** An answer that is not 2xx, with the contract's error code when there is one. */
export class HttpCallError extends Error {
  constructor(readonly method: string, readonly path: string, readonly status: number, readonly body: string) {
    let detail = body.slice(0, 300);
    try {
      const parsed = JSON.parse(body) as { error?: { code?: string; message?: string } };
      if (parsed.error?.code) detail = `${parsed.error.code}: ${parsed.error.message ?? ''}`;
    } catch {
      // not JSON: the text itself
    }
    super(`${method} ${path} answered ${status} (${detail})`);
  }
}

/** A JSON call with a bearer token, printed; throws HttpCallError unless 2xx. */
export async function callJson<T>(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  const response = await printedFetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  if (!response.ok) throw new HttpCallError(method, path, response.status, text);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}
