import { randomBytes } from 'node:crypto';
import { loadConfig } from '@cds/config';
import { startBanner, type BannerFacts } from './banner';

const secrets = { DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url') };
const ports: BannerFacts['ports'] = { api: 8080, operator: null, edgeHttps: 8443, edgeHttp: 8081, metrics: 9464 };

function banner(env: Record<string, string>, facts: Partial<BannerFacts> = {}): string {
  const config = loadConfig({ mode: 'all-in-one', env: { ...secrets, ...env } });
  return startBanner({ config, ports, operatorTokenFile: '/srv/cds/data/operator-token', cwd: '/srv/cds', ...facts });
}

describe('startBanner', () => {
  it('says where every part is and what to run next', () => {
    expect(banner({})).toBe(
      [
        '',
        'Custom Domain Service (all-in-one) is running.',
        '',
        '  API             http://127.0.0.1:8080/v1  (OpenAPI: http://127.0.0.1:8080/v1/openapi.json)',
        '  Operator API    http://127.0.0.1:8080/operator/v1',
        '  Operator token  ./data/operator-token',
        "  Edge HTTPS      127.0.0.1:8443  (TLS by SNI: a ready domain's hostname)",
        '  Edge HTTP       127.0.0.1:8081  (ACME HTTP-01 answers, redirects to HTTPS)',
        '  Metrics         http://127.0.0.1:9464/metrics  (health: http://127.0.0.1:9464/healthz, http://127.0.0.1:9464/readyz)',
        '  Data            ./data/custom-domains.sqlite  (SQLite)',
        '',
        'Next:',
        '  make demo  see a domain verified, certified and served on this machine',
        '  README.md  the five-minute tour against this service: an application, a credential, a domain',
        '  Ctrl-C     stops this service',
        '',
        '',
      ].join('\n'),
    );
  });

  it('shows the bound ports, an operator port of its own, IPv6 in brackets and a token from the environment', () => {
    const text = banner({ BIND_ADDRESS: '::1', OPERATOR_PORT: '9000' }, { ports: { ...ports, api: 40001, operator: 40002 }, operatorTokenFile: null });
    expect(text).toContain('API             http://[::1]:40001/v1');
    expect(text).toContain('Operator API    http://[::1]:40002/operator/v1');
    expect(text).toContain('Operator token  from the OPERATOR_TOKEN variable');
  });

  it('names a data file outside the working directory by its absolute path, and PostgreSQL without its password', () => {
    expect(banner({ DATABASE_URL: 'sqlite:/tmp/x.sqlite' })).toContain('Data            /tmp/x.sqlite  (SQLite)');
    const postgres = banner({ DATABASE_URL: 'postgres://cds:hunter2@db.internal:5432/cds' });
    expect(postgres).toContain('Data            PostgreSQL at db.internal:5432/cds');
    expect(postgres).not.toContain('hunter2');
  });

  it('says when the operator API is off', () => {
    expect(banner({ OPERATOR_API_ENABLED: 'false' })).toContain('Operator API    off (OPERATOR_API_ENABLED=false)');
  });
});
