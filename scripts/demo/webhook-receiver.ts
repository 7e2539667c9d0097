// The application's webhook receiver: an HTTPS endpoint on loopback that
// checks every delivery with the typed client's verifyWebhook (the body
// exactly as received, every secret the application holds) and prints what
// it verified. Webhook URLs must be https: its certificate comes from a
// throwaway CA made with openssl, which the service is told to trust
// (WEBHOOK_CA_BUNDLE).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@custom-domain-service/client';
import { heard } from './narrator';

export interface WebhookReceiver {
  readonly url: string;
  /** The CA that signed its certificate: WEBHOOK_CA_BUNDLE. */
  readonly caFile: string;
  /** Accept deliveries signed with this secret (the one POST /v1/webhooks answered). */
  addSecret(secret: string): void;
  /** Every verified event, in the order received. */
  readonly verified: WebhookEvent[];
  close(): Promise<void>;
}

/** A CA and a certificate for 127.0.0.1 signed by it, in `dir`. */
function makeCertificate(dir: string): { caFile: string; key: string; cert: string } {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'receiver-ca.key', '-out', 'receiver-ca.pem', '-days', '2', '-subj', '/CN=Demo webhook receiver CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', 'receiver.key', '-out', 'receiver.csr', '-subj', '/CN=demo webhook receiver');
  writeFileSync(path.join(dir, 'receiver.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', 'receiver.csr', '-CA', 'receiver-ca.pem', '-CAkey', 'receiver-ca.key', '-CAcreateserial',
    '-out', 'receiver.pem', '-days', '2', '-extfile', 'receiver.ext');
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  return { caFile: path.join(dir, 'receiver-ca.pem'), key: read('receiver.key'), cert: read('receiver.pem') };
}

export async function startWebhookReceiver(workDir: string): Promise<WebhookReceiver> {
  let certificate: ReturnType<typeof makeCertificate>;
  try {
    certificate = makeCertificate(workDir);
  } catch (error) {
    throw new Error(`openssl could not make the webhook receiver's certificate: ${error instanceof Error ? error.message : String(error)}`);
  }
  const secrets: string[] = [];
  const verified: WebhookEvent[] = [];

  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      try {
        const event = verifyWebhook(rawBody, req.headers, secrets);
        verified.push(event);
        heard('webhook receiver', `${event.type} for ${event.data.domain.hostname} (status ${event.data.domain.status}): signature verified, event ${event.id}`);
        res.writeHead(204).end();
      } catch (error) {
        const reason = error instanceof WebhookVerificationError ? `${error.reason}: ${error.message}` : String(error);
        heard('webhook receiver', `refused a delivery (${reason}): 400`);
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`${reason}\n`);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/webhooks`,
    caFile: certificate.caFile,
    addSecret: (secret) => void secrets.push(secret),
    verified,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
