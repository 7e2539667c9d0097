import { DnsUpdateError, updateAnswerError, type UpdateContext } from './dns-update-error';
import type { ResponseTsig } from './tsig';

const ctx: UpdateContext = { server: '127.0.0.1:5353', zone: 'acme.edge.test', keyName: 'cds-test', action: 'adding the TXT record at _acme-challenge.a.acme.edge.test' };
const valid: ResponseTsig = { status: 'valid' };
const now = 1_700_000_000;

describe('updateAnswerError', () => {
  it('is nothing for a NOERROR signed with the key', () => {
    expect(updateAnswerError(ctx, 'NOERROR', valid, now)).toBeUndefined();
  });

  it('calls a TSIG error a refused key, saying which setting to fix', () => {
    const badsig = updateAnswerError(ctx, 'NOTAUTH', { status: 'error', error: 16, errorName: 'BADSIG' }, now);
    expect(badsig).toBeInstanceOf(DnsUpdateError);
    expect(badsig).toMatchObject({
      name: 'DnsUpdateError', reason: 'tsig_refused',
      message: 'the DNS update server 127.0.0.1:5353 refused the TSIG key cds-test (BADSIG): ACME_DNS_TSIG_KEY does not match the key the zone acme.edge.test accepts (the secret differs)',
    });
    expect(updateAnswerError(ctx, 'NOTAUTH', { status: 'error', error: 17, errorName: 'BADKEY' }, now)).toMatchObject({
      reason: 'tsig_refused', message: expect.stringMatching(/^the DNS update server 127\.0\.0\.1:5353 refused the TSIG key cds-test \(BADKEY\): the server knows no key of that name and algorithm/),
    });
    expect(updateAnswerError(ctx, 'NOTAUTH', { status: 'error', error: 18, errorName: 'BADTIME', serverTime: now + 3600 }, now)).toMatchObject({
      reason: 'tsig_refused', message: expect.stringContaining("(BADTIME): this host's clock and the server's differ by 3600 s"),
    });
    // A TSIG error decides even under another response code.
    expect(updateAnswerError(ctx, 'REFUSED', { status: 'error', error: 21, errorName: 'BADALG' }, now)).toMatchObject({ reason: 'tsig_refused', message: expect.stringContaining('(BADALG)') });
  });

  it('maps the response codes', () => {
    expect(updateAnswerError(ctx, 'NOTAUTH', valid, now)).toMatchObject({ reason: 'refused', message: expect.stringContaining('is not authoritative for the zone acme.edge.test (NOTAUTH)') });
    expect(updateAnswerError(ctx, 'NOTAUTH', { status: 'missing' }, now)).toMatchObject({ reason: 'refused' });
    expect(updateAnswerError(ctx, 'REFUSED', valid, now)).toMatchObject({ reason: 'refused', message: expect.stringContaining('(REFUSED): its update policy for the zone acme.edge.test (allow-update or update-policy) does not let the key cds-test') });
    expect(updateAnswerError(ctx, 'NOTZONE', valid, now)).toMatchObject({ reason: 'not_zone', message: expect.stringContaining('NOTZONE') });
    for (const rcode of ['SERVFAIL', 'FORMERR', 'NOTIMP', 'YXRRSET', 'RCODE 15']) {
      expect(updateAnswerError(ctx, rcode, valid, now)).toMatchObject({ reason: 'server_failure', message: `the DNS update server 127.0.0.1:5353 failed ${ctx.action} (${rcode}); its log says why` });
    }
  });

  it('does not take an unsigned or wrongly signed NOERROR for a done update', () => {
    expect(updateAnswerError(ctx, 'NOERROR', { status: 'missing' }, now)).toMatchObject({ reason: 'server_failure', message: expect.stringContaining('without a TSIG signature') });
    expect(updateAnswerError(ctx, 'NOERROR', { status: 'invalid', problem: 'its TSIG MAC does not verify' }, now)).toMatchObject({ reason: 'server_failure', message: expect.stringContaining('(its TSIG MAC does not verify)') });
  });
});
