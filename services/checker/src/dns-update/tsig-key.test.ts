import { parseTsigKey } from '@cds/config';
import { signingKey } from './tsig-key';

it('decodes the secret of ACME_DNS_TSIG_KEY for signing', () => {
  const secret = Buffer.alloc(32, 9);
  expect(signingKey(parseTsigKey(`Cds-Acme.:HMAC-SHA512.:${secret.toString('base64')}`))).toEqual({ name: 'cds-acme', algorithm: 'hmac-sha512', secret });
});
