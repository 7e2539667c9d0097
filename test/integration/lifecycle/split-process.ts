// One split-mode service as its own process (`node services/<name>/dist/main.js`),
// on ports of its own, for the tests of how services start and stay ready
// while PostgreSQL or RabbitMQ is away.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freePort } from '../../support/free-port';
import { stopProcess, waitForBuild } from '../../support/service-process';

export const SPLIT_SERVICES = ['api', 'checker', 'webhook-dispatcher', 'edge-proxy'] as const;
export type SplitServiceName = (typeof SPLIT_SERVICES)[number];

const mainOf = (name: SplitServiceName): string => join(__dirname, `../../../services/${name}/dist/main.js`);

export interface SplitProcess {
  name: SplitServiceName;
  child: ChildProcess;
  /** The API's base URL (api only). */
  url: string;
  output(): string;
  /** Status of GET on the ops listener (/healthz, /readyz); 0 when nothing answers. */
  ops(path: string): Promise<number>;
  stop(): Promise<void>;
}

/** The secrets every service of one deployment shares. */
export function deploymentSecrets(): Record<string, string> {
  return {
    OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
  };
}

export const waitForServiceBuilds = (): Promise<void> => Promise.all(SPLIT_SERVICES.map((name) => waitForBuild(mainOf(name)))).then(() => undefined);

/** Starts the service with `env` (DATABASE_URL, AMQP_URL, secrets) and does not wait for it: the test decides what to await. */
export async function spawnSplitProcess(name: SplitServiceName, env: Record<string, string>): Promise<SplitProcess> {
  const ports = { API_PORT: await freePort(), METRICS_PORT: await freePort(), EDGE_HTTP_PORT: await freePort(), EDGE_HTTPS_PORT: await freePort() };
  const child = spawn(process.execPath, [mainOf(name)], {
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', LOG_FORMAT: 'json',
      CERT_ISSUER: 'internal', EDGE_TARGET: 'edge.lifecycle-test.example', BIND_ADDRESS: '127.0.0.1',
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  return {
    name,
    child,
    url: `http://127.0.0.1:${ports.API_PORT}`,
    output: () => output,
    ops: (path) => fetch(`http://127.0.0.1:${ports.METRICS_PORT}${path}`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status, () => 0),
    stop: async () => {
      await stopProcess(child, 10_000);
    },
  };
}

/** Fails the test at once when the process is gone: it must keep running whatever its dependencies do. */
export function assertRunning(proc: SplitProcess): void {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
    throw new Error(`${proc.name} exited (${proc.child.exitCode ?? proc.child.signalCode}):\n${proc.output()}`);
  }
}
