import { AppError, parseWebhookUrl, refusedAddress, type WebhookUrlProblem, type WebhookUrlRefusal } from '@cds/core';
import { resolveAddresses } from '@cds/outbound';
import type { WebhookSettings } from './webhook-settings';

const MAX_URL_LENGTH = 2048;

const EXPLANATION: Record<WebhookUrlRefusal, string> = {
  invalid_url: 'is not a valid URL',
  scheme_not_https: 'must use https',
  credentials_in_url: 'must not carry a user name or password',
  unresolvable: 'has a host name that does not resolve',
  unspecified: 'leads to an unspecified address',
  loopback: 'leads to a loopback address',
  private: 'leads to a private address',
  link_local: 'leads to a link-local address',
  cgnat: 'leads to a carrier-grade NAT (shared) address',
  multicast: 'leads to a multicast address',
  broadcast: 'leads to the broadcast address',
  reserved: 'leads to a reserved address',
};

/**
 * The refusal names the reason only: the address a name resolved to is the
 * deployment's own knowledge of its networks, never shown to the application.
 */
function refusal(problem: WebhookUrlProblem): AppError {
  return new AppError('invalid_webhook_url', `The webhook URL ${EXPLANATION[problem.reason]}.`, { reason: problem.reason });
}

/**
 * The URL to store (WHATWG-normalized), or invalid_webhook_url: https only, no
 * credentials, and every address the host resolves to public or explicitly allowed.
 */
export async function checkWebhookUrl(raw: string, settings: WebhookSettings): Promise<string> {
  if (raw.length > MAX_URL_LENGTH) throw refusal({ reason: 'invalid_url' });
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) throw refusal(parsed.problem);
  let addresses: string[];
  if (parsed.ipLiteral !== null) {
    addresses = [parsed.ipLiteral];
  } else {
    try {
      addresses = await resolveAddresses(parsed.hostname, settings.dnsServers);
    } catch (err) {
      const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : 'error';
      throw new AppError('invalid_webhook_url', `The webhook URL's host name could not be resolved (${code}).`, { reason: 'unresolvable', dns_error: code });
    }
  }
  const problem = refusedAddress(addresses, settings.allowPrivateCidrs);
  if (problem) throw refusal(problem);
  return parsed.url.href;
}
