// The plain-HTTP listener: ACME HTTP-01 answers, a 308 to HTTPS for a domain
// that is served there, and the page of any other name.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { DataStore } from '@cds/data';
import { pageOf, type AdmissionChain } from './admission';
import { answerChallenge } from './challenge-responder';
import type { EdgeAnswers } from './edge-answers';
import { hostName, PAGES } from './edge-pages';
import { answerClientErrors } from './socket-answers';

export interface PlainListenerDeps {
  store: DataStore;
  admission: AdmissionChain;
  answers: EdgeAnswers;
  serverOptions: http.ServerOptions;
  /** The HTTPS port redirects name (known once the HTTPS listener is bound). */
  httpsPort: () => number;
}

export function createPlainListener(deps: PlainListenerDeps): http.Server {
  const { store, admission, answers } = deps;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    if (answers.refusedFraming(req, res, started)) return;
    const url = req.url ?? '/';
    if (url.startsWith('/.well-known/acme-challenge/')) {
      const { status, body } = await answerChallenge(store, req.method, url);
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    const host = hostName(req.headers.host);
    if (host === null) return answers.page(res, PAGES.badRequest, null, started);
    const route = await admission.route(host);
    const page = pageOf(route);
    if (route.kind === 'domain' && (page === null || page === PAGES.noOrigin)) {
      const httpsPort = deps.httpsPort();
      const port = httpsPort === 443 ? '' : `:${httpsPort}`;
      res.writeHead(308, { location: `https://${host}${port}${url.startsWith('/') ? url : '/'}`, 'content-length': 0 }).end();
      return;
    }
    answers.page(res, page ?? PAGES.unknownHostname, route.kind === 'domain' ? route.application.slug : null, started);
  }

  const server = http.createServer(deps.serverOptions, (req, res) => void serve(req, res).catch((err: unknown) => answers.failed(res, err)));
  answerClientErrors(server);
  return server;
}
