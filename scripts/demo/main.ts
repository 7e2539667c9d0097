// `make demo`: the whole flow of the Custom Domain Service on this machine.
// It starts a DNS server, the service (all-in-one), an origin and a webhook
// receiver on loopback, then plays the operator, the application and the
// customer through the public HTTP API, and visits the hostname through the
// edge. Everything keeps running until Ctrl-C; DEMO_EXIT=1 stops after the
// last step and exits 0 (non-zero with a message on any failure).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CustomDomainClient, CustomDomainOperatorClient, type Domain, type WebhookEvent } from '@custom-domain-service/client';
import { waitFor, type Child } from './children';
import { startDemoOrigin, type DemoOrigin } from './demo-origin';
import { fqdn, startDnsServer, type DnsServer } from './dns-server';
import { curl, curlArgs, curlCommand, trustInternalCa, UntrustedChainError, type CurlResult } from './edge-visit';
import { printedFetch } from './http-calls';
import { answer, bold, dim, elapsed, failed, line, ok, say, section, step, title } from './narrator';
import { OperatorApi } from './operator-api';
import { startService, type Service } from './service';
import { API_REQUESTS_PER_MINUTE, APPLICATION, HEALTH_PATH, HOSTNAME, POLL_MS, readSettings, SHORT_SCHEDULES, WAIT_MS, WORKSPACE } from './settings';
import { DomainWatch } from './watch-domain';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

interface Running {
  workDir: string;
  dns?: DnsServer;
  service?: Service;
  origin?: DemoOrigin;
  receiver?: WebhookReceiver;
}

interface Outcome {
  domain: Domain;
  readySeconds: string;
  visits: CurlResult[];
  kid: string;
  webhook: WebhookEvent;
  apiKey: string;
}

const settings = readSettings();
const running: Running = { workDir: mkdtempSync(path.join(tmpdir(), 'cds-demo-')) };

/** Rejects as soon as a child stops on its own: the story cannot go on without it. */
let childFailed: (error: Error) => void = () => undefined;
const childFailure = new Promise<never>((_, reject) => (childFailed = reject));
childFailure.catch(() => undefined);
const onUnexpectedExit = (child: Child) => {
  childFailed(new Error(`${child.name} stopped on its own (${child.exit})${child.explain ? `; ${child.explain()}` : ''}`));
};

async function startPieces(): Promise<void> {
  section('Starting the pieces, on 127.0.0.1 and free ports');
  say(`Work directory: ${running.workDir}`);
  const dns = (running.dns = await startDnsServer(onUnexpectedExit));
  say(`DNS server        pebble-challtestsrv, DNS ${dns.address}, management API ${dns.management}`);
  say(dim('                  the resolver the checker asks, and the customer\'s DNS provider'));
  const origin = (running.origin = await startDemoOrigin(APPLICATION.slug, HEALTH_PATH));
  say(`Origin            ${origin.url}`);
  say(dim('                  the application\'s web server; it checks the edge\'s assertion'));
  const receiver = (running.receiver = await startWebhookReceiver(running.workDir));
  say(`Webhook receiver  ${receiver.url}`);
  say(dim('                  the application\'s endpoint; it checks signatures with verifyWebhook'));
  const startedAt = Date.now();
  const service = (running.service = await startService({ workDir: running.workDir, dnsServer: dns.address, webhookCaFile: receiver.caFile }, onUnexpectedExit));
  say(`Service           node services/all-in-one/dist/main.js, SQLite in ${path.join(running.workDir, 'data')}, started with`);
  for (const group of service.environment) say(`                    ${group}`);
  say(`                  API ${service.apiUrl}, edge HTTPS on port ${service.edgeHttpsPort}; ready in ${elapsed(startedAt)}`);
  say(dim(`                  its log: ${service.logFile}`));
}

async function story(): Promise<Outcome> {
  const service = running.service as Service;
  const dns = running.dns as DnsServer;
  const origin = running.origin as DemoOrigin;
  const receiver = running.receiver as WebhookReceiver;
  const operator = new OperatorApi(service.apiUrl, service.operatorToken);

  step('The operator', 'creates the application, its origin and its keys (operator API).');
  say(dim(`The operator token is the one the service wrote at its first start: ${path.join(running.workDir, 'data/operator-token')}`));
  const app = await operator.createApplication({ ...APPLICATION, limits: { api_requests_per_minute: API_REQUESTS_PER_MINUTE } });
  answer(`application ${app.slug}: ${app.status}, plan ${app.plan}, ${app.limits.api_requests_per_minute} API requests a minute (room for polling)`);
  const registered = await operator.registerOrigin(app.slug, { url: origin.url, health_path: HEALTH_PATH });
  answer(`origin ${registered.id}: ${registered.status}`);
  const verified = await operator.verifyOrigin(app.slug, registered.id);
  answer(`${verified.status}: the service probed ${origin.url}${HEALTH_PATH} and got an answer below 500`);
  const active = await operator.activateOrigin(app.slug, registered.id);
  answer(`${active.status}: traffic of ${app.slug}'s domains goes there`);
  const key = await operator.issueAssertionKey(app.slug);
  answer(`assertion key ${key.kid}: the edge signs with it from now on; its secret goes to the origin's configuration`);
  origin.addKey(key.kid, key.secret);
  const credential = await operator.issueCredential(app.slug, 'demo');
  answer(`API key ${credential.prefix}… (shown once) for the application`);

  step('The application', 'subscribes to webhooks and registers its customer\'s hostname (typed client).');
  const application = new CustomDomainClient({ baseUrl: service.apiUrl, apiKey: credential.secret, fetch: printedFetch });
  const hook = await application.webhooks.create({ url: receiver.url, events: ['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted'] });
  answer(`subscription ${hook.id}; its secret goes to the receiver`);
  receiver.addSecret(hook.secret);
  const created = await application.domains.create({ hostname: HOSTNAME, reference: WORKSPACE, metadata: { plan: 'pro' } });
  const registeredAt = Date.now();
  answer(`${created.hostname} is ${created.status}; the customer must publish:`);
  for (const record of created.dns_records) answer(`  ${record.type.padEnd(5)} ${record.name}  ${record.value}`);

  const watch = new DomainWatch(new CustomDomainClient({ baseUrl: service.apiUrl, apiKey: credential.secret }), created, registeredAt);
  say(dim(`Polling GET /v1/domains/${created.id} every ${POLL_MS / 1000} s; each change shows as it is seen (seconds since the registration):`));
  await watch.until('the first check run', WAIT_MS.firstCheck, (d) => d.checks.some((c) => c.status !== 'pending'));
  say(dim('The first check ran at once: the origin answers; the records are not published yet, and the certificate waits for them.'));
  say(dim(`The next checks follow CHECK_SCHEDULE_PENDING=${SHORT_SCHEDULES.CHECK_SCHEDULE_PENDING}.`));

  step('The customer', 'publishes the two records at their DNS provider (the DNS server\'s management API).');
  const [ownership, routing] = created.dns_records;
  if (!ownership || !routing) throw new Error(`expected two DNS records, got ${JSON.stringify(created.dns_records)}`);
  await dns.publishTxt(ownership.name, ownership.value);
  await dns.publishCname(routing.name, routing.value);
  const publishedAt = Date.now();

  step('The service', 'checks ownership, routing, the certificate and the origin; the application keeps polling.');
  const ready = await watch.until(`${HOSTNAME} to become ready`, WAIT_MS.ready, (d) => d.status === 'ready');
  const readySeconds = elapsed(publishedAt);
  say(`${bold(`${HOSTNAME} is ready`)}, ${readySeconds} after the records were published: all four checks pass.`);

  step('A visitor', `opens https://${HOSTNAME} through the edge (curl over HTTPS: HTTP/1.1, then HTTP/2).`);
  say(dim('The service has no endpoint that hands out its internal CA: the demo takes it from the chain the edge presents,'));
  say(dim('and trusts it once the leaf is the certificate the operator\'s domain lookup reports and the CA signed it.'));
  const lookup = await new CustomDomainOperatorClient({ baseUrl: service.apiUrl, operatorToken: service.operatorToken, fetch: printedFetch }).domains.lookup(HOSTNAME);
  const certificate = lookup.certificate;
  if (!certificate) throw new Error(`the operator's lookup of ${HOSTNAME} shows no certificate`);
  answer(`certificate: issuer ${certificate.issuer}, serial ${certificate.serial}, SHA-256 ${certificate.fingerprint_sha256}`);
  const caFile = path.join(running.workDir, 'internal-ca.pem');
  let handshake = 'no handshake yet';
  const ca = await waitFor('the edge to present the certificate', WAIT_MS.edge, 500, () =>
    trustInternalCa(service.edgeHttpsPort, HOSTNAME, certificate, caFile).catch((error: unknown) => {
      if (error instanceof UntrustedChainError) throw error;
      handshake = error instanceof Error ? error.message : String(error);
      return undefined; // not served yet: the edge learns of a ready domain within 5 s
    }), () => `the last handshake: ${handshake}`);
  say(`The edge presents that certificate, signed by "${ca.subject.replace(/^CN=/, '')}": saved as ${caFile}`);
  const visits: CurlResult[] = [];
  for (const http2 of [false, true]) {
    const args = curlArgs(HOSTNAME, service.edgeHttpsPort, caFile, http2);
    say(`$ ${curlCommand(args)}`);
    let last: CurlResult | null = null;
    const visit = await waitFor(`an answer from the origin through the edge over HTTP/${http2 ? '2' : '1.1'}`, WAIT_MS.edge, 500, async () => {
      if (last) say(dim(`  (${last.output.trim().split('\n').at(-1)}: the edge serves a domain within 5 s of its change; trying again)`));
      last = await curl(args);
      return last.exitCode === 0 && last.status === 200 ? last : undefined;
    }, () => (last ? `curl exit code ${last.exitCode}: ${last.output}` : 'curl did not run'));
    for (const out of visit.output.trimEnd().split('\n')) say(`  ${out}`);
    if (visit.httpVersion !== (http2 ? '2' : '1.1')) throw new Error(`curl spoke HTTP/${visit.httpVersion}, expected HTTP/${http2 ? '2' : '1.1'}`);
    visits.push(visit);
  }
  const servedWith = origin.served.at(-1);
  if (!servedWith || servedWith.reference !== WORKSPACE || servedWith.hostname !== HOSTNAME || servedWith.sub !== ready.id) {
    throw new Error(`the origin did not verify an assertion for ${HOSTNAME} and ${WORKSPACE}`);
  }

  step('The application', 'hears about it: the domain.ready webhook.');
  const webhook = await waitFor('the domain.ready webhook', WAIT_MS.webhook, 200, async () =>
    receiver.verified.find((e) => e.type === 'domain.ready' && e.data.domain.id === ready.id));
  say(`The receiver verified the delivery's X-Custom-Domain-Signature with verifyWebhook(rawBody, req.headers, [secret]):`);
  answer(`event ${webhook.id}, ${webhook.type}, created ${webhook.created_at}, domain ${webhook.data.domain.hostname} (${webhook.data.domain.status})`);
  return { domain: ready, readySeconds, visits, kid: servedWith.kid, webhook, apiKey: credential.secret };
}

function results(outcome: Outcome): void {
  section('Result');
  ok(`${outcome.domain.hostname} is ready: ownership, routing, certificate and origin passing (${outcome.readySeconds} after the records were published)`);
  ok(`served through the edge over HTTPS (HTTP/${outcome.visits[0]?.httpVersion}) and HTTP/${outcome.visits[1]?.httpVersion}; the origin verified the assertion (kid ${outcome.kid}, workspace ${WORKSPACE})`);
  ok(`webhook ${outcome.webhook.type} received and its signature verified (event ${outcome.webhook.id})`);
}

function whatNext(outcome: Outcome): void {
  const service = running.service as Service;
  const dns = running.dns as DnsServer;
  const dataDir = path.join(running.workDir, 'data');
  section('What to try next (in another terminal, while this one runs)');
  say(dim('# the variables the commands below use'));
  say(`export API=${service.apiUrl} API_KEY=${outcome.apiKey} DOMAIN_ID=${outcome.domain.id}`);
  say(`export CDCTL_URL=${service.apiUrl} OPERATOR_TOKEN=$(cat ${path.join(dataDir, 'operator-token')})`);
  say('');
  say(dim('# the operator\'s view of the hostname: application, certificate, the last check runs'));
  say(`npx cdctl domain show ${HOSTNAME}`);
  say(dim('# ask for a check now (at most once a minute per domain)'));
  say('curl -s -X POST $API/v1/domains/$DOMAIN_ID/checks -H "Authorization: Bearer $API_KEY"');
  const ownership = outcome.domain.dns_records.find((record) => record.purpose === 'ownership');
  say(dim('# take the ownership record away: after three failed runs (about 15 s) the domain needs attention, and a webhook says so'));
  say(`curl -s -X POST ${dns.management}/clear-txt -d '{"host":"${fqdn(ownership?.name ?? '')}"}'`);
  say(dim('# put it back: the domain recovers within seconds (domain.recovered)'));
  say(`curl -s -X POST ${dns.management}/set-txt -d '{"host":"${fqdn(ownership?.name ?? '')}","value":"${ownership?.value ?? ''}"}'`);
  say(dim('# visit it again (the CA stays in the work directory while the demo runs)'));
  say(outcome.visits[1]?.command ?? '');
  say(dim('# delete it, and watch the domain.deleted webhook arrive here'));
  say('curl -s -X DELETE $API/v1/domains/$DOMAIN_ID -H "Authorization: Bearer $API_KEY"');
  say(dim('# read on: README.md, docs/architecture.md, docs/edge.md (the assertion), docs/webhooks.md, docs/operations.md (cdctl)'));
}

let stopping: Promise<void> | null = null;

/** Exits once everything written so far has left (stdout into a pipe is written asynchronously). */
function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/** Stops every piece, the service first (it drains and flushes), then the DNS server, the origin and the receiver. */
function stopAll(keepWorkDir: boolean): Promise<void> {
  stopping ??= (async () => {
    const { service, dns, origin, receiver } = running;
    await service?.child.stop(25_000);
    await dns?.child.stop(5_000);
    await origin?.close();
    await receiver?.close();
    if (!keepWorkDir) rmSync(running.workDir, { recursive: true, force: true });
  })();
  return stopping;
}

async function main(): Promise<void> {
  const started = Date.now();
  let interrupted = false;
  process.on('SIGINT', () => {
    if (interrupted) process.exit(130); // a second Ctrl-C: the exit handlers kill what is left
    interrupted = true;
    line();
    say('Ctrl-C: stopping the service, the DNS server, the origin and the webhook receiver…');
    void stopAll(false).then(() => {
      say('Stopped. The work directory is removed.');
      exitAfterOutput(0);
    });
  });
  process.on('SIGTERM', () => void stopAll(false).then(() => exitAfterOutput(143)));
  // Output piped into a reader that went away (| head) must not end the demo half way.
  process.stdout.on('error', () => undefined);
  const crash = (error: unknown) => {
    failed(`unexpected: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    void stopAll(true).then(() => exitAfterOutput(1));
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);

  title('Custom Domain Service: the whole flow on this machine');
  say(dim('The operator sets up an application, the application registers its customer\'s hostname, the customer publishes'));
  say(dim('two DNS records, the service checks them, issues a certificate and serves the hostname through its edge.'));
  let outcome: Outcome;
  try {
    outcome = await Promise.race([startPieces().then(() => story()), childFailure]);
  } catch (error) {
    if (interrupted) return;
    failed(error instanceof Error ? error.message : String(error));
    say(`Work directory kept for a look (the service's log is service.log there): ${running.workDir}`);
    await stopAll(true);
    return exitAfterOutput(1);
  }
  if (interrupted) return;
  if (settings.exitWhenDone) {
    section(`DEMO_EXIT: stopping everything after ${elapsed(started)}`);
    await stopAll(false);
    say('Stopped: the service, the DNS server, the origin and the webhook receiver; the work directory is removed.');
    results(outcome);
    return exitAfterOutput(0);
  }
  results(outcome);
  whatNext(outcome);
  section(`Everything keeps running (${elapsed(started)} so far). Ctrl-C stops it all.`);
}

void main();
