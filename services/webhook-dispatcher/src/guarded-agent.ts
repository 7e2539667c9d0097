// The HTTPS agent of every delivery. Its `lookup` resolves the receiver's name
// at connect time and refuses unless every address is public (or explicitly
// allowed), so a name that turned private after the subscription was created
// (DNS rebinding) is never connected to: the socket only ever gets the
// addresses checked here.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { isIPv6, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { refusedAddress, type WebhookUrlProblem } from '@cds/core';
import { resolveAddresses } from '@cds/outbound';

export interface TargetPolicy {
  dnsServers: readonly string[];
  allowPrivateCidrs: readonly string[];
}

/**
 * A receiver address the policy forbids; nothing was sent to it. The message
 * (the attempt's error, shown to the application) names the URL's host and the
 * reason, never the address the host resolved to.
 */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
  constructor(
    readonly host: string,
    readonly problem: WebhookUrlProblem,
  ) {
    super(problem.reason === 'unresolvable' ? 'the receiver host name does not resolve' : `refused to connect to ${host}: ${problem.reason} address`);
    this.name = 'RefusedAddressError';
  }
}

function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAddresses(hostname, policy.dnsServers).then(
      (found) => {
        const problem = refusedAddress(found, policy.allowPrivateCidrs);
        if (problem) {
          callback(new RefusedAddressError(hostname, problem), '', 4);
          return;
        }
        const addresses = found
          .map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
          .filter((a) => !options.family || a.family === options.family);
        const [first] = addresses;
        if (!first) callback(Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
        else if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}

/** Keep-alive agent with the guarded lookup; `caBundle` (WEBHOOK_CA_BUNDLE) is trusted beside the usual roots. */
export function guardedAgent(policy: TargetPolicy, caBundle: string | null, maxSockets: number): https.Agent {
  // One secure context built once: a `ca` option would be parsed again for every
  // connection and concatenated into the agent's pool key for every request.
  const secureContext = caBundle ? tls.createSecureContext({ ca: [...tls.rootCertificates, readFileSync(caBundle, 'utf8')] }) : undefined;
  return new https.Agent({ keepAlive: true, maxSockets, ...(secureContext ? { secureContext } : {}), lookup: guardedLookup(policy) });
}
