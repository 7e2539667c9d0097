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

/** Places the order under the client's account, answers its challenge, finalizes it; the PEM chain, leaf first. */
export async function orderCertificate(client: acme.Client, req: OrderRequest): Promise<string> {
  const order = await placeOrder(client, req);
  for (const authz of await client.getAuthorizations(order)) {
    if (authz.status !== 'valid') await authorize(client, authz, req);
  }
  const finalized = await client.finalizeOrder(order, req.csr);
  return client.getCertificate(finalized);
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
