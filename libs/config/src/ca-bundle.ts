// The CA bundles of the database and broker connections (DATABASE_CA_BUNDLE,
// AMQP_CA_BUNDLE), read and checked once at start: a wrong path or a file
// without a certificate stops the service naming the variable, instead of
// failing every TLS handshake later with a message about the server.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InvalidValueError } from './invalid-value';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The text of a readable PEM file that holds at least one certificate, each of which parses. */
export function readCaBundle(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InvalidValueError(`must be a readable PEM file of CA certificates (${code})`);
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new InvalidValueError('must be a PEM file holding at least one certificate');
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw new InvalidValueError('must hold PEM certificates that parse');
    }
  }
  return text;
}

/** The variable's parser: the path, once the file has passed readCaBundle. */
export function parseCaBundlePath(path: string): string {
  readCaBundle(path);
  return path;
}
