// What `make run` prints once everything listens: where each part is and what
// to run next. Pure, from the configuration and the ports actually bound.
import path from 'node:path';
import type { Config } from '@cds/config';
import { parseDatabaseUrl } from '@cds/core';

export interface BannerFacts {
  readonly config: Config;
  /** The bound ports (a configured 0 becomes a real one). */
  readonly ports: { readonly api: number; readonly operator: number | null; readonly edgeHttps: number; readonly edgeHttp: number; readonly metrics: number };
  /** The operator token's file; null when OPERATOR_TOKEN set it. */
  readonly operatorTokenFile: string | null;
  /** Paths are shown relative to it when inside it. */
  readonly cwd: string;
}

/** An address as it goes into a URL: IPv6 in brackets. */
const urlHost = (address: string) => (address.includes(':') ? `[${address}]` : address);

function shownPath(file: string, cwd: string): string {
  const absolute = path.resolve(cwd, file);
  const relative = path.relative(cwd, absolute);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? `./${relative}` : absolute;
}

/** The database as a person would look for it: the SQLite file, or the PostgreSQL server without its password. */
function dataShown(databaseUrl: string, cwd: string): string {
  const parsed = parseDatabaseUrl(databaseUrl);
  if (parsed.kind === 'sqlite') return `${shownPath(parsed.path, cwd)}  (SQLite)`;
  const url = new URL(parsed.url);
  return `PostgreSQL at ${url.host}${url.pathname}`;
}

export function startBanner({ config, ports, operatorTokenFile, cwd }: BannerFacts): string {
  const host = urlHost(config.bindAddress);
  const api = `http://${host}:${ports.api}`;
  const operator = config.operatorApiEnabled ? `http://${host}:${ports.operator ?? ports.api}/operator/v1` : 'off (OPERATOR_API_ENABLED=false)';
  const token = operatorTokenFile === null ? 'from the OPERATOR_TOKEN variable' : shownPath(operatorTokenFile, cwd);
  const metrics = `http://${host}:${ports.metrics}`;
  const rows: Array<[string, string]> = [
    ['API', `${api}/v1  (OpenAPI: ${api}/v1/openapi.json)`],
    ['Operator API', operator],
    ['Operator token', token],
    ['Edge HTTPS', `${host}:${ports.edgeHttps}  (TLS by SNI: a ready domain's hostname)`],
    ['Edge HTTP', `${host}:${ports.edgeHttp}  (ACME HTTP-01 answers, redirects to HTTPS)`],
    ['Metrics', `${metrics}/metrics  (health: ${metrics}/healthz, ${metrics}/readyz)`],
    ['Data', dataShown(config.databaseUrl, cwd)],
  ];
  const next: Array<[string, string]> = [
    ['make demo', 'see a domain verified, certified and served on this machine'],
    ['README.md', 'the five-minute tour against this service: an application, a credential, a domain'],
    ['Ctrl-C', 'stops this service'],
  ];
  const table = (lines: Array<[string, string]>) => {
    const width = Math.max(...lines.map(([label]) => label.length)) + 2;
    return lines.map(([label, value]) => `  ${label.padEnd(width)}${value}`).join('\n');
  };
  return `\nCustom Domain Service (all-in-one) is running.\n\n${table(rows)}\n\nNext:\n${table(next)}\n\n`;
}
