import { caaIdentitiesOf, wellKnownCaaIdentities } from './caa-identities';

describe('CAA identities of a directory', () => {
  it.each([
    ['https://acme-v02.api.letsencrypt.org/directory', ['letsencrypt.org']],
    ['https://acme-staging-v02.api.letsencrypt.org/directory', ['letsencrypt.org']],
    ['https://acme.zerossl.com/v2/DV90', ['sectigo.com']],
    ['https://dv.acme-v02.api.pki.goog/directory', ['pki.goog']],
    ['https://ACME.ZeroSSL.com/v2/DV90', ['sectigo.com']],
    ['https://127.0.0.1:14000/dir', []],
    ['not a url', []],
  ])('%s is known as %j', (url, identities) => {
    expect(wellKnownCaaIdentities(url)).toEqual(identities);
  });

  it('takes the configured identities first, then what the directory lists, then the well-known ones', () => {
    const le = 'https://acme-v02.api.letsencrypt.org/directory';
    expect(caaIdentitiesOf(le, ['example-ca.test'], ['letsencrypt.org'])).toEqual(['example-ca.test']);
    expect(caaIdentitiesOf('https://ca.example/dir', null, ['example-ca.test'])).toEqual(['example-ca.test']);
    expect(caaIdentitiesOf(le, null, [])).toEqual(['letsencrypt.org']);
    expect(caaIdentitiesOf(le, null, null)).toEqual(['letsencrypt.org']);
    expect(caaIdentitiesOf('https://ca.example/dir', null, null)).toEqual([]);
  });
});
