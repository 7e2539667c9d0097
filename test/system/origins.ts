// One origin per application. Every proxied request must carry an assertion
// that verifies (jose, HS256) with the application's signing key and names the
// domain it was sent for; the origin answers 200 `ok <host> <path>` then, and
// 401 with the reason otherwise. The health path (origin verification and the
// checker's probes) answers 200, or 503 while the run makes it fail.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';

const ISSUER = 'custom-domain-service';
export const HEALTH_PATH = '/healthz';

export interface SigningKey {
  kid: string;
  secret: string;
}

export interface Origin {
  url: string;
  /** The key assertions must be signed with. */
  key: SigningKey | null;
  /** Hostname -> the domain id and reference the assertion must name. */
  domains: Map<string, { id: string; reference: string }>;
  /** While true, the health path answers 503 (a fault of the run: a deploy, an overloaded origin); proxied requests are still served. */
  healthFailing: boolean;
  /** Health requests answered 503. */
  healthAnswered503: number;
  /** Proxied requests answered, and refused with their reasons. */
  served: number;
  refused: string[];
  close(): Promise<void>;
}

export async function startOrigin(slug: string): Promise<Origin> {
  const origin: Origin = { url: '', key: null, domains: new Map(), healthFailing: false, healthAnswered503: 0, served: 0, refused: [], close: async () => undefined };
  const refuse = (res: http.ServerResponse, why: string) => {
    if (origin.refused.length < 1000) origin.refused.push(why);
    res.writeHead(401, { 'content-type': 'text/plain' }).end(`assertion refused: ${why}`);
  };
  const server = http.createServer((req, res) => {
    req.resume();
    const path = req.url ?? '/';
    if (path.startsWith(HEALTH_PATH)) {
      if (!origin.healthFailing) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('healthy');
      origin.healthAnswered503 += 1;
      return void res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '5' }).end('deploying');
    }
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const token = req.headers['x-custom-domain-assertion'];
    const domain = origin.domains.get(host);
    const key = origin.key;
    if (!domain) return refuse(res, `unknown host ${host}`);
    if (typeof token !== 'string') return refuse(res, `${host}: no assertion`);
    if (!key) return refuse(res, 'no key known yet');
    jwtVerify(token, new TextEncoder().encode(key.secret), { issuer: ISSUER, audience: slug, subject: domain.id, algorithms: ['HS256'] }).then(({ payload, protectedHeader }) => {
      if (protectedHeader.kid !== key.kid) return refuse(res, `${host}: kid ${protectedHeader.kid}, expected ${key.kid}`);
      if (payload.hostname !== host || payload.reference !== domain.reference) return refuse(res, `${host}: claims ${JSON.stringify(payload)}`);
      origin.served += 1;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${host} ${path}`);
    }, (err: unknown) => refuse(res, `${host}: ${err instanceof Error ? err.message : String(err)}`));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return origin;
}
