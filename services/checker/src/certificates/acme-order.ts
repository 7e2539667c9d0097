// One RFC 8555 order for one hostname, answered over HTTP-01. acme-client's
// auto() builds the newOrder payload from the CSR alone, so a renewal could
// not name the certificate it replaces (RFC 9773 §5); this is the same flow
// with the order placed here.
import type * as acme from 'acme-client';

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
  const challenge = authz.challenges.find((c) => c.type === 'http-01');
  if (!challenge) throw new Error(`the CA offered no http-01 challenge for ${authz.identifier.value}`);
  const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
  let completed = false;
  try {
    await req.saveChallenge(challenge.token, keyAuthorization);
    // The edges answer from the database; asking the hostname ourselves proves nothing more.
    await client.completeChallenge(challenge);
    completed = true;
    await client.waitForValidStatus(challenge);
  } catch (err) {
    // An authorization left pending would be reused by the CA for the next order.
    if (!completed) await client.deactivateAuthorization(authz).catch(() => undefined);
    throw err;
  } finally {
    await req.removeChallenge(challenge.token).catch(() => undefined);
  }
}
