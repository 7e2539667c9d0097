// The Custom Domain Service itself: the built all-in-one process
// (services/all-in-one/dist/main.js) run from the demo's work directory, so
// that its SQLite database and generated secrets land in <work dir>/data. It
// gets only documented variables; its log goes to <work dir>/service.log.
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, startChild, waitFor, type Child, type UnexpectedExit } from './children';
import { SHORT_SCHEDULES, WAIT_MS } from './settings';

const MAIN = path.resolve(__dirname, '../../../services/all-in-one/dist/main.js');

export interface ServiceOptions {
  workDir: string;
  /** For DNS_SERVERS. */
  dnsServer: string;
  /** The CA of the webhook receiver's certificate (WEBHOOK_CA_BUNDLE). */
  webhookCaFile: string;
}

export interface Service {
  readonly child: Child;
  readonly apiUrl: string;
  readonly edgeHttpsPort: number;
  readonly edgeHttpPort: number;
  readonly metricsPort: number;
  /** The variables it was started with, `NAME=value …`, a line per group. */
  readonly environment: string[];
  readonly logFile: string;
  /** The operator token the service wrote at its first start (./data/operator-token). */
  readonly operatorToken: string;
}

export async function startService(opts: ServiceOptions, onUnexpectedExit: UnexpectedExit): Promise<Service> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (make build)`);
  const [api, edgeHttps, edgeHttp, metrics] = [await freePort(), await freePort(), await freePort(), await freePort()];
  // In groups, for showing: ports; where the checker resolves and how certificates are made; how soon checks
  // run; the webhook receiver on loopback with a certificate of its own CA.
  const groups: Record<string, string>[] = [
    { API_PORT: String(api), EDGE_HTTPS_PORT: String(edgeHttps), EDGE_HTTP_PORT: String(edgeHttp), METRICS_PORT: String(metrics) },
    { DNS_SERVERS: opts.dnsServer, CERT_ISSUER: 'internal' },
    { ...SHORT_SCHEDULES },
    { WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_CA_BUNDLE: opts.webhookCaFile },
  ];
  const env: Record<string, string> = Object.assign({}, ...groups);
  const logFile = path.join(opts.workDir, 'service.log');
  const log = openSync(logFile, 'a');
  // Nothing else of the demo's environment: a DATABASE_URL or AMQP_URL set in the shell must not change the demo.
  const logTail = (lines: number) => (existsSync(logFile) ? readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '');
  const child = startChild('the service (all-in-one)', process.execPath, [MAIN], { cwd: opts.workDir, env, stdio: ['ignore', log, log] }, onUnexpectedExit);
  child.explain = () => {
    const tail = logTail(20);
    return tail ? `its log (${logFile}) ends with:\n${tail}` : `its log (${logFile}) is empty`;
  };
  closeSync(log);

  await waitFor('the service to report ready (/readyz)', WAIT_MS.serviceStart, 200, async () => {
    if (child.exit !== null) throw new Error(`the service stopped (${child.exit}); ${child.explain?.()}`);
    return fetch(`http://127.0.0.1:${metrics}/readyz`).then((r) => (r.status === 200 ? true : undefined), () => undefined);
  }, () => child.explain?.() ?? '');

  const tokenFile = path.join(opts.workDir, 'data', 'operator-token');
  return {
    child,
    apiUrl: `http://127.0.0.1:${api}`,
    edgeHttpsPort: edgeHttps,
    edgeHttpPort: edgeHttp,
    metricsPort: metrics,
    environment: groups.map((group) => Object.entries(group).map(([name, value]) => `${name}=${value}`).join(' ')),
    logFile,
    operatorToken: readFileSync(tokenFile, 'utf8').trim(),
  };
}
