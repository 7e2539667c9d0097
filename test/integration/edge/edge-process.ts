// A real edge-proxy process in split mode (`node services/edge-proxy/dist/main.js`)
// on free loopback ports, an HTTPS client to it that sets SNI and Host, and its
// ops endpoints (/readyz, /metrics).
import { spawn, type ChildProcess } from 'node:child_process';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { stopProcess, waitForBuild } from '../../support/service-process';

export const EDGE_MAIN = join(__dirname, '../../../services/edge-proxy/dist/main.js');
const START_TIMEOUT_MS = 30_000;
/** Past the edge's own 20 s drain: a process still running then is killed. */
const STOP_TIMEOUT_MS = 25_000;

export interface EdgeReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface EdgeProcess {
  child: ChildProcess;
  httpsPort: number;
  /** EDGE_HTTP_PORT: plain HTTP. */
  httpPort: number;
  metricsPort: number;
  /** stdout and stderr so far (JSON log lines). */
  output(): string;
  /** Resolves when the process has exited, with its code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** HTTPS GET with SNI and Host `hostname`, over this edge's kept-alive connections unless `agent` says otherwise. */
  get(hostname: string, path: string, opts?: { agent?: https.Agent | false }): Promise<EdgeReply>;
  /** GET on the ops listener (METRICS_PORT). */
  ops(path: string): Promise<{ status: number; body: string }>;
  /** Sends SIGTERM; resolves with the exit code. */
  terminate(): Promise<number | null>;
  /** Kills what is still running (test cleanup). */
  kill(): void;
}

/** Waits for the build of the service this file starts (see waitForBuild). */
export const waitForEdgeBuild = (): Promise<void> => waitForBuild(EDGE_MAIN);

function plainGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Starts one edge with `env` (plus its own ports) and waits until /readyz answers 200. `caPem` is trusted by get(). */
export async function startEdgeProcess(env: Record<string, string>, caPem: string): Promise<EdgeProcess> {
  const [httpsPort, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(process.execPath, [EDGE_MAIN], {
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env,
      EDGE_HTTPS_PORT: String(httpsPort), EDGE_HTTP_PORT: String(httpPort), METRICS_PORT: String(metricsPort), BIND_ADDRESS: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A few kept-alive TLS connections per edge, so a burst is not slowed by handshakes.
  const agent = new https.Agent({ keepAlive: true, maxSockets: 5 });

  const running = () => child.exitCode === null && child.signalCode === null;
  const edge: EdgeProcess = {
    child, httpsPort, httpPort, metricsPort, exited,
    output: () => output,
    get(hostname, path, opts = {}) {
      return new Promise((resolve, reject) => {
        const req = https.request({
          host: '127.0.0.1', port: httpsPort, path, servername: hostname, ca: caPem, headers: { host: hostname },
          agent: opts.agent === undefined ? agent : opts.agent,
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    },
    ops: (path) => plainGet(metricsPort, path),
    async terminate() {
      const { code } = await stopProcess(child, STOP_TIMEOUT_MS);
      agent.destroy();
      return code;
    },
    kill() {
      if (running()) child.kill('SIGKILL');
      agent.destroy();
    },
  };

  try {
    await eventually('the edge process to be ready', async () => {
      if (!running()) throw new Error(`edge process exited with ${child.exitCode}:\n${output}`);
      return (await edge.ops('/readyz').catch(() => null))?.status === 200;
    }, { timeoutMs: START_TIMEOUT_MS, intervalMs: 200, explain: () => output });
  } catch (err) {
    edge.kill();
    throw err;
  }
  return edge;
}

/** The value of one sample in Prometheus text: `name{…}` carrying every label in `labels`; 0 when absent. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) return Number(match[3]);
  }
  return 0;
}
