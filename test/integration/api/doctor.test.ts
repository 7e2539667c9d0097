// GET /operator/v1/doctor: always 200 with the report once authenticated,
// every answer checked against the served OpenAPI document.
import { expectError, startTestApi, type TestApi } from '../../support/api-harness';
import { startDnsResponder, type DnsResponder } from '../../support/dns-responder';

const DOCTOR = '/operator/v1/doctor';

interface Report {
  status: string;
  checks: Array<{ name: string; status: string; message: string; duration_ms: number }>;
}

let dns: DnsResponder;
const apis: TestApi[] = [];

beforeAll(async () => {
  dns = await startDnsResponder({ 'edge.example.net': '192.0.2.10' });
});
afterAll(async () => {
  for (const api of apis) await api.close();
  await dns?.close();
});

async function api(env: Record<string, string>): Promise<TestApi> {
  const started = await startTestApi({ DNS_SERVERS: dns.server, ...env });
  apis.push(started);
  return started;
}

describe('GET /operator/v1/doctor', () => {
  it('answers 200 with every check; the in-process bus needs no broker', async () => {
    const target = await api({});
    const answer = await target.operator<Report>('GET', DOCTOR);
    expect(answer.status).toBe(200);
    expect(['ok', 'degraded']).toContain(answer.body.status);
    const byName = Object.fromEntries(answer.body.checks.map((c) => [c.name, c]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['database', 'migrations', 'broker', 'queue:checker', 'edge_target', 'clock_skew']));
    expect(byName.database?.status).toBe('ok');
    expect(byName.broker?.message).toContain('in-process bus');
    expect(byName.edge_target).toMatchObject({ status: 'ok', message: 'edge.example.net resolves to 192.0.2.10' });
    expect(byName.acme_directory?.message).toBe('not used: CERT_ISSUER=internal');
  });

  it('still answers 200 when a dependency is down: the report says failing', async () => {
    const target = await api({ AMQP_URL: 'amqp://guest:guest@127.0.0.1:1' });
    const answer = await target.operator<Report>('GET', DOCTOR);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('failing');
    expect(answer.body.checks.find((c) => c.name === 'broker')?.status).toBe('fail');
  });

  it('needs the operator token', async () => {
    const target = apis[0] as TestApi;
    expectError(await target.request('GET', DOCTOR), 401, 'unauthorized');
  });
});
