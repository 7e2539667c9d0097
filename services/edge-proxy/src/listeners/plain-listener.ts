// The plain-HTTP listener: ACME HTTP-01 answers, a 308 to HTTPS for a domain
// that is served there, and the page of any other name.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { pageOf, type AdmissionChain } from '../admission/admission';
import { answerChallenge, CHALLENGE_PREFIX } from '../challenges/challenge-responder';
import type { PendingChallenges } from '../challenges/pending-challenges';
import type { EdgeObserver } from '../observing/edge-observer';
import type { EdgeAnswers } from './edge-answers';
import { hostName, httpsLocation, PAGES } from './edge-pages';
import { answerClientErrors } from './socket-answers';

export interface PlainListenerDeps {
  admission: AdmissionChain;
  answers: EdgeAnswers;
  /** The HTTP-01 answers, shared by every request of this edge. */
  challenges: PendingChallenges;
  observer: EdgeObserver;
  serverOptions: http.ServerOptions;
  /** The HTTPS port redirects name: EDGE_PUBLIC_HTTPS_PORT, else the bound HTTPS port (known once that listener is bound). */
  httpsPort: () => number;
}

export function createPlainListener(deps: PlainListenerDeps): http.Server {
  const { admission, answers } = deps;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    if (answers.refusedFraming(req, res, started)) return;
    const url = req.url ?? '/';
    if (url.startsWith(CHALLENGE_PREFIX)) {
      const { status, body, headers } = await answerChallenge(deps.challenges, req.method, url);
      res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) }).end(body);
      deps.observer.challengeAnswered?.(status, (performance.now() - started) / 1000);
      return;
    }
    const host = hostName(req.headers.host);
    if (host === null) return answers.page(res, PAGES.badRequest, null, started);
    const route = await admission.route(host);
    const page = pageOf(route);
    if (route.kind === 'domain' && (page === null || page === PAGES.noOrigin)) {
      res.writeHead(308, { location: httpsLocation(host, deps.httpsPort(), url), 'content-length': 0 }).end();
      return;
    }
    const headers = route.kind === 'domain' && page === PAGES.pendingDns ? admission.pendingDns(route) : undefined;
    answers.page(res, page ?? PAGES.unknownHostname, route.kind === 'domain' ? route.application.slug : null, started, headers);
  }

  const server = http.createServer(deps.serverOptions, (req, res) => void serve(req, res).catch((err: unknown) => answers.failed(res, err)));
  answerClientErrors(server);
  return server;
}
