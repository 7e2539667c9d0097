// A visitor's view: the hostname over HTTPS through the edge, with curl.
// Trusting the internal CA: the service has no endpoint that hands it out,
// so the demo takes it from the chain the edge presents for the hostname and
// trusts it only after checking that the leaf is the certificate the
// operator's domain lookup reports (its SHA-256 fingerprint) and that the CA
// signed it.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import tls from 'node:tls';
import type { DomainCertificate } from '@custom-domain-service/client';

/** The certificates the edge presents for `hostname` (SNI), not yet trusted. */
export function presentedChain(port: number, hostname: string): Promise<{ leaf: X509Certificate; issuer: X509Certificate | null }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: hostname, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
      const leaf = socket.getPeerX509Certificate();
      socket.end();
      if (!leaf) return reject(new Error('the edge presented no certificate'));
      // The next certificate of the presented chain, if the edge sent one.
      const issuer = leaf.issuerCertificate ?? null;
      resolve({ leaf, issuer: issuer && issuer.fingerprint256 !== leaf.fingerprint256 ? issuer : null });
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error('TLS handshake timed out')));
    socket.once('error', reject);
  });
}

/** The edge answered, with a chain the demo must not trust. */
export class UntrustedChainError extends Error {}

const hex = (fingerprint: string) => fingerprint.replace(/:/g, '').toLowerCase();

/**
 * The internal CA that signed `hostname`'s certificate, written as PEM to `file`, once the leaf the edge presents
 * is the one in the operator's lookup and the CA's signature on it checks out. Throws otherwise.
 */
export async function trustInternalCa(port: number, hostname: string, certificate: DomainCertificate, file: string): Promise<X509Certificate> {
  const { leaf, issuer } = await presentedChain(port, hostname);
  if (certificate.fingerprint_sha256 === null || hex(leaf.fingerprint256) !== certificate.fingerprint_sha256.toLowerCase()) {
    throw new UntrustedChainError(`the edge presents a certificate (SHA-256 ${hex(leaf.fingerprint256)}) other than the one the operator's lookup reports (${certificate.fingerprint_sha256})`);
  }
  if (!issuer) throw new UntrustedChainError('the edge presented the certificate without the CA that signed it');
  if (!issuer.ca || !leaf.checkIssued(issuer) || !leaf.verify(issuer.publicKey)) throw new UntrustedChainError(`${issuer.subject} did not sign the presented certificate`);
  if (!issuer.checkIssued(issuer) || !issuer.verify(issuer.publicKey)) throw new UntrustedChainError(`${issuer.subject} is not a self-signed root`);
  if (!leaf.checkHost(hostname)) throw new UntrustedChainError(`the certificate is not for ${hostname}`);
  writeFileSync(file, issuer.toString());
  return issuer;
}

export interface CurlResult {
  /** The command line, ready to copy. */
  command: string;
  exitCode: number;
  /** What curl wrote: the answer's body, then the `HTTP/<version> <status>` line of --write-out (and any error). */
  output: string;
  /** `1.1` or `2`. */
  httpVersion: string;
  status: number;
}

/** The command line of curlEdge, ready to copy. */
export function curlCommand(args: string[]): string {
  return `curl ${args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a}'`)).join(' ')}`;
}

/** The arguments of `curl --http1.1|--http2 --resolve <hostname>:<port>:127.0.0.1 --cacert <ca> https://<hostname>:<port>/`. */
export function curlArgs(hostname: string, port: number, caFile: string, http2: boolean): string[] {
  return [
    '-sS', http2 ? '--http2' : '--http1.1', '--resolve', `${hostname}:${port}:127.0.0.1`, '--cacert', caFile,
    '--write-out', 'HTTP/%{http_version} %{response_code}\\n', `https://${hostname}:${port}/`,
  ];
}

/** Runs curl with `args` (curlArgs). */
export function curl(args: string[]): Promise<CurlResult> {
  const command = curlCommand(args);
  return new Promise((resolve) => {
    execFile('curl', args, { timeout: 15_000 }, (error, stdout, stderr) => {
      const match = /HTTP\/(\S+) (\d{3})\s*$/.exec(stdout);
      resolve({
        command,
        exitCode: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
        output: `${stdout}${stderr}`,
        httpVersion: match?.[1] ?? '',
        status: Number(match?.[2] ?? 0),
      });
    });
  });
}
