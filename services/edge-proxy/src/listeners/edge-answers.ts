// The answers both listeners give themselves on a response: a page (reported
// to the observer), a request that failed, and a body framing the edge does
// not forward.
import { errorMessage } from '@cds/core';
import type { Logger } from '@cds/logging';
import { ReadBudgetSpent } from '../caches/read-budget';
import type { EdgeObserver } from '../observing/edge-observer';
import type { EdgeRequest, EdgeResponse } from './client-messages';
import { NOT_READY_RETRY_AFTER_SECONDS, PAGES, sendPage, type Page } from './edge-pages';

/**
 * A request body framed by a transfer coding the edge does not forward as is:
 * only `chunked` alone is taken (Node's parser already refuses `chunked` twice
 * or not last). Another coding before it (`gzip, chunked`) would reach the
 * origin without its coding, since the forwarder frames the body anew.
 */
function unsupportedTransferEncoding(req: EdgeRequest): boolean {
  const codings = req.headers['transfer-encoding'];
  return codings !== undefined && codings.toLowerCase() !== 'chunked';
}

export class EdgeAnswers {
  /**
   * Connections whose framing was refused. Node parses and hands over requests a
   * client pipelined behind the refused one before the refusal is written: none
   * of them is served, the connection closes after the refusal.
   */
  private readonly refusedConnections = new WeakSet<object>();

  constructor(
    private readonly observer: EdgeObserver,
    private readonly logger: Logger,
  ) {}

  /** Sends `page` (503s with a Retry-After unless `headers` say otherwise) and reports the answer. */
  page(res: EdgeResponse, page: Page, slug: string | null, started: number, headers?: Record<string, string | number>): void {
    sendPage(res, page, headers ?? (page.status === 503 ? { 'retry-after': NOT_READY_RETRY_AFTER_SECONDS } : {}));
    this.observer.answered(slug, page.status, 0, (performance.now() - started) / 1000);
  }

  /** A 308 to `location` (plain HTTP to HTTPS, a domain's redirect_to), reported like a page. */
  redirect(res: EdgeResponse, location: string, slug: string | null, started: number): void {
    res.writeHead(308, { location, 'cache-control': 'no-store', 'content-length': 0 });
    res.end();
    this.observer.answered(slug, 308, 0, (performance.now() - started) / 1000);
  }

  /**
   * A request that could not be served: 503 when nothing was sent yet, else the connection is cut. A name the
   * read budget had no room for is not logged one by one (the edge logs the budget's refusals together), and
   * may be asked again a second later.
   */
  failed(res: EdgeResponse, err: unknown): void {
    const spent = err instanceof ReadBudgetSpent;
    if (!spent) this.logger.warn('edge request failed', { error: errorMessage(err) });
    if (!res.headersSent) sendPage(res, PAGES.unavailable, { 'retry-after': spent ? 1 : 5 });
    else res.destroy();
  }

  /** Answers 501 and closes when the request's framing is refused; true then, and for any request after it on that connection. */
  refusedFraming(req: EdgeRequest, res: EdgeResponse, started: number): boolean {
    if (this.refusedConnections.has(req.socket)) return true;
    if (!unsupportedTransferEncoding(req)) return false;
    this.refusedConnections.add(req.socket);
    this.page(res, PAGES.unsupportedTransferEncoding, null, started, { connection: 'close' });
    return true;
  }
}
