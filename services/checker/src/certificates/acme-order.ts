// One RFC 8555 order for one hostname, answered over HTTP-01, or over DNS-01
// in the zone the hostname's challenge is delegated to (DECISIONS §13). acme-client's
// auto() builds the newOrder payload from the CSR alone, so a renewal could
// not name the certificate it replaces (RFC 9773 §5); this is the same flow
// with the order placed here.
import type * as acme from 'acme-client';
import type { DnsChallengeWriter } from './dns-challenge-writer';

export interface OrderRequest {
  hostname: string;
  /** PEM certificate signing request for the hostname. */
  csr: Buffer;
  /** RFC 9773 certificate identifier of the certificate this order replaces, or null. */
  replaces: string | null;
  saveChallenge(token: string, keyAuthorization: string): Promise<void>;
  removeChallenge(token: string): Promise<void>;
  /** Told when the CA refused `replaces` and the order was placed again without it. */
  onReplacesRefused?(err: unknown): void;
  /** Set: answer DNS-01 with a TXT record at `name` (the hostname's name in ACME_DNS_ZONE) instead of HTTP-01. */
  dns01?: Dns01Answer | null;
}

export interface Dns01Answer {
  name: string;
  /** Writes the TXT record and waits until the zone answers it; removes it (dns-challenge-writer.ts). */
  writer: Pick<DnsChallengeWriter, 'publish' | 'remove'>;
}

/** Order states a checker can carry on from: the CA still has work to do, or the certificate to hand out. */
const RESUMABLE: ReadonlySet<string> = new Set(['pending', 'ready', 'processing', 'valid']);

/**
 * The order at `url` as the CA has it now, when it can still give a
 * certificate; null when it failed, expired or cannot be read (a new order is
 * placed then).
 */
export async function resumableOrder(client: acme.Client, url: string): Promise<acme.Order | null> {
  try {
    const order = await client.getOrder({ url } as acme.Order);
    return RESUMABLE.has(order.status) ? order : null;
  } catch {
    return null;
  }
}

/**
 * Carries `existing` (an order an earlier try placed, see resumableOrder) to
 * its end, or places a new one and tells `onPlaced` of it; answers the
 * challenges still open, finalizes, and returns the PEM chain, leaf first.
 */
export async function orderCertificate(
  client: acme.Client,
  req: OrderRequest,
  existing: acme.Order | null = null,
  onPlaced?: (order: acme.Order) => Promise<void>,
): Promise<string> {
  let order = existing;
  if (!order) {
    order = await placeOrder(client, req);
    await onPlaced?.(order);
  }
  if (order.status === 'pending' || order.status === 'ready') {
    for (const authz of await client.getAuthorizations(order)) {
      if (authz.status !== 'valid') await authorize(client, authz, req);
    }
    order = await client.finalizeOrder(order, req.csr);
  }
  // Waits while the CA is still processing the order.
  return client.getCertificate(order);
}

async function placeOrder(client: acme.Client, req: OrderRequest): Promise<acme.Order> {
  const identifiers = [{ type: 'dns', value: req.hostname }];
  if (!req.replaces) return client.createOrder({ identifiers });
  // acme-client sends the payload as given; its type predates RFC 9773.
  const withReplaces: Parameters<acme.Client['createOrder']>[0] & { replaces: string } = { identifiers, replaces: req.replaces };
  try {
    return await client.createOrder(withReplaces);
  } catch (err) {
    // A CA may refuse the link (already replaced, or a certificate it did not
    // issue); RFC 9773 has the client order again without it.
    req.onReplacesRefused?.(err);
    return client.createOrder({ identifiers });
  }
}

async function authorize(client: acme.Client, authz: acme.Authorization, req: OrderRequest): Promise<void> {
  const type = req.dns01 ? 'dns-01' : 'http-01';
  const challenge = authz.challenges.find((c) => c.type === type);
  if (!challenge) throw new Error(`the CA offered no ${type} challenge for ${authz.identifier.value}`);
  // For dns-01, acme-client gives the TXT value: the key authorization's SHA-256, base64url.
  const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
  const { dns01 } = req;
  let completed = false;
  try {
    if (dns01) await dns01.writer.publish(dns01.name, keyAuthorization);
    else await req.saveChallenge(challenge.token, keyAuthorization);
    // The edges answer from the database, and the zone's own server has answered the TXT: asking ourselves proves nothing more.
    await client.completeChallenge(challenge);
    completed = true;
    await client.waitForValidStatus(challenge);
  } catch (err) {
    // An authorization left pending would be reused by the CA for the next order.
    if (!completed) await client.deactivateAuthorization(authz).catch(() => undefined);
    throw err;
  } finally {
    if (dns01) await dns01.writer.remove(dns01.name, keyAuthorization).catch(() => undefined);
    else await req.removeChallenge(challenge.token).catch(() => undefined);
  }
}
