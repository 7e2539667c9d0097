// The whole split-mode deployment of the system test, started from the built
// output: a PostgreSQL cluster and a RabbitMQ node of its own, challtestsrv as
// the customers' DNS, Pebble behind the recording ACME proxy (validating
// HTTP-01 through a TCP balancer in front of both edges' plain ports), an
// HTTPS webhook receiver and an origin per application, and 2 × api,
// 2 × checker, 2 × webhook-dispatcher, 2 × edge-proxy under a supervisor.
import { randomBytes } from 'node:crypto';
import { createDataStore } from '@cds/data';
import { startAcmeProxy, type AcmeProxy } from '../integration/checker/acme-proxy';
import { startPebble, type TestPebble } from '../integration/checker/pebble';
import { startPrivatePostgres, type PrivatePostgres } from '../soak/private-postgres';
import { startTestDns, type TestDns } from '../support/challtestsrv';
import { waitForBuild } from '../support/service-process';
import { createTestCa, type TestCa } from '../support/webhook-receiver';
import { startPrivateRabbit, type PrivateRabbit } from './private-rabbit';
import { serviceMain, Supervisor, type ServiceName } from './supervisor';
import { servicePort } from './service-port';
import { startTcpBalancer, type TcpBalancer } from './tcp-balancer';

export const EDGE_TARGET = 'edge.example.net';
export const REPLICAS = 2;
const SERVICES: ServiceName[] = ['api', 'checker', 'webhook-dispatcher', 'edge-proxy'];
const START_TIMEOUT_MS = 90_000;

export interface Deployment {
  pg: PrivatePostgres;
  rabbit: PrivateRabbit;
  dns: TestDns;
  pebble: TestPebble;
  /** Pebble's issuing root, the only trust anchor of the test's HTTPS clients. */
  pebbleRoot: string;
  acme: AcmeProxy;
  balancer: TcpBalancer;
  receiverCa: TestCa;
  supervisor: Supervisor;
  apiUrls: string[];
  edgeHttpsPorts: number[];
  operatorToken: string;
  deploymentKey: { kid: string; secret: string };
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  runDir: string;
  log: (line: string) => void;
  clock: () => number;
  /** Settings every process gets on top of the deployment's own (schedules, limits). */
  env: Record<string, string>;
}

/** Starts everything; on a failure stops what was started and throws. */
export async function startDeployment(opts: DeploymentOptions): Promise<Deployment> {
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const step of stops.reverse()) await step().catch((err: unknown) => opts.log(`teardown step failed: ${String(err)}`));
  };
  try {
    for (const service of SERVICES) await waitForBuild(serviceMain(service));
    const pg = await startPrivatePostgres({ port: await servicePort() });
    stops.push(() => pg.remove());
    opts.log(`PostgreSQL cluster of the run on 127.0.0.1:${pg.port} (${pg.dataDir})`);
    const store = await createDataStore({ url: pg.url });
    const applied = await store.migrate();
    await store.close();
    opts.log(`schema migrated (${applied.length} migrations), as the deploy step does`);

    const rabbit = await startPrivateRabbit();
    stops.push(() => rabbit.remove());
    opts.log(`RabbitMQ node ${rabbit.node} of the run on 127.0.0.1:${rabbit.port}, vhost ${rabbit.vhost}`);

    const dns = await startTestDns({ defaultIPv4: '127.0.0.1' });
    stops.push(() => dns.stop());

    const edgeHttpsPorts = [await servicePort(), await servicePort()];
    const edgeHttpPorts = [await servicePort(), await servicePort()];
    const balancer = await startTcpBalancer(edgeHttpPorts);
    stops.push(() => balancer.close());
    const pebble = await startPebble({ httpPort: balancer.port, dnsServer: dns.server });
    stops.push(() => pebble.stop());
    const acme = await startAcmeProxy(pebble);
    stops.push(() => acme.close());
    const pebbleRoot = await pebble.management('/roots/0');
    opts.log(`Pebble at ${pebble.directoryUrl} (through the recording proxy ${acme.directoryUrl}); HTTP-01 via the balancer on ${balancer.port} -> edges ${edgeHttpPorts.join(', ')}`);

    const receiverCa = createTestCa();
    stops.push(async () => receiverCa.remove());

    const operatorToken = randomBytes(32).toString('base64url');
    const deploymentKey = { kid: 'deployment', secret: randomBytes(32).toString('base64url') };
    const common: Record<string, string> = {
      DATABASE_URL: pg.url,
      AMQP_URL: rabbit.url,
      OPERATOR_TOKEN: operatorToken,
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ASSERTION_DEPLOYMENT_KEY: deploymentKey.secret,
      ASSERTION_DEPLOYMENT_KID: deploymentKey.kid,
      LOG_LEVEL: 'warn',
      EDGE_TARGET,
      DNS_SERVERS: dns.server,
      CERT_ISSUER: 'acme',
      ACME_DIRECTORY_URL: acme.directoryUrl,
      ACME_CA_BUNDLE: pebble.caBundle,
      WEBHOOK_CA_BUNDLE: receiverCa.caFile,
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
      ORIGIN_TIMEOUT: '5s',
      ...opts.env,
    };
    const supervisor = new Supervisor(opts.runDir, opts.log, opts.clock);
    stops.push(() => supervisor.stopAll(25_000));
    const apiUrls: string[] = [];
    for (const service of SERVICES) {
      for (let i = 0; i < REPLICAS; i++) {
        const env = { ...common };
        if (service === 'api') {
          const port = await servicePort();
          env.API_PORT = String(port);
          apiUrls.push(`http://127.0.0.1:${port}`);
        }
        if (service === 'edge-proxy') {
          env.EDGE_HTTPS_PORT = String(edgeHttpsPorts[i]);
          env.EDGE_HTTP_PORT = String(edgeHttpPorts[i]);
        }
        const spec = { name: `${service}-${i + 1}`, service, env, metricsPort: await servicePort() };
        supervisor.add(spec);
        const ports = [env.API_PORT && `API_PORT ${env.API_PORT}`, env.EDGE_HTTPS_PORT && `EDGE_HTTPS_PORT ${env.EDGE_HTTPS_PORT}`, env.EDGE_HTTP_PORT && `EDGE_HTTP_PORT ${env.EDGE_HTTP_PORT}`, `METRICS_PORT ${spec.metricsPort}`];
        opts.log(`${spec.name}: ${ports.filter(Boolean).join(', ')}`);
      }
    }
    await supervisor.startAll(START_TIMEOUT_MS);
    opts.log(`8 service processes ready: ${supervisor.names().map((n) => `${n} pid ${supervisor.pid(n)}`).join(', ')}`);
    return { pg, rabbit, dns, pebble, pebbleRoot, acme, balancer, receiverCa, supervisor, apiUrls, edgeHttpsPorts, operatorToken, deploymentKey, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
