// The application's origin: a small web server on loopback that the edge
// forwards visitors to. It trusts a request only with a valid
// X-Custom-Domain-Assertion: an HS256 JWT signed with the application's
// assertion key (header `kid`), issuer `custom-domain-service`, audience the
// application's slug, for the hostname the request names (docs/edge.md).
// It answers with what it verified, and prints each request it sees.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { heard } from './narrator';

export const ASSERTION_HEADER = 'x-custom-domain-assertion';
const ISSUER = 'custom-domain-service';

export interface VerifiedAssertion {
  kid: string;
  /** The application slug. */
  aud: string;
  /** The domain id. */
  sub: string;
  hostname: string;
  /** The workspace. */
  reference: string;
  exp: number;
}

export interface DemoOrigin {
  readonly url: string;
  /** Trust assertions signed with this key from now on (what an application does with the secret the operator hands over). */
  addKey(kid: string, secret: string): void;
  /** Every visitor request it answered with a verified assertion, oldest first. */
  readonly served: VerifiedAssertion[];
  close(): Promise<void>;
}

/** Why an assertion was refused, in a few words. */
function refusal(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `claim ${error.claim} is wrong`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature does not match';
  return error instanceof Error ? error.message : String(error);
}

export async function startDemoOrigin(slug: string, healthPath: string): Promise<DemoOrigin> {
  const keys = new Map<string, Uint8Array>();
  const served: VerifiedAssertion[] = [];
  let healthProbesWithAssertion = 0;

  const verify = async (token: string, host: string): Promise<VerifiedAssertion> => {
    const { payload, protectedHeader } = await jwtVerify(token, async ({ kid }) => {
      const key = kid === undefined ? undefined : keys.get(kid);
      if (!key) throw new Error(`unknown key ${kid ?? '(no kid)'}`);
      return key;
    }, { issuer: ISSUER, audience: slug, algorithms: ['HS256'] });
    const claims = payload as JWTPayload & { hostname?: unknown; reference?: unknown };
    if (claims.hostname !== host) throw new Error(`it names ${String(claims.hostname)}, the request ${host}`);
    return {
      kid: protectedHeader.kid ?? '', aud: slug, sub: String(claims.sub), hostname: String(claims.hostname),
      reference: String(claims.reference), exp: claims.exp ?? 0,
    };
  };

  const server = http.createServer((req, res) => {
    req.resume();
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = req.url ?? '/';
    const token = req.headers[ASSERTION_HEADER];
    const isHealth = path === healthPath;
    const reply = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(body);
    };

    if (typeof token !== 'string') {
      // The operator's verify probe comes without an assertion; so does anyone who bypasses the edge.
      if (isHealth) {
        heard('origin', `GET ${path} without an assertion (the operator's verify probe): 200`);
        return reply(200, 'ok\n');
      }
      heard('origin', `${req.method} ${path} for ${host} without an assertion: refused with 401`);
      return reply(401, 'This origin serves requests that come through the edge (no X-Custom-Domain-Assertion).\n');
    }
    verify(token, host).then(
      (claims) => {
        if (isHealth) {
          // The checker's origin check probes every few seconds: the first one is worth a line.
          healthProbesWithAssertion += 1;
          if (healthProbesWithAssertion === 1) heard('origin', `GET ${path} for ${host} with a valid assertion (the checker's origin check; kid ${claims.kid}): 200`);
          return reply(200, 'ok\n');
        }
        served.push(claims);
        heard('origin', `${req.method} ${path} for ${host}: assertion verified (kid ${claims.kid}, workspace ${claims.reference}): 200`);
        reply(200, [
          `Hello from the origin of ${slug}.`,
          `It verified the edge's X-Custom-Domain-Assertion (HS256, kid ${claims.kid}):`,
          `  workspace (reference)  ${claims.reference}`,
          `  hostname               ${claims.hostname}`,
          `  domain id (sub)        ${claims.sub}`,
          `  application (aud)      ${claims.aud}`,
          `  valid until (exp)      ${new Date(claims.exp * 1000).toISOString()}`,
          '',
        ].join('\n'));
      },
      (error: unknown) => {
        heard('origin', `${req.method} ${path} for ${host}: assertion refused (${refusal(error)}): 401`);
        reply(401, `Assertion refused: ${refusal(error)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    addKey: (kid, secret) => void keys.set(kid, new TextEncoder().encode(secret)),
    served,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
