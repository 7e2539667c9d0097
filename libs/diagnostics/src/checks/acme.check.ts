// Each directory of ACME_DIRECTORY_URL answers with an RFC 8555 directory (when CERT_ISSUER=acme).
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { errorMessage } from '@cds/core';
import type { Config } from '@cds/config';
import { FINDING_STATUSES, formatSeconds, type Check, type Finding } from '../check';
import { CHECK_NAMES } from '../check-names';

const TIMEOUT_MS = 5000;
const MAX_BODY_BYTES = 64 * 1024;
const DIRECTORY_FIELDS = ['newNonce', 'newAccount', 'newOrder'] as const;

export type AcmeCheckConfig = Pick<Config, 'certIssuer' | 'acmeDirectories' | 'acmeCaBundle'>;

export function acmeCheck(config: AcmeCheckConfig): Check {
  return {
    name: CHECK_NAMES.acme,
    // A little past the request's own timeout, so its clearer message wins.
    timeoutMs: TIMEOUT_MS + 1000,
    run: async () => {
      if (config.certIssuer !== 'acme') return { status: FINDING_STATUSES.ok, message: `not used: CERT_ISSUER=${config.certIssuer}` };
      const findings = await Promise.all(config.acmeDirectories.map((directory) => directoryFinding(directory.url, config.acmeCaBundle)));
      return oneFinding(findings);
    },
  };
}

/** One directory's finding as it is; several: every message, `warn` while another directory can still issue, `fail` when none can. */
function oneFinding(findings: Finding[]): Finding {
  const [only] = findings;
  if (findings.length === 1 && only) return only;
  const failed = findings.filter((f) => f.status !== FINDING_STATUSES.ok).length;
  const status = failed === 0 ? FINDING_STATUSES.ok : failed === findings.length ? FINDING_STATUSES.fail : FINDING_STATUSES.warn;
  return { status, message: findings.map((f) => f.message).join('; ') };
}

async function directoryFinding(url: string, caBundle: string | null): Promise<Finding> {
  let ca: string[] | undefined;
  if (caBundle) {
    try {
      ca = [...rootCertificates, await readFile(caBundle, 'utf8')];
    } catch (error) {
      return { status: FINDING_STATUSES.fail, message: `ACME_CA_BUNDLE cannot be read: ${errorMessage(error)}` };
    }
  }
  let answer: { status: number; body: string };
  try {
    answer = await get(url, ca);
  } catch (error) {
    return { status: FINDING_STATUSES.fail, message: `${url} did not answer: ${errorMessage(error)}` };
  }
  if (answer.status !== 200) return { status: FINDING_STATUSES.fail, message: `${url} answered HTTP ${answer.status}` };
  let directory: unknown;
  try {
    directory = JSON.parse(answer.body);
  } catch {
    directory = null;
  }
  const missing = DIRECTORY_FIELDS.filter((field) => typeof (directory as Record<string, unknown> | null)?.[field] !== 'string');
  if (missing.length > 0) return { status: FINDING_STATUSES.fail, message: `${url} is not an ACME directory (no ${missing.join(', ')})` };
  return { status: FINDING_STATUSES.ok, message: `${url} answered with an ACME directory` };
}

function get(url: string, ca: string[] | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const options = { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' }, ...(ca ? { ca } : {}) };
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    };
    const req = url.startsWith('https:') ? https.get(url, options, onResponse) : http.get(url, options, onResponse);
    req.on('error', (error) => reject(error.name === 'AbortError' ? new Error(`no answer within ${formatSeconds(TIMEOUT_MS)}`) : error));
  });
}
