// A checker as its own process (split mode: PostgreSQL and RabbitMQ), sharing
// the test API's database and keys, for tests that kill one with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestApi } from '../../support/api-harness';
import { freePort } from './checker-dns';
import { EDGE_TARGET } from './checker-stack';

const MAIN = path.join(__dirname, '../../../services/checker/dist/main.js');

export interface CheckerProcess {
  child: ChildProcess;
  /** What it printed so far, stdout and stderr. */
  output: string;
}

/** Starts `node services/checker/dist/main.js` against `databaseUrl` and `amqpUrl`; `env` adds or overrides variables. */
export async function startCheckerProcess(api: TestApi, databaseUrl: string, amqpUrl: string, dnsServer: string, env: Record<string, string>): Promise<CheckerProcess> {
  const entry: CheckerProcess = { child: null as unknown as ChildProcess, output: '' };
  entry.child = spawn('node', [MAIN], {
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME,
      DATABASE_URL: databaseUrl, AMQP_URL: amqpUrl, METRICS_PORT: String(await freePort()), BIND_ADDRESS: '127.0.0.1', LOG_LEVEL: 'error',
      OPERATOR_TOKEN: api.operatorToken, DATA_ENCRYPTION_KEY: api.config.dataEncryptionKey.toString('base64'),
      ASSERTION_DEPLOYMENT_KEY: api.config.assertionDeploymentKey ?? undefined, CERT_ISSUER: 'internal', EDGE_TARGET, DNS_SERVERS: dnsServer, ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  entry.child.stdout?.on('data', (d: Buffer) => (entry.output += d.toString()));
  entry.child.stderr?.on('data', (d: Buffer) => (entry.output += d.toString()));
  return entry;
}
