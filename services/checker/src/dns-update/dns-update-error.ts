// The one error of the DNS update client, with a reason to act on and a
// message an operator can follow; and the reading of an answer's response
// code and TSIG into it.
import type { ResponseTsig } from './tsig';

export type DnsUpdateFailure =
  /** The server refused the TSIG key: BADSIG, BADKEY, BADTIME (NOTAUTH with a TSIG error). */
  | 'tsig_refused'
  /** REFUSED, or NOTAUTH without a TSIG error: the policy or the server's zones do not allow it. */
  | 'refused'
  /** NOTZONE from the server, or a name outside ACME_DNS_ZONE refused before sending. */
  | 'not_zone'
  /** No connection, or no answer within the timeout. */
  | 'unreachable'
  /** SERVFAIL and any other failure of the server, or an answer that is not what was asked for. */
  | 'server_failure';

export class DnsUpdateError extends Error {
  override readonly name = 'DnsUpdateError';
  constructor(readonly reason: DnsUpdateFailure, message: string) {
    super(message);
  }
}

/** What an answer is about, for the messages. */
export interface UpdateContext {
  /** `host:port` of the update server. */
  server: string;
  zone: string;
  keyName: string;
  /** What was asked, e.g. "adding the TXT record at _acme-challenge.x.acme.example.com". */
  action: string;
}

const KEY_SETTING = 'ACME_DNS_TSIG_KEY';

function tsigRefusal(ctx: UpdateContext, tsig: Extract<ResponseTsig, { status: 'error' }>, nowSeconds: number): DnsUpdateError {
  const refused = `the DNS update server ${ctx.server} refused the TSIG key ${ctx.keyName} (${tsig.errorName})`;
  switch (tsig.errorName) {
    case 'BADSIG':
      return new DnsUpdateError('tsig_refused', `${refused}: ${KEY_SETTING} does not match the key the zone ${ctx.zone} accepts (the secret differs)`);
    case 'BADKEY':
      return new DnsUpdateError('tsig_refused', `${refused}: the server knows no key of that name and algorithm; ${KEY_SETTING} does not match the key the zone ${ctx.zone} accepts`);
    case 'BADTIME': {
      const skew = tsig.serverTime === undefined ? '' : ` by ${Math.round(Math.abs(nowSeconds - tsig.serverTime))} s`;
      return new DnsUpdateError('tsig_refused', `${refused}: this host's clock and the server's differ${skew}, more than the signature allows; synchronise both clocks (NTP)`);
    }
    default:
      return new DnsUpdateError('tsig_refused', `${refused}: ${KEY_SETTING} does not match the key the zone ${ctx.zone} accepts`);
  }
}

/**
 * The error an UPDATE answer means, or undefined when the update was done:
 * a TSIG error first, then the response code, and last a NOERROR that is not
 * signed by the key (it cannot be trusted to say the update was made).
 */
export function updateAnswerError(ctx: UpdateContext, rcode: string, tsig: ResponseTsig, nowSeconds: number): DnsUpdateError | undefined {
  if (tsig.status === 'error') return tsigRefusal(ctx, tsig, nowSeconds);
  switch (rcode) {
    case 'NOERROR':
      if (tsig.status === 'valid') return undefined;
      return new DnsUpdateError('server_failure', tsig.status === 'missing'
        ? `the DNS update server ${ctx.server} answered ${ctx.action} without a TSIG signature: it does not seem to use the key ${ctx.keyName}; check ACME_DNS_UPDATE_SERVER`
        : `the DNS update server ${ctx.server} answered ${ctx.action} with a TSIG signature that does not verify (${tsig.problem})`);
    case 'NOTAUTH':
      return new DnsUpdateError('refused', `the DNS update server ${ctx.server} is not authoritative for the zone ${ctx.zone} (NOTAUTH) when ${ctx.action}: point ACME_DNS_UPDATE_SERVER at the zone's primary server, or ACME_DNS_ZONE at a zone it serves`);
    case 'REFUSED':
      return new DnsUpdateError('refused', `the DNS update server ${ctx.server} refused ${ctx.action} (REFUSED): its update policy for the zone ${ctx.zone} (allow-update or update-policy) does not let the key ${ctx.keyName} change that name`);
    case 'NOTZONE':
      return new DnsUpdateError('not_zone', `the DNS update server ${ctx.server} answered NOTZONE to ${ctx.action}: the name is not in the zone ${ctx.zone} as the server has it; check ACME_DNS_ZONE`);
    default:
      return new DnsUpdateError('server_failure', `the DNS update server ${ctx.server} failed ${ctx.action} (${rcode}); its log says why`);
  }
}
